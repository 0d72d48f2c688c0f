/**
 * `sow check list`: the checks `.sow/config.yaml` declares, with the defaults filled in, whether each may run on this
 * machine, and its newest evidence in each phase judged against the code now.
 */
import type { AppContext } from './context.js';
import { EVIDENCE, checkStatuses } from '../domain/project-types/evidence.js';
import type { CheckStatus } from '../domain/project-type.js';
import type { Check, CheckMoment } from '../domain/config-schemas.js';
import { worktreeTree } from '../adapters/git.js';
import { readRepoConfig, REPO_CONFIG } from '../adapters/repo-config.js';
import type { CheckStanding } from './check-allowance.js';
import { DEFAULT_TIMEOUT_S, SOW_DIR } from './checks.js';
import { hasProject } from './project-files.js';
import { openRoot, Reader } from './workspace.js';

/** A declared check as `check list` shows it: the defaults filled in, and whether it may run here. */
export interface DeclaredCheckInfo {
  name: string;
  run: string;
  when: CheckMoment[];
  timeout: number;
  /** Allowed to run on this machine ('sow check allow', or SOW_ALLOW_CHECKS=1). */
  allowed: boolean;
  /** Not allowed, but another command was allowed under its name: that command. */
  previously?: string;
  /**
   * Its newest run recorded in each phase of the project on this branch (only the phases that have one; absent when
   * none has), judged against the code as it is now: fresh-pass, stale (the code or its command changed since it
   * passed) or failed.
   */
  evidence?: PhaseEvidence[];
}

/** A check's newest evidence in one phase, judged now. */
export type PhaseEvidence = CheckStatus & { phase: string };

export async function listChecks(
  ctx: AppContext,
): Promise<{ file: string; exists: boolean; checks: DeclaredCheckInfo[]; allowed_by: 'record' | 'environment' }> {
  const root = await openRoot(ctx);
  const { exists, config } = await readRepoConfig(root);
  const { standingsOf } = await import('./check-allowance.js');
  const standings = standingsOf(root, config.checks ?? [], ctx.env);
  const evidence = await evidenceByPhase(ctx, root, config.checks ?? []);
  return {
    file: REPO_CONFIG,
    exists,
    checks: standings.checks.map((s) => {
      const found = evidence.filter((e) => e.name === s.check.name);
      return { ...info(s), ...(found.length ? { evidence: found } : {}) };
    }),
    allowed_by: standings.via,
  };
}

/**
 * The newest evidence of each declared check in each phase of the project, judged against the code as it is now. The
 * code's tree is computed (git) only when some phase holds evidence of a declared check; without a project on this
 * branch there is none.
 */
async function evidenceByPhase(ctx: AppContext, root: string, declared: readonly Check[]): Promise<PhaseEvidence[]> {
  if (declared.length === 0 || !hasProject(root)) return [];
  const names = new Set(declared.map((c) => c.name));
  const phases = await Reader.read(
    ctx,
    (reader) =>
      reader.type.phases.map((p) => ({
        phase: p.name,
        outputs: (reader.project.phases[p.name]?.outputs ?? []).filter(
          (a) => a.type === EVIDENCE && names.has(String(a.metadata?.['check'])),
        ),
      })),
    { otherBranch: 'quiet' },
  );
  if (phases.every((p) => p.outputs.length === 0)) return [];
  const tree = worktreeTree(root, SOW_DIR);
  return phases.flatMap(({ phase, outputs }) =>
    checkStatuses(declared, outputs, tree)
      .filter((c) => c.state !== 'missing')
      .map((c) => ({ ...c, phase })),
  );
}

const info = ({ check: c, allowed, previously }: CheckStanding): DeclaredCheckInfo => ({
  name: c.name,
  run: c.run,
  when: [...(c.when ?? [])],
  timeout: c.timeout ?? DEFAULT_TIMEOUT_S,
  allowed,
  ...(previously !== undefined ? { previously } : {}),
});
