/**
 * The built-in executors: one argv table per agent CLI. Every flag here is checked against that
 * CLI's own --help (test/fixtures/agent-help, and `npm run test:real-agents` against the live CLIs).
 */
import { dirname, join } from 'node:path';
import type { ExecutorConfig, ExecutorType } from '../../domain/schemas.js';
import type { Executor, Invocation, InvocationContext } from './types.js';

const model = (c: ExecutorConfig, flag: string) => (c.settings?.model ? [flag, c.settings.model] : []);
const custom = (c: ExecutorConfig) => c.custom_args ?? [];
const viaStdin = (binary: string, args: string[], ctx: InvocationContext, env: Record<string, string> = {}, notes: string[] = []): Invocation =>
  ({ binary, args, env, stdin: ctx.prompt, notes, granted: { permissions: ctx.permissions, checks: ctx.checks } });

/*
 * Permissions (docs/decisions/0017-permission-profiles.md). `yolo` is each CLI's skip-all flag.
 * `safe`: the worker may read and edit files in the repository, run `sow` (any sow command, to
 * report back) and run each check the repository declares and the person allowed (exactly that
 * command line; app/agents.ts hands over only those); anything else needs asking, and a
 * headless worker cannot ask, so it is refused. Each CLI expresses that
 * in its own terms; where it cannot grant single commands (Codex, Cursor) it runs every command in
 * its sandbox instead, which confines writes to the workspace and cuts the network.
 */

/** The declared checks a safe worker may run, each once. */
const checksOf = (ctx: InvocationContext): string[] => [...new Set(ctx.checks.map((c) => c.trim()).filter(Boolean))];
const listed = (ctx: InvocationContext) => ['sow', ...checksOf(ctx)].map((c) => `\`${c}\``).join(', ');

const claudeSafe = (ctx: InvocationContext): string[] => [
  '--permission-mode', 'acceptEdits',
  // A rule's `*` is a wildcard (`sow *` also matches a bare `sow`); Claude Code splits chained commands and checks each part.
  '--allowedTools', 'Bash(sow *)',
  ...checksOf(ctx).flatMap((c) => ['--allowedTools', `Bash(${c})`]),
];
const claudePermissions = (ctx: InvocationContext) => (ctx.permissions === 'yolo' ? ['--dangerously-skip-permissions'] : claudeSafe(ctx));
const claudeNotes = (ctx: InvocationContext): string[] => {
  if (ctx.permissions === 'yolo') return ctx.runningAsRoot ? ['running as root: Claude Code accepts --dangerously-skip-permissions only with IS_SANDBOX=1, so sow sets it'] : [];
  const wild = checksOf(ctx).filter((c) => c.includes('*'));
  return [
    `permissions=safe: Claude Code may edit files in the repository (acceptEdits) and run ${listed(ctx)}; it refuses anything else`,
    ...(wild.length ? [`Claude Code reads '*' in an allowed command as a wildcard, so the check(s) ${wild.map((c) => `\`${c}\``).join(', ')} allow more than that exact command`] : []),
  ];
};

const claudeEnv = (ctx: InvocationContext): Record<string, string> => (ctx.permissions === 'yolo' && ctx.runningAsRoot ? { IS_SANDBOX: '1' } : {});

const claude: Executor = {
  type: 'claude',
  title: 'Claude Code',
  install: 'npm install -g @anthropic-ai/claude-code',
  sessionIds: 'caller',
  binary: () => 'claude',
  supportsResumption: () => true,
  spawn(ctx) {
    const c = ctx.config;
    return viaStdin('claude', ['--print', '--output-format', 'stream-json', '--verbose', '--session-id', ctx.sessionId!, ...model(c, '--model'), ...claudePermissions(ctx), ...custom(c)], ctx, claudeEnv(ctx), claudeNotes(ctx));
  },
  resume(ctx) {
    const c = ctx.config;
    return viaStdin('claude', ['--print', '--output-format', 'stream-json', '--verbose', '--resume', ctx.sessionId, ...model(c, '--model'), ...claudePermissions(ctx), ...custom(c)], ctx, claudeEnv(ctx), claudeNotes(ctx));
  },
};

/**
 * Cursor grants single commands only in its config files (permissions.allow, by first word), never
 * per run; so safe runs its shell commands in Cursor's sandbox, like Codex (from Cursor's docs:
 * there is no Cursor CLI to test here). --force is "allow everything not explicitly denied".
 */
const cursorPermissions = (ctx: InvocationContext) => (ctx.permissions === 'yolo' ? ['--force'] : ['--sandbox', 'enabled']);
const cursorNotes = (ctx: InvocationContext) =>
  ctx.permissions === 'yolo' ? [] : ['permissions=safe: Cursor runs shell commands in its sandbox (--sandbox enabled); a command it refuses can be allowed with "Shell(<command>)" in permissions.allow of ~/.cursor/cli-config.json'];

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
    return viaStdin('cursor-agent', ['-p', '--output-format', 'stream-json', '--resume', ctx.sessionId!, ...model(c, '--model'), ...cursorPermissions(ctx), ...custom(c)], ctx, {}, cursorNotes(ctx));
  },
  resume(ctx) {
    return this.spawn(ctx);
  },
};

/**
 * Codex cannot grant single commands per run: safe is its workspace-write sandbox, in which every
 * command runs, sow and the checks too (writes inside the workspace and /tmp, no network).
 * `codex exec` never asks, so whatever the sandbox refuses fails at once.
 */
const codexPermissions = (ctx: InvocationContext) => (ctx.permissions === 'yolo' ? ['--dangerously-bypass-approvals-and-sandbox'] : ['-c', 'sandbox_mode="workspace-write"']);
const codexNotes = (ctx: InvocationContext) =>
  ctx.permissions === 'yolo' ? [] : ['permissions=safe: Codex runs every command in its workspace-write sandbox (writes in the repository and /tmp only, no network), sow and the checks too'];

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
    return viaStdin('codex', ['exec', '--json', '-C', ctx.cwd, ...model(c, '-m'), ...codexPermissions(ctx), ...custom(c), '-'], ctx, {}, codexNotes(ctx));
  },
  resume(ctx) {
    const c = ctx.config;
    // `codex exec resume` takes no -C: the resume runs in the recorded cwd instead.
    return viaStdin('codex', ['exec', 'resume', '--json', ...model(c, '-m'), ...codexPermissions(ctx), ...custom(c), ctx.sessionId, '-'], ctx, {}, codexNotes(ctx));
  },
};

/**
 * Gemini CLI grants single shell commands through its policy engine (its --allowed-tools flag is
 * deprecated), so safe is the auto_edit approval mode (edit tools run unasked) plus a policy file
 * beside the prompt: `sow` by prefix (`sow` and `sow …`, not `sowx`), each check exactly (a regex
 * over the command as Gemini CLI sees it in the call's JSON arguments). Gemini CLI checks each part
 * of a chained command separately, so a check that chains commands needs each part allowed too.
 */
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export function geminiPolicy(checks: readonly string[]): string {
  const rule = (lines: string[]) => `[[rule]]\ntoolName = "run_shell_command"\n${lines.join('\n')}\ndecision = "allow"\npriority = 999\n`;
  return [
    '# Written by sow (permissions: safe): the worker may run sow and the checks .sow/config.yaml declares; edits are allowed by --approval-mode auto_edit.\n',
    rule(['commandPrefix = "sow"']),
    // The regex is matched after `"command":"` in the JSON of the call's arguments: the command, JSON-escaped, then its closing quote.
    ...checks.map((c) => rule([`# ${c.replace(/\n/g, ' ')}`, `commandRegex = ${JSON.stringify(`${escapeRegExp(JSON.stringify(c).slice(1, -1))}"`)}`, 'allowRedirection = true'])),
  ].join('\n');
}
const geminiPermissions = (ctx: InvocationContext) => {
  if (ctx.permissions === 'yolo') return { args: ['--yolo'], files: [], notes: [] };
  const path = join(dirname(ctx.promptFile), 'gemini-sow-policy.toml');
  return {
    args: ['--approval-mode', 'auto_edit', '--policy', path],
    files: [{ path, text: geminiPolicy(checksOf(ctx)) }],
    notes: [`permissions=safe: Gemini CLI may edit files (auto_edit) and run ${listed(ctx)} (policy ${path}); it refuses anything else`],
  };
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
    return { ...viaStdin('gemini', ['--output-format', 'stream-json', '--session-id', ctx.sessionId!, ...model(c, '-m'), ...p.args, ...custom(c)], ctx, {}, p.notes), files: p.files };
  },
  resume(ctx) {
    const c = ctx.config;
    const p = geminiPermissions(ctx);
    return { ...viaStdin('gemini', ['--output-format', 'stream-json', '--resume', ctx.sessionId, ...model(c, '-m'), ...p.args, ...custom(c)], ctx, {}, p.notes), files: p.files };
  },
};

/**
 * Copilot CLI: `write` lets its edit tools change files (only inside the working directory; with
 * --disallow-temp-dir not in the temp dir either), `shell(sow)` any sow command, `shell(<check>)`
 * each check. Copilot matches a shell command by its name, plus the first subcommand for tools
 * such as npm and git: `shell(npm test)` allows `npm test`, but a check like `node check.mjs` is
 * known to it as `node`, which sow will not grant (that would allow any node program): sow grants
 * the whole line anyway (harmless if it never matches) and says, with --verbose, that Copilot may
 * refuse it.
 */
const copilotPermissions = (ctx: InvocationContext) =>
  ctx.permissions === 'yolo'
    ? ['--allow-all-tools']
    : ['--allow-tool', 'write', '--allow-tool', 'shell(sow)', ...checksOf(ctx).flatMap((c) => ['--allow-tool', `shell(${c})`]), '--disallow-temp-dir'];
/** Checks Copilot CLI can match as granted: a package manager or git with its subcommand (`npm test`, `npm run lint`). */
const copilotMatchable = (check: string) => /^(npm|pnpm|yarn|git)( [\w:.-]+)*$/.test(check);
const copilotNotes = (ctx: InvocationContext) => {
  if (ctx.permissions === 'yolo') return [];
  const doubtful = checksOf(ctx).filter((c) => !copilotMatchable(c));
  return [
    `permissions=safe: Copilot CLI may edit files in the repository and run ${listed(ctx)}; it refuses anything else`,
    ...(doubtful.length ? [`Copilot CLI matches a command by its name (plus the first subcommand for tools such as npm or git), so it may refuse the check(s) ${doubtful.map((c) => `\`${c}\``).join(', ')}; a package script run as \`npm run <script>\` is matched`] : []),
  ];
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
    return viaStdin('copilot', ['--session-id', ctx.sessionId!, '--output-format', 'json', '-C', ctx.cwd, ...model(c, '--model'), ...copilotPermissions(ctx), ...custom(c)], ctx, {}, copilotNotes(ctx));
  },
  resume(ctx) {
    const c = ctx.config;
    // --resume takes an optional value, so it must be attached with '='.
    return viaStdin('copilot', [`--resume=${ctx.sessionId}`, '--output-format', 'json', '-C', ctx.cwd, ...model(c, '--model'), ...copilotPermissions(ctx), ...custom(c)], ctx, {}, copilotNotes(ctx));
  },
};

/**
 * opencode takes permissions as config: OPENCODE_PERMISSION (JSON merged over every other config
 * layer, so it wins) allows edits, `sow`, `sow …` and each check (the last matching pattern wins,
 * so the catch-all comes first), and asks for anything else, which `opencode run` refuses.
 * opencode stops the whole run at the first refusal unless experimental.continue_loop_on_deny is
 * set, which no environment variable carries: sow writes it to a config file beside the prompt and
 * points OPENCODE_CONFIG at it (OPENCODE_CONFIG_CONTENT, which a user may set, is left alone).
 */
export const opencodePermission = (checks: readonly string[]) => ({
  edit: 'allow',
  bash: { '*': 'ask', sow: 'allow', 'sow *': 'allow', ...Object.fromEntries(checks.map((c) => [c, 'allow'])) },
  webfetch: 'ask',
  external_directory: 'ask',
});
const opencodePermissions = (ctx: InvocationContext): Pick<Invocation, 'args' | 'env' | 'notes' | 'files'> => {
  if (ctx.permissions === 'yolo') return { args: ['--auto'], env: {}, notes: [], files: [] };
  const path = join(dirname(ctx.promptFile), 'opencode-sow.json');
  return {
    args: [],
    env: { OPENCODE_PERMISSION: JSON.stringify(opencodePermission(checksOf(ctx))), OPENCODE_CONFIG: path },
    files: [{ path, text: `${JSON.stringify({ $schema: 'https://opencode.ai/config.json', experimental: { continue_loop_on_deny: true } }, null, 2)}\n` }],
    notes: [`permissions=safe: opencode may edit files in the repository and run ${listed(ctx)} (OPENCODE_PERMISSION); it refuses anything else and goes on (${path})`],
  };
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
    const p = opencodePermissions(ctx);
    return { ...viaStdin('opencode', ['run', '--format', 'json', '--dir', ctx.cwd, ...model(c, '-m'), ...p.args, ...custom(c)], ctx, p.env, p.notes), files: p.files ?? [] };
  },
  resume(ctx) {
    const c = ctx.config;
    const p = opencodePermissions(ctx);
    return { ...viaStdin('opencode', ['run', '--format', 'json', '--dir', ctx.cwd, '--session', ctx.sessionId, ...model(c, '-m'), ...p.args, ...custom(c)], ctx, p.env, p.notes), files: p.files ?? [] };
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
