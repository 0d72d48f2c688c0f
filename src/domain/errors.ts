/**
 * Every failure a user can cause or meet has a class here with a stable code. The exit code is
 * derived from the kind in exactly one place (exitCodeFor), so commands never pick numbers.
 */
import type { TaskSummary } from './schemas.js';
// A value in quotes, on one line: a value from a file may hold line breaks and escape sequences.
import { quoted as q } from './display.js';
import { nearMiss } from './suggest.js';

export type ErrorKind = 'failed' | 'usage' | 'blocked' | 'state' | 'external' | 'timeout' | 'internal' | 'interrupted';

export const EXIT_CODES: Record<ErrorKind | 'ok', number> = {
  ok: 0,
  failed: 1,
  usage: 2,
  blocked: 3,
  state: 4,
  external: 5,
  internal: 70,
  timeout: 124,
  interrupted: 130,
};

export const exitCodeFor = (kind: ErrorKind): number => EXIT_CODES[kind];

/** The error half of the `--json` envelope (also what an MCP tool returns for a refusal). */
export function errorEnvelope(err: SowError): {
  ok: false;
  error: { code: string; message: string; hint?: string; details?: Record<string, unknown> };
} {
  return {
    ok: false,
    error: {
      code: err.code,
      message: err.message,
      ...(err.hint ? { hint: err.hint } : {}),
      ...(err.details ? { details: err.details } : {}),
    },
  };
}

export class SowError extends Error {
  constructor(
    readonly code: string,
    readonly kind: ErrorKind,
    message: string,
    /** The next step. Every error a user can cause has one (DESIGN §5). */
    readonly hint?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotAGitRepositoryError extends SowError {
  constructor(cwd: string) {
    super(
      'NOT_A_GIT_REPOSITORY',
      'failed',
      `${q(cwd)} is not inside a git repository`,
      "sow keeps its state beside your code in git; run 'git init' first, or cd into a repository",
    );
  }
}

/** The first five branches, quoted, and how many more there are. */
const someBranches = (branches: readonly string[]) =>
  branches.slice(0, 5).map(q).join(', ') + (branches.length > 5 ? ` and ${branches.length - 5} more` : '');

export class NotInitializedError extends SowError {
  /** `elsewhere`: local branches that have a project committed (said when sow was used on another branch). */
  constructor(root: string, leftover = false, elsewhere: readonly string[] = []) {
    const shown = someBranches(elsewhere);
    super(
      'NOT_INITIALIZED',
      'failed',
      leftover
        ? `sow is not initialised in ${q(root)}: .sow/ holds no .sow/.version (only files sow leaves behind while it ` +
            `runs, e.g. after a checkout of a branch without sow)`
        : `sow is not initialised in ${q(root)} (no .sow/ folder)`,
      elsewhere.length
        ? `run 'sow init' to use sow on this branch; or check out a branch that has a project (${shown}: 'git ` +
            `checkout ${elsewhere[0]}')`
        : "run 'sow init'",
    );
  }
}

export class MigrationNeededError extends SowError {
  constructor(found: number, current: number) {
    super(
      'MIGRATION_NEEDED',
      'state',
      `.sow/ has layout version ${found}, made by an older sow; this sow reads version ${current}`,
      "run 'sow migrate --dry-run' to see what changes, then 'sow migrate' (it keeps a backup)",
    );
  }
}

export class SowTooOldError extends SowError {
  /** `upgrade`: how to upgrade this sow, which depends on how it was installed (adapters/installation.ts). */
  constructor(found: number, current: number, upgrade = 'upgrade sow') {
    super(
      'SOW_TOO_OLD',
      'state',
      `.sow/ has layout version ${found}, made by a newer sow; this sow reads up to version ${current}`,
      `${upgrade}; nothing was changed`,
    );
  }
}

export class WrongBranchError extends SowError {
  constructor(message: string, hint: string, details: Record<string, unknown>) {
    super('WRONG_BRANCH', 'failed', message, hint, details);
  }
}

export class NoProjectError extends SowError {
  /** `elsewhere`: the local branches that have a project committed (to check one out). */
  constructor(readonly elsewhere: readonly string[] = []) {
    const start = 'run \'sow project new <name> --description "..."\' to start one';
    const shown = someBranches(elsewhere);
    const one = elsewhere.length === 1;
    super(
      'NO_PROJECT',
      'failed',
      'there is no project on this branch',
      elsewhere.length === 0
        ? start
        : `${one ? 'branch' : 'branches'} ${shown} ${one ? 'has a project' : 'have projects'}: ` +
            `check one out ('git checkout ${elsewhere[0]}'); or ${start} here`,
      elsewhere.length ? { branches_with_project: [...elsewhere] } : undefined,
    );
  }
}

export class ProjectExistsError extends SowError {
  constructor(message: string, hint: string, details: Record<string, unknown> = {}) {
    super('PROJECT_EXISTS', 'failed', message, hint, details);
  }
}

/** A name given on the command line (a project, a branch) that breaks the rule for such names. */
export class InvalidNameError extends SowError {
  constructor(what: string, value: string, rule: string, example = 'add-auth') {
    super('INVALID_NAME', 'usage', `invalid ${what} ${q(value)}: ${rule}`, `for example ${q(example)}`);
  }
}

/** The command line cannot be parsed (exit 2): see EXIT_RULE. */
export class UsageError extends SowError {
  constructor(message: string, hint = "run 'sow help', or add --help to the command") {
    super('USAGE', 'usage', message, hint);
  }
}

/** "; did you mean 'x'?" for a suggestion, else nothing. */
/** "; did you mean 'x'?", or nothing. */
export const meant = (suggestion: string | undefined) => (suggestion ? `; did you mean ${q(suggestion)}?` : '');

/** "; did you mean 'x'?" when `word` is a near miss of one of `candidates`, else nothing. */
export const didYouMean = (word: string, candidates: Iterable<string>): string => meant(nearMiss(word, candidates));

/**
 * A word on the command line outside the fixed list sow has for it (a project type, a format, an
 * install target): exit 2, naming the near miss and the valid values.
 */
export function notOneOf(what: string, word: string, values: readonly string[], listed = `${what}s`): UsageError {
  return new UsageError(`unknown ${what} ${q(word)}${didYouMean(word, values)}`, `${listed}: ${values.join(', ')}`);
}

/**
 * A value a field does not take (exit 1). The message names the value (and its near miss); the
 * hint says what the field takes, unless the caller has a better next step — then the message
 * says what was expected.
 */
export class InvalidValueError extends SowError {
  constructor(field: string, value: string, expected: string, hint?: string, suggestion?: string) {
    const near = meant(suggestion);
    super(
      'INVALID_VALUE',
      'failed',
      hint === undefined
        ? `invalid value ${q(value)} for ${q(field)}${near}`
        : `invalid value ${q(value)} for ${q(field)}: expected ${expected}${near}`,
      hint ?? `${q(field)} takes ${expected}`,
    );
  }
}

/** A field path that cannot name a value: empty parts, a map set whole, a path into a single value. */
export class InvalidFieldError extends SowError {
  constructor(message: string, hint: string) {
    super('INVALID_FIELD', 'failed', message, hint);
  }
}

export class ReadOnlyFieldError extends SowError {
  constructor(
    field: string,
    why: string,
    hint = "sow keeps it itself; other names are stored in metadata (e.g. 'metadata.note')",
  ) {
    super('READ_ONLY_FIELD', 'failed', `${q(field)} cannot be set: ${why}`, hint);
  }
}

export class DidYouMeanError extends SowError {
  constructor(name: string, where: string, suggestion: string) {
    super(
      'DID_YOU_MEAN',
      'failed',
      `${where} has no field ${q(name)}; did you mean ${q(suggestion)}?`,
      `use ${q(suggestion)}; to mean a metadata key of that very name, write 'metadata.${name}'`,
      { field: name, suggestion },
    );
  }
}

export class UnknownFieldError extends SowError {
  constructor(field: string, where: string, hint = "run 'sow schema project' or 'sow schema task' to see the fields") {
    super('UNKNOWN_FIELD', 'failed', `${where} has no field ${q(field)}`, hint);
  }
}

export class TaskNotFoundError extends SowError {
  constructor(id: string) {
    super('TASK_NOT_FOUND', 'failed', `no task with id ${q(id)}`, "run 'sow task list' to see task ids");
  }
}

export class TaskBlockedError extends SowError {
  constructor(message: string, hint: string, details: Record<string, unknown>) {
    super('TASK_BLOCKED', 'blocked', message, hint, details);
  }
}

/** `agent wait --timeout` ran out while workers still run (exit 124, as timeout(1)). */
export class WaitTimeoutError extends SowError {
  constructor(
    seconds: number,
    running: readonly { task: string; by: string; pid?: number }[],
    stopped: readonly { task: string; status: string }[],
  ) {
    const workers = running.length === 1 ? 'a worker still runs' : `${running.length} workers still run`;
    const which = running.map((w) => `${w.task} (${w.by}${w.pid !== undefined ? `, pid ${w.pid}` : ''})`).join(', ');
    super(
      'WAIT_TIMEOUT',
      'timeout',
      `after ${seconds} s ${workers}: ${which}`,
      `wait again: sow agent wait ${running.map((w) => w.task).join(' ')} --timeout ${seconds}s`,
      { running, stopped },
    );
  }
}

/** The project's workers have used what `.sow/config.yaml` allows: no new worker starts (exit 3). */
export class BudgetSpentError extends SowError {
  constructor(spent: string, limit: string, field: string, biggest: string | undefined) {
    super(
      'BUDGET_SPENT',
      'blocked',
      `this project's workers have used ${spent} of the ${limit} its budget ` +
        `allows${biggest ? ` (most on ${biggest})` : ''}; no worker starts or resumes`,
      `'sow cost' shows what it went on; to go on, raise ${field} in .sow/config.yaml`,
      { spent, limit, field },
    );
  }
}

export class DependencyCycleError extends SowError {
  constructor(cycle: readonly string[], hint = 'a task cannot wait for itself; drop one of these dependencies') {
    super('DEPENDENCY_CYCLE', 'failed', `the dependencies would form a cycle: ${cycle.join(' → ')}`, hint);
  }
}

export class TaskIdTakenError extends SowError {
  constructor(id: string) {
    const hint = "omit --id to take the next free id, or run 'sow task list'";
    super('TASK_ID_TAKEN', 'failed', `task id ${q(id)} is already used`, hint);
  }
}

export class PhaseNotFoundError extends SowError {
  constructor(phase: string, valid: readonly string[]) {
    super(
      'PHASE_NOT_FOUND',
      'failed',
      `no phase ${q(phase)} in this project${didYouMean(phase, valid)}`,
      `its phases: ${valid.join(', ')}`,
    );
  }
}

export class WrongPhaseError extends SowError {
  constructor(key: string, owner: string, phase: string) {
    const message = `${q(key)} belongs to the ${owner} phase, not ${phase}`;
    super('WRONG_PHASE', 'failed', message, `pass --phase ${owner}`, { field: key, phase: owner });
  }
}

/** The lifecycle is not in the phase a command works in (exit 3, like a guard). */
export class PhaseNotActiveError extends SowError {
  constructor(message: string, hint = "run 'sow project status' to see which phase is in progress") {
    super('PHASE_NOT_ACTIVE', 'blocked', message, hint);
  }
}

export class PathOutsideRepositoryError extends SowError {
  constructor(path: string, hint = 'artifact paths must stay inside the repository') {
    super('PATH_OUTSIDE_REPOSITORY', 'failed', `path ${q(path)} resolves outside the repository`, hint);
  }
}

export class TransitionBlockedError extends SowError {
  constructor(message: string, hint: string, details: Record<string, unknown>) {
    super('TRANSITION_BLOCKED', 'blocked', message, hint, details);
  }
}

export class InvalidEventError extends SowError {
  /**
   * `valid`: the events out of `state`; `elsewhere`: the state another event of that name leaves, if any; `all`:
   * every event of the type.
   */
  constructor(
    event: string,
    state: string,
    valid: readonly string[],
    elsewhere?: string,
    all: readonly string[] = valid,
  ) {
    const why = elsewhere !== undefined ? `: it leaves ${elsewhere}` : didYouMean(event, all);
    super(
      'INVALID_EVENT',
      'failed',
      `no event ${q(event)} in ${state}${why}`,
      valid.length
        ? `events here: ${valid.join(', ')} ('sow advance --list' shows their guards)`
        : `${state} has no way out: the project is complete`,
      { event, state, events: [...valid] },
    );
  }
}

/** `sow advance` without an event in a state where none fires by itself. */
export class NoAutomaticEventError extends SowError {
  constructor(state: string, valid: readonly string[]) {
    super(
      'INVALID_EVENT',
      'failed',
      `no event fires by itself in ${state}`,
      valid.length
        ? `name one: ${valid.map((e) => `'sow advance ${e}'`).join(', ')}`
        : `${state} has no way out: the project is complete`,
      { state, events: [...valid] },
    );
  }
}

export class StateFileError extends SowError {
  constructor(file: string, problem: string, fieldPath?: string) {
    super(
      'STATE_FILE_INVALID',
      'state',
      fieldPath ? `${file}: ${fieldPath}: ${problem}` : `${file}: ${problem}`,
      `fix the file by hand (or restore it with 'git checkout -- ${file}'); sow will not overwrite it`,
      { file, ...(fieldPath ? { field: fieldPath } : {}) },
    );
  }
}

/** A worker spawned on a task, or a task claimed, in a state where tasks are not worked on. */
export class NotExecutingError extends SowError {
  /** `task`: the task a worker was to start on; undefined for a claim (which has no --force). */
  constructor(
    task: string | undefined,
    state: string,
    executing: readonly string[],
    route?: { steps: readonly string[]; next: string; blockedBy?: string },
  ) {
    const force = task === undefined ? '' : ' to spawn anyway';
    const how = route
      ? `run 'sow advance' (${route.steps.join(' → ')})` +
        `${route.blockedBy ? `; first: ${route.blockedBy}` : ''}${force && `; or pass --force${force}`}`
      : `no transition leads from ${state} to ${executing.join(' or ')}; ` +
        (force ? `pass --force${force}` : "run 'sow project continue' to see what this state expects");
    super(
      'NOT_EXECUTING',
      'blocked',
      task === undefined
        ? `no task can be claimed now: the project is in ${state}, and tasks are worked on in ${executing.join(' or ')}`
        : `task ${task} cannot get a worker now: the project is in ${state}, and workers run tasks ` +
            `in ${executing.join(' or ')}`,
      how,
      { ...(task !== undefined ? { task } : {}), state, executing: [...executing] },
    );
  }
}

/** `task next --claim` with nothing to claim. */
export class NoReadyTaskError extends SowError {
  constructor(tasks: readonly TaskSummary[]) {
    const count = (s: string) => tasks.filter((t) => t.status === s).length;
    const pending = count('pending');
    const why =
      tasks.length === 0
        ? 'there are no tasks'
        : pending === 0
          ? 'no task is pending'
          : `the ${pending} pending task(s) wait for dependencies or are being worked on`;
    super(
      'NO_READY_TASK',
      'failed',
      `no task is ready to claim: ${why} (${count('in_progress')} in progress, ${count('completed')} completed)`,
      "run 'sow task list' to see what blocks them, or 'sow task add' to add work",
    );
  }
}

export class LockTimeoutError extends SowError {
  constructor(lockFile: string, holder: string, seconds: number, hint?: string) {
    super(
      'LOCK_TIMEOUT',
      'failed',
      `waited ${seconds} s for the state lock ${q(lockFile)}, held by ${holder}`,
      hint ?? `that command is still running: retry when it is done, or wait longer with SOW_LOCK_TIMEOUT=<seconds>`,
      { lock: lockFile, holder },
    );
  }
}

export class ExternalToolError extends SowError {
  constructor(tool: string, message: string, hint = `check that ${tool} is installed, on PATH and working`) {
    super('EXTERNAL_TOOL_FAILED', 'external', `${tool}: ${message}`, hint);
  }
}

export class ConfirmationRequiredError extends SowError {
  constructor(action: string, flag: string) {
    const message = `${action} needs confirmation, and there is no terminal to ask on`;
    super('CONFIRMATION_REQUIRED', 'usage', message, `pass ${flag} to confirm`);
  }
}

export class AbortedError extends SowError {
  constructor(action: string) {
    super('ABORTED', 'failed', `${action} cancelled`, 'nothing was changed; pass --yes to skip the question');
  }
}

/** Input on stdin (or a request body) larger than what the command reads: exit 1, nothing of it used. */
export class InputTooLargeError extends SowError {
  constructor(what: string, limit: string, hint: string) {
    super('INPUT_TOO_LARGE', 'failed', `${what} is larger than ${limit}`, hint);
  }
}
