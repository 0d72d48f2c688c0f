/** How a run of checks that did not pass is said: failed, interrupted, or a completion refused by its task_complete
 * checks, with the end of each failed log. */
import { join } from 'node:path';
import { PROJECT_DIR } from '../domain/artifacts.js';
import { errorClass } from '../domain/errors.js';
import { logTail } from '../adapters/shell.js';

/** One run of a check: what `check run --json` prints, and what its evidence records. */
export interface CheckRun {
  name: string;
  run: string;
  passed: boolean;
  /** The shell's exit code; null when it timed out or was ended by a signal. */
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  /** The timeout it ran with, in seconds. */
  timeout: number;
  duration_ms: number;
  started_at: string;
  /** The log (stdout and stderr), relative to .sow/project/. */
  log: string;
  /** HEAD when it started; null in a repository without commits. */
  commit: string | null;
  /** Whether the code differed from HEAD when it started (untracked files count, ignored ones not; .sow/ never). */
  dirty: boolean;
  /** The tree hash of the working tree outside .sow/ when it started: what freshness is judged by. */
  tree: string;
  /** Not run: a completion with --force skipped it (who skipped it is in the log). */
  skipped?: true;
  /** Run in a task's own checkout (relative to the project checkout); `commit`, `dirty`, `tree` are then its. */
  checkout?: string;
}

/** `exit 2`, `timed out after 5 s`, `killed by SIGKILL`. */
export function verdictOf(r: Pick<CheckRun, 'passed' | 'exit_code' | 'signal' | 'timed_out' | 'timeout'>): string {
  if (r.timed_out) return `timed out after ${r.timeout} s`;
  if (r.exit_code === null) return `killed by ${r.signal ?? 'a signal'}`;
  return `exit ${r.exit_code}`;
}

export class ChecksFailedError extends errorClass(
  'CHECKS_FAILED',
  'failed',
  (runs: readonly CheckRun[], recorded: object | null) => {
    const failed = runs.filter((r) => !r.passed);
    const logs = failed.map((r) => `${PROJECT_DIR}/${r.log}`);
    const verdicts = failed.map((r) => `${r.name} (${verdictOf(r)})`).join(', ');
    return [
      `${failed.length} of ${runs.length} check${runs.length === 1 ? '' : 's'} failed: ${verdicts}`,
      `read the log${logs.length === 1 ? '' : 's'} (${logs.join(', ')}), fix the cause, ` +
        `then run 'sow check run ${failed.map((r) => r.name).join(' ')}'`,
      { runs: [...runs], recorded },
    ];
  },
) {}

/** A run of checks interrupted (Ctrl-C, an MCP cancellation): nothing of it is recorded and its logs are removed, so
 * no evidence is ever half-written. */
export class ChecksInterruptedError extends errorClass(
  'INTERRUPTED',
  'interrupted',
  // stopped: the check it was interrupted in, how long it had run, and the last lines it printed.
  (runs: readonly CheckRun[], stopped?: { name: string; duration_ms: number; tail: string[] }) => {
    const before = runs.length
      ? ` (${runs.map((r) => `${r.name} had ${r.passed ? 'passed' : 'failed'}`).join(', ')})`
      : '';
    const what = stopped
      ? `the check ${stopped.name} was stopped after ${(stopped.duration_ms / 1000).toFixed(1)} s${before}`
      : `the checks were stopped${before}`;
    const tail = stopped
      ? stopped.tail.length
        ? `; its last lines:\n${stopped.tail.map((l) => `  | ${l}`).join('\n')}`
        : '; it had printed nothing'
      : '';
    return [
      `interrupted: ${what}; nothing was recorded, and this run's logs were removed${tail}`,
      'run the command again when you are ready: the checks start over',
      { runs: [...runs], ...(stopped ? { stopped } : {}) },
    ];
  },
) {}

/** How many lines of a failed check's output a refused completion shows. */
const TAIL_LINES = 15;

export class CompletionChecksFailedError extends errorClass(
  'TASK_CHECKS_FAILED',
  'blocked',
  (root: string, task: string, runs: readonly CheckRun[]) => {
    const failed = runs.filter((r) => !r.passed);
    const checkout = runs.find((r) => r.checkout !== undefined);
    const where = checkout
      ? ` in its checkout ${checkout.checkout} (at ${checkout.commit?.slice(0, 12) ?? 'no commit'}` +
        `${checkout.dirty ? ' with uncommitted changes' : ''})`
      : '';
    const shown = failed.map((r) => {
      const tail = logTail(join(root, PROJECT_DIR, r.log), TAIL_LINES);
      return [
        `${r.name} (${verdictOf(r)}), log ${PROJECT_DIR}/${r.log}` +
          (tail.length ? `; its last lines:` : '; it printed nothing'),
        ...tail.map((l) => `  | ${l}`),
      ].join('\n');
    });
    const which = runs.length === 1 ? 'the check' : `${failed.length} of ${runs.length} checks`;
    return [
      `task ${task} was not completed: ${which} declared for task_complete failed${where}: ${shown.join('\n')}`,
      `fix the cause${checkout ? ` in ${checkout.checkout}` : ''} and complete it again (the checks run again); ` +
        `'sow task set --id ${task} status completed --force' completes it without them, ` +
        'recording that they were skipped',
      {
        task,
        runs: [...runs],
        failed: failed.map((r) => r.name),
        ...(checkout ? { checkout: checkout.checkout } : {}),
      },
    ];
  },
) {}
