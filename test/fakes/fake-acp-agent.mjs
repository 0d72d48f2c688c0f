#!/usr/bin/env node
/**
 * A fake ACP agent (Agent Client Protocol, JSON-RPC over stdio), built on the agent side of
 * @agentclientprotocol/sdk: what `gemini --acp`, `copilot --acp`, `opencode acp`,
 * `claude-agent-acp` and `codex-acp` are to sow's ACP transport. test/fakes/fake-agent.mjs hands
 * over to it when one of those is started in ACP mode; it can also be run directly:
 *
 *   node fake-acp-agent.mjs <name> [args...]
 *
 * Arguments after the name are not checked (only logged): what each real agent accepts beside its
 * ACP switch is not pinned down.
 *
 * Behaviour knobs (environment):
 *   FAKE_ACP_SCRIPT  JSON array of steps run, in order, on every session/prompt (see below); then the
 *                    turn ends with stopReason "end_turn". Absent: no steps.
 *   FAKE_ACP_LOAD    "0": the agent does not support session/load (loadSession false, and the method
 *                    answers "Method not found").
 *   FAKE_AGENT_LOG   the JSON-lines log below (the same file the fake CLIs write to).
 *   FAKE_AGENT_HOME  where sessions are kept (one file per session, <name>-acp-sessions/<id>.json),
 *                    so that a later process can load them.
 *
 * Steps (each logged as a `step` event with its `result`):
 *   {say: text}               agent_message_chunk updates (the text in up to three chunks).
 *   {plan: [entry, ...]}      a plan update (entries pending, priority medium).
 *   {run: command}            tool_call (kind execute, rawInput {command}), then
 *                             session/request_permission; if an allow option is chosen, `sh -c command` in
 *                             the session's cwd (with this process's environment), then tool_call_update
 *                             completed (exit 0) or failed, with its output. Refused: tool_call_update
 *                             failed, result "refused".
 *   {edit: path, text}        tool_call (kind edit, locations [{path}], a diff), permission; on allow the
 *                             file is written (a relative path is taken from the session's cwd).
 *   {read: path}              tool_call (kind read, locations [{path}]), permission; on allow the file is read.
 *   {mcp: {tool, arguments, server?}}  starts the stdio MCP server handed over in session/new (the one
 *                             named `server`, else the first stdio one) with the MCP SDK's client
 *                             (environment: the MCP SDK's default one — HOME, PATH, SHELL, TERM, USER,
 *                             LOGNAME — plus the server's `env`; cwd: the session's), calls the tool,
 *                             logs {structuredContent, text, isError}, closes.
 *   {flood: n}                n agent_message_chunk updates, sent without waiting.
 *   {garbage: text}           writes that raw line (not JSON-RPC) to stdout.
 *   {unknown: method}         sends a request with that method to the client; logs the error it got.
 *   {fsRead: path}            calls the client's fs/read_text_file (advertised or not); logs result or error.
 *   {wait: file}              polls until the file exists; if session/cancel arrives meanwhile the turn
 *                             ends at once with stopReason "cancelled".
 *   {usage: {input, output, size?, cost?}}  the stable schema has no per-turn token counts, only the
 *                             context window: a usage_update {used: input + output, size (default
 *                             200000), cost? {amount: cost, currency: "USD"}} is sent; and the turn's
 *                             answer carries the unstable `usage` {inputTokens, outputTokens, totalTokens}
 *                             (a client on the stable schema does not see it).
 *   {exit: code}              exits the process at once.
 * A permission answered "cancelled" (or an error) counts as refused; "cancelled" also ends the turn
 * with stopReason "cancelled". session/cancel during a permission request or a command ends the turn
 * "cancelled" once that step is over.
 *
 * Log: one JSON object per line, every one with
 *   {cli, pid, acp: true, argv, cwd, event, ...}
 * where cwd is the process's, and event is one of
 *   start        {env}: the SOW_* / IS_SANDBOX / OPENCODE_* environment
 *   initialize   {params}: the client's initialize params (clientCapabilities, protocolVersion, ...)
 *   session/new  {session, params}: params has cwd and mcpServers as sent
 *   session/load {session, params, known}: known false when the session was never created (an error)
 *   prompt       {session, text, params}: text is the prompt's text blocks joined by "\n"
 *   permission   {session, step, toolCall, outcome}: outcome as the client answered
 *                ({outcome: "selected", optionId} or {outcome: "cancelled"}), or {error: {code, message}}
 *   step         {session, step, result}: result per step kind, e.g. run → {allowed, exitCode, output}
 *                or "refused"; mcp → {structuredContent, text, isError} or {error}; unknown/fsRead →
 *                {result} or {error: {code, message}}; wait → "done" or "cancelled"
 *   cancel       {session}: session/cancel received
 *   stop         {session, stopReason}
 *   exit         {code, reason}: "stdin closed", "SIGTERM", "script"
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';

const PERMISSION_OPTIONS = [
  { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject-always', name: 'Always reject', kind: 'reject_always' },
];
const ALLOWING = new Set(PERMISSION_OPTIONS.filter((o) => o.kind.startsWith('allow')).map((o) => o.optionId));

/** Serves ACP on stdin/stdout as `cli`; resolves with the exit code once stdin closes. */
export function main(cli, argv) {
  const log = (event, fields = {}) => {
    if (!process.env.FAKE_AGENT_LOG) return;
    appendFileSync(process.env.FAKE_AGENT_LOG, `${JSON.stringify({ cli, pid: process.pid, acp: true, argv, cwd: process.cwd(), event, ...fields })}\n`);
  };
  log('start', {
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SOW_') || k === 'IS_SANDBOX' || k.startsWith('OPENCODE_'))),
  });
  process.on('SIGTERM', () => {
    log('exit', { code: 143, reason: 'SIGTERM' });
    process.exit(143);
  });

  const script = process.env.FAKE_ACP_SCRIPT ? JSON.parse(process.env.FAKE_ACP_SCRIPT) : [];
  const canLoad = process.env.FAKE_ACP_LOAD !== '0';
  const sessionsDir = join(process.env.FAKE_AGENT_HOME ?? '/tmp/fake-agent-home', `${cli}-acp-sessions`);
  mkdirSync(sessionsDir, { recursive: true });
  const sessionFile = (id) => join(sessionsDir, `${encodeURIComponent(id)}.json`);
  /** Sessions this process serves: id → {cwd, mcpServers, history, cancelled}. */
  const sessions = new Map();
  const save = (id) => {
    const { cwd, mcpServers, history } = sessions.get(id);
    const tmp = `${sessionFile(id)}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ cwd, mcpServers, history }));
    renameSync(tmp, sessionFile(id));
  };
  const session = (id) => {
    const s = sessions.get(id);
    if (!s) throw RequestError.sessionNotFound(id);
    return s;
  };
  const errorOf = (e) => ({ code: e?.code ?? null, message: String(e?.message ?? e) });

  const app = agent({ name: `fake ${cli}` })
    .onRequest(methods.agent.initialize, ({ params }) => {
      log('initialize', { params });
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: canLoad,
          promptCapabilities: { image: false, audio: false, embeddedContext: false },
          mcpCapabilities: { http: false, sse: false },
        },
        agentInfo: { name: cli, version: '0.0.0-fake' },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, ({ params }) => {
      const id = randomUUID();
      sessions.set(id, { cwd: params.cwd, mcpServers: params.mcpServers ?? [], history: [], cancelled: false });
      save(id);
      log('session/new', { session: id, params });
      return { sessionId: id };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const id = params.sessionId;
      const s = session(id);
      s.cancelled = false;
      const text = params.prompt
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('\n');
      log('prompt', { session: id, text, params });
      s.history.push({ role: 'user', text });
      const stop = (stopReason, extra = {}) => {
        save(id);
        log('stop', { session: id, stopReason });
        return { stopReason, ...extra };
      };
      let usage;
      for (const [i, step] of script.entries()) {
        if (s.cancelled) return stop('cancelled');
        const result = await runStep(client, id, s, i, step);
        log('step', { session: id, step, result });
        if (step.usage) usage = { inputTokens: step.usage.input, outputTokens: step.usage.output, totalTokens: step.usage.input + step.usage.output };
        if (result === 'cancelled' || s.cancelled) return stop('cancelled');
      }
      return stop('end_turn', usage ? { usage } : {});
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      log('cancel', { session: params.sessionId });
      const s = sessions.get(params.sessionId);
      if (s) {
        s.cancelled = true;
        for (const wake of s.waiters ?? []) wake();
      }
    });
  if (canLoad)
    app.onRequest(methods.agent.session.load, async ({ params, client }) => {
      const id = params.sessionId;
      const known = existsSync(sessionFile(id));
      log('session/load', { session: id, params, known });
      if (!known) throw RequestError.sessionNotFound(id);
      const stored = JSON.parse(readFileSync(sessionFile(id), 'utf8'));
      sessions.set(id, { cwd: params.cwd, mcpServers: params.mcpServers ?? [], history: stored.history, cancelled: false });
      save(id);
      // As the protocol asks: the conversation so far is replayed before the answer.
      for (const turn of stored.history)
        await client.notify(methods.client.session.update, {
          sessionId: id,
          update: { sessionUpdate: turn.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk', content: { type: 'text', text: turn.text } },
        });
      return {};
    });

  const update = (client, sessionId, u) => client.notify(methods.client.session.update, { sessionId, update: u });

  /** Asks the client; returns {allowed, cancelled} and logs what it answered. */
  async function ask(client, sessionId, step, toolCall) {
    let answer;
    try {
      answer = await client.request(methods.client.session.requestPermission, { sessionId, toolCall, options: PERMISSION_OPTIONS });
    } catch (e) {
      log('permission', { session: sessionId, step, toolCall, error: errorOf(e) });
      return { allowed: false, cancelled: false };
    }
    log('permission', { session: sessionId, step, toolCall, outcome: answer.outcome });
    const o = answer.outcome;
    return { allowed: o.outcome === 'selected' && ALLOWING.has(o.optionId), cancelled: o.outcome === 'cancelled' };
  }

  async function runStep(client, sessionId, s, i, step) {
    const toolCallId = `call_${i}_${randomUUID().slice(0, 8)}`;
    const text = (t) => [{ type: 'content', content: { type: 'text', text: t } }];
    if (step.say !== undefined) {
      const t = String(step.say);
      const third = Math.ceil(t.length / 3) || 1;
      for (let k = 0; k < t.length || k === 0; k += third) await update(client, sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t.slice(k, k + third) } });
      s.history.push({ role: 'agent', text: t });
      return 'said';
    }
    if (step.plan) {
      await update(client, sessionId, { sessionUpdate: 'plan', entries: step.plan.map((content) => ({ content, priority: 'medium', status: 'pending' })) });
      return 'planned';
    }
    if (step.run !== undefined) {
      const toolCall = { toolCallId, title: `Run ${step.run}`, kind: 'execute', status: 'pending', rawInput: { command: step.run } };
      await update(client, sessionId, { sessionUpdate: 'tool_call', ...toolCall });
      const { allowed, cancelled } = await ask(client, sessionId, step, toolCall);
      if (!allowed) {
        await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: text('The user refused to run this command.') });
        return cancelled ? 'cancelled' : 'refused';
      }
      await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
      const r = await sh(step.run, s.cwd);
      await update(client, sessionId, {
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: r.exitCode === 0 ? 'completed' : 'failed',
        content: text(r.output),
        rawOutput: { exitCode: r.exitCode, output: r.output },
      });
      return { allowed: true, ...r };
    }
    if (step.edit !== undefined) {
      const path = isAbsolute(step.edit) ? step.edit : resolve(s.cwd, step.edit);
      const oldText = existsSync(path) ? readFileSync(path, 'utf8') : null;
      const toolCall = {
        toolCallId,
        title: `Edit ${step.edit}`,
        kind: 'edit',
        status: 'pending',
        locations: [{ path }],
        content: [{ type: 'diff', path, oldText, newText: step.text ?? '' }],
        rawInput: { path, text: step.text ?? '' },
      };
      await update(client, sessionId, { sessionUpdate: 'tool_call', ...toolCall });
      const { allowed, cancelled } = await ask(client, sessionId, step, toolCall);
      if (!allowed) {
        await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: text('The user refused this edit.') });
        return cancelled ? 'cancelled' : 'refused';
      }
      try {
        writeFileSync(path, step.text ?? '');
      } catch (e) {
        await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: text(String(e.message)) });
        return { allowed: true, error: String(e.message) };
      }
      await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
      return { allowed: true, written: path };
    }
    if (step.read !== undefined) {
      const path = isAbsolute(step.read) ? step.read : resolve(s.cwd, step.read);
      const toolCall = { toolCallId, title: `Read ${step.read}`, kind: 'read', status: 'pending', locations: [{ path }], rawInput: { path } };
      await update(client, sessionId, { sessionUpdate: 'tool_call', ...toolCall });
      const { allowed, cancelled } = await ask(client, sessionId, step, toolCall);
      if (!allowed) {
        await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: text('The user refused this read.') });
        return cancelled ? 'cancelled' : 'refused';
      }
      let content;
      try {
        content = readFileSync(path, 'utf8');
      } catch (e) {
        await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: text(String(e.message)) });
        return { allowed: true, error: String(e.message) };
      }
      await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: text(content) });
      return { allowed: true, bytes: Buffer.byteLength(content) };
    }
    if (step.mcp) return callMcp(s, step.mcp);
    if (step.flood !== undefined) {
      const sends = [];
      for (let k = 0; k < step.flood; k++) sends.push(update(client, sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `flood ${k} ` } }));
      await Promise.all(sends);
      return { sent: step.flood };
    }
    if (step.garbage !== undefined) {
      process.stdout.write(`${step.garbage}\n`);
      return 'written';
    }
    if (step.unknown !== undefined) {
      try {
        return { result: await client.request(step.unknown, { sessionId }) };
      } catch (e) {
        return { error: errorOf(e) };
      }
    }
    if (step.fsRead !== undefined) {
      try {
        return { result: await client.request(methods.client.fs.readTextFile, { sessionId, path: step.fsRead }) };
      } catch (e) {
        return { error: errorOf(e) };
      }
    }
    if (step.wait !== undefined) {
      s.waiters ??= new Set();
      const done = await new Promise((wake) => {
        const poll = setInterval(() => existsSync(step.wait) && finish('done'), 25);
        const onCancel = () => finish('cancelled');
        const finish = (how) => {
          clearInterval(poll);
          s.waiters.delete(onCancel);
          wake(how);
        };
        s.waiters.add(onCancel);
        if (s.cancelled) finish('cancelled');
      });
      return done;
    }
    if (step.usage) {
      const u = { sessionUpdate: 'usage_update', used: step.usage.input + step.usage.output, size: step.usage.size ?? 200_000 };
      if (step.usage.cost !== undefined) u.cost = { amount: step.usage.cost, currency: 'USD' };
      await update(client, sessionId, u);
      return 'sent';
    }
    if (step.exit !== undefined) {
      log('exit', { code: step.exit, reason: 'script' });
      process.exit(step.exit);
    }
    return { error: `unknown step ${JSON.stringify(step)}` };
  }

  async function callMcp(s, { tool, arguments: args = {}, server }) {
    const stdio = s.mcpServers.filter((m) => typeof m.command === 'string' && (server === undefined || m.name === server));
    if (!stdio.length) return { error: `no stdio MCP server${server ? ` named ${server}` : ''} in session/new` };
    const m = stdio[0];
    // Loaded here only: most runs never call an MCP tool, and the fake starts faster without it.
    const [{ Client }, { StdioClientTransport, getDefaultEnvironment }] = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/stdio.js')]);
    const transport = new StdioClientTransport({
      command: m.command,
      args: m.args ?? [],
      env: { ...getDefaultEnvironment(), ...Object.fromEntries((m.env ?? []).map((e) => [e.name, e.value])) },
      cwd: s.cwd,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const mcp = new Client({ name: `fake ${cli}`, version: '0.0.0' });
    try {
      await mcp.connect(transport);
      const r = await mcp.callTool({ name: tool, arguments: args });
      const text = (r.content ?? [])
        .filter((c) => c.type === 'text')
        .map((c) => c.text)
        .join('\n');
      return { server: m.name, structuredContent: r.structuredContent ?? null, text, isError: r.isError ?? false };
    } catch (e) {
      return { server: m.name, error: String(e?.message ?? e), stderr };
    } finally {
      await mcp.close().catch(() => {});
    }
  }

  const connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
  return connection.closed.then(
    () => (log('exit', { code: 0, reason: 'stdin closed' }), 0),
    (e) => (log('exit', { code: 0, reason: `connection closed: ${e?.message ?? e}` }), 0),
  );
}

/** Runs a shell command without blocking the connection (a cancel must still be read meanwhile). */
function sh(command, cwd) {
  return new Promise((done) => {
    const child = spawn('sh', ['-c', command], { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => done({ exitCode: 127, output: String(e.message) }));
    child.on('close', (code, signal) => done({ exitCode: code ?? (signal ? 128 : 1), output }));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [name, ...rest] = process.argv.slice(2);
  main(name ?? 'fake-acp', rest).then((code) => process.exit(code));
}
