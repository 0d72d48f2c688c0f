/** `sow check …`: the repository's declared checks, allowed per machine, run and recorded as evidence. */
import { TIMEOUT_OPTION } from '../model/args.js';
import { command, type CommandDef } from '../model/def.js';
import { printable } from '../domain/display.js';
import { writeText } from '../cli/output.js';

export const commands: readonly CommandDef[] = [
  command({
    name: 'check list',
    description:
      'List the checks .sow/config.yaml declares: name, command, when they are needed, timeout, whether you ' +
      'allowed them here',
    writes: false,
    async run(ctx) {
      const { NO_CHECKS_HELP } = await import('../app/checks.js');
      const { listChecks } = await import('../app/check-list.js');
      const r = await listChecks(ctx.app);
      const width = Math.max(0, ...r.checks.map((c) => c.name.length));
      const standing = (c: (typeof r.checks)[number]) =>
        c.allowed
          ? r.allowed_by === 'environment'
            ? 'allowed by SOW_ALLOW_CHECKS=1'
            : 'allowed'
          : c.previously !== undefined
            ? 'changed since you allowed it'
            : 'not allowed yet';
      const refused = r.checks.filter((c) => !c.allowed);
      return {
        data: r.checks,
        text: r.checks
          .map(
            (c) =>
              `${c.name.padEnd(width)}  ${printable(c.run)}  ` +
              `(${c.when.length ? `needed for ${c.when.join(', ')}` : 'run by hand'}; timeout ${c.timeout} ` +
              `s; ${standing(c)})`,
          )
          .join('\n'),
        message:
          r.checks.length === 0
            ? NO_CHECKS_HELP
            : refused.length
              ? `${refused.length === 1 ? 'A check is' : `${refused.length} checks are`} not allowed to run ` +
                `on this machine: read what ${refused.length === 1 ? 'it runs' : 'they run'}, then 'sow check ` +
                `allow' if you trust ${refused.length === 1 ? 'it' : 'them'}`
              : undefined,
      };
    },
  }),
  command({
    name: 'check allow',
    description:
      'Allow the declared checks (default: all) to run on this machine: shows each command and asks; recorded ' +
      'outside the repository',
    args: [{ name: 'names', description: 'the checks to allow (see sow check list)', optional: true, variadic: true }],
    options: [{ flags: '-y, --yes', description: 'allow without asking (the commands are still shown)' }],
    help: `A repository's checks are shell commands from whoever committed them, so sow runs them (sow check run,
completing a task, a worker's permissions) only once you allowed exactly those commands here. A changed
command must be allowed again. The record is kept per repository in your state folder
($XDG_STATE_HOME/sow/allowed-checks, else ~/.local/state/sow/allowed-checks), where a worker cannot reach.
A worker sow spawned cannot allow checks. In CI, SOW_ALLOW_CHECKS=1 allows every declared check without a
record. sow check forget withdraws what you allowed.`,
    async run(ctx, { args, opts }) {
      const { allowChecks } = await import('../app/check-allowance.js');
      const { askYesNo, interactive } = await import('../cli/confirm.js');
      const r = await allowChecks(ctx.app, args[0] as string[], {
        yes: opts.yes === true,
        interactive: interactive(),
        confirm: askYesNo,
        // The commands come from .sow/config.yaml: escape sequences in them are shown, not obeyed.
        show: (text) => !ctx.json && writeText(process.stderr, text),
      });
      const { NO_CHECKS_HELP } = await import('../app/checks.js');
      const names = r.allowed.map((c) => c.name);
      const which = names.length === 1 ? `the check ${names[0]}` : `${names.length} checks (${names.join(', ')})`;
      const message = r.allowed.length
        ? `Allowed ${which} to run in ${r.repository}; recorded in ${r.record} ('sow check forget' withdraws it)`
        : r.already.length
          ? `${r.already.length === 1 ? `The check ${r.already[0]} is` : `All ${r.already.length} checks are`} ` +
            `allowed already`
          : NO_CHECKS_HELP;
      return { data: r, message };
    },
  }),
  command({
    name: 'check forget',
    description: 'Withdraw what you allowed to run in this repository (default: every check)',
    args: [{ name: 'names', description: 'the checks to withdraw', optional: true, variadic: true }],
    async run(ctx, { args }) {
      const { forgetChecks } = await import('../app/check-allowance.js');
      const r = await forgetChecks(ctx.app, args[0] as string[]);
      const names = [...new Set(r.forgotten.map((c) => c.name))].join(', ');
      return {
        data: r,
        message: r.forgotten.length
          ? `Withdrawn: ${names}; ${r.forgotten.length === 1 ? 'it runs' : 'they run'} ` +
            `again only after 'sow check allow'`
          : 'Nothing was allowed in this repository',
      };
    },
  }),
  command({
    name: 'check run',
    description:
      "Run checks (default: all declared) in the repository root (with --task, in the task's own checkout if it " +
      'has one); each run is recorded as an evidence output, with its log',
    args: [
      { name: 'names', description: 'the checks (default: all)', optional: true, variadic: true, complete: 'check' },
    ],
    options: [
      { flags: '--task <id>', description: 'record the evidence on this task', complete: 'task-id' },
      { flags: '-d, --detach', description: 'run in the background, return at once' },
    ],
    help:
      'Exit 0 when every check passed, 1 when one failed or timed out; Ctrl-C stops the running check and says ' +
      'which it was; nothing of that run is recorded and its logs are removed (exit 130).\nWith --detach the ' +
      "checks run under a sow of their own, which ends when they end: 'sow check wait --timeout 90s' waits for " +
      'them in slices (exit 124 while they still run) and then reports them as this command would.',
    mcp: {
      tool: 'check',
      action: 'run',
      description: 'Run the declared checks, recording evidence; or wait for a detached run.',
    },
    async run(ctx, { args, opts }) {
      const names = args[0] as string[];
      const { RUNNER_VARIABLE } = await import('../adapters/check-runs.js');
      // Set only for the runner a `--detach` started; the checks themselves never see it.
      const announce = process.env[RUNNER_VARIABLE];
      delete process.env[RUNNER_VARIABLE];
      const app = await import('../app/checks.js');
      if (opts.detach) {
        const { startChecksDetached } = await import('../app/check-detach.js');
        const r = await startChecksDetached(ctx.app, names, { task: opts.task });
        if (!r) return { data: { runs: [], recorded: null }, message: app.NO_CHECKS_HELP };
        const which = names.length ? ` ${r.checks.join(' ')}` : '';
        return {
          data: r,
          text:
            `Started ${r.checks.length === 1 ? `the check ${r.checks[0]}` : `the checks ${r.checks.join(', ')}`} ` +
            `in the background (pid ${r.pid}).\nIts log: ${r.log}\nWait ` +
            `for ${r.checks.length === 1 ? 'it' : 'them'}: sow check wait${which} --timeout 90s`,
        };
      }
      const watch = await (await import('../cli/check.js')).checkWatch(ctx, ctx.json ? null : process.stdout);
      const { onProgress, signal } = watch;
      const r = await app
        .checkRun(ctx.app, names, { task: opts.task, announce, onProgress, signal })
        .finally(() => watch.release());
      if (r.runs.length === 0) return { data: r, message: app.NO_CHECKS_HELP };
      return { data: r, message: passedMessage(r) };
    },
  }),
  command({
    name: 'check wait',
    description:
      'Wait for the checks running in the background (sow check run --detach; default: every run going on, else ' +
      "the last one) and report them as 'sow check run' would",
    args: [
      { name: 'names', description: 'the checks (default: all)', optional: true, variadic: true, complete: 'check' },
    ],
    options: [TIMEOUT_OPTION],
    help:
      'Exit 0 when every check passed, 1 when one failed; with a timeout an agent whose commands are limited ' +
      'waits in slices: 124 when the time ran out (like timeout(1)) — wait again. Waiting again after the run ' +
      'ended reports it again.',
    writes: false,
    mcp: { tool: 'check', action: 'wait', defaults: { timeout: '30s' } },
    async run(ctx, { args, opts }) {
      const names = args[0] as string[];
      const { waitForChecks, CheckWaitTimeoutError } = await import('../app/check-detach.js');
      const timeout = opts.timeout;
      const timeoutMs = timeout === undefined ? undefined : timeout * 1000;
      const r = await waitForChecks(ctx.app, names, { timeoutMs, signal: ctx.signal });
      if (r.timedOut) throw new CheckWaitTimeoutError(timeout ?? 0, r.running, names);
      const { verdictOf } = await import('../app/check-errors.js');
      return {
        data: r,
        text: r.runs.map((c) => `${c.name}  ${c.passed ? 'passed' : verdictOf(c)}`).join('\n'),
        message: passedMessage({ runs: r.runs, recorded: r.recorded[0] ?? null }),
      };
    },
  }),
];

/** What a run whose checks all passed says: how many, where, and where the evidence went. */
function passedMessage(r: Awaited<ReturnType<typeof import('../app/checks.js').checkRun>>): string {
  const passed = r.runs.length === 1 ? 'The check passed' : `All ${r.runs.length} checks passed`;
  const where = r.runs[0]?.checkout !== undefined ? ` in the task's checkout ${r.runs[0].checkout}` : '';
  return (
    `${passed}${where}; evidence recorded on ${r.recorded?.owner ?? 'nothing'} ` +
    `('sow ${r.recorded?.task ? `task output list --id ${r.recorded.task}` : 'output list'}')`
  );
}
