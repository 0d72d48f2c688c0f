#!/usr/bin/env node
/**
 * A fake ACP agent (Agent Client Protocol, JSON-RPC over stdio), built on the agent side of
 * @agentclientprotocol/sdk: what `gemini --acp`, `copilot --acp`, `opencode acp`,
 * `claude-agent-acp` and `codex-acp` are to sow's ACP transport. test/fakes/fake-agent.mjs hands
 * over to it when one of those is started in ACP mode; it can also be run directly:
 *
 *   node fake-acp-agent.mjs <name> [args...]
 *
 * Arguments after the name are only logged (and `--skip-trust` read for gemini, below).
 *
 * Behaviour knobs (environment):
 *   FAKE_ACP_SCRIPT  JSON array of steps run, in order, on every session/prompt (see below); then the
 *                    turn ends with stopReason "end_turn". Absent: no steps.
 *   FAKE_ACP_LOAD    "0": the agent does not support session/load (loadSession false, and the method
 *                    answers "Method not found", -32601).
 *   FAKE_ACP_SHAPE   "generic": every name behaves as the generic agent (no quirks, below).
 *   FAKE_ACP_MODELS  "a,b": session/new offers a model option (category model, a current), and
 *                    session/set_config_option is answered and logged (event session/set_config_option).
 *   FAKE_ACP_LINGER  "1": the process stays when its stdin closes and ignores SIGTERM (as Codex's
 *                    adapter and Gemini CLI do): only SIGKILL ends it.
 *   FAKE_ACP_MODE    the mode session/new and session/load report as current (`modes.currentModeId`),
 *                    with this agent's modes as available (MODES); in a mode that does not ask
 *                    (bypassPermissions, yolo; acceptEdits, autoEdit for edits) the agent acts without
 *                    asking (logged as notAsked). claude-agent-acp always reports modes, opening in the
 *                    project's permissions.defaultMode (.claude/settings.local.json, then settings.json)
 *                    as the real adapter does.
 *   FAKE_ACP_MODES_OFFERED  "a,b": the modes offered instead of this agent's own.
 *   FAKE_ACP_SET_MODE  "refuse": session/set_mode answers an error (-32603 "Invalid Mode"); otherwise
 *                    it switches the session's mode and is logged (event session/set_mode).
 *   FAKE_AGENT_LOG   the JSON-lines log below (the same file the fake CLIs write to).
 *   FAKE_AGENT_HOME  where sessions are kept (one file per session, <name>-acp-sessions/<id>.json),
 *                    so that a later process can load them: session/load of an id no process made
 *                    answers -32002 (resource not found); of a known one, replays its history
 *                    (user_message_chunk, agent_message_chunk) and answers {}.
 *
 * Steps (each logged as a `step` event with its `result`):
 *   {say: text}               agent_message_chunk updates (the text in up to three chunks).
 *   {plan: [entry, ...]}      a plan update (entries pending, priority medium).
 *   {run: command}            tool_call (kind execute; the command where this agent puts it, see SHAPES),
 *                             then session/request_permission with this agent's options; if an option
 *                             of kind allow_* is chosen, `sh -c command` in the session's cwd (with this
 *                             process's environment: a worker's SOW_* reach sow), then tool_call_update
 *                             completed (exit 0) or failed, with its output; result {allowed, exitCode,
 *                             output}. Refused: tool_call_update failed, result "refused".
 *   {edit: path, text}        tool_call (kind edit, locations [{path}], this agent's diff), permission;
 *                             on allow the file is written (a relative path is taken from the session's
 *                             cwd; locations always carry the absolute one).
 *   {read: path}              tool_call (kind read, locations [{path}], rawInput {path}: the same for
 *                             every agent, not measured), permission; on allow the file is read.
 *   {ask: toolCall, then?: command}  tool_call with exactly the fields given (kind, title, rawInput,
 *                             locations, content: any shape, whatever this agent's own), then the permission;
 *                             on allow, `sh -c then` in the session's cwd when given. Result {allowed, exitCode?,
 *                             output?}, or "refused".
 *   {mcp: {tool, arguments, server?}}  starts the stdio MCP server handed over in session/new (the one
 *                             named `server`, else the first stdio one) with the MCP SDK's client, in
 *                             the session's cwd, with the server's `env` added to the environment
 *                             (codex-acp and generic: the MCP SDK's minimal one — HOME, PATH, SHELL,
 *                             TERM, USER, LOGNAME; the others: their own whole one); calls the tool,
 *                             result {server, structuredContent, text, isError} or {server, error}; closes.
 *   {flood: n}                n agent_message_chunk updates, sent without waiting.
 *   {garbage: text}           writes that raw line (not JSON-RPC) to stdout.
 *   {unknown: method}         sends a request with that method to the client; result {error} it got back.
 *   {fsRead: path}            calls the client's fs/read_text_file (advertised or not); {result} or {error}.
 *   {wait: file, ms?}         polls until the file exists ("done"); if session/cancel arrives meanwhile,
 *                             "cancelled" and the turn ends at once with stopReason "cancelled"; after
 *                             `ms` (if given), "timeout" and the turn goes on.
 *   {usage: {input, output, size?, cost?}}  the stable schema has a usage_update about the context
 *                             window only: {used: input + output, size (default 200000), cost? {amount:
 *                             cost, currency: "USD"}} is sent. The turn's answer then also carries the
 *                             unstable PromptResponse.usage {inputTokens, outputTokens, totalTokens}, as
 *                             copilot, opencode and claude-agent-acp send it (the stable SDK client
 *                             passes it through).
 *   {exit: code}              exits the process at once.
 *   {mode: id}                the agent switches its own mode and says so (current_mode_update).
 * A permission answered "cancelled" (or with an error, or an option not offered) is a refusal;
 * "cancelled" also ends the turn with stopReason "cancelled". session/cancel during a permission
 * request or a command ends the turn "cancelled" once that step is over.
 *
 * Quirks of the real agents (measured 2026-11-27; off with FAKE_ACP_SHAPE=generic):
 *   every one     its own option ids and tool-call shape (SHAPES): choose options by kind.
 *   gemini        no rawInput: the command is the title. session/load always fails (-32603, data.details
 *                 "No previous sessions found for this project."). MCP servers are not started
 *                 without --skip-trust (an untrusted folder).
 *   copilot       refuses stdio MCP servers (only http/sse): the mcp step fails.
 *   opencode      asks no permission unless OPENCODE_PERMISSION or OPENCODE_CONFIG_CONTENT's `permission` says
 *                 "ask" (for all, or for bash / edit / read): otherwise it just runs (logged as notAsked).
 *   claude-agent-acp  as root with IS_SANDBOX set to anything but "1", session/new fails: -32603,
 *                 data.details "Query closed before response received". It runs a command unasked
 *                 when the project's settings allow all of Bash (permissions.allow "Bash" or
 *                 "Bash(*)" in .claude/settings.json or .claude/settings.local.json), unless
 *                 session/new's _meta.claudeCode.options.settingSources leaves project and local out.
 *   codex-acp     session/new fails (-32000 "Authentication required") until `authenticate` with
 *                 methodId "codex-api-key" (CODEX_API_KEY set) or "openai-api-key" (OPENAI_API_KEY);
 *                 a refused permission ends the whole turn (stopReason "cancelled").
 *
 * Log: one JSON object per line, every one with
 *   {cli, pid, acp: true, argv, cwd, event, ...}
 * where cwd is the process's, and event is one of
 *   start        {env}: the SOW_* / IS_SANDBOX / OPENCODE_* environment
 *   initialize   {params}: the client's initialize params (clientCapabilities, protocolVersion, ...)
 *   authenticate {params, result: "ok" | "refused"}
 *   session/new  {session, params}: params has cwd and mcpServers as sent; session null and an
 *                `error` when refused
 *   session/load {session, params, known}: known false when no process made that session
 *   session/opened {session, mode}: a loaded session's mode (session/new logs its own as `mode`)
 *   session/set_mode {session, params, from, result: "ok" | "refused"}
 *   prompt       {session, text, params}: text is the prompt's text blocks joined by "\n"
 *   permission   {session, step, toolCall, outcome}: outcome as the client answered
 *                ({outcome: "selected", optionId} or {outcome: "cancelled"}); or `error` {code,
 *                message} instead of outcome; or `notAsked` (why) when the agent did not ask
 *   step         {session, step, result}: result as listed with each step above
 *   cancel       {session}: session/cancel received
 *   stop         {session, stopReason}
 *   exit         {code, reason}: "stdin closed", "SIGTERM", "script"
 *   linger       {reason: "stdin closed"}: FAKE_ACP_LINGER, it stays
 *   ignored      {signal: "SIGTERM"}: FAKE_ACP_LINGER, it goes on
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';

const option = ([optionId, name, kind]) => ({ optionId, name, kind });
const say = (text) => [{ type: 'content', content: { type: 'text', text } }];
const diffText = (path, oldText, newText) =>
  `--- ${oldText === null ? '/dev/null' : path}\n+++ ${path}\n@@ -0,0 +1 @@\n${newText
    .split('\n')
    .filter(Boolean)
    .map((l) => `+${l}`)
    .join('\n')}\n`;

/**
 * How each agent words a permission request: the options it offers and the tool call it shows, as
 * the real ones did in the pinned versions (2026-11-27; gemini 0.61.0, copilot 1.0.102, opencode
 * 1.18.33, claude-agent-acp 0.23.1, codex-acp 0.16.0). `generic` is any other name, or every name
 * with FAKE_ACP_SHAPE=generic. No two agents agree on option ids or on where the command is.
 */
const SHAPES = {
  generic: {
    options: [
      ['allow-once', 'Allow', 'allow_once'],
      ['allow-always', 'Always allow', 'allow_always'],
      ['reject-once', 'Reject', 'reject_once'],
      ['reject-always', 'Always reject', 'reject_always'],
    ],
    execute: (command) => ({ title: `Run ${command}`, rawInput: { command } }),
    edit: (path, oldText, newText) => ({
      title: `Edit ${path}`,
      content: [{ type: 'diff', path, oldText, newText }],
      rawInput: { path, text: newText },
    }),
  },
  // No rawInput: the command is the title, the folder is in the text.
  gemini: {
    options: [
      ['proceed_always', 'Allow for this session', 'allow_always'],
      ['proceed_once', 'Allow', 'allow_once'],
      ['cancel', 'Reject', 'reject_once'],
    ],
    execute: (command, cwd) => ({
      title: command,
      content: say(`[current working directory ${cwd}] (Run a command)`),
      locations: [],
    }),
    edit: (path, oldText, newText, cwd) => ({
      title: `Writing to ${relative(cwd, path)}`,
      content: [{ type: 'diff', path, oldText: oldText ?? '', newText }],
    }),
  },
  // The title is the model's description of the command, not the command.
  copilot: {
    options: [
      ['allow_once', 'Allow once', 'allow_once'],
      ['allow_always', 'Always allow', 'allow_always'],
      ['reject_once', 'Deny', 'reject_once'],
    ],
    execute: (command) => ({ title: 'Run a command', rawInput: { command, commands: [command] } }),
    edit: (path, oldText, newText) => ({
      title: oldText === null ? 'Create file' : 'Edit file',
      rawInput: { fileName: path, diff: diffText(path, oldText, newText) },
    }),
  },
  opencode: {
    options: [
      ['once', 'Allow once', 'allow_once'],
      ['always', 'Always allow', 'allow_always'],
      ['reject', 'Reject', 'reject_once'],
    ],
    execute: (command) => ({ title: command, locations: [], rawInput: { command } }),
    edit: (path, oldText, newText) => ({
      title: path,
      content: [{ type: 'diff', path, oldText: oldText ?? '', newText }],
      rawInput: { filepath: path, diff: diffText(path, oldText, newText) },
    }),
  },
  'claude-agent-acp': {
    options: [
      ['allow_always', 'Always Allow', 'allow_always'],
      ['allow', 'Allow', 'allow_once'],
      ['reject', 'Reject', 'reject_once'],
    ],
    execute: (command) => ({
      title: command,
      content: say('Run a command'),
      rawInput: { command, description: 'Run a command' },
    }),
    edit: (path, oldText, newText, cwd) => ({
      title: `Write ${relative(cwd, path)}`,
      content: [{ type: 'diff', path, oldText, newText }],
      rawInput: { file_path: path, content: newText },
    }),
  },
  // The command is an argv list run by a login shell; refusing ("abort") ends the whole turn.
  'codex-acp': {
    options: [
      ['approved', 'Yes, proceed', 'allow_once'],
      ['approved-execpolicy-amendment', "Yes, and don't ask again for commands that start with this", 'allow_always'],
      ['abort', 'No, and tell Codex what to do differently', 'reject_once'],
    ],
    execute: (command, cwd) => ({
      title: command,
      rawInput: { command: ['/bin/bash', '-lc', command], cwd, parsed_cmd: [{ type: 'unknown', cmd: command }] },
    }),
    edit: (path, oldText, newText) => ({
      title: `Edit ${path}`,
      content: [{ type: 'diff', path, newText }],
      rawInput: {
        changes: {
          [path]:
            oldText === null
              ? { type: 'add', content: newText }
              : { type: 'update', unified_diff: diffText(path, oldText, newText) },
        },
      },
    }),
    rejectEndsTurn: true,
  },
};
for (const shape of Object.values(SHAPES)) shape.options = shape.options.map(option);

/** The modes each agent offers (ids as the real ones name them); generic: default and whatever FAKE_ACP_MODE names. */
const MODES = {
  'claude-agent-acp': ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'],
  gemini: ['default', 'autoEdit', 'yolo', 'plan'],
};
/** Modes in which the agent does not ask: for everything, or for edits. */
const UNASKED = { all: ['bypassPermissions', 'yolo'], edit: ['acceptEdits', 'autoEdit'] };

/** A JSON file's value, or undefined. */
function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}
/** Claude Code's project and local settings in `cwd` (local first), each as parsed. */
const claudeProjectSettings = (cwd) =>
  ['.claude/settings.local.json', '.claude/settings.json'].map((f) => readJson(join(cwd, f))).filter(Boolean);

/** Serves ACP on stdin/stdout as `cli`; resolves with the exit code once stdin closes. */
export function main(cli, argv) {
  const log = (event, fields = {}) => {
    if (!process.env.FAKE_AGENT_LOG) return;
    appendFileSync(
      process.env.FAKE_AGENT_LOG,
      `${JSON.stringify({ cli, pid: process.pid, acp: true, argv, cwd: process.cwd(), event, ...fields })}\n`,
    );
  };
  log('start', {
    env: Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => k.startsWith('SOW_') || k === 'IS_SANDBOX' || k.startsWith('OPENCODE_'),
      ),
    ),
  });
  const linger = process.env.FAKE_ACP_LINGER === '1';
  process.on('SIGTERM', () => {
    if (linger) return log('ignored', { signal: 'SIGTERM' });
    log('exit', { code: 143, reason: 'SIGTERM' });
    process.exit(143);
  });

  const generic = process.env.FAKE_ACP_SHAPE === 'generic' || !(cli in SHAPES);
  const shape = generic ? SHAPES.generic : SHAPES[cli];
  /** The agent's own ways, as the real one has them (none with FAKE_ACP_SHAPE=generic). */
  const quirk = generic ? '' : cli;
  let authenticated = false;
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
        authMethods:
          quirk === 'codex-acp'
            ? [
                { type: 'env_var', id: 'codex-api-key', name: 'Use CODEX_API_KEY', vars: [{ name: 'CODEX_API_KEY' }] },
                {
                  type: 'env_var',
                  id: 'openai-api-key',
                  name: 'Use OPENAI_API_KEY',
                  vars: [{ name: 'OPENAI_API_KEY' }],
                },
              ]
            : [],
      };
    })
    .onRequest(methods.agent.authenticate, ({ params }) => {
      const variable = { 'codex-api-key': 'CODEX_API_KEY', 'openai-api-key': 'OPENAI_API_KEY' }[params.methodId];
      authenticated = quirk === 'codex-acp' && variable !== undefined && !!process.env[variable];
      log('authenticate', { params, result: authenticated ? 'ok' : 'refused' });
      if (!authenticated) throw new RequestError(-32000, 'Authentication required');
      return {};
    })
    .onRequest(methods.agent.session.new, ({ params }) => {
      // codex-acp serves no session before `authenticate`, whatever key is in its environment.
      if (quirk === 'codex-acp' && !authenticated) {
        log('session/new', { session: null, params, error: { code: -32000, message: 'Authentication required' } });
        throw new RequestError(-32000, 'Authentication required');
      }
      // Any IS_SANDBOX makes the adapter offer Claude Code's bypass mode; run as root, Claude Code then
      // refuses to start unless it is exactly "1", and the adapter says only this.
      if (
        quirk === 'claude-agent-acp' &&
        process.getuid?.() === 0 &&
        process.env.IS_SANDBOX &&
        process.env.IS_SANDBOX !== '1'
      ) {
        log('session/new', { session: null, params, error: { code: -32603, message: 'Internal error' } });
        throw new RequestError(-32603, 'Internal error', { details: 'Query closed before response received' });
      }
      const id = randomUUID();
      sessions.set(id, {
        cwd: params.cwd,
        mcpServers: params.mcpServers ?? [],
        history: [],
        cancelled: false,
        ...opening(params),
      });
      save(id);
      log('session/new', { session: id, params, mode: sessions.get(id).mode ?? null });
      const modes = modesOf(sessions.get(id));
      // FAKE_ACP_MODELS="a,b": a model option (the first is current), as opencode and the adapters offer one.
      const models = (process.env.FAKE_ACP_MODELS ?? '').split(',').filter(Boolean);
      if (!models.length) return { sessionId: id, ...modes };
      const configOptions = [
        {
          id: 'model',
          name: 'Model',
          category: 'model',
          type: 'select',
          currentValue: models[0],
          options: models.map((m) => ({ value: m, name: m })),
        },
      ];
      return { sessionId: id, configOptions, ...modes };
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      const s = session(params.sessionId);
      const refused = process.env.FAKE_ACP_SET_MODE === 'refuse' || !offered(s).includes(params.modeId);
      log('session/set_mode', {
        session: params.sessionId,
        params,
        from: s.mode ?? null,
        result: refused ? 'refused' : 'ok',
      });
      if (refused) throw new RequestError(-32603, 'Internal error', { details: 'Invalid Mode' });
      s.mode = params.modeId;
      return {};
    })
    .onRequest(methods.agent.session.setConfigOption, ({ params }) => {
      log('session/set_config_option', { session: params.sessionId, params });
      return { configOptions: [] };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const id = params.sessionId;
      const s = session(id);
      s.cancelled = false;
      s.endTurn = false;
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
        if (step.usage)
          usage = {
            inputTokens: step.usage.input,
            outputTokens: step.usage.output,
            totalTokens: step.usage.input + step.usage.output,
          };
        if (result === 'cancelled' || s.cancelled || s.endTurn) return stop('cancelled');
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
      // gemini 0.61.0 advertises loadSession but, in a new process, rewrites the session's file
      // before reading it, and then finds nothing to load.
      if (quirk === 'gemini')
        throw new RequestError(-32603, 'Internal error', { details: 'No previous sessions found for this project.' });
      if (!known) throw RequestError.sessionNotFound(id);
      const stored = JSON.parse(readFileSync(sessionFile(id), 'utf8'));
      sessions.set(id, {
        cwd: params.cwd,
        mcpServers: params.mcpServers ?? [],
        history: stored.history,
        cancelled: false,
        ...opening(params),
      });
      save(id);
      log('session/opened', { session: id, mode: sessions.get(id).mode ?? null });
      // As the protocol asks: the conversation so far is replayed before the answer.
      for (const turn of stored.history)
        await client.notify(methods.client.session.update, {
          sessionId: id,
          update: {
            sessionUpdate: turn.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
            content: { type: 'text', text: turn.text },
          },
        });
      return modesOf(sessions.get(id));
    });

  const update = (client, sessionId, u) => client.notify(methods.client.session.update, { sessionId, update: u });

  /**
   * What a session opens with: its mode (FAKE_ACP_MODE; Claude's adapter: the project's
   * permissions.defaultMode, else default) and whether the project's settings allow all of Bash
   * (Claude's adapter, unless _meta's settingSources leaves the project's settings out).
   */
  function opening(params) {
    const claudeQuirk = quirk === 'claude-agent-acp';
    const project = claudeQuirk ? claudeProjectSettings(params.cwd) : [];
    const sources = params._meta?.claudeCode?.options?.settingSources ?? ['user', 'project', 'local'];
    const projectMode = project.map((p) => p?.permissions?.defaultMode).find((m) => typeof m === 'string');
    const mode = process.env.FAKE_ACP_MODE ?? (claudeQuirk ? (projectMode ?? 'default') : undefined);
    const loaded = project.filter((_, i) => sources.includes(i === 0 ? 'local' : 'project'));
    const allowsAllBash = loaded.some((p) =>
      (p?.permissions?.allow ?? []).some((r) => r === 'Bash' || r === 'Bash(*)'),
    );
    return { ...(mode ? { mode } : {}), allowsAllBash };
  }
  /** The modes a session offers. */
  function offered(s) {
    if (process.env.FAKE_ACP_MODES_OFFERED) return process.env.FAKE_ACP_MODES_OFFERED.split(',');
    const own = MODES[quirk] ?? ['default'];
    return s.mode && !own.includes(s.mode) ? [...own, s.mode] : own;
  }
  /** The `modes` of a session/new or session/load answer, when the session has a mode. */
  function modesOf(s) {
    if (!s?.mode) return {};
    return { modes: { currentModeId: s.mode, availableModes: offered(s).map((id) => ({ id, name: id })) } };
  }
  /** Why the agent acts without asking, if it does. */
  function unasked(s, tool) {
    if (UNASKED.all.includes(s.mode)) return `its mode is ${s.mode}`;
    if (tool === 'edit' && UNASKED.edit.includes(s.mode)) return `its mode is ${s.mode}`;
    if (tool === 'bash' && s.allowsAllBash) return 'the project settings allow Bash';
    return undefined;
  }

  /** Asks the client; returns {allowed, cancelled} and logs what it answered. */
  async function ask(client, sessionId, step, toolCall) {
    let answer;
    try {
      answer = await client.request(methods.client.session.requestPermission, {
        sessionId,
        toolCall,
        options: shape.options,
      });
    } catch (e) {
      log('permission', { session: sessionId, step, toolCall, error: errorOf(e) });
      return { allowed: false, cancelled: false, endsTurn: !!shape.rejectEndsTurn };
    }
    log('permission', { session: sessionId, step, toolCall, outcome: answer.outcome });
    const o = answer.outcome;
    // An option this agent did not offer allows nothing.
    const chosen = o.outcome === 'selected' ? shape.options.find((x) => x.optionId === o.optionId) : undefined;
    const allowed = !!chosen?.kind.startsWith('allow');
    return { allowed, cancelled: o.outcome === 'cancelled', endsTurn: !allowed && !!shape.rejectEndsTurn };
  }

  /**
   * opencode asks nothing unless its configuration says "ask" for the tool, `permission: "ask"` or
   * `permission: {bash|edit: "ask"}` — in OPENCODE_CONFIG_CONTENT, or in OPENCODE_PERMISSION, which
   * is merged over every other layer: by default it just runs.
   */
  function opencodeAsks(tool) {
    const read = (text, key) => {
      try {
        const value = JSON.parse(text ?? 'null');
        return key ? value?.[key] : value;
      } catch {
        return undefined;
      }
    };
    const permission = read(process.env.OPENCODE_PERMISSION) ?? read(process.env.OPENCODE_CONFIG_CONTENT, 'permission');
    return permission === 'ask' || permission?.[tool] === 'ask';
  }

  /** Asks, unless this agent would not have asked (logged as notAsked). */
  async function permit(client, sessionId, step, toolCall, tool) {
    const why = unasked(sessions.get(sessionId), tool);
    if (why) {
      log('permission', { session: sessionId, step, toolCall, notAsked: why });
      return { allowed: true, cancelled: false, endsTurn: false };
    }
    if (quirk === 'opencode' && !opencodeAsks(tool)) {
      log('permission', {
        session: sessionId,
        step,
        toolCall,
        notAsked: `its configuration does not say "ask" for ${tool}`,
      });
      return { allowed: true, cancelled: false, endsTurn: false };
    }
    return ask(client, sessionId, step, toolCall);
  }

  async function runStep(client, sessionId, s, i, step) {
    const toolCallId = `call_${i}_${randomUUID().slice(0, 8)}`;
    const text = (t) => [{ type: 'content', content: { type: 'text', text: t } }];
    if (step.say !== undefined) {
      const t = String(step.say);
      const third = Math.ceil(t.length / 3) || 1;
      for (let k = 0; k < t.length || k === 0; k += third)
        await update(client, sessionId, {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: t.slice(k, k + third) },
        });
      s.history.push({ role: 'agent', text: t });
      return 'said';
    }
    if (step.plan) {
      await update(client, sessionId, {
        sessionUpdate: 'plan',
        entries: step.plan.map((content) => ({ content, priority: 'medium', status: 'pending' })),
      });
      return 'planned';
    }
    if (step.run !== undefined) {
      const toolCall = { toolCallId, kind: 'execute', status: 'pending', ...shape.execute(step.run, s.cwd) };
      await update(client, sessionId, { sessionUpdate: 'tool_call', ...toolCall });
      const { allowed, cancelled, endsTurn } = await permit(client, sessionId, step, toolCall, 'bash');
      if (!allowed) {
        await update(client, sessionId, {
          sessionUpdate: 'tool_call_update',
          toolCallId,
          status: 'failed',
          content: text('The user refused to run this command.'),
        });
        s.endTurn = endsTurn;
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
        kind: 'edit',
        status: 'pending',
        locations: [{ path }],
        ...shape.edit(path, oldText, step.text ?? '', s.cwd),
      };
      await update(client, sessionId, { sessionUpdate: 'tool_call', ...toolCall });
      const { allowed, cancelled, endsTurn } = await permit(client, sessionId, step, toolCall, 'edit');
      if (!allowed) {
        await update(client, sessionId, {
          sessionUpdate: 'tool_call_update',
          toolCallId,
          status: 'failed',
          content: text('The user refused this edit.'),
        });
        s.endTurn = endsTurn;
        return cancelled ? 'cancelled' : 'refused';
      }
      try {
        writeFileSync(path, step.text ?? '');
      } catch (e) {
        await update(client, sessionId, {
          sessionUpdate: 'tool_call_update',
          toolCallId,
          status: 'failed',
          content: text(String(e.message)),
        });
        return { allowed: true, error: String(e.message) };
      }
      await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
      return { allowed: true, written: path };
    }
    if (step.read !== undefined) {
      const path = isAbsolute(step.read) ? step.read : resolve(s.cwd, step.read);
      const toolCall = {
        toolCallId,
        title: `Read ${step.read}`,
        kind: 'read',
        status: 'pending',
        locations: [{ path }],
        rawInput: { path },
      };
      await update(client, sessionId, { sessionUpdate: 'tool_call', ...toolCall });
      const { allowed, cancelled, endsTurn } = await permit(client, sessionId, step, toolCall, 'read');
      if (!allowed) {
        await update(client, sessionId, {
          sessionUpdate: 'tool_call_update',
          toolCallId,
          status: 'failed',
          content: text('The user refused this read.'),
        });
        s.endTurn = endsTurn;
        return cancelled ? 'cancelled' : 'refused';
      }
      let content;
      try {
        content = readFileSync(path, 'utf8');
      } catch (e) {
        await update(client, sessionId, {
          sessionUpdate: 'tool_call_update',
          toolCallId,
          status: 'failed',
          content: text(String(e.message)),
        });
        return { allowed: true, error: String(e.message) };
      }
      await update(client, sessionId, {
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: 'completed',
        content: text(content),
      });
      return { allowed: true, bytes: Buffer.byteLength(content) };
    }
    if (step.ask !== undefined) {
      const toolCall = { toolCallId, status: 'pending', ...step.ask };
      await update(client, sessionId, { sessionUpdate: 'tool_call', ...toolCall });
      const { allowed, cancelled, endsTurn } = await permit(
        client,
        sessionId,
        step,
        toolCall,
        toolCall.kind === 'execute' ? 'bash' : toolCall.kind === 'edit' ? 'edit' : 'read',
      );
      if (!allowed) {
        await update(client, sessionId, {
          sessionUpdate: 'tool_call_update',
          toolCallId,
          status: 'failed',
          content: text('The user refused this.'),
        });
        s.endTurn = endsTurn;
        return cancelled ? 'cancelled' : 'refused';
      }
      const r = step.then !== undefined ? await sh(step.then, s.cwd) : {};
      await update(client, sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
      return { allowed: true, ...r };
    }
    if (step.mcp) return callMcp(s, step.mcp);
    if (step.flood !== undefined) {
      const sends = [];
      for (let k = 0; k < step.flood; k++)
        sends.push(
          update(client, sessionId, {
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: `flood ${k} ` },
          }),
        );
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
        const limit = step.ms !== undefined ? setTimeout(() => finish('timeout'), step.ms) : undefined;
        const onCancel = () => finish('cancelled');
        const finish = (how) => {
          clearInterval(poll);
          clearTimeout(limit);
          s.waiters.delete(onCancel);
          wake(how);
        };
        s.waiters.add(onCancel);
        if (s.cancelled) finish('cancelled');
      });
      return done;
    }
    if (step.usage) {
      const u = {
        sessionUpdate: 'usage_update',
        used: step.usage.input + step.usage.output,
        size: step.usage.size ?? 200_000,
      };
      if (step.usage.cost !== undefined) u.cost = { amount: step.usage.cost, currency: 'USD' };
      await update(client, sessionId, u);
      return 'sent';
    }
    if (step.mode !== undefined) {
      s.mode = step.mode;
      await update(client, sessionId, { sessionUpdate: 'current_mode_update', currentModeId: step.mode });
      return 'switched';
    }
    if (step.exit !== undefined) {
      log('exit', { code: step.exit, reason: 'script' });
      process.exit(step.exit);
    }
    return { error: `unknown step ${JSON.stringify(step)}` };
  }

  async function callMcp(s, { tool, arguments: args = {}, server }) {
    const stdio = s.mcpServers.filter(
      (m) => typeof m.command === 'string' && (server === undefined || m.name === server),
    );
    if (!stdio.length) return { error: `no stdio MCP server${server ? ` named ${server}` : ''} in session/new` };
    const m = stdio[0];
    // Copilot takes only http/sse servers from a client; gemini starts none in a folder it does not trust.
    if (quirk === 'copilot')
      return { server: m.name, error: `Rejecting non-http/sse MCP server "${m.name}" from client` };
    if (quirk === 'gemini' && !argv.includes('--skip-trust'))
      return { server: m.name, error: 'the folder is not trusted (no --skip-trust): MCP servers are not started' };
    // Loaded here only: most runs never call an MCP tool, and the fake starts faster without it.
    const [{ Client }, { StdioClientTransport, getDefaultEnvironment }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
    ]);
    const transport = new StdioClientTransport({
      command: m.command,
      args: m.args ?? [],
      // codex-acp gives a server only a minimal environment and what the client handed over; the others their own whole
      // one.
      env: {
        ...(quirk && quirk !== 'codex-acp' ? process.env : getDefaultEnvironment()),
        ...Object.fromEntries((m.env ?? []).map((e) => [e.name, e.value])),
      },
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
  if (linger)
    return connection.closed.then(
      () => {
        log('linger', { reason: 'stdin closed' });
        setInterval(() => {}, 60_000);
        return new Promise(() => {});
      },
      () => new Promise(() => setInterval(() => {}, 60_000)),
    );
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
