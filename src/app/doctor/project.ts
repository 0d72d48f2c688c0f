/** The doctor's checks of the workspace and its project: layout, project file, branch, tasks, state, config, refs. */
import { NotAGitRepositoryError, SowError } from '../../domain/errors.js';
import { stateProblem, stateProblemHint, stateProblemText } from '../../domain/lifecycle.js';
import { LAYOUT_VERSION, type TaskState } from '../../domain/schemas.js';
import { summaryOf } from '../../domain/tasks.js';
import { fileExists } from '../../adapters/files.js';
import { upgradeHint } from '../../adapters/installation.js';
import { readRepoConfig } from '../../adapters/repo-config.js';
import { findRepoRoot } from '../../adapters/repo.js';
import { validateRepoConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { refInfos, refsInit } from '../refs.js';
import {
  branchProblem,
  hasProject,
  layoutVersion,
  loadProject,
  taskFileProblems,
  VERSION_FILE,
} from '../project-files.js';
import { fail, failure, firstFew, FIX, ok, warn, type Context, type Verdict } from './finding.js';

/** A ref not fetched for this long may be behind its source. */
const REFS_STALE_DAYS = 30;

/** Where the repository is and how far sow is set up in it (in `ctx`): the workspace check. */
export async function workspaceCheck(ctx: Context): Promise<Verdict> {
  let root: string;
  try {
    root = findRepoRoot(ctx.app.cwd);
  } catch (err) {
    if (!(err instanceof NotAGitRepositoryError)) throw err;
    return fail(err.message, 'run sow inside a git repository (git init makes one)');
  }
  ctx.root = root;
  if (!fileExists(root, VERSION_FILE))
    return fail(`sow is not initialised in ${root} (no ${VERSION_FILE})`, 'sow init');
  const version = layoutVersion(root);
  const reads = `this sow reads layout ${LAYOUT_VERSION}`;
  if (version < LAYOUT_VERSION)
    return fail(`.sow/ has layout ${version}, written by an older sow; ${reads}`, 'sow migrate');
  if (version > LAYOUT_VERSION)
    return fail(`.sow/ has layout ${version}, written by a newer sow; ${reads}`, upgradeHint());
  ctx.layoutOk = true;
  if (hasProject(root)) {
    try {
      ctx.project = await loadProject(root);
    } catch (err) {
      if (!(err instanceof SowError)) throw err;
      ctx.projectError = err;
    }
  }
  return ok(`.sow/ is initialised in ${root} (layout ${version})`);
}

function projectCheck(ctx: Context): Verdict {
  if (ctx.projectError) return failure(ctx.projectError);
  if (!ctx.project) return ok("no project on this branch ('sow project new' starts one)");
  const p = ctx.project.file.data;
  return ok(`project '${p.name}' (${p.type}), in ${p.statechart.current_state}`);
}

function branchCheck(ctx: Context): Verdict | undefined {
  // A project file sow cannot read is the project check's finding; nothing to compare here.
  if (ctx.projectError) return undefined;
  if (!ctx.project) return ok('no project, so no branch to match');
  const problem = branchProblem(ctx.root!, ctx.project.file.data);
  if (!problem) return ok(`the project belongs to '${ctx.project.file.data.branch}', which is checked out`);
  return fail(`${problem.message}; sow refuses to change the project from here`, problem.hint);
}

async function tasksCheck(ctx: Context): Promise<Verdict | undefined> {
  if (ctx.projectError) return undefined;
  if (!ctx.project) return ok('no project, so no task files');
  const read: TaskState[] = [];
  const problems = await taskFileProblems(ctx.root!, ctx.project.type, (t) => read.push(t));
  if (problems.length === 0) {
    ctx.taskStates = read;
    return ok('every task folder holds a valid state file of its task; the dependencies exist and form no cycle');
  }
  const messages = problems.map((p) => p.message);
  return fail(
    `${problems.length} problem(s) with the task files: ${firstFew(messages, '; ')}`,
    problems[0]!.hint || undefined,
  );
}

// Whether the guard of the project's current state holds: a state set by hand fails, naming the guard and the state to
// go back to.
function stateCheck(ctx: Context): Verdict | undefined {
  // Judged only on files sow could read: an unreadable project or task is its own check's finding.
  if (!ctx.project || !ctx.taskStates) return undefined;
  const project = ctx.project.file.data;
  const problem = stateProblem(ctx.project.type, {
    project,
    tasks: ctx.taskStates.map(summaryOf),
    taskStates: ctx.taskStates,
  });
  if (!problem) return ok(`the guard of ${project.statechart.current_state} holds`);
  return fail(stateProblemText(problem), stateProblemHint(problem));
}

async function repoConfigCheck(app: AppContext): Promise<Verdict | undefined> {
  const r = await validateRepoConfig(app);
  if (!r) return undefined;
  const errors = r.lines.filter((l) => l.level === 'error');
  if (errors.length)
    return fail(errors.map((l) => l.text).join('; '), `fix ${r.report.path} (its fields: 'sow schema repo-config')`);
  return ok(r.lines.map((l) => l.text).join('; '));
}

// Whether the declared checks may run here (a clone's are not, until the person allowed them). No checks, or a
// configuration repo-config already reports as invalid: no finding.
async function checksAllowedCheck(root: string, env: AppContext['env']): Promise<Verdict | undefined> {
  let declared;
  try {
    declared = (await readRepoConfig(root)).config.checks ?? [];
  } catch (err) {
    if (err instanceof SowError && err.code === 'CONFIG_INVALID') return undefined;
    throw err;
  }
  if (declared.length === 0) return undefined;
  const { standingsOf } = await import('../check-allowance.js');
  const standings = standingsOf(root, declared, env);
  const refused = standings.checks.filter((c) => !c.allowed);
  const n = declared.length;
  if (refused.length === 0)
    return ok(
      standings.via === 'environment'
        ? `SOW_ALLOW_CHECKS=1 lets the ${n === 1 ? 'declared check' : `${n} declared checks`} run`
        : `${n === 1 ? 'the declared check is' : `all ${n} declared checks are`} allowed to run here`,
    );
  const names = refused.map((c) => `${c.check.name}${c.previously !== undefined ? ' (changed)' : ''}`).join(', ');
  return warn(
    `${refused.length} of ${n} declared check${n === 1 ? '' : 's'} ${refused.length === 1 ? 'is' : 'are'} ` +
      `not allowed to run on this machine: ${names}; until then 'sow check run' and completing a task ` +
      `refuse ${refused.length === 1 ? 'it' : 'them'}, and workers may not ` +
      `run ${refused.length === 1 ? 'it' : 'them'}`,
    "read what they run ('sow check list'), then 'sow check allow' if you trust them",
  );
}

function refsCheck(ctx: Context): Verdict {
  // The cache is where the context's environment says (XDG_CACHE_HOME).
  const refs = refInfos({ ...ctx.app, cwd: ctx.root! });
  if (refs.length === 0) return ok("no references ('sow refs add' links one)");
  const broken = refs.filter((r) => r.link_state !== 'ok');
  // Judged at the command's time, as everything else it reads.
  const now = Date.parse(ctx.app.now());
  const days = (fetched: string) => (now - Date.parse(fetched)) / 86_400_000;
  const stale = refs.filter(
    (r) => r.link_state === 'ok' && r.cache?.fetched_at && days(r.cache.fetched_at) > REFS_STALE_DAYS,
  );
  const staleText = stale.length
    ? `not fetched for over ${REFS_STALE_DAYS} ` +
      `days: ${stale.map((r) => `${r.link} (${Math.floor(days(r.cache!.fetched_at))} days)`).join(', ')}`
    : '';
  if (broken.length) {
    const links = broken.map((r) => `.sow/refs/${r.link} (${r.link_state})`).join(', ');
    return fail(
      `${broken.length} ref link(s) do not work: ${links}${staleText ? `; ${staleText}` : ''}`,
      `${FIX} (or 'sow refs init') makes them again, cloning what the cache lacks`,
      async () => `made the links again: ${(await refsInit(ctx.app, false)).map((r) => r.link).join(', ')}`,
    );
  }
  if (stale.length)
    return warn(
      `${refs.length} ref(s) linked; ${staleText}`,
      "'sow refs status' shows how far behind they are; 'sow refs update' fast-forwards them",
    );
  return ok(`${refs.length} ref(s), every link works`);
}

/** The checks of the project (once .sow/ has this sow's layout), by id, in the order shown. */
export const PROJECT_CHECKS: Record<string, (ctx: Context) => Verdict | undefined | Promise<Verdict | undefined>> = {
  project: projectCheck,
  branch: branchCheck,
  tasks: tasksCheck,
  state: stateCheck,
  'repo-config': (ctx) => repoConfigCheck(ctx.app),
  checks: (ctx) => checksAllowedCheck(ctx.root!, ctx.app.env),
  refs: refsCheck,
};
