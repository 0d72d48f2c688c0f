// Evidence: what `sow check run` observed, as an output artifact. Whether a check holds now is judged from it and the
// tree hash of the code outside .sow/: sow's own state changes nothing, changed code (committed or not) makes it stale.
import type { ArtifactTypeDef } from '../artifacts.js';
import type { Artifact } from '../schemas.js';
import type { CheckStatus, GuardDef, ProjectType, ProjectView } from '../project-type.js';

export const EVIDENCE = 'evidence';
/** Where the logs live, relative to .sow/project/. */
export const EVIDENCE_DIR = 'evidence';

export const evidenceType: ArtifactTypeDef = {
  name: EVIDENCE,
  root: 'project',
  description:
    "A declared check's run, recorded by 'sow check run': its log, and metadata check, run, exit_code (null when " +
    "it timed out), duration_ms, commit, dirty, tree, and checkout when it ran in a task's own checkout",
  recordedBy: 'sow check run',
};

// Adds `artifact` to a list, documents first and evidence last (newest last), so a check run never moves a document
// people approve by its index. Returns the new list and where the artifact is.
export function placeArtifact(list: readonly Artifact[], artifact: Artifact): { list: Artifact[]; index: number } {
  let index = list.length;
  if (artifact.type !== EVIDENCE) while (index > 0 && list[index - 1]!.type === EVIDENCE) index -= 1;
  return { list: [...list.slice(0, index), artifact, ...list.slice(index)], index };
}

const metaOf = (a: Artifact) => a.metadata ?? {};

/** The worker checkout a run was recorded in (relative to the project checkout); undefined: the project checkout. */
export const checkoutOf = (a: Artifact): string | undefined => {
  const checkout = metaOf(a)['checkout'];
  return typeof checkout === 'string' ? checkout : undefined;
};

/** The newest evidence of each check recorded in `checkout` (undefined: the project checkout). */
export function newestEvidence(artifacts: readonly Artifact[], checkout?: string): Map<string, Artifact> {
  const newest = new Map<string, Artifact>();
  for (const a of artifacts) {
    const check = metaOf(a)['check'];
    if (a.type === EVIDENCE && typeof check === 'string' && checkoutOf(a) === checkout) newest.set(check, a);
  }
  return newest;
}

// How each declared check stands in `checkout` (evidence of another checkout never counts): fresh-pass on this tree and
// command, stale when either changed, failed, or missing.
export function checkStatuses(
  declared: readonly { readonly name: string; readonly run: string }[],
  artifacts: readonly Artifact[],
  tree: string,
  checkout?: string,
): CheckStatus[] {
  const newest = newestEvidence(artifacts, checkout);
  return declared.map((check): CheckStatus => {
    const a = newest.get(check.name);
    if (!a) return { name: check.name, state: 'missing' };
    const meta = metaOf(a);
    const exit = typeof meta['exit_code'] === 'number' ? meta['exit_code'] : null;
    const base = { name: check.name, evidence: a.path, exit_code: exit };
    if (exit !== 0) return { ...base, state: 'failed' };
    if (meta['run'] !== check.run) return { ...base, state: 'stale', changed: 'command' };
    if (meta['tree'] !== tree) return { ...base, state: 'stale', changed: 'code' };
    return { ...base, state: 'fresh-pass' };
  });
}

/** What a check's status says to a person: `lint: failed (exit 2; log .sow/project/evidence/….log)`. */
export function describeCheckStatus(c: CheckStatus): string {
  const log = c.evidence ? `; log .sow/project/${c.evidence}` : '';
  switch (c.state) {
    case 'fresh-pass':
      return `${c.name}: passed on the current code`;
    case 'missing':
      return `${c.name}: never run`;
    case 'failed':
      return (
        `${c.name}: failed ` +
        `(${c.exit_code === null || c.exit_code === undefined ? 'timed out or killed' : `exit ${c.exit_code}`}${log})`
      );
    case 'stale':
      return (
        `${c.name}: stale ` +
        `(${c.changed === 'command' ? 'its command in .sow/config.yaml' : 'the code'} changed since it passed)`
      );
  }
}

/** The guard that every check declared for `moment` passed on the current code, per the evidence of `phase`. */
export function evidenceGuard(moment: 'finalize' | 'task_complete', phase: string): GuardDef {
  return {
    description:
      `every check declared for ${moment} in .sow/config.yaml ` + `has passed on the current code ('sow check run')`,
    evidence: { moment, phase },
    check: ({ checks }) => checks !== undefined && checks.every((c) => c.state === 'fresh-pass'),
    hint: ({ checks }) => {
      // Only a caller that built its view without the app's check reading lands here.
      if (checks === undefined)
        return "sow did not read the checks' evidence here; run 'sow advance --dry-run' to see what the checks need";
      const open = checks.filter((c) => c.state !== 'fresh-pass');
      return `${open.map(describeCheckStatus).join('; ')}; run 'sow check run ${open.map((c) => c.name).join(' ')}'`;
    },
  };
}

/** The evidence a guard of the current state reads (see GuardDef.evidence), if one does. */
export function evidenceNeeded(type: ProjectType, view: Pick<ProjectView, 'project'>) {
  const state = view.project.statechart.current_state;
  const ways = type.transitions.filter((t) => t.from === state && t.guard !== undefined);
  return ways.map((t) => type.guards[t.guard!]?.evidence).find((needs) => needs !== undefined);
}
