import type { Command } from 'commander';
import { cwd, respond, writeText } from './output.js';

export default function register(program: Command): void {
  const check = program.command('check').description("Run the repository's declared checks (.sow/config.yaml) and record what they showed as evidence");

  check
    .command('list')
    .description('List the checks .sow/config.yaml declares: name, command, when they are needed, timeout, whether you allowed them here')
    .action(async () => {
      const { listChecks, NO_CHECKS_HELP } = await import('../app/checks.js');
      const { printable } = await import('../domain/display.js');
      const r = await listChecks(cwd());
      const width = Math.max(0, ...r.checks.map((c) => c.name.length));
      const standing = (c: (typeof r.checks)[number]) =>
        c.allowed ? (r.allowed_by === 'environment' ? 'allowed by SOW_ALLOW_CHECKS=1' : 'allowed') : c.previously !== undefined ? 'changed since you allowed it' : 'not allowed yet';
      const refused = r.checks.filter((c) => !c.allowed);
      respond({
        data: r.checks,
        text: r.checks.map((c) => `${c.name.padEnd(width)}  ${printable(c.run)}  (${c.when.length ? `needed for ${c.when.join(', ')}` : 'run by hand'}; timeout ${c.timeout} s; ${standing(c)})`).join('\n'),
        ...(r.checks.length === 0 ? { message: NO_CHECKS_HELP }
          : refused.length ? { message: `${refused.length === 1 ? 'A check is' : `${refused.length} checks are`} not allowed to run on this machine: read what ${refused.length === 1 ? 'it runs' : 'they run'}, then 'sow check allow' if you trust ${refused.length === 1 ? 'it' : 'them'}` } : {}),
      });
    });

  check
    .command('allow')
    .description('Allow the declared checks (default: all) to run on this machine: shows each command and asks; recorded outside the repository')
    .argument('[names...]', 'the checks to allow (see sow check list)')
    .option('-y, --yes', 'allow without asking (the commands are still shown)')
    .addHelpText('after', [
      '',
      'A repository\'s checks are shell commands from whoever committed them, so sow runs them (sow check run,',
      'completing a task, a worker\'s permissions) only once you allowed exactly those commands here. A changed',
      'command must be allowed again. The record is kept per repository in your state folder',
      '($XDG_STATE_HOME/sow/allowed-checks, else ~/.local/state/sow/allowed-checks), where a worker cannot reach.',
      'A worker sow spawned cannot allow checks. In CI, SOW_ALLOW_CHECKS=1 allows every declared check without a',
      'record. sow check forget withdraws what you allowed.',
    ].join('\n'))
    .action(async (names: string[], opts: { yes?: boolean }) => {
      const { allowChecks } = await import('../app/check-allowance.js');
      const { askYesNo, interactive } = await import('./confirm.js');
      const json = process.argv.includes('--json');
      const r = await allowChecks(cwd(), names, {
        yes: opts.yes === true,
        interactive: interactive(),
        confirm: askYesNo,
        // The commands come from .sow/config.yaml: escape sequences in them are shown, not obeyed.
        show: (text) => !json && writeText(process.stderr, text),
      });
      const { NO_CHECKS_HELP } = await import('../app/checks.js');
      const message = r.allowed.length
        ? `Allowed ${r.allowed.length === 1 ? `the check ${r.allowed[0]!.name}` : `${r.allowed.length} checks (${r.allowed.map((c) => c.name).join(', ')})`} to run in ${r.repository}; recorded in ${r.record} ('sow check forget' withdraws it)`
        : r.already.length ? `${r.already.length === 1 ? `The check ${r.already[0]} is` : `All ${r.already.length} checks are`} allowed already` : NO_CHECKS_HELP;
      respond({ data: r, message });
    });

  check
    .command('forget')
    .description('Withdraw what you allowed to run in this repository (default: every check)')
    .argument('[names...]', 'the checks to withdraw')
    .action(async (names: string[]) => {
      const { forgetChecks } = await import('../app/check-allowance.js');
      const r = await forgetChecks(cwd(), names);
      respond({
        data: r,
        message: r.forgotten.length
          ? `Withdrawn: ${[...new Set(r.forgotten.map((c) => c.name))].join(', ')}; ${r.forgotten.length === 1 ? 'it runs' : 'they run'} again only after 'sow check allow'`
          : 'Nothing was allowed in this repository',
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
