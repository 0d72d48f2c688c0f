/** The lines `sow check run` and a checked completion print while checks run. */
type Run = import('../app/checks.js').CheckRun;
type Progress = (event: import('../app/checks.js').CheckProgress) => void;

/**
 * The progress of running checks: a spinner while each runs (on a terminal), then its result
 * line on `lines` as it ends (a run can take minutes); no lines with null. A completion's checks
 * report on stderr, since its stdout is the result.
 */
export async function checkProgress(lines: NodeJS.WritableStream | null): Promise<Progress> {
  const { formatDuration, startSpinner } = await import('./spinner.js');
  let spinner: { stop(): void } | undefined;
  return (event) => {
    if (event.kind === 'start') {
      spinner = startSpinner(event.check.name);
      return;
    }
    spinner?.stop();
    lines?.write(`${runLine(event.run, Math.max(...event.all.map((c) => c.name.length)), formatDuration)}\n`);
  };
}

/** `✓ unit  passed in 2.3 s`, `✗ lint  failed (exit 2) in 0.4 s — .sow/project/evidence/….log`. */
function runLine(run: Run, width: number, duration: (ms: number) => string): string {
  const name = run.name.padEnd(width);
  if (run.passed) return `✓ ${name}  passed in ${duration(run.duration_ms)}`;
  const what = run.timed_out
    ? `timed out after ${run.timeout} s`
    : run.exit_code === null
      ? `killed by ${run.signal ?? 'a signal'} after ${duration(run.duration_ms)}`
      : `failed (exit ${run.exit_code}) in ${duration(run.duration_ms)}`;
  return `✗ ${name}  ${what} — .sow/project/${run.log}`;
}
