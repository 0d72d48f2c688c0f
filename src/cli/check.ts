/** The lines `sow check run` and a checked completion print while checks run. */
import type { CommandContext } from '../model/def.js';
import { formatDuration, startSpinner } from './spinner.js';

type Progress = (event: import('../app/checks.js').CheckProgress) => void;

/** A spinner while each check runs (on a terminal), then its result line on `lines` (none with null). */
function checkProgress(lines: NodeJS.WritableStream | null, interrupted?: AbortSignal): Progress {
  let spinner: { stop(): void } | undefined;
  // Interrupted: the line is cleared before the message that says what was stopped.
  interrupted?.addEventListener('abort', () => spinner?.stop(), { once: true });
  return (event) => {
    if (event.kind === 'start') {
      spinner = startSpinner(event.check.name);
      return;
    }
    spinner?.stop();
    lines?.write(`${runLine(event.run, Math.max(...event.all.map((c) => c.name.length)))}\n`);
  };
}

/** `✓ unit  passed in 2.3 s`, `✗ lint  failed (exit 2) in 0.4 s — .sow/project/evidence/….log`. */
function runLine(run: import('../app/checks.js').CheckRun, width: number): string {
  const name = run.name.padEnd(width);
  if (run.passed) return `✓ ${name}  passed in ${formatDuration(run.duration_ms)}`;
  const what = run.timed_out
    ? `timed out after ${run.timeout} s`
    : run.exit_code === null
      ? `killed by ${run.signal ?? 'a signal'} after ${formatDuration(run.duration_ms)}`
      : `failed (exit ${run.exit_code}) in ${formatDuration(run.duration_ms)}`;
  return `✗ ${name}  ${what} — .sow/project/${run.log}`;
}

/** A run of checks reports to the MCP client that called (progress, cancel), else to the terminal (`lines`, Ctrl-C). */
export async function checkWatch(
  ctx: CommandContext,
  lines: NodeJS.WritableStream | null,
): Promise<{ onProgress: Progress; signal: AbortSignal; release(): void }> {
  const { progress, signal } = ctx;
  if (progress && signal)
    return {
      onProgress: (event) => {
        if (event.kind === 'end')
          progress(event.index + 1, event.all.length, `${event.run.name} ${event.run.passed ? 'passed' : 'failed'}`);
      },
      signal,
      release: () => undefined,
    };
  // Ctrl-C or SIGTERM aborts the checks, so the run is told as interrupted (nothing recorded) instead of sow dying
  // mid-write; a second Ctrl-C ends sow at once.
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.on('SIGINT', abort);
  process.on('SIGTERM', abort);
  const release = () => {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  };
  return { onProgress: checkProgress(lines, controller.signal), signal: controller.signal, release };
}
