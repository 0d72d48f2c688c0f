/** `sow check list`: the declared checks with defaults filled in, whether each may run here, and its newest evidence
 * in each phase judged against the code now. */
import type { AppContext } from './context.js';
import { EVIDENCE, checkStatuses } from '../domain/project-types/evidence.js';
import type { Check } from '../domain/config-schemas.js';
import { worktreeTree } from '../adapters/git.js';
import { readRepoConfig, REPO_CONFIG } from '../adapters/repo-config.js';
import type { CheckStanding } from './check-allowance.js';
import { DEFAULT_TIMEOUT_S, SOW_DIR } from './checks.js';
import { hasProject } from './project-files.js';
import { openRoot, Reader } from './workspace.js';

export async function listChecks(ctx: AppContext) {
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

/** The newest evidence of each declared check in each phase, judged against the code now; the tree is computed only
 * when some phase holds evidence of a declared check. */
async function evidenceByPhase(ctx: AppContext, root: string, declared: readonly Check[]) {
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

const info = ({ check: c, allowed, previously }: CheckStanding) => ({
  name: c.name,
  run: c.run,
  when: [...(c.when ?? [])],
  timeout: c.timeout ?? DEFAULT_TIMEOUT_S,
  allowed,
  ...(previously !== undefined ? { previously } : {}),
});
