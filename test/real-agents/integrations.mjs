/**
 * The integrations against the real Claude Code (issue 12), offline, with a scripted model:
 *
 *  1. `sow install claude --plugin <dir>` validates with `claude plugin validate --strict`
 *     (the plugin manifest and the marketplace manifest);
 *  2. Claude Code started with the plugin (`--plugin-dir`) sends the `sow project continue` text of
 *     the SessionStart hook in its first request;
 *  3. the model calls the plugin's /sow:status command (through the tool Claude Code offers for
 *     slash commands and skills), and the command's `!`sow project status`` output comes back;
 *  4. with `--mcp-config` naming `sow mcp`, the model calls the MCP tool `status` and gets the
 *     project's state.
 *
 * Each step returns { ok, why[] , notes[] }.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { messageStream } from './anthropic.mjs';
import { sendJson, sendSse, startServer } from './server.mjs';

const textOf = (content) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .map((b) =>
            typeof b === 'string'
              ? b
              : b?.type === 'text'
                ? (b.text ?? '')
                : b?.type === 'tool_result'
                  ? textOf(b.content)
                  : '',
          )
          .join('\n')
      : '';
const allText = (body) => [textOf(body?.system), ...(body?.messages ?? []).map((m) => textOf(m.content))].join('\n');

const sse = (model, blocks, stop) => messageStream(model, blocks, stop).events;

/**
 * A model that makes at most one tool call: the first main-loop request (one that offers tools)
 * gets `call(tools)` (a tool_use block, or nothing), every later one a closing text. Every
 * request body is kept.
 */
function scriptedServer(logFile, call) {
  let called = false;
  return startServer({
    name: 'anthropic-integrations',
    logFile,
    async handle(req, res, record) {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'HEAD' || req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(req.method === 'HEAD' ? undefined : 'ok');
        return;
      }
      if (/\/count_tokens$/.test(path)) return sendJson(res, 200, { input_tokens: 100 });
      const body = record.body ?? {};
      const tools = (body.tools ?? []).filter((t) => t?.name);
      let blocks = [{ type: 'text', text: 'Done.' }];
      let stop = 'end_turn';
      if (tools.length > 0 && !called) {
        const use = call(tools);
        if (use) {
          called = true;
          record.toolCall = use;
          blocks = [{ type: 'tool_use', id: `toolu_${randomUUID().replace(/-/g, '').slice(0, 20)}`, ...use }];
          stop = 'tool_use';
        }
      }
      if (body.output_config?.format)
        blocks = [{ type: 'text', text: JSON.stringify({ title: 'sow', isNewTopic: true }) }];
      if (body.stream) return sendSse(res, sse(body.model ?? 'claude-fake', blocks, stop));
      return sendJson(res, 200, {
        id: `msg_${record.n}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: blocks.map((b) =>
          b.type === 'text' ? b : { type: 'tool_use', id: b.id, name: b.name, input: b.input },
        ),
        stop_reason: stop,
        usage: { input_tokens: 50, output_tokens: 20 },
      });
    },
  });
}

/**
 * The text of the messages after the model's tool call, in the last request (the tool's result and what came with
 * it).
 */
function afterCall(main) {
  const last = main.at(-1)?.body?.messages ?? [];
  const at = last.findIndex((m) => Array.isArray(m.content) && m.content.some((b) => b?.type === 'tool_use'));
  return at < 0
    ? ''
    : last
        .slice(at + 1)
        .map((m) => textOf(m.content))
        .join('\n');
}

/** Runs a command without blocking this process (the scripted model answers from it meanwhile). */
function runAsync(cmd, args, opts) {
  return new Promise((resolveRun) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code: code ?? (signal ? 128 : 1), out });
    });
  });
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: opts.timeoutMs ?? 120_000, ...opts });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, error: r.error };
}

/** The tool Claude Code offers for slash commands and skills, and the input that names /sow:status. */
function commandCall(tools) {
  const tool = tools.find((t) => /^(SlashCommand|Skill)$/.test(t.name));
  if (!tool) return undefined;
  const props = Object.keys(tool.input_schema?.properties ?? {});
  const key = props.find((p) => /command|skill|name/i.test(p)) ?? props[0];
  const value = tool.name === 'SlashCommand' ? '/sow:status' : 'sow:status';
  return { name: tool.name, input: { [key]: value } };
}

export async function runIntegrations({ claude, sowJs, sowBin, work, env, log }) {
  const results = {
    validate: { ok: false, why: [] },
    sessionStart: { ok: false, why: [] },
    slashCommand: { ok: false, why: [] },
    mcp: { ok: false, why: [] },
  };
  const dir = join(work, 'integrations');
  const repo = join(dir, 'repo');
  const plugin = join(dir, 'plugin');
  mkdirSync(repo, { recursive: true });
  const sow = (args, cwd = repo) => run(process.execPath, [sowJs, ...args], { cwd, env });
  const git = (args) =>
    run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], {
      cwd: repo,
      env,
    });

  // 1. The plugin, validated by the real CLI.
  const inst = sow(['install', 'claude', '--plugin', plugin, '--with-mcp'], dir);
  if (inst.code !== 0) results.validate.why.push(`sow install --plugin exited ${inst.code}: ${inst.out.slice(0, 300)}`);
  for (const manifest of ['plugin.json', 'marketplace.json']) {
    const v = run(claude, ['plugin', 'validate', '--strict', join(plugin, '.claude-plugin', manifest)], {
      cwd: dir,
      env,
    });
    log(`  claude plugin validate --strict ${manifest}: exit ${v.code}`);
    if (v.code !== 0)
      results.validate.why.push(`${manifest}: exit ${v.code}: ${v.out.trim().split('\n').slice(-3).join(' | ')}`);
  }
  results.validate.ok = results.validate.why.length === 0;

  // A repository with a project, on its branch.
  git(['init', '-q', '-b', 'main']);
  git(['commit', '-q', '--allow-empty', '-m', 'initial']);
  sow(['init']);
  const created = sow(['project', 'new', 'plugin-demo', '--description', 'Prove the plugin']);
  if (created.code !== 0) throw new Error(`sow project new failed: ${created.out}`);

  const claudeEnv = (server) => ({
    ...env,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'test',
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    PATH: `${sowBin}:${env.PATH}`,
  });
  const claudeArgs = (extra, prompt) => [
    '-p',
    prompt,
    '--output-format',
    'stream-json',
    '--verbose',
    '--model',
    'claude-sonnet-4-5',
    '--dangerously-skip-permissions',
    ...extra,
  ];

  // 2 and 3. The plugin: its SessionStart hook, then the model calls /sow:status.
  {
    const server = await scriptedServer(join(dir, 'plugin-requests.jsonl'), commandCall);
    try {
      const r = await runAsync(claude, claudeArgs(['--plugin-dir', plugin], 'What should I do next?'), {
        cwd: repo,
        env: { ...claudeEnv(server), IS_SANDBOX: '1' },
        timeoutMs: 180_000,
      });
      log(`  claude --plugin-dir: exit ${r.code}, ${server.requests.length} requests`);
      const main = server.requests.filter((q) => (q.body?.tools ?? []).length > 0);
      if (main.length === 0)
        results.sessionStart.why.push(`no main-loop request reached the model (exit ${r.code}: ${r.out.slice(-300)})`);
      else {
        const first = allText(main[0].body);
        if (first.includes('# sow: plugin-demo — PlanningActive')) results.sessionStart.ok = true;
        else
          results.sessionStart.why.push(
            'the first request does not carry the `sow project continue` text (# sow: plugin-demo — PlanningActive)',
          );
        const call = main[0].toolCall;
        if (!call) {
          results.slashCommand.why.push(
            `Claude Code offered no SlashCommand or Skill tool ` +
              `(tools: ${main[0].body.tools.map((t) => t.name).join(', ')})`,
          );
        } else {
          // `!`sow project status`` ran when the command was called: its output (only the status
          // view says "Next (sow advance)") is in what followed the call.
          if (afterCall(main).includes('Next (sow advance)')) results.slashCommand.ok = true;
          else
            results.slashCommand.why.push(
              `after the ${call.name} call (${JSON.stringify(call.input)}), no request carried the status text`,
            );
        }
      }
    } finally {
      await server.close();
    }
  }

  // 4. sow mcp through --mcp-config: the model calls the status tool.
  {
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { sow: { command: process.execPath, args: [sowJs, 'mcp'] } } }));
    const server = await scriptedServer(join(dir, 'mcp-requests.jsonl'), (tools) => {
      const t = tools.find((x) => /^mcp__sow__status$/.test(x.name));
      return t ? { name: t.name, input: {} } : undefined;
    });
    try {
      const r = await runAsync(
        claude,
        claudeArgs(['--mcp-config', config, '--strict-mcp-config'], 'Where does the project stand?'),
        {
          cwd: repo,
          env: { ...claudeEnv(server), IS_SANDBOX: '1' },
          timeoutMs: 180_000,
        },
      );
      log(`  claude --mcp-config: exit ${r.code}, ${server.requests.length} requests`);
      const main = server.requests.filter((q) => (q.body?.tools ?? []).length > 0);
      const offered = main[0]?.body.tools.map((t) => t.name) ?? [];
      if (!main[0]?.toolCall)
        results.mcp.why.push(
          `no mcp__sow__status tool was offered ` +
            `(tools: ${offered.filter((n) => n.startsWith('mcp__')).join(', ') || 'none from MCP'})`,
        );
      else {
        if (/"state":\s*"PlanningActive"/.test(afterCall(main))) results.mcp.ok = true;
        else results.mcp.why.push('the tool result did not carry the project state');
      }
    } finally {
      await server.close();
    }
  }
  return results;
}
