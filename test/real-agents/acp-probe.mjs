#!/usr/bin/env node
/**
 * Probes one real agent over ACP, with the ACP SDK's client side: initialize, session/new in a
 * fresh git repository, and optionally a prompt against the loopback scripted model (each
 * permission refused, or, with --safe, the safe-profile script with only the edit and the check
 * allowed), a session/load from a second process, and an MCP server handed over in session/new.
 * Prints one line per step. What it found is in ../shared/notes/agent-clis.md ("ACP in practice").
 *
 *   node test/real-agents/acp-probe.mjs <gemini|copilot|opencode|claude-agent-acp|codex-acp>
 *     [--prompt] [--safe] [--load] [--mcp]
 *
 * REAL_AGENTS_DIR: where the pinned CLIs are installed (install.mjs; default /tmp/realclis).
 * ACP_ADAPTERS_DIR: where @zed-industries/claude-agent-acp@0.23.1 and @zed-industries/codex-acp@0.16.0
 * are installed (default /tmp/acp-adapters): `npm install --prefix <dir> <both>`.
 * Each step waits at most PROBE_TIMEOUT_MS (default 30 s, 120 s with --prompt).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { SAFE_MARKER } from './brain.mjs';
import { SETUPS } from './setups.mjs';
import { agentHomes } from './util.mjs';

const REAL = join(process.env.REAL_AGENTS_DIR ?? '/tmp/realclis', 'node_modules', '.bin');
const ADAPTERS = join(process.env.ACP_ADAPTERS_DIR ?? '/tmp/acp-adapters', 'node_modules', '.bin');

/**
 * How each agent is started for ACP so that it asks permission, starts the MCP server handed
 * over, and talks to the loopback model (setups.mjs gives the model's environment).
 */
export const ACP_AGENTS = {
  // Without --skip-trust a new folder is untrusted, and gemini starts no MCP server there.
  gemini: { setup: 'gemini', command: [join(REAL, 'gemini'), '--acp', '--skip-trust'] },
  // Copilot refuses stdio MCP servers from the client: they go on its command line instead.
  copilot: { setup: 'copilot', command: [join(REAL, 'copilot'), '--acp'], mcpOnCommandLine: true },
  // opencode asks nothing unless its configuration says so, and its default model is a remote one.
  opencode: {
    setup: 'opencode',
    command: [join(REAL, 'opencode'), 'acp'],
    config: { permission: 'ask', model: 'anthropic/claude-sonnet-4-5' },
  },
  // IS_SANDBOX other than "1" breaks it as root; CLAUDE_CODE_EXECUTABLE runs the pinned Claude Code instead of the
  // bundled one.
  'claude-agent-acp': {
    setup: 'claude',
    command: [join(ADAPTERS, 'claude-agent-acp')],
    env: { CLAUDE_CODE_EXECUTABLE: join(REAL, 'claude') },
    unset: ['IS_SANDBOX'],
  },
  // Its default read-only sandbox needs bubblewrap, which codex-acp does not ship; it serves no session before
  // authenticate.
  'codex-acp': {
    setup: 'codex',
    command: [
      join(ADAPTERS, 'codex-acp'),
      '-c',
      'approval_policy="untrusted"',
      '-c',
      'sandbox_mode="danger-full-access"',
    ],
    authenticate: 'codex-api-key',
  },
};

const [which, ...flags] = process.argv.slice(2);
const agentSpec = ACP_AGENTS[which];
if (!agentSpec) {
  process.stderr.write(
    `usage: acp-probe.mjs <${Object.keys(ACP_AGENTS).join('|')}> [--prompt] [--safe] [--load] [--mcp]\n`,
  );
  process.exit(2);
}
const want = (f) => flags.includes(`--${f}`);
const timeoutMs = Number(process.env.PROBE_TIMEOUT_MS ?? (want('prompt') || want('safe') ? 120_000 : 30_000));

const work = mkdtempSync(join(tmpdir(), `acp-probe-${which}-`));
const home = join(work, 'home');
const homes = agentHomes(home);
const base = { ...process.env, NO_COLOR: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
for (const k of Object.keys(base))
  if (
    /^(SOW_|ANTHROPIC_|CLAUDE_|OPENAI_|CODEX_|GEMINI_|GOOGLE_|COPILOT_|GH_|GITHUB_)/.test(k) ||
    /^(OPENCODE_|XDG_|AWS_|AZURE_|VERTEX)/.test(k)
  )
    delete base[k];
for (const k of agentSpec.unset ?? []) delete base[k];
const setup = SETUPS[agentSpec.setup];
const server = await setup.startServer({ logFile: join(work, 'requests.jsonl') });
const prepared = await setup.prepare({ env: { ...base, ...homes }, server, dir: work, yolo: false });
if (agentSpec.config)
  prepared.env.OPENCODE_CONFIG_CONTENT = JSON.stringify({
    ...JSON.parse(prepared.env.OPENCODE_CONFIG_CONTENT),
    ...agentSpec.config,
  });
const env = { ...base, ...homes, PATH: [REAL, ADAPTERS, base.PATH].join(':'), ...prepared.env, ...agentSpec.env };
// codex-acp takes codex's own `-c` overrides (the base URL of the model).
const command = [...agentSpec.command, ...(which === 'codex-acp' ? (prepared.executor.custom_args ?? []) : [])];

const repo = join(work, 'repo');
mkdirSync(repo);
spawnSync('git', ['init', '-q', repo]);
writeFileSync(join(repo, 'README.md'), 'probe\n');
const marker = join(work, 'mcp-started.log');
const mcpScript = join(work, 'mcp-marker.mjs');
const sdkServer = (f) => new URL(import.meta.resolve(`@modelcontextprotocol/sdk/server/${f}`)).href;
writeFileSync(
  mcpScript,
  `import { appendFileSync } from 'node:fs';
import { McpServer } from ${JSON.stringify(sdkServer('mcp.js'))};
import { StdioServerTransport } from ${JSON.stringify(sdkServer('stdio.js'))};
appendFileSync(${JSON.stringify(marker)}, JSON.stringify({ cwd: process.cwd(), handed: process.env.HANDED ?? null, \
variables: Object.keys(process.env).length }) + '\\n');
const server = new McpServer({ name: 'marker', version: '1.0.0' });
server.registerTool('status', { description: 'status' }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
await server.connect(new StdioServerTransport());
`,
);
const mcpServer = {
  name: 'marker',
  command: process.execPath,
  args: [mcpScript],
  env: [{ name: 'HANDED', value: 'yes' }],
};
if (want('mcp') && agentSpec.mcpOnCommandLine)
  command.push(
    '--additional-mcp-config',
    JSON.stringify({
      mcpServers: {
        marker: {
          type: 'local',
          command: mcpServer.command,
          args: mcpServer.args,
          env: { HANDED: 'on the command line' },
          tools: ['*'],
        },
      },
    }),
  );

const t0 = Date.now();
const say = (label, value) =>
  console.log(
    `[${which} ` +
      `+${((Date.now() - t0) / 1000).toFixed(1)}s] ${label}: ` +
      `${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
const errorOf = (e) => ({ code: e?.code, message: e?.message, data: e?.data });
say('command', command.join(' '));
let stderr = '';
const updates = [];
const brief = (u) =>
  [u.sessionUpdate, u.kind, u.status, u.content?.text && JSON.stringify(u.content.text.slice(0, 80))]
    .filter(Boolean)
    .join(':');

/** One agent process: initialize (and authenticate), then `op`; ends the process after. */
async function withAgent(op) {
  const child = spawn(command[0], command.slice(1), { cwd: repo, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => {
    say('TIMEOUT', `${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`);
    child.kill('SIGKILL');
    process.exit(2);
  }, timeoutMs);
  const app = client({ name: 'sow-acp-probe' })
    .onNotification(methods.client.session.update, ({ params }) => void updates.push(params.update))
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      const t = params.toolCall;
      say('permission asked', {
        title: t.title,
        kind: t.kind,
        rawInput: t.rawInput,
        locations: t.locations,
        options: params.options.map((o) => `${o.optionId}:${o.kind}`),
      });
      // --safe: the edit and the check are allowed, anything else refused.
      const allow = want('safe') && (t.kind === 'edit' || t.title === 'true' || t.rawInput?.command === 'true');
      const pick = params.options.find((o) => o.kind === (allow ? 'allow_once' : 'reject_once'));
      return { outcome: pick ? { outcome: 'selected', optionId: pick.optionId } : { outcome: 'cancelled' } };
    });
  try {
    return await app.connectWith(
      ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
      async (ctx) => {
        say(
          'initialize',
          await ctx.request(methods.agent.initialize, {
            protocolVersion: PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          }),
        );
        if (agentSpec.authenticate)
          say(
            'authenticate',
            await ctx.request(methods.agent.authenticate, { methodId: agentSpec.authenticate }).catch(errorOf),
          );
        return await op(ctx);
      },
    );
  } catch (e) {
    say('ERROR', errorOf(e));
  } finally {
    clearTimeout(timer);
    child.kill('SIGTERM');
  }
}

const sessionId = await withAgent(async (ctx) => {
  let session;
  try {
    session = await ctx.request(methods.agent.session.new, {
      cwd: repo,
      mcpServers: want('mcp') && !agentSpec.mcpOnCommandLine ? [mcpServer] : [],
    });
  } catch (e) {
    say('session/new ERROR', errorOf(e));
    return undefined;
  }
  say('session/new', session);
  if (want('prompt') || want('safe')) {
    const plan = {
      file: join(repo, 'hello.txt'),
      relFile: 'hello.txt',
      text: 'hello from a probe\n',
      check: 'true',
      forbidden: 'touch /var/tmp/acp-probe-outside',
    };
    const text = `Please do task 010.${want('safe') ? `\n\n${SAFE_MARKER} ${JSON.stringify(plan)}` : ''}`;
    say(
      'prompt',
      await ctx
        .request(methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: 'text', text }] })
        .catch(errorOf),
    );
    say('updates', updates.map(brief));
    if (want('safe')) say('hello.txt', existsSync(plan.file) ? readFileSync(plan.file, 'utf8') : 'not written');
  }
  return session.sessionId;
});

if (want('load') && sessionId) {
  updates.length = 0;
  await withAgent(async (ctx) => {
    try {
      say(
        'session/load (a second process)',
        await ctx.request(methods.agent.session.load, { sessionId, cwd: repo, mcpServers: [] }),
      );
      say('replayed', updates.map(brief));
    } catch (e) {
      say('session/load ERROR', errorOf(e));
    }
  });
}
if (want('mcp')) say('MCP server started', existsSync(marker) ? readFileSync(marker, 'utf8').trim() : 'no');
say(
  'requests to the model',
  server.requests.map((r) => `${r.method} ${r.url}`),
);
say('stderr', stderr.slice(-1500));
server.close?.();
process.exit(0);
