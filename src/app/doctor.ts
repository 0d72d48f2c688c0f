/**
 * `sow doctor [--fix]`: is this machine and this repository fit for sow? One finding per check, each saying how to fix
 * what it found. Without --fix nothing is written: the checks read files without the lock and never finish a journal or
 * take over a lock (every other read would). With
 * --fix, what is safe to fix is fixed — missing ignore lines, a stale lock, an unfinished write,
 * forgotten worktrees, broken ref links — and every check runs again, so the report shows the state after the fixes.
 */
import { SowError } from '../domain/errors.js';
import { fileExists } from '../adapters/files.js';
import type { AppContext } from './context.js';
import { VERSION_FILE } from './project-files.js';
import { failure, type DoctorCheck, type Finding } from './doctor/finding.js';
import { agentChecks, ghCheck, gitCheck, nodeCheck, userConfigCheck } from './doctor/machine.js';
import {
  branchCheck,
  checksAllowedCheck,
  context,
  projectCheck,
  refsCheck,
  repoConfigCheck,
  stateCheck,
  tasksCheck,
} from './doctor/project.js';
import {
  gitignoreCheck,
  journalCheck,
  legacyRuntimeCheck,
  lockCheck,
  mergeConflictsCheck,
  mergeDriverCheck,
  worktreesCheck,
} from './doctor/repository.js';

export type { DoctorCheck } from './doctor/finding.js';

export interface DoctorReport {
  checks: DoctorCheck[];
  /** Whether --fix was asked for. */
  fix: boolean;
  /** The checks that failed which --fix would fix (without --fix). */
  fixable: string[];
}

/** A check that meets a failure sow knows (git missing, a file it cannot read) reports it as its finding. */
async function guarded(
  id: string,
  check: () => Finding | undefined | Promise<Finding | undefined>,
): Promise<Finding | undefined> {
  try {
    return await check();
  } catch (err) {
    if (!(err instanceof SowError)) throw err;
    return failure(id, err);
  }
}

/** Every check, in the order they are shown. */
async function runChecks(app: AppContext): Promise<Finding[]> {
  const { ctx, workspace } = await context(app);
  const root = ctx.root;
  const initialised = root !== undefined && fileExists(root, VERSION_FILE);
  // The slow ones (subprocesses) start at once and run side by side.
  const [gitFinding, ghFinding, agents, userConfig] = await Promise.all([
    gitCheck(app),
    ghCheck(app, root),
    agentChecks(app, root),
    userConfigCheck(app),
  ]);
  const repo: (Finding | undefined)[] = [];
  if (initialised) {
    repo.push(
      await guarded('gitignore', () => gitignoreCheck(root)),
      await guarded('merge-driver', () => mergeDriverCheck(app, root)),
      await guarded('merge-conflicts', () => mergeConflictsCheck(root)),
      await guarded('lock', () => lockCheck(root)),
      await guarded('journal', () => journalCheck(ctx)),
      await guarded('legacy-runtime', () => legacyRuntimeCheck(root)),
    );
  }
  if (ctx.layoutOk) {
    repo.push(
      projectCheck(ctx),
      await guarded('branch', () => branchCheck(ctx)),
      await guarded('tasks', () => tasksCheck(ctx)),
      await guarded('state', () => stateCheck(ctx)),
    );
    repo.push(
      await guarded('repo-config', () => repoConfigCheck(app)),
      await guarded('checks', () => checksAllowedCheck(root!, app.env)),
      await guarded('refs', () => refsCheck(ctx)),
    );
  }
  if (root) repo.push(await guarded('worktrees', () => worktreesCheck(ctx)));
  return [
    nodeCheck(),
    gitFinding,
    workspace,
    ...repo.filter((f): f is Finding => f !== undefined),
    userConfig,
    ...agents,
    ghFinding,
  ];
}

const strip = ({ repair: _repair, ...check }: Finding): DoctorCheck => check;

/** `sow doctor [--fix]`. */
export async function doctor(app: AppContext, opts: { fix: boolean }): Promise<DoctorReport> {
  const first = await runChecks(app);
  if (!opts.fix)
    return {
      checks: first.map(strip),
      fix: false,
      fixable: first.filter((f) => f.status === 'fail' && f.repair).map((f) => f.id),
    };
  const done = new Map<string, string>();
  const failed = new Map<string, string>();
  for (const f of first) {
    if (f.status === 'ok' || !f.repair) continue;
    try {
      done.set(f.id, await f.repair());
    } catch (err) {
      if (!(err instanceof SowError)) throw err;
      failed.set(f.id, err.message);
    }
  }
  if (done.size === 0 && failed.size === 0) return { checks: first.map(strip), fix: true, fixable: [] };
  // Again, all of them: a fix can change what another check sees (a finished write, a freed lock).
  const after = await runChecks(app);
  return {
    fix: true,
    fixable: [],
    checks: after.map((f) => {
      const check = strip(f);
      const did = done.get(f.id);
      if (did !== undefined)
        return {
          ...check,
          fixed: true,
          message: check.status === 'ok' ? `fixed: ${did}` : `fixed in part: ${did}; ${check.message}`,
        };
      const why = failed.get(f.id);
      return why !== undefined ? { ...check, message: `${check.message} (--fix could not fix it: ${why})` } : check;
    }),
  };
}

/** Some check failed: exit 1, every check in the details (and, without --json, on stdout first). */
export class DoctorFoundProblemsError extends SowError {
  constructor(report: DoctorReport) {
    const fixable = report.fixable;
    const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
    super(
      'DOCTOR_FOUND_PROBLEMS',
      'failed',
      `${failed.length} check(s) failed: ${failed.join(', ')}`,
      fixable.length && !report.fix
        ? `run 'sow doctor --fix' to fix ${fixable.join(', ')}; each other FAIL line says how to fix it`
        : 'each FAIL line says how to fix it',
      { checks: report.checks },
    );
  }
}
