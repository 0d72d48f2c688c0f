/**
 * The project as the iterative-work format's `state.json`: what `sow iter export` prints, and what
 * the archive keeps of a completed project beside its documents (with `phase: complete`), so that
 * the export still answers once the project's folder is gone.
 */
import type { ProjectState } from '../../schemas.js';
import { domainOf } from './documents.js';
import { currentPhase, workPhasesOf } from './work-phases.js';

/** spec 002's state.json phase names, by state; a completed project is `complete`. */
const SPEC_PHASE: Record<string, string> = {
  DiscoverActive: 'discover',
  PlanActive: 'plan',
  ExecuteActive: 'execute',
  VerifyActive: 'verify',
  DeliverActive: 'deliver',
};

/** Where completed projects are archived, each in a folder of its name. */
export const ARCHIVE_ROOT = '.sow/knowledge/iterative';

/** The file the archive writes beside the documents. */
export const ARCHIVED_STATE = 'state.json';

/**
 * `project` in the format's terms; `completedAt` for the project as it completes (its phase is
 * then `complete` and `updated` is that moment).
 */
export function exportedState(
  project: ProjectState,
  readDoc: (rel: string) => string | undefined,
  completedAt?: string,
): Record<string, unknown> {
  const list = workPhasesOf(project);
  const cur = completedAt === undefined ? currentPhase(list) : undefined;
  return {
    task: project.description || project.name,
    slug: project.name,
    created: project.created_at,
    updated: completedAt ?? project.updated_at,
    domain: domainOf(project, readDoc) ?? null,
    phase: completedAt === undefined ? (SPEC_PHASE[project.statechart.current_state] ?? 'complete') : 'complete',
    current_phase: cur?.id ?? null,
    // The current phase's work iterations: the one count (confirmations are counted apart).
    current_iteration: cur ? cur.iterations : null,
    phases: Object.fromEntries(
      list.map((p) => [
        p.id,
        {
          status: p.status,
          ...(p.status !== 'pending' ? { iterations_used: p.iterations, confirmations_used: p.confirmations } : {}),
          ...(p.verification ? { verification_passed: p.verification === 'passed' } : {}),
          // Not set yet (while planning): null, not a maximum of 0.
          max_iterations: p.max > 0 ? p.max : null,
          ...(p.completed_at ? { completed_at: p.completed_at } : {}),
        },
      ]),
    ),
  };
}
