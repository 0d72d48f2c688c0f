/** The doctor's checks of this machine: Node.js, git, the user's configuration, the agent CLIs it binds and gh. */
import { join } from 'node:path';
import { DEFAULT_EXECUTOR, permissionProfile, resolveConfig, type ResolvedBinding } from '../../domain/config.js';
import { SowError } from '../../domain/errors.js';
import type { ExecutorConfig } from '../../domain/config-schemas.js';
import type { ExecutorModule } from '../../adapters/executors/types.js';
import { GhNotFoundError, ghInstalled } from '../../adapters/gh.js';
import { firstLine, probe } from '../../adapters/probe.js';
import { readUserConfig, userConfigPath } from '../../adapters/user-config.js';
import { agentClis, MISSING_CLI_LEVEL, validateUserConfig, type ValidationLine } from '../config.js';
import type { AppContext } from '../context.js';
import { githubRepo } from '../github.js';
import { AGENT_OUTPUTS } from '../project-files.js';
import { fail, ok, verdict, warn, type DoctorStatus, type Finding, type Verdict } from './finding.js';

/** A line of 'sow config validate' as a doctor finding: the two commands give one verdict. */
const STATUS_OF: Record<ValidationLine['level'], DoctorStatus> = { ok: 'ok', warning: 'warn', error: 'fail' };

/** The Node.js major version sow needs (package.json's engines). */
const NODE_MAJOR = 20;
/** How long a tool may take to say its version, its help or its login. */
const PROBE_MS = 5_000;
const GH_AUTH_MS = 10_000;

export function nodeCheck(): Verdict {
  const version = process.versions.node;
  if (Number(version.split('.')[0]) >= NODE_MAJOR) return ok(`Node.js v${version}`);
  return fail(
    `Node.js v${version}; sow needs ${NODE_MAJOR} or newer`,
    `install Node.js ${NODE_MAJOR} or newer (https://nodejs.org)`,
  );
}

export async function gitCheck(app: AppContext): Promise<Verdict> {
  const r = await probe('git', ['--version'], { env: app.env, timeoutMs: PROBE_MS });
  if (r.missing)
    return fail(
      'git is not on PATH; sow keeps its state in a git repository and runs git for branches and worktrees',
      'install git (Debian and Ubuntu: apt install git; macOS: xcode-select --install)',
    );
  if (r.code !== 0)
    return fail(
      `'git --version' ${r.timedOut ? 'did not answer' : `exited ${r.code}`}: ${firstLine(r.stderr)}`,
      'check that git is installed and works',
    );
  return ok(firstLine(r.stdout));
}

export async function userConfigCheck(app: AppContext): Promise<Verdict> {
  const r = await validateUserConfig(app, { binaries: false });
  const errors = r.lines.filter((l) => l.level === 'error');
  const warnings = r.lines.filter((l) => l.level === 'warning');
  if (errors.length) {
    const environment = errors.some((l) => l.source === 'environment');
    return fail(
      `${r.path}: ${errors.map((l) => l.text).join('; ')}`,
      environment ? 'change or unset the environment variable named' : 'sow config edit',
    );
  }
  if (warnings.length)
    return warn(`${r.path}: ${warnings.map((l) => l.text.replace(/\n\s*/g, ' ')).join('; ')}`, 'sow config edit');
  return ok(r.exists ? `${r.path} is valid` : `no ${r.path}: every role uses ${DEFAULT_EXECUTOR}`);
}

/** Whether `flag` is listed in a CLI's help text (as a word of its own, e.g. `--model <m>`, `-C, --cd`). */
export function helpListsFlag(help: string, flag: string): boolean {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[\\s,\\[(])${escaped}(?=[\\s,=\\]<)]|$)`, 'm').test(help);
}

/** The subcommand words before the first flag (`exec resume` of codex), and every flag sow passes. */
export function invocationShape(args: readonly string[]): { path: string[]; flags: string[] } {
  const first = args.findIndex((a) => a.startsWith('-'));
  const path = first < 0 ? [...args] : args.slice(0, first);
  const flags = args.filter((a) => a.startsWith('-') && a !== '-').map((a) => a.split('=')[0]!);
  return { path, flags: [...new Set(flags)] };
}

// For each subcommand path sow runs (spawn, resume), the flags it passes with this configuration, to look up in the
// CLI's help (the user's custom_args left out: they are the user's).
export function helpChecks(
  executor: ExecutorModule,
  config: ExecutorConfig,
  root: string,
): { path: string[]; flags: string[] }[] {
  const plain: ExecutorConfig = { ...config, custom_args: [] };
  const ctx = {
    config: plain,
    cwd: root,
    prompt: '',
    promptFile: join(root, '.git', 'sow', AGENT_OUTPUTS, 'doctor', 'prompt.md'),
    sessionId: 'doctor',
    runningAsRoot: false,
    permissions: permissionProfile(plain),
    checks: [],
    protect: [],
  };
  const spawn = invocationShape(executor.spawn(ctx).args);
  if (!executor.supportsResumption(plain)) return [spawn];
  const resume = invocationShape(executor.resume(ctx).args);
  // One help text per subcommand path: spawn and resume of most CLIs share it.
  if (resume.path.join(' ') !== spawn.path.join(' ')) return [spawn, resume];
  return [{ path: spawn.path, flags: [...new Set([...spawn.flags, ...resume.flags])] }];
}

export async function agentChecks(app: AppContext, root: string | undefined): Promise<Finding[]> {
  let config;
  try {
    config = (await readUserConfig(userConfigPath(app.env))).config;
  } catch (err) {
    if (!(err instanceof SowError)) throw err;
    const why = 'the agent CLIs were not checked: the configuration is invalid (see the config check)';
    return [{ id: 'agents', ...warn(why, 'sow config edit') }];
  }
  const effective = resolveConfig(config, app.env);
  const clis = new Map(agentClis(effective, app.env).map((c) => [c.executor, c]));
  const used = new Map<string, ResolvedBinding[]>();
  for (const b of Object.values(effective.bindings)) used.set(b.executor, [...(used.get(b.executor) ?? []), b]);
  const check = async (name: string, bindings: ResolvedBinding[]): Promise<Verdict> => {
    const cli = clis.get(name);
    if (!cli) return fail(`the executor '${name}' is not defined`, 'sow config validate');
    const { spec: executor, binary } = cli;
    // A CLI the user chose (in the file or the environment) must work; the built-in default is needed only to spawn
    // workers.
    const chosen = bindings.some((b) => b.source !== 'default');
    const severity: DoctorStatus = chosen ? 'fail' : 'warn';
    const who = `the '${name}' executor (${bindings.map((b) => b.role).join(', ')})`;
    // Missing from PATH: the verdict 'sow config validate' gives too.
    if (!cli.found)
      return verdict(
        STATUS_OF[MISSING_CLI_LEVEL],
        `${binary || '(no command)'} is not on PATH; ${who} needs it to spawn workers ('sow agent spawn')`,
        executor.install,
      );
    // A command of the user's own is not run: sow cannot know what --version would make it do.
    if (executor.doctor === 'on-path')
      return ok(`${binary} is on PATH for ${who}; its flags are your own spawn and resume argv`);
    const at = { env: app.env, cwd: root ?? app.cwd, timeoutMs: PROBE_MS };
    const version = await probe(binary, ['--version'], at);
    const versionText = version.code === 0 ? firstLine(version.stdout || version.stderr) : 'version unknown';
    const missing: string[] = [];
    const unread: string[] = [];
    for (const shape of helpChecks(executor, cli.config, root ?? app.cwd)) {
      if (shape.flags.length === 0) continue;
      const help = await probe(binary, [...shape.path, '--help'], at);
      const text = `${help.stdout}\n${help.stderr}`;
      const command = [binary, ...shape.path].join(' ');
      if (help.timedOut || !text.trim()) {
        unread.push(
          `'${command} --help' ${help.timedOut ? `did not answer within ${PROBE_MS / 1000} s` : 'printed nothing'}`,
        );
        continue;
      }
      for (const flag of shape.flags) if (!helpListsFlag(text, flag)) missing.push(`${flag} (${command})`);
    }
    if (missing.length)
      return verdict(
        severity,
        `${binary} (${versionText}) does not list ${missing.join(', ')} in its --help, and sow ` +
          `passes ${missing.length === 1 ? 'it' : 'them'}: workers of ${who} would not start`,
        `install a current version: ${executor.install}`,
      );
    if (unread.length)
      return warn(
        `${binary} (${versionText}) for ${who}: the flags sow passes were not checked: ${unread.join('; ')}`,
        `run '${binary} --help' to see whether it works`,
      );
    return ok(`${binary} (${versionText}) for ${who}; it knows every flag sow passes`);
  };
  return Promise.all(
    [...used].map(async ([name, bindings]) => ({ id: `agent.${name}`, ...(await check(name, bindings)) })),
  );
}

export async function ghCheck(app: AppContext, root: string | undefined): Promise<Verdict> {
  let repo: string | undefined;
  try {
    repo = root && (await githubRepo(root));
  } catch (err) {
    if (!(err instanceof SowError)) throw err;
  }
  // gh matters when the repository is on GitHub (origin, or github.repo in .sow/config.yaml).
  const severity: DoctorStatus = repo ? 'fail' : 'warn';
  const needs = repo
    ? `sow needs it for ${repo} ('sow issue list', 'sow pr create', …)`
    : "sow needs it only for GitHub ('sow issue list', 'sow pr create', …), and this repository names no GitHub " +
      'repository';
  if (!ghInstalled(app.env))
    return verdict(severity, `gh (the GitHub CLI) is not on PATH; ${needs}`, new GhNotFoundError().hint!);
  const extraEnv = { GH_PROMPT_DISABLED: '1' };
  const [version, auth] = await Promise.all([
    probe('gh', ['--version'], { env: app.env, extraEnv, timeoutMs: PROBE_MS }),
    probe('gh', ['auth', 'status'], { env: app.env, extraEnv, timeoutMs: GH_AUTH_MS, ...(root ? { cwd: root } : {}) }),
  ]);
  const versionText = version.code === 0 ? firstLine(version.stdout) : 'gh, version unknown';
  if (auth.timedOut)
    return warn(`${versionText}; 'gh auth status' did not answer within ${GH_AUTH_MS / 1000} s`, 'gh auth status');
  if (auth.code !== 0)
    return verdict(
      severity,
      `${versionText}, but it is not logged in to GitHub; ${needs}`,
      'gh auth login (or set GH_TOKEN)',
    );
  return ok(`${versionText}, logged in${repo ? `; the repository is ${repo}` : ''}`);
}
