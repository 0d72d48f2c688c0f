import type { Command } from 'commander';
import { cwd, respond } from './output.js';

export default function register(program: Command): void {
  const check = program.command('check').description("Run the repository's declared checks (.sow/config.yaml) and record what they showed as evidence");

  check
    .command('list')
    .description('List the checks .sow/config.yaml declares: name, command, when they are needed, timeout')
    .action(async () => {
      const { listChecks, NO_CHECKS_HELP } = await import('../app/checks.js');
      const r = await listChecks(cwd());
      const width = Math.max(0, ...r.checks.map((c) => c.name.length));
      respond({
        data: r.checks,
        text: r.checks.map((c) => `${c.name.padEnd(width)}  ${c.run}  (${c.when.length ? `needed for ${c.when.join(', ')}` : 'run by hand'}; timeout ${c.timeout} s)`).join('\n'),
        ...(r.checks.length ? {} : { message: NO_CHECKS_HELP }),
      });
    });

  check
    .command('run')
    .description('Run checks (default: all declared) in the repository root; each run is recorded as an evidence output, with its log')
    .argument('[names...]', 'the checks to run (see sow check list)')
    .option('--task <id>', 'record the evidence on this task (default: the outputs of the phase in progress)')
    .addHelpText('after', '\nExit 0 when every check passed, 1 when one failed or timed out; Ctrl-C stops the running check (exit 130).')
    .action(async (names: string[], opts: { task?: string }) => {
      const app = await import('../app/checks.js');
      const json = process.argv.includes('--json');
      const r = await app.checkRun(cwd(), names, {
        ...(opts.task !== undefined ? { task: opts.task } : {}),
        onProgress: await checkProgress(json ? null : process.stdout),
      });
      if (r.runs.length === 0) {
        respond({ data: r, message: app.NO_CHECKS_HELP });
        return;
      }
      respond({
        data: r,
        message: `${r.runs.length === 1 ? 'The check passed' : `All ${r.runs.length} checks passed`}; evidence recorded on ${r.recorded?.owner ?? 'nothing'} ('sow ${r.recorded?.task ? `task output list --id ${r.recorded.task}` : 'output list'}')`,
      });
    });
}

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
  const what = run.timed_out ? `timed out after ${run.timeout} s`
    : run.exit_code === null ? `killed by ${run.signal ?? 'a signal'} after ${duration(run.duration_ms)}`
      : `failed (exit ${run.exit_code}) in ${duration(run.duration_ms)}`;
  return `✗ ${name}  ${what} — .sow/project/${run.log}`;
}
