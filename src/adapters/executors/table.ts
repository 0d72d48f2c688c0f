/**
 * The built-in executors: one argv table per agent CLI. Every flag here is checked against that
 * CLI's own --help (test/fixtures/agent-help, and `npm run test:real-agents` against the live CLIs).
 */
import { dirname, join } from 'node:path';
import type { ExecutorConfig, ExecutorType } from '../../domain/schemas.js';
import type { Executor, Invocation, InvocationContext } from './types.js';

const model = (c: ExecutorConfig, flag: string) => (c.settings?.model ? [flag, c.settings.model] : []);
const yolo = (ctx: InvocationContext, ...flags: string[]) => (ctx.permissions === 'yolo' ? flags : []);
/**
 * Permissions: with yolo_mode, the CLI's skip-all flag; without it, at least the one tool a worker
 * must have — running `sow` to report back — where the CLI can grant a single command. A headless
 * worker that cannot run `sow` cannot tell anyone what it did.
 */
const permissions = (ctx: InvocationContext, all: string[], sowOnly: string[]) => (ctx.permissions === 'yolo' ? all : sowOnly);
const custom = (c: ExecutorConfig) => c.custom_args ?? [];
const viaStdin = (binary: string, args: string[], ctx: InvocationContext, env: Record<string, string> = {}, notes: string[] = []): Invocation =>
  ({ binary, args, env, stdin: ctx.prompt, notes });

const claudeEnv = (ctx: InvocationContext): { env: Record<string, string>; notes: string[] } =>
  ctx.permissions === 'yolo' && ctx.runningAsRoot
    ? { env: { IS_SANDBOX: '1' }, notes: ['running as root: Claude Code accepts --dangerously-skip-permissions only with IS_SANDBOX=1, so sow sets it'] }
    : { env: {}, notes: [] };

const claude: Executor = {
  type: 'claude',
  title: 'Claude Code',
  install: 'npm install -g @anthropic-ai/claude-code',
  sessionIds: 'caller',
  binary: () => 'claude',
  supportsResumption: () => true,
  spawn(ctx) {
    const c = ctx.config;
    const { env, notes } = claudeEnv(ctx);
    return viaStdin('claude', ['--print', '--output-format', 'stream-json', '--verbose', '--session-id', ctx.sessionId!, ...model(c, '--model'), ...permissions(ctx, ['--dangerously-skip-permissions'], ['--allowedTools', 'Bash(sow *)']), ...custom(c)], ctx, env, notes);
  },
  resume(ctx) {
    const c = ctx.config;
    const { env, notes } = claudeEnv(ctx);
    return viaStdin('claude', ['--print', '--output-format', 'stream-json', '--verbose', '--resume', ctx.sessionId, ...model(c, '--model'), ...permissions(ctx, ['--dangerously-skip-permissions'], ['--allowedTools', 'Bash(sow *)']), ...custom(c)], ctx, env, notes);
  },
};

const cursor: Executor = {
  type: 'cursor',
  title: 'Cursor CLI',
  install: 'curl https://cursor.com/install -fsS | bash   (cursor-agent is not on npm)',
  sessionIds: 'precreated',
  binary: () => 'cursor-agent',
  supportsResumption: () => true,
  createSession: () => ({ binary: 'cursor-agent', args: ['create-chat'] }),
  spawn(ctx) {
    const c = ctx.config;
    return viaStdin('cursor-agent', ['-p', '--output-format', 'stream-json', '--resume', ctx.sessionId!, ...model(c, '--model'), ...yolo(ctx, '--force'), ...custom(c)], ctx);
  },
  resume(ctx) {
    return this.spawn(ctx);
  },
};

const codex: Executor = {
  type: 'codex',
  title: 'Codex CLI',
  install: 'npm install -g @openai/codex',
  sessionIds: 'reported',
  binary: () => 'codex',
  supportsResumption: () => true,
  sessionFromEvent: (e) => (e['type'] === 'thread.started' && typeof e['thread_id'] === 'string' ? e['thread_id'] : undefined),
  spawn(ctx) {
    const c = ctx.config;
    return viaStdin('codex', ['exec', '--json', '-C', ctx.cwd, ...model(c, '-m'), ...permissions(ctx, ['--dangerously-bypass-approvals-and-sandbox'], ['-c', 'sandbox_mode="workspace-write"']), ...custom(c), '-'], ctx);
  },
  resume(ctx) {
    const c = ctx.config;
    // `codex exec resume` takes no -C: the resume runs in the recorded cwd instead.
    return viaStdin('codex', ['exec', 'resume', '--json', ...model(c, '-m'), ...permissions(ctx, ['--dangerously-bypass-approvals-and-sandbox'], ['-c', 'sandbox_mode="workspace-write"']), ...custom(c), ctx.sessionId, '-'], ctx);
  },
};

/**
 * Gemini CLI has no flag that grants one shell command (only a deprecated --allowed-tools), so
 * without yolo sow hands it a policy file that allows `sow` and nothing more.
 */
const GEMINI_POLICY = `# Written by sow: a worker may always run sow to report back.
[[rule]]
toolName = "run_shell_command"
commandPrefix = "sow"
decision = "allow"
priority = 999
`;
const geminiPermissions = (ctx: InvocationContext) => {
  if (ctx.permissions === 'yolo') return { args: ['--yolo'], files: [] };
  const path = join(dirname(ctx.promptFile), 'gemini-sow-policy.toml');
  return { args: ['--policy', path], files: [{ path, text: GEMINI_POLICY }] };
};

const gemini: Executor = {
  type: 'gemini',
  title: 'Gemini CLI',
  install: 'npm install -g @google/gemini-cli',
  sessionIds: 'caller',
  binary: () => 'gemini',
  supportsResumption: () => true,
  // Without -p, Gemini CLI reads the prompt from a piped stdin and runs headless.
  spawn(ctx) {
    const c = ctx.config;
    const p = geminiPermissions(ctx);
    return { ...viaStdin('gemini', ['--output-format', 'stream-json', '--session-id', ctx.sessionId!, ...model(c, '-m'), ...p.args, ...custom(c)], ctx), files: p.files };
  },
  resume(ctx) {
    const c = ctx.config;
    const p = geminiPermissions(ctx);
    return { ...viaStdin('gemini', ['--output-format', 'stream-json', '--resume', ctx.sessionId, ...model(c, '-m'), ...p.args, ...custom(c)], ctx), files: p.files };
  },
};

const copilot: Executor = {
  type: 'copilot',
  title: 'GitHub Copilot CLI',
  install: 'npm install -g @github/copilot',
  sessionIds: 'caller',
  binary: () => 'copilot',
  supportsResumption: () => true,
  // Without -p, Copilot CLI reads the prompt from a piped stdin (with -p it ignores stdin).
  spawn(ctx) {
    const c = ctx.config;
    return viaStdin('copilot', ['--session-id', ctx.sessionId!, '--output-format', 'json', '-C', ctx.cwd, ...model(c, '--model'), ...permissions(ctx, ['--allow-all-tools'], ['--allow-tool', 'shell(sow)']), ...custom(c)], ctx);
  },
  resume(ctx) {
    const c = ctx.config;
    // --resume takes an optional value, so it must be attached with '='.
    return viaStdin('copilot', [`--resume=${ctx.sessionId}`, '--output-format', 'json', '-C', ctx.cwd, ...model(c, '--model'), ...permissions(ctx, ['--allow-all-tools'], ['--allow-tool', 'shell(sow)']), ...custom(c)], ctx);
  },
};

const opencode: Executor = {
  type: 'opencode',
  title: 'opencode',
  install: 'npm install -g opencode-ai',
  sessionIds: 'reported',
  binary: () => 'opencode',
  supportsResumption: () => true,
  sessionFromEvent: (e) => {
    const id = e['sessionID'] ?? (e['part'] as Record<string, unknown> | undefined)?.['sessionID'];
    return typeof id === 'string' ? id : undefined;
  },
  spawn(ctx) {
    const c = ctx.config;
    return viaStdin('opencode', ['run', '--format', 'json', '--dir', ctx.cwd, ...model(c, '-m'), ...yolo(ctx, '--auto'), ...custom(c)], ctx);
  },
  resume(ctx) {
    const c = ctx.config;
    return viaStdin('opencode', ['run', '--format', 'json', '--dir', ctx.cwd, '--session', ctx.sessionId, ...model(c, '-m'), ...yolo(ctx, '--auto'), ...custom(c)], ctx);
  },
};

const windsurf: Executor = {
  type: 'windsurf',
  title: 'Windsurf',
  install: 'install Windsurf and put its windsurf command on PATH',
  sessionIds: 'none',
  binary: () => 'windsurf',
  supportsResumption: () => false,
  spawn: (ctx) => viaStdin('windsurf', [...custom(ctx.config)], ctx),
  resume() {
    throw new Error('windsurf cannot resume sessions');
  },
};

/** Replaces {placeholders} in one argv word; unknown placeholders are left for the user to see. */
function fill(word: string, ctx: InvocationContext): string {
  const values: Record<string, string | undefined> = {
    prompt_file: ctx.promptFile,
    prompt: ctx.prompt,
    session_id: ctx.sessionId,
    model: ctx.config.settings?.model ?? '',
    cwd: ctx.cwd,
  };
  return word.replace(/\{(prompt_file|prompt|session_id|model|cwd)\}/g, (_m, key: string) => values[key] ?? '');
}

const command: Executor = {
  type: 'command',
  title: 'a command of your own',
  install: "set agents.executors.<name>.spawn to the argv of your agent CLI (see 'sow config init')",
  sessionIds: 'caller',
  binary: (c) => c.spawn?.[0] ?? '',
  supportsResumption: (c) => Boolean(c.resume?.length),
  spawn(ctx) {
    const [binary = '', ...args] = (ctx.config.spawn ?? []).map((w) => fill(w, ctx));
    return viaStdin(binary, [...args, ...custom(ctx.config)], ctx);
  },
  resume(ctx) {
    const [binary = '', ...args] = (ctx.config.resume ?? []).map((w) => fill(w, ctx));
    return viaStdin(binary, [...args, ...custom(ctx.config)], ctx);
  },
};

export const EXECUTORS: Readonly<Record<ExecutorType, Executor>> = { claude, cursor, codex, gemini, copilot, opencode, windsurf, command };

/** The executor of a type named in a file (a session records it): only a type sow has. */
export const executorOf = (type: string): Executor | undefined => (Object.hasOwn(EXECUTORS, type) ? EXECUTORS[type as ExecutorType] : undefined);
