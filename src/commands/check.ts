/** `sow check …`: the repository's declared checks, allowed per machine, run and recorded as evidence. */
import type { CommandDef } from '../cli/def.js';

export const commands: readonly CommandDef[] = [
  {
    name: 'check list',
    description: 'List the checks .sow/config.yaml declares: name, command, when they are needed, timeout, whether you allowed them here',
    writes: false,
    async run(ctx) {
      const { listChecks, NO_CHECKS_HELP } = await import('../app/checks.js');
      const { printable } = await import('../domain/display.js');
      const r = await listChecks(ctx.app);
      const width = Math.max(0, ...r.checks.map((c) => c.name.length));
      const standing = (c: (typeof r.checks)[number]) =>
        c.allowed ? (r.allowed_by === 'environment' ? 'allowed by SOW_ALLOW_CHECKS=1' : 'allowed') : c.previously !== undefined ? 'changed since you allowed it' : 'not allowed yet';
      const refused = r.checks.filter((c) => !c.allowed);
      return {
        data: r.checks,
        text: r.checks
          .map((c) => `${c.name.padEnd(width)}  ${printable(c.run)}  (${c.when.length ? `needed for ${c.when.join(', ')}` : 'run by hand'}; timeout ${c.timeout} s; ${standing(c)})`)
          .join('\n'),
        ...(r.checks.length === 0
          ? { message: NO_CHECKS_HELP }
          : refused.length
            ? {
                message: `${refused.length === 1 ? 'A check is' : `${refused.length} checks are`} not allowed to run on this machine: read what ${refused.length === 1 ? 'it runs' : 'they run'}, then 'sow check allow' if you trust ${refused.length === 1 ? 'it' : 'them'}`,
              }
            : {}),
      };
    },
  },
  {
    name: 'check allow',
    description: 'Allow the declared checks (default: all) to run on this machine: shows each command and asks; recorded outside the repository',
    args: [{ name: 'names', description: 'the checks to allow (see sow check list)', optional: true, variadic: true }],
    options: [{ flags: '-y, --yes', description: 'allow without asking (the commands are still shown)' }],
    help: [
      "A repository's checks are shell commands from whoever committed them, so sow runs them (sow check run,",
      "completing a task, a worker's permissions) only once you allowed exactly those commands here. A changed",
      'command must be allowed again. The record is kept per repository in your state folder',
      '($XDG_STATE_HOME/sow/allowed-checks, else ~/.local/state/sow/allowed-checks), where a worker cannot reach.',
      'A worker sow spawned cannot allow checks. In CI, SOW_ALLOW_CHECKS=1 allows every declared check without a',
      'record. sow check forget withdraws what you allowed.',
    ].join('\n'),
    writes: true,
    async run(ctx, { args, opts }) {
      const { allowChecks } = await import('../app/check-allowance.js');
      const { askYesNo, interactive } = await import('../cli/confirm.js');
      const { writeText } = await import('../cli/output.js');
      const r = await allowChecks(ctx.app, args[0] as string[], {
        yes: opts['yes'] === true,
        interactive: interactive(),
        confirm: askYesNo,
        // The commands come from .sow/config.yaml: escape sequences in them are shown, not obeyed.
        show: (text) => !ctx.json && writeText(process.stderr, text),
      });
      const { NO_CHECKS_HELP } = await import('../app/checks.js');
      const message = r.allowed.length
        ? `Allowed ${r.allowed.length === 1 ? `the check ${r.allowed[0]!.name}` : `${r.allowed.length} checks (${r.allowed.map((c) => c.name).join(', ')})`} to run in ${r.repository}; recorded in ${r.record} ('sow check forget' withdraws it)`
        : r.already.length
          ? `${r.already.length === 1 ? `The check ${r.already[0]} is` : `All ${r.already.length} checks are`} allowed already`
          : NO_CHECKS_HELP;
      return { data: r, message };
    },
  },
  {
    name: 'check forget',
    description: 'Withdraw what you allowed to run in this repository (default: every check)',
    args: [{ name: 'names', description: 'the checks to withdraw', optional: true, variadic: true }],
    writes: true,
    async run(ctx, { args }) {
      const { forgetChecks } = await import('../app/check-allowance.js');
      const r = await forgetChecks(ctx.app, args[0] as string[]);
      return {
        data: r,
        message: r.forgotten.length
          ? `Withdrawn: ${[...new Set(r.forgotten.map((c) => c.name))].join(', ')}; ${r.forgotten.length === 1 ? 'it runs' : 'they run'} again only after 'sow check allow'`
          : 'Nothing was allowed in this repository',
      };
    },
  },
  {
    name: 'check run',
    description: "Run checks (default: all declared) in the repository root (with --task, in the task's own checkout if it has one); each run is recorded as an evidence output, with its log",
    args: [{ name: 'names', description: 'the checks to run (see sow check list)', optional: true, variadic: true, complete: 'check' }],
    options: [
      {
        flags: '--task <id>',
        description: 'record the evidence on this task (default: the outputs of the phase in progress); a task worked in its own checkout is checked there',
        complete: 'task-id',
      },
    ],
    help: 'Exit 0 when every check passed, 1 when one failed or timed out; Ctrl-C stops the running check (exit 130).',
    writes: true,
    mcp: {
      tool: 'check_run',
      description: "Run the repository's declared checks (.sow/config.yaml) and record each run as evidence; a failed check is an error whose details hold the runs.",
      input: (z) =>
        z.strictObject({
          names: z.array(z.string()).optional().describe('the checks to run (default: all declared)'),
          task: z.string().optional().describe('record the evidence on this task (default: the outputs of the phase in progress)'),
        }),
      output: (z) =>
        z.looseObject({
          runs: z.array(z.looseObject({ name: z.string(), run: z.string(), passed: z.boolean() })).describe('each check run'),
          recorded: z.looseObject({ owner: z.string() }).nullable().describe('where the evidence was recorded (null when no check ran)'),
        }),
      async call(ctx, args) {
        const { checkRun } = await import('../app/checks.js');
        return checkRun(ctx.app, (args['names'] as string[] | undefined) ?? [], {
          ...(args['task'] !== undefined ? { task: args['task'] as string } : {}),
          onProgress: (event) => {
            if (event.kind === 'end') ctx.progress?.(event.index + 1, event.all.length, `${event.run.name} ${event.run.passed ? 'passed' : 'failed'}`);
          },
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
      },
    },
    async run(ctx, { args, opts }) {
      const app = await import('../app/checks.js');
      const { checkProgress } = await import('../cli/check.js');
      const r = await app.checkRun(ctx.app, args[0] as string[], {
        ...(opts['task'] !== undefined ? { task: opts['task'] as string } : {}),
        onProgress: await checkProgress(ctx.json ? null : process.stdout),
      });
      if (r.runs.length === 0) return { data: r, message: app.NO_CHECKS_HELP };
      return {
        data: r,
        message: `${r.runs.length === 1 ? 'The check passed' : `All ${r.runs.length} checks passed`}${r.runs[0]?.checkout !== undefined ? ` in the task's checkout ${r.runs[0].checkout}` : ''}; evidence recorded on ${r.recorded?.owner ?? 'nothing'} ('sow ${r.recorded?.task ? `task output list --id ${r.recorded.task}` : 'output list'}')`,
      };
    },
  },
];
