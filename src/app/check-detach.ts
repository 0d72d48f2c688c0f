/** Checks in the background, for an agent whose commands have a time limit: `check run --detach` starts a runner
 * (adapters/check-runs.ts); `check wait` reports the run as the foreground run would have. */
import { errorClass, SowError } from '../domain/errors.js';
import { selectChecks } from '../domain/checks.js';
import { shown } from '../domain/display.js';
import { readRepoConfig } from '../adapters/repo-config.js';
import { readEnvelope, runId, startDetached } from '../adapters/supervisor.js';
import {
  checkRunFiles,
  checkRuns,
  pruneCheckRuns,
  readRunnerRecord,
  RUNNER_VARIABLE,
  runnerRunning,
  type CheckRunFolder,
} from '../adapters/check-runs.js';
import { shownRuntime } from '../adapters/runtime.js';
import type { AppContext } from './context.js';
import { checksToRun, type CheckRun, type EvidenceRecord } from './checks.js';
import { openRoot } from './workspace.js';
import { ChecksFailedError } from './check-errors.js';

export class ChecksRunningError extends errorClass(
  'CHECKS_RUNNING',
  'failed',
  (running: readonly RunningChecks[], names: readonly string[]) => [
    `${names.length === 1 ? `the check ${names[0]} runs` : `the checks ${names.join(', ')} run`} in the ` +
      `background already (pid ${running.map((r) => r.pid).join(', ')}); nothing was started`,
    `wait for ${names.length === 1 ? 'it' : 'them'}: sow check wait ${names.join(' ')}`,
    { running: running.map((r) => ({ ...r })) },
  ],
) {}

export class NoCheckRunError extends errorClass('NO_CHECK_RUN', 'failed', (names: readonly string[]) => [
  names.length
    ? `no check run in the background here has run ${names.map((n) => `'${shown(n)}'`).join(', ')}`
    : 'no check run in the background here to wait for',
  `start one: sow check run${names.length ? ` ${names.join(' ')}` : ''} --detach`,
]) {}

export class CheckWaitTimeoutError extends errorClass(
  'WAIT_TIMEOUT',
  'timeout',
  (seconds: number, running: readonly RunningChecks[], names: readonly string[]) => {
    const all = running.flatMap((r) => r.checks);
    const still = all.length === 1 ? `the check ${all[0]} still runs` : `the checks ${all.join(', ')} still run`;
    return [
      `after ${seconds} s ${still} (pid ${running.map((r) => r.pid).join(', ')})`,
      `wait again: sow check wait${names.length ? ` ${names.join(' ')}` : ''} --timeout ${seconds}s`,
      { running: running.map((r) => ({ ...r })) },
    ];
  },
) {}

/** A runner that ended without a result: killed, or the machine went down. */
export class CheckRunLostError extends errorClass('CHECK_RUN_LOST', 'failed', (run: CheckRunFolder, log: string) => [
  `the background run of ${run.record.checks.join(', ')} (pid ${run.record.pid}) ended without a result: it ` +
    `was stopped before the checks ended`,
  `see ${log}; run them again: sow check run ${run.record.checks.join(' ')} --detach`,
  { run: run.id },
]) {}

/** `check run --detach`: refuses as a run would, starts the runner, and returns once it has recorded itself. */
export async function startChecksDetached(
  ctx: AppContext,
  names: readonly string[],
  opts: { task?: string; script?: string } = {},
) {
  const chosen = await checksToRun(ctx, names, opts.task);
  if (!chosen) return null;
  const { root, target } = chosen;
  const checks = chosen.checks.map((c) => c.name);
  // The same checks on the same code at once would only race each other (and their evidence).
  const busy = checkRuns(root).filter(
    (r) => runnerRunning(r.record) && r.record.task === target.task && r.record.checks.some((c) => checks.includes(c)),
  );
  const clash = [...new Set(busy.flatMap((r) => r.record.checks.filter((c) => checks.includes(c))))];
  if (busy.length) throw new ChecksRunningError(busy.map(runningOf), clash);
  const id = runId(ctx.now());
  const files = checkRunFiles(root, id);
  const args = ['check', 'run', ...checks, ...(target.task !== undefined ? ['--task', target.task] : []), '--json'];
  const run = { script: opts.script ?? process.argv[1] ?? 'sow', args, cwd: root, env: ctx.env, files };
  const log = shownRuntime(root, 'check-runs', id, 'runner.log');
  // A refusal after all (the state changed meanwhile) is its own, as a foreground run would give it.
  const words = { who: "the checks' runner", code: 'CHECK_RUNNER', before: 'it ran them', notYet: 'started them', log };
  const ready = await startDetached(
    { ...run, variable: RUNNER_VARIABLE },
    () => readRunnerRecord(files.ready),
    { ...words, kindOf: () => 'failed' },
    () => pruneCheckRuns(root, Date.parse(ctx.now())),
  );
  const { checks: ran, task, pid } = ready;
  return { detached: true as const, run: id, checks: ran, ...(task !== undefined ? { task } : {}), pid, log };
}

const runningOf = (r: CheckRunFolder) => ({ run: r.id, checks: [...r.record.checks], pid: r.record.pid });
type RunningChecks = ReturnType<typeof runningOf>;

/** Which runs a wait is for: with names, the newest run of each; without, every run going on now, else the newest. */
function targets(runs: readonly CheckRunFolder[], names: readonly string[]): CheckRunFolder[] {
  if (names.length === 0) {
    const going = runs.filter((r) => runnerRunning(r.record));
    return going.length ? going : runs.slice(-1);
  }
  const out = new Set<CheckRunFolder>();
  const missing: string[] = [];
  for (const name of names) {
    const newest = [...runs].reverse().find((r) => r.record.checks.includes(name));
    if (newest) out.add(newest);
    else missing.push(name);
  }
  if (missing.length) throw new NoCheckRunError(missing);
  return [...out];
}

/** `check wait`: waits until the background runs of `names` (default: those going on, else the last) have ended and
 * reports them as `check run` would; with `timeoutMs` it returns early (timedOut) naming what still runs. */
export async function waitForChecks(
  ctx: AppContext,
  names: readonly string[],
  opts: { timeoutMs?: number; pollMs?: number; signal?: AbortSignal } = {},
): Promise<{ runs: CheckRun[]; recorded: EvidenceRecord[]; running: RunningChecks[]; timedOut: boolean }> {
  const root = await openRoot(ctx);
  if (names.length) {
    const { config } = await readRepoConfig(root);
    // A name no check has is a mistake, said as `check run` says it.
    selectChecks(config.checks ?? [], names);
  }
  const chosen = targets(checkRuns(root), [...new Set(names)]);
  if (chosen.length === 0) throw new NoCheckRunError(names);
  const started = performance.now();
  for (;;) {
    const going = chosen.filter((r) => runnerRunning(r.record) && readEnvelope(r.files.result) === undefined);
    if (going.length === 0) break;
    if ((opts.timeoutMs !== undefined && performance.now() - started >= opts.timeoutMs) || opts.signal?.aborted)
      return { runs: [], recorded: [], running: going.map(runningOf), timedOut: true };
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
  }
  const wanted = (run: CheckRun) => names.length === 0 || names.includes(run.name);
  const runs: CheckRun[] = [];
  const recorded: EvidenceRecord[] = [];
  for (const r of chosen) {
    const envelope = readEnvelope(r.files.result);
    const log = shownRuntime(root, 'check-runs', r.id, 'runner.log');
    // Killed, or stopped by a signal it answered (it stops its check and records nothing): lost either way.
    if (!envelope || envelope.error?.code === 'INTERRUPTED') throw new CheckRunLostError(r, log);
    const body = (
      envelope.ok ? envelope.data : envelope.error?.code === 'CHECKS_FAILED' ? envelope.error.details : undefined
    ) as { runs?: CheckRun[]; recorded?: EvidenceRecord | null } | undefined;
    if (!body?.runs) {
      const e = envelope.error;
      throw new SowError(
        e?.code ?? 'CHECK_RUNNER_FAILED',
        'failed',
        e?.message ?? `the background run of ${r.record.checks.join(', ')} ended without its runs`,
        e?.hint ?? `see ${log}`,
      );
    }
    runs.push(...body.runs.filter(wanted));
    if (body.recorded) recorded.push(body.recorded);
  }
  if (runs.some((r) => !r.passed)) throw new ChecksFailedError(runs, recorded[0] ?? null);
  return { runs, recorded, running: [], timedOut: false };
}
