// `sow doctor [--fix]`: one finding per check, each saying how to fix it. Without --fix nothing is written; with it,
// what is safe to fix is fixed and every check runs again, so the report shows the state after the fixes.
import { errorClass, SowError } from '../domain/errors.js';
import { fileExists } from '../adapters/files.js';
import type { AppContext } from './context.js';
import { VERSION_FILE } from './project-files.js';
import { failure, type DoctorCheck, type Finding, type Verdict, type Context } from './doctor/finding.js';
import { agentChecks, ghCheck, gitCheck, nodeCheck, userConfigCheck } from './doctor/machine.js';
import { PROJECT_CHECKS, workspaceCheck } from './doctor/project.js';
import { REPOSITORY_CHECKS, worktreesCheck } from './doctor/repository.js';

export type { DoctorCheck } from './doctor/finding.js';

export interface DoctorReport {
  checks: DoctorCheck[];
  fix: boolean;
  /** The checks that failed which --fix would fix (without --fix). */
  fixable: string[];
}

type Check = (ctx: Context) => Verdict | undefined | Promise<Verdict | undefined>;

/** A check's verdict under its id; a failure sow knows (git missing, a file it cannot read) is its verdict. */
async function judge(id: string, check: Check, ctx: Context): Promise<Finding | undefined> {
  try {
    const verdict = await check(ctx);
    return verdict && { id, ...verdict };
  } catch (err) {
    if (!(err instanceof SowError)) throw err;
    return { id, ...failure(err) };
  }
}

/** Every check, in the order they are shown. */
async function runChecks(app: AppContext): Promise<Finding[]> {
  const ctx: Context = { app, layoutOk: false };
  const workspace = await judge('workspace', workspaceCheck, ctx);
  // The slow ones (subprocesses) start at once and run side by side.
  const [git, gh, agents, userConfig] = await Promise.all([
    judge('git', () => gitCheck(app), ctx),
    judge('gh', () => ghCheck(app, ctx.root), ctx),
    agentChecks(app, ctx.root),
    judge('config', () => userConfigCheck(app), ctx),
  ]);
  const repo: (Finding | undefined)[] = [];
  const checks: Record<string, Check> = {
    ...(ctx.root && fileExists(ctx.root, VERSION_FILE) ? REPOSITORY_CHECKS : {}),
    ...(ctx.layoutOk ? PROJECT_CHECKS : {}),
    ...(ctx.root ? { worktrees: worktreesCheck } : {}),
  };
  // One after the other, in the order shown: a check may use what an earlier one read.
  for (const [id, check] of Object.entries(checks)) repo.push(await judge(id, check, ctx));
  const all = [{ id: 'node', ...nodeCheck() }, git, workspace, ...repo, userConfig, ...agents, gh];
  return all.filter((f): f is Finding => f !== undefined);
}

const strip = ({ repair: _repair, ...check }: Finding): DoctorCheck => check;

export async function doctor(app: AppContext, opts: { fix: boolean }): Promise<DoctorReport> {
  const first = await runChecks(app);
  const repairable = opts.fix ? first.filter((f) => f.status !== 'ok' && f.repair) : [];
  if (repairable.length === 0) {
    const fixable = opts.fix ? [] : first.filter((f) => f.status === 'fail' && f.repair).map((f) => f.id);
    return { checks: first.map(strip), fix: opts.fix, fixable };
  }
  // What each repair did, said on the check as it stands after the fixes.
  const said = new Map<string, (check: DoctorCheck) => DoctorCheck>();
  for (const f of repairable) {
    try {
      const did = await f.repair!();
      const message = (c: DoctorCheck) => (c.status === 'ok' ? `fixed: ${did}` : `fixed in part: ${did}; ${c.message}`);
      said.set(f.id, (c) => ({ ...c, fixed: true, message: message(c) }));
    } catch (err) {
      if (!(err instanceof SowError)) throw err;
      said.set(f.id, (c) => ({ ...c, message: `${c.message} (--fix could not fix it: ${err.message})` }));
    }
  }
  // Again, all of them: a fix can change what another check sees (a finished write, a freed lock).
  const after = await runChecks(app);
  return { fix: true, fixable: [], checks: after.map((f) => said.get(f.id)?.(strip(f)) ?? strip(f)) };
}

/** Some check failed: exit 1, every check in the details (and, without --json, on stdout first). */
export class DoctorFoundProblemsError extends errorClass('DOCTOR_FOUND_PROBLEMS', 'failed', (report: DoctorReport) => {
  const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
  return [
    `${failed.length} check(s) failed: ${failed.join(', ')}`,
    report.fixable.length && !report.fix
      ? `run 'sow doctor --fix' to fix ${report.fixable.join(', ')}; each other FAIL line says how to fix it`
      : 'each FAIL line says how to fix it',
    { checks: report.checks },
  ];
}) {}
