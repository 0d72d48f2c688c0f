/**
 * `sow doctor [--fix]`: is this machine and this repository fit for sow? One finding per check,
 * each saying how to fix what it found. Without --fix nothing is written: the checks read files
 * without the lock and never finish a journal or take over a lock (every other read would). With
 * --fix, what is safe to fix is fixed — missing ignore lines, a stale lock, an unfinished write,
 * forgotten worktrees, broken ref links — and every check runs again, so the report shows the
 * state after the fixes.
 */
import { join } from 'node:path';
import { DEFAULT_EXECUTOR, permissionProfile, resolveConfig, type ResolvedBinding } from '../domain/config.js';
import { NotAGitRepositoryError, SowError } from '../domain/errors.js';
import { LAYOUT_VERSION } from '../domain/schemas.js';
import { quoted, shown } from '../domain/display.js';
import type { ExecutorConfig, TaskState } from '../domain/schemas.js';
import { stateProblem, stateProblemHint, stateProblemText } from '../domain/lifecycle.js';
import { summaryOf } from '../domain/tasks.js';
import type { ExecutorModule } from '../adapters/executors/types.js';
import { fileExists } from '../adapters/files.js';
import { GhNotFoundError, ghInstalled } from '../adapters/gh.js';
import { git, gitSucceeds, val } from '../adapters/git.js';
import { upgradeHint } from '../adapters/installation.js';
import { inspectLock, removeStaleLock } from '../adapters/lock.js';
import { firstLine, probe } from '../adapters/probe.js';
import { findRepoRoot } from '../adapters/repo.js';
import { legacyRuntimeFolders, shownRuntime } from '../adapters/runtime.js';
import { hasJournal, inspectJournal, Transaction } from '../adapters/transaction.js';
import { readUserConfig, userConfigPath } from '../adapters/user-config.js';
import { readRepoConfig } from '../adapters/repo-config.js';
import { listWorktrees } from '../adapters/worktrees.js';
import { agentClis, MISSING_CLI_LEVEL, validateRepoConfig, validateUserConfig, type ValidationLine } from './config.js';
import { githubRepo } from './github.js';
import { GITIGNORE_LINES, missingIgnoreLines, repairIgnoreFile } from './init.js';
import { refInfos, refsInit } from './refs.js';
import {
  AGENT_OUTPUTS,
  branchProblem,
  checkJournalText,
  hasProject,
  layoutVersion,
  loadProject,
  lockPath,
  openRoot,
  taskFileProblems,
  VERSION_FILE,
  type LoadedProject,
} from './workspace.js';
import { pruneWorktreesFor } from './worktree.js';
import {
  ATTRIBUTES_FILE,
  ATTRIBUTES_LINE,
  attributesMissing,
  configureDriver,
  configuredDriver,
  findsSowOnPath,
  isSowDriver,
  MERGE_DRIVER,
  repairAttributesFile,
} from './merge-setup.js';
import { conflictRecords, describeConflicts } from './merge-driver.js';
import { findOnPath } from '../adapters/process-runner.js';
import { contextOf, type AppContext, type Where } from './context.js';

export type DoctorStatus = 'ok' | 'warn' | 'fail';

/** A line of 'sow config validate' as a doctor finding: the two commands give one verdict. */
const STATUS_OF: Record<ValidationLine['level'], DoctorStatus> = { ok: 'ok', warning: 'warn', error: 'fail' };

export interface DoctorCheck {
  id: string;
  status: DoctorStatus;
  message: string;
  /** The command or step that fixes it. */
  fix?: string;
  /** `--fix` fixed it (the message says what was done). */
  fixed?: boolean;
}

export interface DoctorReport {
  checks: DoctorCheck[];
  /** Whether --fix was asked for. */
  fix: boolean;
  /** The checks that failed which --fix would fix (without --fix). */
  fixable: string[];
}

/** A check's finding, with what `--fix` would do about it (returns what it did). */
interface Finding extends DoctorCheck {
  repair?: () => Promise<string> | string;
}

/** The Node.js major version sow needs (package.json's engines). */
const NODE_MAJOR = 20;
/** A ref not fetched for this long may be behind its source. */
const REFS_STALE_DAYS = 30;
/** How long a tool may take to say its version, its help or its login. */
const PROBE_MS = 5_000;
const GH_AUTH_MS = 10_000;
/** What the ignore check asks git about: one path under each folder sow keeps out of git. */
const RUNTIME_SAMPLES = ['.sow/.runtime/lock', '.sow/.backup/1/.version', '.sow/worktrees/x/.git'];
const FIX = 'sow doctor --fix';

const ok = (id: string, message: string): Finding => ({ id, status: 'ok', message });

/** What the checks share: the command's context, where the repository is and how far sow is set up in it. */
interface Context {
  app: AppContext;
  cwd: string;
  root?: string;
  /** `.sow/.version` says this sow's layout. */
  layoutOk: boolean;
  project?: LoadedProject;
  /** Why the project could not be read. */
  projectError?: SowError;
  /** Every task, once the tasks check found their files sound. */
  taskStates?: TaskState[];
}

async function context(app: AppContext): Promise<{ ctx: Context; workspace: Finding }> {
  const cwd = app.cwd;
  const ctx: Context = { app, cwd, layoutOk: false };
  let root: string;
  try {
    root = findRepoRoot(cwd);
  } catch (err) {
    if (!(err instanceof NotAGitRepositoryError)) throw err;
    return {
      ctx,
      workspace: {
        id: 'workspace',
        status: 'fail',
        message: err.message,
        fix: 'run sow inside a git repository (git init makes one)',
      },
    };
  }
  ctx.root = root;
  if (!fileExists(root, VERSION_FILE)) {
    return {
      ctx,
      workspace: {
        id: 'workspace',
        status: 'fail',
        message: `sow is not initialised in ${root} (no ${VERSION_FILE})`,
        fix: 'sow init',
      },
    };
  }
  let version: number;
  try {
    version = layoutVersion(root);
  } catch (err) {
    if (!(err instanceof SowError)) throw err;
    return {
      ctx,
      workspace: { id: 'workspace', status: 'fail', message: err.message, ...(err.hint ? { fix: err.hint } : {}) },
    };
  }
  if (version < LAYOUT_VERSION)
    return {
      ctx,
      workspace: {
        id: 'workspace',
        status: 'fail',
        message: `.sow/ has layout ${version}, written by an older sow; this sow reads layout ${LAYOUT_VERSION}`,
        fix: 'sow migrate',
      },
    };
  if (version > LAYOUT_VERSION)
    return {
      ctx,
      workspace: {
        id: 'workspace',
        status: 'fail',
        message: `.sow/ has layout ${version}, written by a newer sow; this sow reads layout ${LAYOUT_VERSION}`,
        fix: upgradeHint(),
      },
    };
  ctx.layoutOk = true;
  if (hasProject(root)) {
    try {
      ctx.project = await loadProject(root);
    } catch (err) {
      if (!(err instanceof SowError)) throw err;
      ctx.projectError = err;
    }
  }
  return { ctx, workspace: ok('workspace', `.sow/ is initialised in ${root} (layout ${version})`) };
}

function nodeCheck(): Finding {
  const version = process.versions.node;
  if (Number(version.split('.')[0]) >= NODE_MAJOR) return ok('node', `Node.js v${version}`);
  return {
    id: 'node',
    status: 'fail',
    message: `Node.js v${version}; sow needs ${NODE_MAJOR} or newer`,
    fix: `install Node.js ${NODE_MAJOR} or newer (https://nodejs.org)`,
  };
}

async function gitCheck(app: AppContext): Promise<Finding> {
  const r = await probe('git', ['--version'], { env: app.env, timeoutMs: PROBE_MS });
  if (r.missing)
    return {
      id: 'git',
      status: 'fail',
      message: 'git is not on PATH; sow keeps its state in a git repository and runs git for branches and worktrees',
      fix: 'install git (Debian and Ubuntu: apt install git; macOS: xcode-select --install)',
    };
  if (r.code !== 0)
    return {
      id: 'git',
      status: 'fail',
      message: `'git --version' ${r.timedOut ? 'did not answer' : `exited ${r.code}`}: ${firstLine(r.stderr)}`,
      fix: 'check that git is installed and works',
    };
  return ok('git', firstLine(r.stdout));
}

function projectCheck(ctx: Context): Finding {
  if (ctx.projectError)
    return {
      id: 'project',
      status: 'fail',
      message: ctx.projectError.message,
      ...(ctx.projectError.hint ? { fix: ctx.projectError.hint } : {}),
    };
  if (!ctx.project) return ok('project', "no project on this branch ('sow project new' starts one)");
  const p = ctx.project.file.data;
  return ok('project', `project '${p.name}' (${p.type}), in ${p.statechart.current_state}`);
}

function branchCheck(ctx: Context): Finding | undefined {
  // A project file sow cannot read is the project check's finding; nothing to compare here.
  if (ctx.projectError) return undefined;
  if (!ctx.project) return ok('branch', 'no project, so no branch to match');
  const problem = branchProblem(ctx.root!, ctx.project.file.data);
  if (!problem) return ok('branch', `the project belongs to '${ctx.project.file.data.branch}', which is checked out`);
  return {
    id: 'branch',
    status: 'fail',
    message: `${problem.message}; sow refuses to change the project from here`,
    fix: problem.hint,
  };
}

async function tasksCheck(ctx: Context): Promise<Finding | undefined> {
  if (ctx.projectError) return undefined;
  if (!ctx.project) return ok('tasks', 'no project, so no task files');
  const read: TaskState[] = [];
  const problems = await taskFileProblems(ctx.root!, ctx.project.type, (t) => read.push(t));
  if (problems.length === 0) {
    ctx.taskStates = read;
    return ok(
      'tasks',
      'every task folder holds a valid state file of its task; the dependencies exist and form no cycle',
    );
  }
  const shown = problems
    .slice(0, 3)
    .map((p) => p.message)
    .join('; ');
  return {
    id: 'tasks',
    status: 'fail',
    message: `${problems.length} problem(s) with the task files: ${shown}${problems.length > 3 ? '; …' : ''}`,
    ...(problems[0]!.hint ? { fix: problems[0]!.hint } : {}),
  };
}

/** Whether the guard of the project's current state holds: a state set by hand fails, naming the guard and the state to go back to. */
function stateCheck(ctx: Context): Finding | undefined {
  // Judged only on files sow could read: an unreadable project or task is its own check's finding.
  if (!ctx.project || !ctx.taskStates) return undefined;
  const project = ctx.project.file.data;
  const problem = stateProblem(ctx.project.type, {
    project,
    tasks: ctx.taskStates.map(summaryOf),
    taskStates: ctx.taskStates,
  });
  if (!problem) return ok('state', `the guard of ${project.statechart.current_state} holds`);
  return { id: 'state', status: 'fail', message: stateProblemText(problem), fix: stateProblemHint(problem) };
}

function gitignoreCheck(root: string): Finding {
  const missing = missingIgnoreLines(root);
  if (missing.length) {
    return {
      id: 'gitignore',
      status: 'fail',
      message: `.sow/.gitignore lacks ${missing.join(', ')}, so git would see sow's runtime files, backups or worktrees`,
      fix: `${FIX} (or 'sow init') adds the missing lines`,
      repair: () => {
        const tx = new Transaction(root);
        const r = repairIgnoreFile(root, tx);
        tx.commit();
        return r.created
          ? `wrote .sow/.gitignore (${GITIGNORE_LINES.join(', ')})`
          : `added ${r.added.join(', ')} to .sow/.gitignore`;
      },
    };
  }
  const tracked = git(root, ['ls-files', '--', '.sow/.runtime', '.sow/.backup', '.sow/worktrees'])
    .split('\n')
    .filter(Boolean);
  if (tracked.length) {
    return {
      id: 'gitignore',
      status: 'fail',
      message: `git tracks ${tracked.length} runtime file(s) of sow (${tracked.slice(0, 3).join(', ')}${tracked.length > 3 ? ', …' : ''}), which an ignore line does not untrack`,
      fix: 'git rm -r --cached .sow/.runtime .sow/.backup .sow/worktrees, then commit',
    };
  }
  const seen = RUNTIME_SAMPLES.filter(
    (p) => !gitSucceeds(root, ['check-ignore', '-q', '--no-index', '--', val(p, 'a runtime path')]),
  );
  if (seen.length) {
    return {
      id: 'gitignore',
      status: 'fail',
      message: `git does not ignore ${seen.join(', ')} although .sow/.gitignore lists their folders: another ignore rule takes them back`,
      fix: `find the rule with 'git check-ignore -v --no-index ${seen[0]}' and remove it`,
    };
  }
  return ok('gitignore', "git ignores sow's runtime files, backups and worktrees");
}

/**
 * Whether git merges `.sow/` with sow's driver: the attribute (committed) names it, the
 * repository's git config says what it runs, and that command is found.
 */
function mergeDriverCheck(app: AppContext, root: string): Finding {
  const attribute = git(root, ['check-attr', 'merge', '--', '.sow/project/state.yaml']).split(': ').at(-1)?.trim();
  const command = configuredDriver(root);
  const problems: string[] = [];
  if (attribute !== 'sow')
    problems.push(
      attributesMissing(root)
        ? `${ATTRIBUTES_FILE} lacks '${ATTRIBUTES_LINE}'`
        : `another attributes rule takes .sow/ files from the merge driver (git says merge: ${attribute ?? 'unspecified'}; 'git check-attr -a -- .sow/project/state.yaml' shows them)`,
    );
  if (command === undefined) problems.push('git config has no merge.sow.driver');
  else if (!isSowDriver(command))
    problems.push(`git config merge.sow.driver is ${quoted(command)}, not '${MERGE_DRIVER}'`);
  if (problems.length) {
    const fixable = (attribute !== 'sow' && attributesMissing(root)) || command === undefined;
    return {
      id: 'merge-driver',
      status: 'fail',
      message: `${problems.join('; ')}: git merges .sow/ files as text, and two branches that changed the same project conflict in them`,
      fix: fixable ? `${FIX} (or 'sow init') registers it` : `git config merge.sow.driver '${MERGE_DRIVER}'`,
      ...(fixable
        ? {
            repair: () => {
              const did: string[] = [];
              const tx = new Transaction(root);
              const attributes = repairAttributesFile(root, tx);
              tx.commit();
              if (attributes)
                did.push(`${attributes === 'created' ? 'wrote' : 'added the line to'} ${ATTRIBUTES_FILE}`);
              const set = configureDriver(root);
              if (set.set.length) did.push(`set git config ${set.set.join(', ')}`);
              if (set.failed) throw new SowError('GIT_CONFIG_FAILED', 'external', `'git config' failed: ${set.failed}`);
              return did.join('; ');
            },
          }
        : {}),
    };
  }
  if (findsSowOnPath(command!) && !findOnPath('sow', app.env))
    return {
      id: 'merge-driver',
      status: 'warn',
      message:
        'git runs the merge driver for .sow/ files as sow from PATH, and no sow is on PATH: git merges them as text, and two branches that changed the same project conflict in them',
      fix: "put sow on PATH (npm install -g sow-cli), or name it in full: git config merge.sow.driver '/path/to/sow merge-driver %O %A %B %P'",
    };
  return ok('merge-driver', `git merges .sow/ files with ${quoted(command!)}`);
}

/** Files under .sow/ a merge left unmerged, with the fields and values the driver recorded for each. */
function mergeConflictsCheck(root: string): Finding {
  const unmerged = [
    ...new Set(
      git(root, ['ls-files', '-u', '-z', '--', '.sow'])
        .split('\0')
        .filter(Boolean)
        .map((line) => line.slice(line.indexOf('\t') + 1)),
    ),
  ];
  if (unmerged.length === 0) return ok('merge-conflicts', 'no file under .sow/ is left unmerged');
  const records = new Map(conflictRecords(root).map((r) => [r.path, r]));
  const said = unmerged.slice(0, 3).map((path) => {
    const record = records.get(path);
    return record
      ? `${shown(path)}: ${describeConflicts(record.fields)}; it holds this branch's values`
      : `${shown(path)}: git's text merge left conflict markers in it`;
  });
  const first = unmerged[0]!;
  const firstShown = shown(first);
  return {
    id: 'merge-conflicts',
    status: 'fail',
    message: `a merge stopped at ${unmerged.length} file(s) under .sow/: ${said.join('; ')}${unmerged.length > 3 ? '; …' : ''}`,
    fix: records.has(first)
      ? `edit ${firstShown} so each field named holds the value you want, then 'git add ${firstShown}' (and so on for each file), then 'git commit'`
      : `edit ${firstShown} to keep what both sides meant and remove the markers, then 'git add ${firstShown}' (and so on for each file), then 'git commit'`,
  };
}

function lockCheck(root: string): Finding {
  const path = lockPath(root);
  const lock = inspectLock(path);
  if (!lock) return ok('lock', 'no lock is held');
  const since = lock.since ? ` since ${lock.since}` : '';
  if (!lock.stale) return ok('lock', `held by ${lock.holder}${since}: a sow command is writing`);
  return {
    id: 'lock',
    status: 'fail',
    message: `a stale lock: ${lock.holder} took it${since} and is gone`,
    fix: `${FIX} removes it (the next sow command that writes would also take it over)`,
    repair: () =>
      removeStaleLock(path) ? `removed the stale lock of ${lock.holder}` : 'the lock was no longer stale; left it',
  };
}

/**
 * Runtime folders in the work tree (`.sow/.runtime/`, `.sow/.backup/`): left by an older sow, or
 * brought by the repository. sow reads nothing there; what was worth keeping moved to git's folder.
 */
function legacyRuntimeCheck(root: string): Finding {
  const found = legacyRuntimeFolders(root);
  if (!found.length)
    return ok('legacy-runtime', `sow's runtime files are in ${shownRuntime(root)}, where no commit can put any`);
  return {
    id: 'legacy-runtime',
    status: 'warn',
    message: `${found.join(' and ')} ${found.length > 1 ? 'are' : 'is'} in the work tree, left by an older sow or brought by the repository; sow no longer reads ${found.length > 1 ? 'them' : 'it'} (its runtime files are in ${shownRuntime(root)})`,
    fix: `look, then remove: 'rm -r ${found.join(' ')}'`,
  };
}

async function journalCheck(ctx: Context): Promise<Finding> {
  const root = ctx.root!;
  if (!hasJournal(root)) return ok('journal', 'no unfinished write');
  try {
    const { steps } = await inspectJournal(root, checkJournalText);
    return {
      id: 'journal',
      status: 'fail',
      message: `a write was cut short after its commit point (${shownRuntime(root, 'journal.json')}, ${steps} step(s) left)`,
      fix: `${FIX} finishes it (so does the next sow command)`,
      ...(ctx.layoutOk
        ? {
            repair: async () => {
              await openRoot(ctx.app);
              return `finished the interrupted write (${steps} step(s))`;
            },
          }
        : {}),
    };
  } catch (err) {
    if (!(err instanceof SowError)) throw err;
    return { id: 'journal', status: 'fail', message: err.message, ...(err.hint ? { fix: err.hint } : {}) };
  }
}

async function userConfigCheck(app: AppContext): Promise<Finding> {
  const r = await validateUserConfig(app, { binaries: false });
  const errors = r.lines.filter((l) => l.level === 'error');
  const warnings = r.lines.filter((l) => l.level === 'warning');
  if (errors.length) {
    const environment = errors.some((l) => l.source === 'environment');
    return {
      id: 'config',
      status: 'fail',
      message: `${r.path}: ${errors.map((l) => l.text).join('; ')}`,
      fix: environment ? 'change or unset the environment variable named' : 'sow config edit',
    };
  }
  if (warnings.length)
    return {
      id: 'config',
      status: 'warn',
      message: `${r.path}: ${warnings.map((l) => l.text.replace(/\n\s*/g, ' ')).join('; ')}`,
      fix: 'sow config edit',
    };
  return ok('config', r.exists ? `${r.path} is valid` : `no ${r.path}: every role uses ${DEFAULT_EXECUTOR}`);
}

async function repoConfigCheck(app: AppContext): Promise<Finding | undefined> {
  const r = await validateRepoConfig(app);
  if (!r) return undefined;
  const errors = r.lines.filter((l) => l.level === 'error');
  if (errors.length)
    return {
      id: 'repo-config',
      status: 'fail',
      message: errors.map((l) => l.text).join('; '),
      fix: `fix ${r.report.path} (its fields: 'sow schema repo-config')`,
    };
  return ok('repo-config', r.lines.map((l) => l.text).join('; '));
}

/**
 * Whether the declared checks may run on this machine (a clone's checks are not, until the person
 * allowed them). No checks, or a configuration repo-config already reports as invalid: no finding.
 */
async function checksAllowedCheck(root: string, env: AppContext['env']): Promise<Finding | undefined> {
  let declared;
  try {
    declared = (await readRepoConfig(root)).config.checks ?? [];
  } catch (err) {
    if (err instanceof SowError && err.code === 'CONFIG_INVALID') return undefined;
    throw err;
  }
  if (declared.length === 0) return undefined;
  const { standingsOf } = await import('./check-allowance.js');
  const standings = standingsOf(root, declared, env);
  const refused = standings.checks.filter((c) => !c.allowed);
  const n = declared.length;
  if (refused.length === 0) {
    return ok(
      'checks',
      standings.via === 'environment'
        ? `SOW_ALLOW_CHECKS=1 lets the ${n === 1 ? 'declared check' : `${n} declared checks`} run`
        : `${n === 1 ? 'the declared check is' : `all ${n} declared checks are`} allowed to run here`,
    );
  }
  const names = refused.map((c) => `${c.check.name}${c.previously !== undefined ? ' (changed)' : ''}`).join(', ');
  return {
    id: 'checks',
    status: 'warn',
    message: `${refused.length} of ${n} declared check${n === 1 ? '' : 's'} ${refused.length === 1 ? 'is' : 'are'} not allowed to run on this machine: ${names}; until then 'sow check run' and completing a task refuse ${refused.length === 1 ? 'it' : 'them'}, and workers may not run ${refused.length === 1 ? 'it' : 'them'}`,
    fix: "read what they run ('sow check list'), then 'sow check allow' if you trust them",
  };
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

/**
 * What to look up in a CLI's help: for each subcommand path sow runs (spawn, resume), the flags it
 * passes there with this configuration (the user's custom_args left out: they are the user's).
 */
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
  const out = [invocationShape(executor.spawn(ctx).args)];
  if (executor.supportsResumption(plain)) out.push(invocationShape(executor.resume(ctx).args));
  // One help text per subcommand path: spawn and resume of most CLIs share it.
  const byPath = new Map<string, { path: string[]; flags: string[] }>();
  for (const s of out) {
    const key = s.path.join(' ');
    const have = byPath.get(key);
    byPath.set(key, { path: s.path, flags: [...new Set([...(have?.flags ?? []), ...s.flags])] });
  }
  return [...byPath.values()];
}

async function agentChecks(app: AppContext, root: string | undefined): Promise<Finding[]> {
  let config;
  try {
    config = (await readUserConfig(userConfigPath(app.env))).config;
  } catch (err) {
    if (!(err instanceof SowError)) throw err;
    return [
      {
        id: 'agents',
        status: 'warn',
        message: 'the agent CLIs were not checked: the configuration is invalid (see the config check)',
        fix: 'sow config edit',
      },
    ];
  }
  const effective = resolveConfig(config, app.env);
  const clis = new Map(agentClis(effective, app.env).map((c) => [c.executor, c]));
  const used = new Map<string, ResolvedBinding[]>();
  for (const b of Object.values(effective.bindings)) used.set(b.executor, [...(used.get(b.executor) ?? []), b]);
  return Promise.all(
    [...used].map(async ([name, bindings]) => {
      const id = `agent.${name}`;
      const cli = clis.get(name);
      if (!cli)
        return {
          id,
          status: 'fail' as const,
          message: `the executor '${name}' is not defined`,
          fix: 'sow config validate',
        };
      const { spec: executor, binary } = cli;
      // A CLI the user chose (in the file or the environment) must work; the built-in default is needed only to spawn workers.
      const chosen = bindings.some((b) => b.source !== 'default');
      const severity: DoctorStatus = chosen ? 'fail' : 'warn';
      const who = `the '${name}' executor (${bindings.map((b) => b.role).join(', ')})`;
      // Missing from PATH: the verdict 'sow config validate' gives too.
      if (!cli.found) {
        return {
          id,
          status: STATUS_OF[MISSING_CLI_LEVEL],
          message: `${binary || '(no command)'} is not on PATH; ${who} needs it to spawn workers ('sow agent spawn')`,
          fix: executor.install,
        };
      }
      // A command of the user's own is not run: sow cannot know what --version would make it do.
      if (executor.doctor === 'on-path')
        return ok(id, `${binary} is on PATH for ${who}; its flags are your own spawn and resume argv`);
      const version = await probe(binary, ['--version'], { env: app.env, cwd: root ?? app.cwd, timeoutMs: PROBE_MS });
      const versionText = version.code === 0 ? firstLine(version.stdout || version.stderr) : 'version unknown';
      const missing: string[] = [];
      const unread: string[] = [];
      for (const shape of helpChecks(executor, cli.config, root ?? app.cwd)) {
        if (shape.flags.length === 0) continue;
        const help = await probe(binary, [...shape.path, '--help'], {
          env: app.env,
          cwd: root ?? app.cwd,
          timeoutMs: PROBE_MS,
        });
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
      if (missing.length) {
        return {
          id,
          status: severity,
          message: `${binary} (${versionText}) does not list ${missing.join(', ')} in its --help, and sow passes ${missing.length === 1 ? 'it' : 'them'}: workers of ${who} would not start`,
          fix: `install a current version: ${executor.install}`,
        };
      }
      if (unread.length)
        return {
          id,
          status: 'warn',
          message: `${binary} (${versionText}) for ${who}: the flags sow passes were not checked: ${unread.join('; ')}`,
          fix: `run '${binary} --help' to see whether it works`,
        };
      return ok(id, `${binary} (${versionText}) for ${who}; it knows every flag sow passes`);
    }),
  );
}

async function ghCheck(app: AppContext, root: string | undefined): Promise<Finding> {
  let repo: string | undefined;
  if (root) {
    try {
      repo = await githubRepo(root);
    } catch (err) {
      if (!(err instanceof SowError)) throw err;
    }
  }
  // gh matters when the repository is on GitHub (origin, or github.repo in .sow/config.yaml).
  const severity: DoctorStatus = repo ? 'fail' : 'warn';
  const needs = repo
    ? `sow needs it for ${repo} ('sow issue list', 'sow pr create', …)`
    : "sow needs it only for GitHub ('sow issue list', 'sow pr create', …), and this repository names no GitHub repository";
  if (!ghInstalled(app.env))
    return {
      id: 'gh',
      status: severity,
      message: `gh (the GitHub CLI) is not on PATH; ${needs}`,
      fix: new GhNotFoundError().hint!,
    };
  const extraEnv = { GH_PROMPT_DISABLED: '1' };
  const [version, auth] = await Promise.all([
    probe('gh', ['--version'], { env: app.env, extraEnv, timeoutMs: PROBE_MS }),
    probe('gh', ['auth', 'status'], { env: app.env, extraEnv, timeoutMs: GH_AUTH_MS, ...(root ? { cwd: root } : {}) }),
  ]);
  const versionText = version.code === 0 ? firstLine(version.stdout) : 'gh, version unknown';
  if (auth.timedOut)
    return {
      id: 'gh',
      status: 'warn',
      message: `${versionText}; 'gh auth status' did not answer within ${GH_AUTH_MS / 1000} s`,
      fix: 'gh auth status',
    };
  if (auth.code !== 0)
    return {
      id: 'gh',
      status: severity,
      message: `${versionText}, but it is not logged in to GitHub; ${needs}`,
      fix: 'gh auth login (or set GH_TOKEN)',
    };
  return ok('gh', `${versionText}, logged in${repo ? `; the repository is ${repo}` : ''}`);
}

function refsCheck(ctx: Context): Finding {
  // The cache is where the context's environment says (XDG_CACHE_HOME).
  const refs = refInfos({ ...ctx.app, cwd: ctx.root! });
  if (refs.length === 0) return ok('refs', "no references ('sow refs add' links one)");
  const broken = refs.filter((r) => r.link_state !== 'ok');
  // Judged at the command's time, as everything else it reads.
  const now = Date.parse(ctx.app.now());
  const stale = refs.filter(
    (r) =>
      r.link_state === 'ok' &&
      r.cache?.fetched_at &&
      now - Date.parse(r.cache.fetched_at) > REFS_STALE_DAYS * 86_400_000,
  );
  const age = (fetched: string) => Math.floor((now - Date.parse(fetched)) / 86_400_000);
  const staleText = stale.length
    ? `not fetched for over ${REFS_STALE_DAYS} days: ${stale.map((r) => `${r.link} (${age(r.cache!.fetched_at)} days)`).join(', ')}`
    : '';
  if (broken.length) {
    return {
      id: 'refs',
      status: 'fail',
      message: `${broken.length} ref link(s) do not work: ${broken.map((r) => `.sow/refs/${r.link} (${r.link_state})`).join(', ')}${staleText ? `; ${staleText}` : ''}`,
      fix: `${FIX} (or 'sow refs init') makes them again, cloning what the cache lacks`,
      repair: async () => `made the links again: ${(await refsInit(ctx.app, false)).map((r) => r.link).join(', ')}`,
    };
  }
  if (stale.length)
    return {
      id: 'refs',
      status: 'warn',
      message: `${refs.length} ref(s) linked; ${staleText}`,
      fix: "'sow refs status' shows how far behind they are; 'sow refs update' fast-forwards them",
    };
  return ok('refs', `${refs.length} ref(s), every link works`);
}

function worktreesCheck(ctx: Context): Finding {
  const trees = listWorktrees(ctx.root!);
  const gone = trees.filter((t) => t.prunable);
  if (gone.length === 0)
    return ok('worktrees', `${trees.length - 1} worktree(s) besides the main checkout; none to prune`);
  return {
    id: 'worktrees',
    status: 'warn',
    message: `git still records ${gone.length} worktree(s) whose folder is gone: ${gone.map((t) => t.branch ?? t.path).join(', ')}`,
    fix: `${FIX} (or 'sow worktree prune') forgets them`,
    ...(ctx.layoutOk
      ? {
          repair: async () =>
            `forgot ${(await pruneWorktreesFor(ctx.cwd)).pruned.map((t) => t.branch ?? t.rel).join(', ')}`,
        }
      : {}),
  };
}

/** A check that meets a failure sow knows (git missing, a file it cannot read) reports it as its finding. */
async function guarded(
  id: string,
  check: () => Finding | undefined | Promise<Finding | undefined>,
): Promise<Finding | undefined> {
  try {
    return await check();
  } catch (err) {
    if (!(err instanceof SowError)) throw err;
    return { id, status: 'fail', message: err.message, ...(err.hint ? { fix: err.hint } : {}) };
  }
}

/** Every check, in the order they are shown. */
async function runChecks(app: AppContext): Promise<Finding[]> {
  const { ctx, workspace } = await context(app);
  const root = ctx.root;
  const initialised = root !== undefined && fileExists(root, VERSION_FILE);
  // The slow ones (subprocesses) start at once and run side by side.
  const [gitFinding, ghFinding, agents, userConfig] = await Promise.all([
    gitCheck(app),
    ghCheck(app, root),
    agentChecks(app, root),
    userConfigCheck(app),
  ]);
  const repo: (Finding | undefined)[] = [];
  if (initialised) {
    repo.push(
      await guarded('gitignore', () => gitignoreCheck(root)),
      await guarded('merge-driver', () => mergeDriverCheck(app, root)),
      await guarded('merge-conflicts', () => mergeConflictsCheck(root)),
      await guarded('lock', () => lockCheck(root)),
      await guarded('journal', () => journalCheck(ctx)),
      await guarded('legacy-runtime', () => legacyRuntimeCheck(root)),
    );
  }
  if (ctx.layoutOk) {
    repo.push(
      projectCheck(ctx),
      await guarded('branch', () => branchCheck(ctx)),
      await guarded('tasks', () => tasksCheck(ctx)),
      await guarded('state', () => stateCheck(ctx)),
    );
    repo.push(
      await guarded('repo-config', () => repoConfigCheck(app)),
      await guarded('checks', () => checksAllowedCheck(root!, app.env)),
      await guarded('refs', () => refsCheck(ctx)),
    );
  }
  if (root) repo.push(await guarded('worktrees', () => worktreesCheck(ctx)));
  return [
    nodeCheck(),
    gitFinding,
    workspace,
    ...repo.filter((f): f is Finding => f !== undefined),
    userConfig,
    ...agents,
    ghFinding,
  ];
}

const strip = ({ repair: _repair, ...check }: Finding): DoctorCheck => check;

/** `sow doctor [--fix]`. */
export async function doctor(where: Where, opts: { fix: boolean }): Promise<DoctorReport> {
  const app = contextOf(where);
  const first = await runChecks(app);
  if (!opts.fix)
    return {
      checks: first.map(strip),
      fix: false,
      fixable: first.filter((f) => f.status === 'fail' && f.repair).map((f) => f.id),
    };
  const done = new Map<string, string>();
  const failed = new Map<string, string>();
  for (const f of first) {
    if (f.status === 'ok' || !f.repair) continue;
    try {
      done.set(f.id, await f.repair());
    } catch (err) {
      if (!(err instanceof SowError)) throw err;
      failed.set(f.id, err.message);
    }
  }
  if (done.size === 0 && failed.size === 0) return { checks: first.map(strip), fix: true, fixable: [] };
  // Again, all of them: a fix can change what another check sees (a finished write, a freed lock).
  const after = await runChecks(app);
  return {
    fix: true,
    fixable: [],
    checks: after.map((f) => {
      const check = strip(f);
      const did = done.get(f.id);
      if (did !== undefined)
        return {
          ...check,
          fixed: true,
          message: check.status === 'ok' ? `fixed: ${did}` : `fixed in part: ${did}; ${check.message}`,
        };
      const why = failed.get(f.id);
      return why !== undefined ? { ...check, message: `${check.message} (--fix could not fix it: ${why})` } : check;
    }),
  };
}

/** Some check failed: exit 1, every check in the details (and, without --json, on stdout first). */
export class DoctorFoundProblemsError extends SowError {
  constructor(report: DoctorReport) {
    const fixable = report.fixable;
    const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
    super(
      'DOCTOR_FOUND_PROBLEMS',
      'failed',
      `${failed.length} check(s) failed: ${failed.join(', ')}`,
      fixable.length && !report.fix
        ? `run 'sow doctor --fix' to fix ${fixable.join(', ')}; each other FAIL line says how to fix it`
        : 'each FAIL line says how to fix it',
      { checks: report.checks },
    );
  }
}
