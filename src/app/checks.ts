/** Checked, not trusted: sow runs the declared checks itself and records each run as evidence (log, exit code, tree),
 * so a guard asks whether they passed on the code now. Runs hold no lock (a check takes minutes). */
import type { AppContext } from './context.js';
import { basename, join } from 'node:path';
import { PROJECT_DIR, type ArtifactTypeDef, UnknownArtifactTypeError } from '../domain/artifacts.js';
import { phaseDef, phaseOf, selectPhase, withPhase } from '../domain/phases.js';
import { checkStatuses, EVIDENCE, EVIDENCE_DIR, evidenceNeeded } from '../domain/project-types/evidence.js';
import type { ProjectType, ProjectView } from '../domain/project-type.js';
import type { Artifact, TaskState } from '../domain/schemas.js';
import type { Check } from '../domain/config-schemas.js';
import { headCommit, headTreeWithout, worktreeTree } from '../adapters/git.js';
import { readRepoConfig, REPO_CONFIG } from '../adapters/repo-config.js';
import { closeLog, createLog, logTail, noteInLog, removeLog, runShell, type ShellOutcome } from '../adapters/shell.js';
import { actor, type UnitOfWork } from './unit-of-work.js';
import { openRoot, Reader, update } from './workspace.js';
import { selectChecks } from '../domain/checks.js';
import { ChecksFailedError, ChecksInterruptedError, type CheckRun } from './check-errors.js';

export type { CheckRun } from './check-errors.js';

/** The folder whose changes never make evidence stale: sow's own state. */
export const SOW_DIR = '.sow';
export const DEFAULT_TIMEOUT_S = 600;

export const NO_CHECKS_HELP = `No checks declared; add them to ${REPO_CONFIG}, for example:

checks:
  - name: unit
    run: npm test
    when: [task_complete, finalize]
  - name: lint
    run: npm run lint
    when: [finalize]
    timeout: 300

'when' says when a check is needed: task_complete (before a task is completed) and finalize (its
passing evidence is needed to leave FinalizeChecks); 'timeout' is in seconds (default ${DEFAULT_TIMEOUT_S}).`;

/** Where checks run (the folder whose code is recorded): the project checkout, or the task's worker checkout (then
 * `checkout` is its path relative to the project checkout, as the task records it). */
type CheckPlace = { path: string; checkout?: string };

/** A check starts or ends; `all` is every check of this run, in order. */
export type CheckProgress =
  | { kind: 'start'; check: Check; index: number; all: readonly Check[] }
  | { kind: 'end'; run: CheckRun; index: number; all: readonly Check[] };

export interface RunChecksOptions {
  onProgress?: (event: CheckProgress) => void;
  /** Aborting stops the running check's process group and throws ChecksInterruptedError. */
  signal?: AbortSignal;
}

/** What the code is when a check starts: HEAD, whether the code differs from it, and its tree. */
type Code = Pick<CheckRun, 'commit' | 'dirty' | 'tree' | 'checkout'>;
function codeSnapshot(place: CheckPlace): Code {
  const tree = worktreeTree(place.path, SOW_DIR);
  return {
    commit: headCommit(place.path),
    dirty: tree !== headTreeWithout(place.path, SOW_DIR),
    tree,
    ...(place.checkout !== undefined ? { checkout: place.checkout } : {}),
  };
}

/** Where a task's checks run: its worker checkout when it has one (remade if its folder went; refused when not what
 * sow and git wrote), else the project checkout `root`. */
export async function placeForTask(root: string, task: TaskState, now: string): Promise<CheckPlace> {
  if (!task.worktree) return { path: root };
  const { workerCheckoutOf } = await import('./worker-checkout.js');
  return { path: workerCheckoutOf(root, task, now)!, checkout: task.worktree.path };
}

/** `20261126T091124.123Z`: a UTC timestamp that sorts and is a valid file name everywhere. */
const stamp = (iso: string) => iso.replace(/[-:]/g, '');

/** Runs `checks` in turn in `place`, each with its timeout and a new log under `root`'s evidence; writes no state. */
export async function runChecks(
  root: string,
  checks: readonly Check[],
  now: () => string,
  opts: RunChecksOptions = {},
  place: CheckPlace = { path: root },
): Promise<CheckRun[]> {
  const runs: CheckRun[] = [];
  // The logs of this run: evidence is recorded whole or not at all, so an interrupted run takes them with it — also
  // when sow is made to exit at once (a second Ctrl-C).
  const logs: string[] = [];
  const removeLogs = () => {
    for (const path of logs.splice(0)) removeLog(path);
  };
  process.on('exit', removeLogs);
  try {
    for (const [index, check] of checks.entries()) {
      if (opts.signal?.aborted) throw new ChecksInterruptedError(runs);
      opts.onProgress?.({ kind: 'start', check, index, all: checks });
      const code = codeSnapshot(place);
      const startedAt = now();
      const timeout = check.timeout ?? DEFAULT_TIMEOUT_S;
      const log = createLog(join(root, PROJECT_DIR, EVIDENCE_DIR), `${stamp(startedAt)}-${check.name}`);
      logs.push(log.path);
      let outcome;
      try {
        const at = `${code.commit ?? 'no commit'}${code.dirty ? ' with uncommitted changes' : ''}`;
        const own = place.checkout !== undefined ? ` (the task's own checkout, at ${at})` : '';
        const header = `# sow check ${check.name}: ${check.run}\n# sow: started ${startedAt} in ${place.path}${own}`;
        noteInLog(log, `${header} (timeout ${timeout} s)`);
        outcome = await runShell({
          command: check.run,
          cwd: place.path,
          timeoutMs: timeout * 1000,
          log,
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
        const ended = outcome.timedOut
          ? `timed out after ${timeout} s; its processes were stopped`
          : outcome.aborted
            ? 'interrupted'
            : outcome.code === null
              ? `ended by ${outcome.signal}`
              : `exit ${outcome.code}`;
        noteInLog(log, `# sow: ${ended} after ${(outcome.durationMs / 1000).toFixed(1)} s`);
      } finally {
        closeLog(log);
      }
      if (outcome.aborted) {
        const stopped = { name: check.name, duration_ms: outcome.durationMs, tail: logTail(log.path, 5) };
        throw new ChecksInterruptedError(runs, stopped);
      }
      const run = runOf(check, startedAt, log.path, code, outcome);
      runs.push(run);
      opts.onProgress?.({ kind: 'end', run, index, all: checks });
    }
  } catch (err) {
    removeLogs();
    throw err;
  } finally {
    process.off('exit', removeLogs);
  }
  return runs;
}

/** The evidence outputs of some runs, as they are recorded. */
export function evidenceOutputs(runs: readonly CheckRun[], now: string): Artifact[] {
  return runs.map((r) => ({
    type: EVIDENCE,
    path: r.log,
    created_at: now,
    metadata: {
      check: r.name,
      run: r.run,
      exit_code: r.exit_code,
      duration_ms: r.duration_ms,
      commit: r.commit,
      dirty: r.dirty,
      tree: r.tree,
      ...(r.checkout !== undefined ? { checkout: r.checkout } : {}),
      ...(r.skipped ? { skipped: true } : {}),
    },
  }));
}

/** Where evidence goes: a task's outputs, or a phase's (default: the phase in progress). */
type EvidenceTarget = { task?: string; phase?: string };

export interface EvidenceRecord {
  /** `task 010` or `the finalize phase`. */
  owner: string;
  task: string | null;
  phase: string | null;
  outputs: { index: number; artifact: Artifact }[];
}

/** Where evidence will go, resolved before any check runs: no minutes spent on a result that cannot be recorded. */
export async function evidenceTarget(ctx: AppContext, target: EvidenceTarget) {
  return Reader.read(
    ctx,
    async (reader): Promise<{ root: string; target: EvidenceTarget; task?: TaskState }> => {
      if (target.task !== undefined) {
        const task = await reader.task(target.task);
        return { root: reader.root, target: { task: task.id }, task };
      }
      const phase = selectPhase(reader.type, reader.project, target.phase);
      requireEvidenceSlot(phaseDef(reader.type, phase).outputs, `the ${phase} phase outputs`);
      return { root: reader.root, target: { phase } };
    },
    { otherBranch: 'refuse' },
  );
}

/** A project type whose container takes no evidence cannot record a check's run there. */
export function requireEvidenceSlot(types: readonly ArtifactTypeDef[], where: string): void {
  const names = types.filter((t) => !t.recordedBy).map((t) => t.name);
  if (!types.some((t) => t.name === EVIDENCE)) throw new UnknownArtifactTypeError(EVIDENCE, where, names);
}

/** Appends the runs' evidence to the target's outputs, in the update `uow`. */
export async function evidenceInto(
  uow: UnitOfWork,
  runs: readonly CheckRun[],
  target: EvidenceTarget,
): Promise<EvidenceRecord> {
  const type = await uow.type();
  const artifacts = evidenceOutputs(runs, uow.now);
  const after = (before: readonly Artifact[]) =>
    artifacts.map((artifact, i) => ({ index: before.length + i, artifact }));
  if (target.task !== undefined) {
    const task = await uow.task(target.task);
    requireEvidenceSlot(type.taskOutputs, `task ${task.id} outputs`);
    uow.setTask({ ...task, outputs: [...task.outputs, ...artifacts] });
    return { owner: `task ${task.id}`, task: task.id, phase: null, outputs: after(task.outputs) };
  }
  const project = await uow.project();
  const phase = selectPhase(type, project, target.phase);
  requireEvidenceSlot(phaseDef(type, phase).outputs, `the ${phase} phase outputs`);
  const current = phaseOf(project, phase);
  uow.setProject(withPhase(project, phase, { ...current, outputs: [...current.outputs, ...artifacts] }));
  return { owner: `the ${phase} phase`, task: null, phase, outputs: after(current.outputs) };
}

/** The checks `names` picks (default: all) and where their evidence goes, refused unless allowed for the project
 * checkout (whose .sow/config.yaml they were read from, never by a task checkout's own copy); null without checks. */
export async function checksToRun(ctx: AppContext, names: readonly string[], task: string | undefined) {
  const found = await evidenceTarget(ctx, task !== undefined ? { task } : {});
  const declared = (await readRepoConfig(found.root)).config.checks ?? [];
  if (declared.length === 0 && names.length === 0) return null;
  const checks = selectChecks(declared, names);
  (await import('./check-allowance.js')).requireAllowed(found.root, checks, 'no check was run', ctx.env);
  return { ...found, checks };
}

/** `sow check run`: the named checks (default: all), run without the lock, then recorded in one update; throws
 * ChecksFailedError, after recording, when any failed. `announce`: a detached runner's record, written once past every
 * refusal. */
export async function checkRun(
  ctx: AppContext,
  names: readonly string[],
  opts: RunChecksOptions & { task?: string; announce?: string } = {},
): Promise<{ runs: CheckRun[]; recorded: EvidenceRecord | null }> {
  const chosen = await checksToRun(ctx, names, opts.task);
  if (!chosen) return { runs: [], recorded: null };
  const { root, target, task, checks } = chosen;
  const place = task ? await placeForTask(root, task, ctx.now()) : { path: root };
  if (opts.announce !== undefined) {
    (await import('../adapters/check-runs.js')).announceRunner(root, opts.announce, {
      checks: checks.map((c) => c.name),
      ...(target.task !== undefined ? { task: target.task } : { phase: target.phase! }),
      started_at: ctx.now(),
    });
  }
  const runs = await runChecks(root, checks, ctx.now, opts, place);
  const recorded = await update(ctx, (uow) => evidenceInto(uow, runs, target));
  if (runs.some((r) => !r.passed)) throw new ChecksFailedError(runs, recorded);
  return { runs, recorded };
}

/** The view for guards: with `checks` only when a guard of the current state reads evidence, since only then are the
 * repository configuration and git read. */
export async function withCheckStatuses(root: string, type: ProjectType, view: ProjectView): Promise<ProjectView> {
  const needs = evidenceNeeded(type, view);
  if (!needs) return view;
  const { config } = await readRepoConfig(root);
  const declared = (config.checks ?? []).filter((c) => c.when?.includes(needs.moment));
  if (declared.length === 0) return { ...view, checks: [] };
  const tree = worktreeTree(root, SOW_DIR);
  return { ...view, checks: checkStatuses(declared, phaseOf(view.project, needs.phase).outputs, tree) };
}

/** The run stage of a completion that needs its task_complete checks: allowed for the project checkout (whose config
 * they come from), run where the task's code is, or with --force recorded as skipped. Writes no state. */
export async function runCompletionChecks(
  ctx: AppContext,
  plan: { id: string; task: TaskState },
  { skip, declared }: { skip: boolean; declared: readonly Check[] },
  opts: RunChecksOptions & { checking?: () => Promise<RunChecksOptions> },
): Promise<CheckRun[]> {
  const root = await openRoot(ctx);
  if (!skip) {
    const why = `task ${plan.id} was not completed (its task_complete checks run first)`;
    (await import('./check-allowance.js')).requireAllowed(root, declared, why, ctx.env);
  }
  const place = await placeForTask(root, plan.task, ctx.now());
  if (skip) return skippedRuns(root, declared, ctx, place);
  return runChecks(root, declared, ctx.now, opts.checking ? await opts.checking() : opts, place);
}

/** Evidence that the checks did not run: a completion forced past them. */
function skippedRuns(root: string, checks: readonly Check[], ctx: AppContext, place: CheckPlace): CheckRun[] {
  const who = actor(ctx.env);
  return checks.map((check) => {
    const startedAt = ctx.now();
    const code = codeSnapshot(place);
    const log = createLog(join(root, PROJECT_DIR, EVIDENCE_DIR), `${stamp(startedAt)}-${check.name}-skipped`);
    const by = `${who.by}${who.session ? ` (session ${who.session})` : ''}`;
    const note = `# sow: skipped ${startedAt}: the task was completed with --force by ${by}`;
    try {
      noteInLog(log, `# sow check ${check.name}: ${check.run}\n${note}`);
    } finally {
      closeLog(log);
    }
    return runOf(check, startedAt, log.path, code);
  });
}

/** A check's run as its evidence records it; without `outcome`, skipped by a forced completion. */
function runOf(check: Check, startedAt: string, log: string, code: Code, outcome?: ShellOutcome): CheckRun {
  return {
    name: check.name,
    run: check.run,
    passed: outcome?.code === 0,
    ...(outcome ? {} : { skipped: true as const }),
    exit_code: outcome ? outcome.code : null,
    signal: outcome?.signal ?? null,
    timed_out: outcome?.timedOut ?? false,
    timeout: check.timeout ?? DEFAULT_TIMEOUT_S,
    duration_ms: outcome?.durationMs ?? 0,
    started_at: startedAt,
    log: `${EVIDENCE_DIR}/${basename(log)}`,
    ...code,
  };
}
