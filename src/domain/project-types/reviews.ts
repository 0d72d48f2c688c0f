// Review rounds: the reviews of the current round are those added since the reviewing phase last started; earlier
// rounds stay as history, but cannot decide again.
import type { ArtifactTypeDef } from '../artifacts.js';
import { phaseOf, withPhase } from '../phases.js';
import type { Artifact, ProjectState } from '../schemas.js';
import type { GuardDef } from '../project-type.js';
import { doc } from './common.js';

/** A review report, metadata.assessment pass or fail (extra metadata per type, e.g. the phases a fail reopens). */
export const reviewType: ArtifactTypeDef = doc('review', 'A review report; metadata.assessment is pass or fail', {
  approvable: true,
  metadataValues: { assessment: ['pass', 'fail'] },
  requiredMetadata: ['assessment'],
});

const time = (iso: string | undefined) => (iso === undefined ? Number.NEGATIVE_INFINITY : Date.parse(iso));

export function reviewsOfRound(project: ProjectState, phase: string): Artifact[] {
  const p = phaseOf(project, phase);
  const since = time(p.started_at);
  return p.outputs.filter((a) => a.type === 'review' && time(a.created_at) >= since);
}

/** The latest approved review of this round decides (by position: a later review supersedes an earlier one). */
export function latestApprovedReview(project: ProjectState, phase: string): Artifact | undefined {
  return reviewsOfRound(project, phase)
    .filter((a) => a.approved === true)
    .at(-1);
}

export const assessmentOf = (a: Artifact | undefined): unknown => a?.metadata?.['assessment'];

/** How to get a deciding review of this round with `assessment`, given what there is. */
export function reviewHint(project: ProjectState, phase: string, assessment: 'pass' | 'fail', extra = ''): string {
  const outputs = phaseOf(project, phase).outputs;
  const round = reviewsOfRound(project, phase);
  const unapproved = round.filter((a) => a.approved !== true).at(-1);
  if (unapproved)
    return (
      `approve the review of this round with 'sow output set ` + `--index ${outputs.indexOf(unapproved)} approved true'`
    );
  const latest = latestApprovedReview(project, phase);
  if (latest)
    return (
      `the latest approved review says '${String(assessmentOf(latest))}'; add another with 'sow output add ` +
      `--type review --path review/report.md --assessment ${assessment}${extra}' and approve it`
    );
  return (
    `add this round's review with 'sow output add --type review --path review/report.md --assessment ` +
    `pass|fail${extra}', then approve it with 'sow output set --index <n> approved true'`
  );
}

/** The guard that the deciding review of this round of `phase` says `assessment`. */
export const reviewSays = (phase: string, assessment: 'pass' | 'fail'): GuardDef => ({
  description: `the latest approved review of this round has assessment '${assessment}'`,
  check: ({ project }) => assessmentOf(latestApprovedReview(project, phase)) === assessment,
  hint: ({ project }) => reviewHint(project, phase, assessment),
});

// A failed review sends the work back: the reviewing phase failed, `work` in progress for a new round, with this
// round's reviews copied into its inputs.
export function reopenForRework(
  project: ProjectState,
  review: string,
  work: string,
  now: string,
  metadata = (m: Record<string, unknown>) => m,
): ProjectState {
  const next = withPhase(project, review, { ...phaseOf(project, review), status: 'failed', completed_at: now });
  const { completed_at: _done, ...rest } = phaseOf(next, work);
  return withPhase(next, work, {
    ...rest,
    status: 'in_progress',
    iteration: rest.iteration + 1,
    metadata: metadata(rest.metadata),
    inputs: [...rest.inputs, ...reviewsOfRound(project, review)],
  });
}
