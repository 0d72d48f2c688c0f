/**
 * The fake ACP agent (fake-acp-agent.mjs), driven by the client side of the ACP SDK without sow:
 * proof that what the transport's tests will lean on — its log, its permission requests, the MCP
 * server it starts, cancel and load — does what its header says.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientContext,
  type McpServer,
  type PermissionOptionKind,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { acpEvents } from './acp-log.js';

const FAKE_AGENT = fileURLToPath(new URL('./fake-agent.mjs', import.meta.url));
const MCP_SERVER_SDK = pathToFileURL(
  fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js', import.meta.url)),
).href;
const MCP_STDIO_SDK = pathToFileURL(
  fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js', import.meta.url)),
).href;

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  // A test that failed half-way leaves its agent running: it goes before its folder does.
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function world() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sow-fake-acp-')));
  dirs.push(dir);
  return { dir, log: join(dir, 'agent.log'), home: join(dir, 'home') };
}

/** This process's environment without what steers the fakes (IS_SANDBOX is set on some machines). */
const inherited = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(FAKE_|SOW_|OPENCODE_|CODEX_|OPENAI_)/.test(k) && k !== 'IS_SANDBOX'),
);

/** Starts the fake agent as `cli args` (through fake-agent.mjs, as the fake PATH does). */
function start(w: ReturnType<typeof world>, cliArgs: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [FAKE_AGENT, ...cliArgs], {
    cwd: w.dir,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...inherited, FAKE_AGENT_LOG: w.log, FAKE_AGENT_HOME: w.home, ...env },
  });
  children.push(child);
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((done) =>
    child.exitCode !== null ? done(child.exitCode) : child.on('exit', (code) => done(code)),
  );

/**
 * A client that records updates and answers each permission with the option of the kind `decide`
 * names (allow_once unless it says otherwise); runs `op` against `child`.
 */
async function drive<T>(
  child: ChildProcess,
  op: (ctx: ClientContext, updates: SessionUpdate[]) => Promise<T>,
  opts: {
    decide?: (toolCall: any) => PermissionOptionKind;
    onUpdate?: (u: SessionUpdate, ctx: ClientContext) => void;
  } = {},
): Promise<T> {
  const updates: SessionUpdate[] = [];
  const app = client({ name: 'test' })
    .onNotification(methods.client.session.update, ({ params, agent }) => {
      updates.push(params.update);
      opts.onUpdate?.(params.update, agent);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      const kind = opts.decide?.(params.toolCall) ?? 'allow_once';
      return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === kind)!.optionId } };
    });
  return app.connectWith(
    ndJsonStream(Writable.toWeb(child.stdin!), Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
    (ctx) => op(ctx, updates),
  );
}

const init = (ctx: ClientContext) =>
  ctx.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });

/** A tiny stdio MCP server: its `status` tool answers with its cwd and the GREETING it was given. */
function mcpServer(dir: string): string {
  const path = join(dir, 'mcp-server.mjs');
  writeFileSync(
    path,
    `import { McpServer } from ${JSON.stringify(MCP_SERVER_SDK)};
import { StdioServerTransport } from ${JSON.stringify(MCP_STDIO_SDK)};
const server = new McpServer({ name: 'tiny', version: '1.0.0' });
server.registerTool('status', { description: 'status' }, async () => {
  const structuredContent = { cwd: process.cwd(), greeting: process.env.GREETING ?? null };
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
});
await server.connect(new StdioServerTransport());
`,
  );
  return path;
}

describe('the fake ACP agent', () => {
  it('answers initialize and session/new, runs its script, asks permission, and logs all of it', async () => {
    const w = world();
    const script = [
      { say: 'Looking at the task' },
      { plan: ['Read the code', 'Fix it'] },
      { run: 'echo done > made.txt; echo ran' },
      { run: 'touch refused.txt' },
      { edit: 'notes.md', text: 'edited\n' },
      { mcp: { tool: 'status', arguments: {} } },
    ];
    const child = start(w, ['claude-agent-acp'], { FAKE_ACP_SCRIPT: JSON.stringify(script) });
    const mcpServers: McpServer[] = [
      { name: 'sow', command: process.execPath, args: [mcpServer(w.dir)], env: [{ name: 'GREETING', value: 'hello' }] },
    ];
    const { initialized, sessionId, answer, updates } = await drive(
      child,
      async (ctx, updates) => {
        const initialized = await init(ctx);
        const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: w.dir, mcpServers });
        const answer = await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'Do task 010' }],
        });
        return { initialized, sessionId, answer, updates };
      },
      { decide: (toolCall) => (toolCall.rawInput.command?.startsWith('touch') ? 'reject_once' : 'allow_once') },
    );
    child.stdin!.end();
    expect(await exited(child)).toBe(0);

    expect(initialized).toMatchObject({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, mcpCapabilities: { http: false, sse: false } },
    });
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.stopReason).toBe('end_turn');
    // What the client saw: the message, the plan, the tool calls and how they ended.
    const said = updates
      .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []))
      .join('');
    expect(said).toBe('Looking at the task');
    expect(updates.find((u) => u.sessionUpdate === 'plan')).toMatchObject({
      entries: [{ content: 'Read the code' }, { content: 'Fix it' }],
    });
    const calls = updates.filter((u) => u.sessionUpdate === 'tool_call');
    expect(calls.map((c) => c.kind)).toEqual(['execute', 'execute', 'edit']);
    const ends = updates.filter(
      (u) => u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed'),
    );
    expect(ends.map((u) => (u as any).status)).toEqual(['completed', 'failed', 'completed']);
    // What it did: the allowed command ran in the session's folder, the refused one did not run.
    expect(readFileSync(join(w.dir, 'made.txt'), 'utf8')).toBe('done\n');
    expect(existsSync(join(w.dir, 'refused.txt'))).toBe(false);
    expect(readFileSync(join(w.dir, 'notes.md'), 'utf8')).toBe('edited\n');

    // What it logged.
    const events = acpEvents(w.log);
    expect(events.every((e) => e.cli === 'claude-agent-acp' && e.pid === child.pid && e.argv.length === 0)).toBe(true);
    expect(events.map((e) => e.event)).toEqual([
      'start',
      'initialize',
      'session/new',
      'prompt',
      'step',
      'step',
      'permission',
      'step',
      'permission',
      'step',
      'permission',
      'step',
      'step',
      'stop',
      'exit',
    ]);
    const byEvent = (name: string) => events.filter((e) => e.event === name);
    expect(byEvent('initialize')[0]!.params.clientCapabilities).toMatchObject({
      fs: { readTextFile: false },
      terminal: false,
    });
    expect(byEvent('session/new')[0]!.params).toEqual({ cwd: w.dir, mcpServers });
    expect(byEvent('prompt')[0]!.text).toBe('Do task 010');
    expect(byEvent('permission').map((e) => [e.toolCall.kind, e.outcome])).toEqual([
      ['execute', { outcome: 'selected', optionId: 'allow' }],
      ['execute', { outcome: 'selected', optionId: 'reject' }],
      ['edit', { outcome: 'selected', optionId: 'allow' }],
    ]);
    const results = byEvent('step').map((e) => e.result);
    expect(results[2]).toEqual({ allowed: true, exitCode: 0, output: 'ran\n' });
    expect(results[3]).toBe('refused');
    // The MCP server handed over was started in the session's folder with the env it was given.
    expect(results[5]).toMatchObject({
      server: 'sow',
      structuredContent: { cwd: w.dir, greeting: 'hello' },
      isError: false,
    });
    expect(byEvent('stop')[0]).toMatchObject({ session: sessionId, stopReason: 'end_turn' });
  });

  it('ends a waiting turn as cancelled when the client cancels, and exits 143 on SIGTERM', async () => {
    const w = world();
    const never = join(w.dir, 'never');
    const child = start(w, ['copilot', '--acp'], {
      FAKE_ACP_SCRIPT: JSON.stringify([{ say: 'waiting' }, { wait: never }, { say: 'not reached' }]),
    });
    const answer = await drive(
      child,
      async (ctx) => {
        await init(ctx);
        const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: w.dir, mcpServers: [] });
        return ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] });
      },
      // Cancelled once the agent has spoken, that is, while it waits.
      {
        onUpdate: (u, ctx) =>
          // (Each chunk sends one; a late one may find the connection closed once the turn is over.)
          u.sessionUpdate === 'agent_message_chunk' &&
          void ctx
            .notify(methods.agent.session.cancel, {
              sessionId: acpEvents(w.log).find((e) => e.event === 'session/new')!.session!,
            })
            .catch(() => undefined),
      },
    );
    expect(answer.stopReason).toBe('cancelled');
    const events = acpEvents(w.log);
    expect(events.filter((e) => e.event === 'step').map((e) => e.result)).toEqual(['said', 'cancelled']);
    expect(events.some((e) => e.event === 'cancel')).toBe(true);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(143);
    expect(acpEvents(w.log).at(-1)).toMatchObject({ event: 'exit', code: 143, reason: 'SIGTERM' });
  }, 60_000); // a cancel that is not heard leaves the turn waiting for ever

  it(
    'loads a session it made, replaying it; ' + 'refuses one it never made; without FAKE_ACP_LOAD it cannot load',
    async () => {
      const w = world();
      const first = start(w, ['copilot', '--acp'], { FAKE_ACP_SCRIPT: JSON.stringify([{ say: 'first answer' }]) });
      const sessionId = await drive(first, async (ctx) => {
        await init(ctx);
        const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: w.dir, mcpServers: [] });
        await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'first prompt' }],
        });
        return sessionId;
      });
      first.stdin!.end();
      await exited(first);

      const second = start(w, ['copilot', '--acp']);
      const { replayed, unknown } = await drive(second, async (ctx, updates) => {
        await init(ctx);
        await ctx.request(methods.agent.session.load, { sessionId, cwd: w.dir, mcpServers: [] });
        const replayed = updates.map((u) => [
          u.sessionUpdate,
          u.sessionUpdate === 'user_message_chunk' || u.sessionUpdate === 'agent_message_chunk'
            ? (u.content as any).text
            : null,
        ]);
        const unknown = await ctx
          .request(methods.agent.session.load, { sessionId: 'no-such-session', cwd: w.dir, mcpServers: [] })
          .catch((e) => e);
        return { replayed, unknown };
      });
      second.stdin!.end();
      await exited(second);
      expect(replayed).toEqual([
        ['user_message_chunk', 'first prompt'],
        ['agent_message_chunk', 'first answer'],
      ]);
      expect(unknown.code).toBe(-32002);
      expect(
        acpEvents(w.log)
          .filter((e) => e.event === 'session/load')
          .map((e) => [e.session, e.known]),
      ).toEqual([
        [sessionId, true],
        ['no-such-session', false],
      ]);

      const noLoad = start(w, ['opencode', 'acp'], { FAKE_ACP_LOAD: '0' });
      const { capabilities, refused } = await drive(noLoad, async (ctx) => {
        const capabilities = (await init(ctx)).agentCapabilities;
        const refused = await ctx
          .request(methods.agent.session.load, { sessionId, cwd: w.dir, mcpServers: [] })
          .catch((e) => e);
        return { capabilities, refused };
      });
      noLoad.stdin!.end();
      await exited(noLoad);
      expect(capabilities?.loadSession).toBe(false);
      expect(refused.code).toBe(-32601);
    },
  );

  /** Where each agent puts the command of a permission request, as the real ones do. */
  const AGENTS: {
    argv: string[];
    env?: Record<string, string>;
    auth?: string;
    command: (toolCall: any) => string;
    ids: string[];
  }[] = [
    { argv: ['gemini', '--acp'], command: (t) => t.title, ids: ['proceed_always', 'proceed_once', 'cancel'] },
    {
      argv: ['copilot', '--acp'],
      command: (t) => t.rawInput.command,
      ids: ['allow_once', 'allow_always', 'reject_once'],
    },
    {
      argv: ['opencode', 'acp'],
      env: { OPENCODE_CONFIG_CONTENT: JSON.stringify({ permission: 'ask' }) },
      command: (t) => t.rawInput.command,
      ids: ['once', 'always', 'reject'],
    },
    { argv: ['claude-agent-acp'], command: (t) => t.rawInput.command, ids: ['allow_always', 'allow', 'reject'] },
    {
      argv: ['codex-acp'],
      env: { CODEX_API_KEY: 'test' },
      auth: 'codex-api-key',
      command: (t) => t.rawInput.command[2],
      ids: ['approved', 'approved-execpolicy-amendment', 'abort'],
    },
  ];

  it('words its permission requests as each real agent does; codex ends its turn on a refusal', async () => {
    for (const a of AGENTS) {
      const w = world();
      const child = start(w, a.argv, {
        ...a.env,
        FAKE_ACP_SCRIPT: JSON.stringify([{ edit: 'e.txt', text: 'e\n' }, { run: 'touch ran.txt' }, { say: 'after' }]),
      });
      const asked: any[] = [];
      const answer = await drive(
        child,
        async (ctx) => {
          await init(ctx);
          if (a.auth) await ctx.request(methods.agent.authenticate, { methodId: a.auth });
          const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: w.dir, mcpServers: [] });
          return ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] });
        },
        { decide: (toolCall) => (asked.push(toolCall), toolCall.kind === 'edit' ? 'allow_once' : 'reject_once') },
      );
      child.stdin!.end();
      await exited(child);
      const events = acpEvents(w.log);
      expect(
        events.filter((e) => e.event === 'permission').map((e) => e.toolCall.kind),
        a.argv[0],
      ).toEqual(['edit', 'execute']);
      expect(a.command(asked[1]), a.argv[0]).toBe('touch ran.txt');
      expect(events.find((e) => e.event === 'permission')!.toolCall.locations, a.argv[0]).toEqual([
        { path: join(w.dir, 'e.txt') },
      ]);
      expect(readFileSync(join(w.dir, 'e.txt'), 'utf8')).toBe('e\n');
      expect(existsSync(join(w.dir, 'ran.txt'))).toBe(false);
      expect(answer.stopReason, a.argv[0]).toBe(a.argv[0] === 'codex-acp' ? 'cancelled' : 'end_turn');
      expect(
        events.filter((e) => e.event === 'step').map((e) => e.result),
        a.argv[0],
      ).toEqual(
        a.argv[0] === 'codex-acp'
          ? [{ allowed: true, written: join(w.dir, 'e.txt') }, 'refused']
          : [{ allowed: true, written: join(w.dir, 'e.txt') }, 'refused', 'said'],
      );
    }
  });

  it(
    "has each real agent's quirks: opencode runs unasked by default, codex wants authenticate, copilot refuses " +
      'stdio MCP servers, gemini cannot load, claude minds IS_SANDBOX',
    async () => {
      const w = world();
      const newSession = (
        argv: string[],
        env: Record<string, string>,
        op: (ctx: ClientContext, sessionId: string) => Promise<unknown> = async () => null,
      ) => {
        const child = start(w, argv, env);
        return drive(child, async (ctx) => {
          await init(ctx);
          try {
            const { sessionId } = await ctx.request(methods.agent.session.new, {
              cwd: w.dir,
              mcpServers: [{ name: 'sow', command: process.execPath, args: [mcpServer(w.dir)], env: [] }],
            });
            return { result: await op(ctx, sessionId) };
          } catch (e: any) {
            return { error: { code: e.code, message: e.message, data: e.data } };
          } finally {
            child.stdin!.end();
          }
        });
      };
      const prompt = (ctx: ClientContext, sessionId: string) =>
        ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] });
      const lastSteps = () =>
        acpEvents(w.log)
          .filter((e) => e.event === 'step')
          .slice(-1)
          .map((e) => e.result);

      await newSession(
        ['opencode', 'acp'],
        { FAKE_ACP_SCRIPT: JSON.stringify([{ run: 'touch unasked.txt' }]) },
        prompt,
      );
      expect(existsSync(join(w.dir, 'unasked.txt'))).toBe(true);
      expect(acpEvents(w.log).find((e) => e.event === 'permission')).toMatchObject({
        notAsked: expect.stringContaining('ask'),
      });

      expect(await newSession(['codex-acp'], { CODEX_API_KEY: 'test' })).toEqual({
        error: { code: -32000, message: 'Authentication required' },
      });

      await newSession(
        ['copilot', '--acp'],
        { FAKE_ACP_SCRIPT: JSON.stringify([{ mcp: { tool: 'status' } }]) },
        prompt,
      );
      expect(lastSteps()).toEqual([{ server: 'sow', error: 'Rejecting non-http/sse MCP server "sow" from client' }]);
      await newSession(['gemini', '--acp'], { FAKE_ACP_SCRIPT: JSON.stringify([{ mcp: { tool: 'status' } }]) }, prompt);
      expect(lastSteps()[0]).toMatchObject({ server: 'sow', error: expect.stringContaining('--skip-trust') });
      await newSession(
        ['gemini', '--acp', '--skip-trust'],
        { FAKE_ACP_SCRIPT: JSON.stringify([{ mcp: { tool: 'status' } }]) },
        prompt,
      );
      expect(lastSteps()[0]).toMatchObject({ server: 'sow', structuredContent: { cwd: w.dir } });

      const loaded = await newSession(['gemini', '--acp'], {}, (ctx, sessionId) =>
        ctx.request(methods.agent.session.load, { sessionId, cwd: w.dir, mcpServers: [] }),
      );
      expect(loaded).toMatchObject({
        error: { code: -32603, data: { details: 'No previous sessions found for this project.' } },
      });

      // Run as root (as here), the adapter's Claude Code refuses to start when IS_SANDBOX is set but not to "1".
      const claude = await newSession(['claude-agent-acp'], { IS_SANDBOX: 'yes' });
      if (process.getuid?.() === 0)
        expect(claude).toEqual({
          error: {
            code: -32603,
            message: 'Internal error',
            data: { details: 'Query closed before response received' },
          },
        });
      else expect(claude).toEqual({ result: null });
    },
  );

  it('floods, asks what the client never offered, reports usage, writes garbage, and exits when told', async () => {
    const w = world();
    const script = [
      { flood: 200 },
      { unknown: 'x/unheard_of' },
      { fsRead: '/etc/hostname' },
      { usage: { input: 10, output: 5, cost: 0.25 } },
      { garbage: 'this is not JSON-RPC' },
      { say: 'still here' },
    ];
    const child = start(w, ['copilot', '--acp'], { FAKE_ACP_SCRIPT: JSON.stringify(script) });
    const { answer, updates } = await drive(child, async (ctx, updates) => {
      await init(ctx);
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: w.dir, mcpServers: [] });
      return {
        answer: await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] }),
        updates,
      };
    });
    child.stdin!.end();
    await exited(child);
    expect(
      updates.filter((u) => u.sessionUpdate === 'agent_message_chunk' && (u.content as any).text.startsWith('flood ')),
    ).toHaveLength(200);
    expect(updates.find((u) => u.sessionUpdate === 'usage_update')).toMatchObject({
      used: 15,
      size: 200_000,
      cost: { amount: 0.25, currency: 'USD' },
    });
    expect(answer).toMatchObject({
      stopReason: 'end_turn',
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    });
    const results = acpEvents(w.log)
      .filter((e) => e.event === 'step')
      .map((e) => e.result);
    expect(results.slice(0, 3)).toEqual([
      { sent: 200 },
      { error: { code: -32601, message: expect.stringContaining('x/unheard_of') } },
      { error: { code: -32601, message: expect.stringContaining('fs/read_text_file') } },
    ]);
    expect(results.slice(3)).toEqual(['sent', 'written', 'said']);

    const quitter = start(w, ['copilot', '--acp'], { FAKE_ACP_SCRIPT: JSON.stringify([{ exit: 3 }]) });
    // The prompt never gets its answer: the connection ends with the process.
    const ended = await drive(quitter, async (ctx) => {
      await init(ctx);
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: w.dir, mcpServers: [] });
      return ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    }).then(
      () => 'answered',
      () => 'connection lost',
    );
    expect(ended).toBe('connection lost');
    expect(await exited(quitter)).toBe(3);
  });
});
