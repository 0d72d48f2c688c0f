/** Every failure a user can meet has a class here with a stable code; its kind alone decides the exit code. */
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
export function errorEnvelope({ code, message, hint, details }: SowError) {
  return { ok: false as const, error: { code, message, ...(hint ? { hint } : {}), ...(details ? { details } : {}) } };
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

type Details = Record<string, unknown>;
type Said = [message: string, hint?: string, details?: Details];

// A SowError class of fixed code and kind whose arguments `say` turns into message, hint and details; `class XError
// extends errorClass(…) {}` keeps `instanceof` and `name`.
export function errorClass<A extends unknown[]>(code: string, kind: ErrorKind, say: (...args: A) => Said) {
  return class extends SowError {
    constructor(...args: A) {
      super(code, kind, ...say(...args));
    }
  };
}

/** For classes whose callers word the message and hint themselves. */
export const given = (message: string, hint: string, details?: Details): Said => [message, hint, details];

export class NotAGitRepositoryError extends errorClass('NOT_A_GIT_REPOSITORY', 'failed', (cwd: string) => [
  `${q(cwd)} is not inside a git repository`,
  "sow keeps its state beside your code in git; run 'git init' first, or cd into a repository",
]) {}

/** The first five branches, quoted, and how many more there are. */
const someBranches = (branches: readonly string[]) =>
  branches.slice(0, 5).map(q).join(', ') + (branches.length > 5 ? ` and ${branches.length - 5} more` : '');

/** `elsewhere`: local branches that have a project committed (said when sow was used on another branch). */
export class NotInitializedError extends errorClass(
  'NOT_INITIALIZED',
  'failed',
  (root: string, leftover: boolean, elsewhere: readonly string[]) => [
    leftover
      ? `sow is not initialised in ${q(root)}: .sow/ holds no .sow/.version (only files sow leaves behind while it ` +
        `runs, e.g. after a checkout of a branch without sow)`
      : `sow is not initialised in ${q(root)} (no .sow/ folder)`,
    elsewhere.length
      ? `run 'sow init' to use sow on this branch; or check out a branch that has a project ` +
        `(${someBranches(elsewhere)}: 'git checkout ${elsewhere[0]}')`
      : "run 'sow init'",
  ],
) {}

export class MigrationNeededError extends errorClass('MIGRATION_NEEDED', 'state', (found: number, current: number) => [
  `.sow/ has layout version ${found}, made by an older sow; this sow reads version ${current}`,
  "run 'sow migrate --dry-run' to see what changes, then 'sow migrate' (it keeps a backup)",
]) {}

/** `upgrade`: how to upgrade this sow, which depends on how it was installed (adapters/installation.ts). */
export class SowTooOldError extends errorClass(
  'SOW_TOO_OLD',
  'state',
  (found: number, current: number, upgrade: string) => [
    `.sow/ has layout version ${found}, made by a newer sow; this sow reads up to version ${current}`,
    `${upgrade}; nothing was changed`,
  ],
) {}

export class WrongBranchError extends errorClass('WRONG_BRANCH', 'failed', given) {}

export class NoProjectError extends errorClass('NO_PROJECT', 'failed', (elsewhere: readonly string[]) => {
  const start = 'run \'sow project new <name> --description "..."\' to start one';
  const one = elsewhere.length === 1;
  return [
    'there is no project on this branch',
    elsewhere.length === 0
      ? start
      : `${one ? 'branch' : 'branches'} ${someBranches(elsewhere)} ${one ? 'has a project' : 'have projects'}: ` +
        `check one out ('git checkout ${elsewhere[0]}'); or ${start} here`,
    elsewhere.length ? { branches_with_project: [...elsewhere] } : undefined,
  ];
}) {
  /** The local branches that have a project committed (to check one out). */
  readonly elsewhere = (this.details?.['branches_with_project'] as readonly string[] | undefined) ?? [];
}

export class ProjectExistsError extends errorClass('PROJECT_EXISTS', 'failed', given) {}

/** A name given on the command line (a project, a branch) that breaks the rule for such names. */
export class InvalidNameError extends errorClass(
  'INVALID_NAME',
  'usage',
  (what: string, value: string, rule: string, example: string = 'add-auth') => [
    `invalid ${what} ${q(value)}: ${rule}`,
    `for example ${q(example)}`,
  ],
) {}

/** The command line cannot be parsed (exit 2): see EXIT_RULE. */
export class UsageError extends errorClass('USAGE', 'usage', (message: string, hint?: string) => [
  message,
  hint ?? "run 'sow help', or add --help to the command",
]) {}

/** "; did you mean 'x'?", or nothing. */
export const meant = (suggestion: string | undefined) => (suggestion ? `; did you mean ${q(suggestion)}?` : '');

/** "; did you mean 'x'?" when `word` is a near miss of one of `candidates`, else nothing. */
export const didYouMean = (word: string, candidates: Iterable<string>): string => meant(nearMiss(word, candidates));

/** A word outside sow's fixed list for it (a project type, a format): exit 2, naming the near miss and the list. */
export function notOneOf(what: string, word: string, values: readonly string[], listed = `${what}s`): UsageError {
  return new UsageError(`unknown ${what} ${q(word)}${didYouMean(word, values)}`, `${listed}: ${values.join(', ')}`);
}

// A value a field does not take (exit 1): the hint says what the field takes, unless the caller has a better next step;
// then the message says what was expected.
export class InvalidValueError extends errorClass(
  'INVALID_VALUE',
  'failed',
  (field: string, value: string, expected: string, hint?: string, suggestion?: string) => [
    `invalid value ${q(value)} for ${q(field)}` +
      `${hint === undefined ? '' : `: expected ${expected}`}${meant(suggestion)}`,
    hint ?? `${q(field)} takes ${expected}`,
  ],
) {}

/** A field path that cannot name a value: empty parts, a map set whole, a path into a single value. */
export class InvalidFieldError extends errorClass('INVALID_FIELD', 'failed', given) {}

export class ReadOnlyFieldError extends errorClass(
  'READ_ONLY_FIELD',
  'failed',
  (field: string, why: string, hint?: string) => [
    `${q(field)} cannot be set: ${why}`,
    hint ?? "sow keeps it itself; other names are stored in metadata (e.g. 'metadata.note')",
  ],
) {}

export class DidYouMeanError extends errorClass(
  'DID_YOU_MEAN',
  'failed',
  (name: string, where: string, suggestion: string) => [
    `${where} has no field ${q(name)}; did you mean ${q(suggestion)}?`,
    `use ${q(suggestion)}; to mean a metadata key of that very name, write 'metadata.${name}'`,
    { field: name, suggestion },
  ],
) {}

export class UnknownFieldError extends errorClass(
  'UNKNOWN_FIELD',
  'failed',
  (field: string, where: string, hint: string) => [`${where} has no field ${q(field)}`, hint],
) {}

export class TaskNotFoundError extends errorClass('TASK_NOT_FOUND', 'failed', (id: string) => [
  `no task with id ${q(id)}`,
  "run 'sow task list' to see task ids",
]) {}

export class TaskBlockedError extends errorClass('TASK_BLOCKED', 'blocked', given) {}

/** `agent wait --timeout` ran out while workers still run (exit 124, as timeout(1)). */
export class WaitTimeoutError extends errorClass(
  'WAIT_TIMEOUT',
  'timeout',
  (
    seconds: number,
    running: readonly { task: string; by: string; pid?: number }[],
    stopped: readonly { task: string; status: string }[],
  ) => [
    `after ${seconds} s ${running.length === 1 ? 'a worker still runs' : `${running.length} workers still run`}: ` +
      running.map((w) => `${w.task} (${w.by}${w.pid !== undefined ? `, pid ${w.pid}` : ''})`).join(', '),
    `wait again: sow agent wait ${running.map((w) => w.task).join(' ')} --timeout ${seconds}s`,
    { running, stopped },
  ],
) {}

/** The project's workers have used what `.sow/config.yaml` allows: no new worker starts (exit 3). */
export class BudgetSpentError extends errorClass(
  'BUDGET_SPENT',
  'blocked',
  (spent: string, limit: string, field: string, biggest: string | undefined) => [
    `this project's workers have used ${spent} of the ${limit} its budget ` +
      `allows${biggest ? ` (most on ${biggest})` : ''}; no worker starts or resumes`,
    `'sow cost' shows what it went on; to go on, raise ${field} in .sow/config.yaml`,
    { spent, limit, field },
  ],
) {}

export class DependencyCycleError extends errorClass(
  'DEPENDENCY_CYCLE',
  'failed',
  (cycle: readonly string[], hint: string = 'a task cannot wait for itself; drop one of these dependencies') => [
    `the dependencies would form a cycle: ${cycle.join(' → ')}`,
    hint,
  ],
) {}

export class TaskIdTakenError extends errorClass('TASK_ID_TAKEN', 'failed', (id: string) => [
  `task id ${q(id)} is already used`,
  "omit --id to take the next free id, or run 'sow task list'",
]) {}

export class PhaseNotFoundError extends errorClass(
  'PHASE_NOT_FOUND',
  'failed',
  (phase: string, valid: readonly string[]) => [
    `no phase ${q(phase)} in this project${didYouMean(phase, valid)}`,
    `its phases: ${valid.join(', ')}`,
  ],
) {}

export class WrongPhaseError extends errorClass(
  'WRONG_PHASE',
  'failed',
  (key: string, owner: string, phase: string) => [
    `${q(key)} belongs to the ${owner} phase, not ${phase}`,
    `pass --phase ${owner}`,
    { field: key, phase: owner },
  ],
) {}

/** The lifecycle is not in the phase a command works in (exit 3, like a guard). */
export class PhaseNotActiveError extends errorClass('PHASE_NOT_ACTIVE', 'blocked', given) {}

export class PathOutsideRepositoryError extends errorClass(
  'PATH_OUTSIDE_REPOSITORY',
  'failed',
  (path: string, hint: string = 'artifact paths must stay inside the repository') => [
    `path ${q(path)} resolves outside the repository`,
    hint,
  ],
) {}

export class TransitionBlockedError extends errorClass('TRANSITION_BLOCKED', 'blocked', given) {}

/** `valid`: the events out of `state`; `elsewhere`: the state another event of that name leaves; `all`: every event. */
export class InvalidEventError extends errorClass(
  'INVALID_EVENT',
  'failed',
  (event: string, state: string, valid: readonly string[], elsewhere?: string, all: readonly string[] = valid) => [
    `no event ${q(event)} in ${state}${elsewhere !== undefined ? `: it leaves ${elsewhere}` : didYouMean(event, all)}`,
    valid.length
      ? `events here: ${valid.join(', ')} ('sow advance --list' shows their guards)`
      : `${state} has no way out: the project is complete`,
    { event, state, events: [...valid] },
  ],
) {}

/** `sow advance` without an event in a state where none fires by itself. */
export class NoAutomaticEventError extends errorClass(
  'INVALID_EVENT',
  'failed',
  (state: string, valid: readonly string[]) => [
    `no event fires by itself in ${state}`,
    valid.length
      ? `name one: ${valid.map((e) => `'sow advance ${e}'`).join(', ')}`
      : `${state} has no way out: the project is complete`,
    { state, events: [...valid] },
  ],
) {}

export class StateFileError extends errorClass(
  'STATE_FILE_INVALID',
  'state',
  (file: string, problem: string, fieldPath?: string) => [
    fieldPath ? `${file}: ${fieldPath}: ${problem}` : `${file}: ${problem}`,
    `fix the file by hand (or restore it with 'git checkout -- ${file}'); sow will not overwrite it`,
    { file, ...(fieldPath ? { field: fieldPath } : {}) },
  ],
) {}

// A worker spawned on, or a claim of, a task in a state where tasks are not worked on; `task` is undefined for a claim
// (which has no --force).
export class NotExecutingError extends errorClass(
  'NOT_EXECUTING',
  'blocked',
  (
    task: string | undefined,
    state: string,
    executing: readonly string[],
    route?: { steps: readonly string[]; first: { blocked: boolean; hint?: string } },
  ) => {
    const force = task === undefined ? '' : ' to spawn anyway';
    const first = route?.first.blocked && route.first.hint ? `; first: ${route.first.hint}` : '';
    const how = route
      ? `run 'sow advance' (${route.steps.join(' → ')})${first}${force && `; or pass --force${force}`}`
      : `no transition leads from ${state} to ${executing.join(' or ')}; ` +
        (force ? `pass --force${force}` : "run 'sow project continue' to see what this state expects");
    return [
      task === undefined
        ? `no task can be claimed now: the project is in ${state}, and tasks are worked on in ${executing.join(' or ')}`
        : `task ${task} cannot get a worker now: the project is in ${state}, and workers run tasks ` +
          `in ${executing.join(' or ')}`,
      how,
      { ...(task !== undefined ? { task } : {}), state, executing: [...executing] },
    ];
  },
) {}

/** `task next --claim` with nothing to claim. */
export class NoReadyTaskError extends errorClass('NO_READY_TASK', 'failed', (tasks: readonly TaskSummary[]) => {
  const count = (s: string) => tasks.filter((t) => t.status === s).length;
  const pending = count('pending');
  const why =
    tasks.length === 0
      ? 'there are no tasks'
      : pending === 0
        ? 'no task is pending'
        : `the ${pending} pending task(s) wait for dependencies or are being worked on`;
  return [
    `no task is ready to claim: ${why} (${count('in_progress')} in progress, ${count('completed')} completed)`,
    "run 'sow task list' to see what blocks them, or 'sow task add' to add work",
  ];
}) {}

export class LockTimeoutError extends errorClass(
  'LOCK_TIMEOUT',
  'failed',
  (lockFile: string, holder: string, seconds: number, hint?: string) => [
    `waited ${seconds} s for the state lock ${q(lockFile)}, held by ${holder}`,
    hint ?? `that command is still running: retry when it is done, or wait longer with SOW_LOCK_TIMEOUT=<seconds>`,
    { lock: lockFile, holder },
  ],
) {}

export class ExternalToolError extends errorClass(
  'EXTERNAL_TOOL_FAILED',
  'external',
  (tool: string, message: string, hint: string = `check that ${tool} is installed, on PATH and working`) => [
    `${tool}: ${message}`,
    hint,
  ],
) {}

export class ConfirmationRequiredError extends errorClass(
  'CONFIRMATION_REQUIRED',
  'usage',
  (action: string, flag: string) => [
    `${action} needs confirmation, and there is no terminal to ask on`,
    `pass ${flag} to confirm`,
  ],
) {}

export class AbortedError extends errorClass('ABORTED', 'failed', (action: string) => [
  `${action} cancelled`,
  'nothing was changed; pass --yes to skip the question',
]) {}

/** Input on stdin (or a request body) larger than what the command reads: exit 1, nothing of it used. */
export class InputTooLargeError extends errorClass(
  'INPUT_TOO_LARGE',
  'failed',
  (what: string, limit: string, hint: string) => [`${what} is larger than ${limit}`, hint],
) {}
