/** `sow doctor`: whether this machine and repository are fit for sow, and what to fix. */
import { command } from '../model/def.js';
import { writeText } from '../cli/output.js';

/** One line per check: `FAIL  lock       a stale lock: … — fix: sow doctor --fix`. */
function renderChecks(checks: readonly import('../app/doctor.js').DoctorCheck[]): string {
  const width = Math.max(...checks.map((c) => c.id.length));
  return checks
    .map((c) => {
      const fix = c.status !== 'ok' && c.fix ? ` — fix: ${c.fix}` : '';
      return `${(c.status === 'fail' ? 'FAIL' : c.status).padEnd(4)}  ${c.id.padEnd(width)}  ${c.message}${fix}`;
    })
    .join('\n');
}

export const doctor = command({
  name: 'doctor',
  description:
    'Check that this machine and repository are fit for sow: Node.js, git, .sow/, branch, ignore lines, the merge ' +
    'driver and merges it left unfinished, locks, task files, configuration, agent CLIs, gh, refs, worktrees',
  options: [
    {
      flags: '--fix',
      description:
        'also fix what is safe to fix (missing ignore lines, the merge driver (its registration), a stale lock, an ' +
        'unfinished write, ref links, worktrees to prune) and say what was done',
    },
  ],
  help: `Each check prints one line: ok, warn or FAIL, what it found and, when it is not ok, how to fix it.
Exit 0 when no check failed (warnings alone are exit 0), 1 when one failed. With --json the checks
({id, status, message, fix, fixed}) are the data, or the error's details when one failed.
Without --fix nothing is written.`,
  async run(ctx, { opts }) {
    const { doctor, DoctorFoundProblemsError } = await import('../app/doctor.js');
    const r = await doctor(ctx.app, { fix: opts.fix === true });
    const text = renderChecks(r.checks);
    const fixed = r.checks.filter((c) => c.fixed).map((c) => c.id);
    const didFix = fixed.length ? `Fixed: ${fixed.join(', ')}. ` : '';
    if (r.checks.some((c) => c.status === 'fail')) {
      // The whole report first (stdout, as when all is well), then the refusal: exit 1.
      if (!ctx.json) {
        writeText(process.stdout, text);
        if (didFix) writeText(process.stderr, didFix.trim());
      }
      throw new DoctorFoundProblemsError(r);
    }
    const warnings = r.checks.filter((c) => c.status === 'warn').length;
    const said = warnings ? `${warnings} warning(s), no check failed` : `All ${r.checks.length} checks passed`;
    return { data: { checks: r.checks }, text, message: `${didFix}${said}` };
  },
});
