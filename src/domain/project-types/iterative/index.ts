// iterative: spec 002's format. Discover (a brief) → plan (work phases R1…Rn) → execute (fresh workers iterate each
// phase until confirmed and verified) → verify (a review that may reopen phases) → deliver → archive.
import { ai, archiveEntry, defineType, doc, ended, human, init, step, type Transitions } from '../common.js';
import type { ArtifactTypeDef } from '../../artifacts.js';
import { approvedOutput, phaseOf } from '../../phases.js';
import type { ProjectState } from '../../schemas.js';
import { assessmentOf, latestApprovedReview, reopenForRework, reviewHint, reviewSays, reviewType } from '../reviews.js';
import type { ActionImpl, GuardDef, ProjectType, StateDef } from '../../project-type.js';
import { iterCommands } from './commands.js';
import { ARCHIVE_ROOT, ARCHIVED_STATE, exportedState } from './export.js';
import { archived, BRIEF, BRIEF_PLACEHOLDERS, DIR, DOMAINS, domainOf, PLAN, scaffold } from './documents.js';
import { iterationPrompt, recovery } from './prompt.js';
import {
  checkPhasesNamed,
  currentPhase,
  EXECUTE,
  outOfIterations,
  planGaps,
  renderPlan,
  reopenedBy,
  reopenPhases,
  withWorkPhases,
  workPhasesOf,
  workPhasesProblem,
  WORK_PHASES_KEY,
} from './work-phases.js';

const brief = doc(
  'brief',
  'The brief (brief.md): the outcome needed, done-when criteria, constraints; approving it ends discovery',
  { approvable: true, placeholders: BRIEF_PLACEHOLDERS },
);
const plan = doc('plan', 'The plan (plan.md), rendered by sow from the work phases; approving it starts the work', {
  approvable: true,
});
const source = doc('source', 'A research input (under sources/)');
const context = doc('context', 'A document that gives context');
const deliverable = doc('deliverable', 'A packaged deliverable (under outputs/)');
const review: ArtifactTypeDef = {
  ...reviewType,
  description:
    'The overall review; metadata.assessment pass or fail, and for a fail metadata.phases (R2,R3): the work phases ' +
    'it reopens',
  // Named phases are checked when the review is recorded, not only when the advance needs them.
  check: (artifact, project) => checkPhasesNamed(workPhasesOf(project), artifact.metadata?.['phases']),
};
const reference = doc('reference', 'A document the task should follow');
const modified = doc('modified', 'A file of the code base the task changed', { root: 'repository' });

function approveHint(project: ProjectState, phase: string, type: string, file: string): string {
  const i = phaseOf(project, phase).outputs.findIndex((a) => a.type === type);
  return i < 0
    ? `record it with 'sow output add --phase ${phase} --type ${type} --path ${file}', then approve it`
    : `approve it: 'sow output set --phase ${phase} --index ${i} approved true'`;
}

const guards = {
  briefApproved: {
    description: 'the brief (brief.md) is approved',
    check: ({ project }) => approvedOutput(project, 'discover', 'brief'),
    hint: ({ project }) =>
      `fill in ${DIR}/${BRIEF} with the human (outcome, done when, constraints); when they ` +
      `agree, ${approveHint(project, 'discover', 'brief', BRIEF)}`,
  },
  planReady: {
    description:
      'the plan is approved, every work phase has criteria, an output and a maximum ≥ 1, and their dependencies ' +
      'are known and acyclic',
    check: ({ project }) => approvedOutput(project, 'plan', 'plan') && planGaps(workPhasesOf(project)).length === 0,
    // Work phases may be added while executing, unfinished at first: what stays is the approval.
    standing: ({ project }) => approvedOutput(project, 'plan', 'plan'),
    hint: ({ project }) => {
      const gaps = planGaps(workPhasesOf(project));
      if (gaps.length) return gaps.join('; ');
      return `show the human ${DIR}/${PLAN}; when they agree, ${approveHint(project, 'plan', 'plan', PLAN)}`;
    },
  },
  allPhasesDone: {
    description: 'every work phase is done (worked, confirmed and verified)',
    check: ({ project }) => {
      const list = workPhasesOf(project);
      return list.length > 0 && list.every((p) => p.status === 'done');
    },
    hint: ({ project }) => {
      const open = workPhasesOf(project).filter((p) => p.status !== 'done');
      const cur = currentPhase(workPhasesOf(project));
      const next = cur ? `; next: 'sow iter next' (${cur.id})` : '';
      return `not done: ${open.map((p) => `${p.id} (${p.status})`).join(', ')}${next}`;
    },
  },
  reviewPassed: reviewSays('verify', 'pass'),
  reviewFailed: {
    description:
      "the latest approved review of this round has assessment 'fail' and names the work phases to reopen " +
      '(metadata.phases)',
    check: ({ project }) =>
      assessmentOf(latestApprovedReview(project, 'verify')) === 'fail' && reopenedBy(project).length > 0,
    hint: ({ project }) => {
      const latest = latestApprovedReview(project, 'verify');
      if (assessmentOf(latest) === 'fail') {
        const index = phaseOf(project, 'verify').outputs.indexOf(latest!);
        const ids = workPhasesOf(project).map((p) => p.id);
        return (
          `name the work phases the failed review reopens: 'sow output set --index ${index} phases R1,R2' ` +
          `(the phases: ${ids.join(', ')})`
        );
      }
      return reviewHint(project, 'verify', 'fail', ' --phases R1,R2');
    },
  },
  outputsWritten: {
    description: "every work phase's output file exists",
    check: ({ project, docExists }) =>
      docExists !== undefined && workPhasesOf(project).every((p) => docExists(`${DIR}/${p.output}`)),
    hint: ({ project, docExists }) => {
      const missing = workPhasesOf(project).filter((p) => !docExists?.(`${DIR}/${p.output}`));
      return `write ${missing.map((p) => `${DIR}/${p.output} (${p.id})`).join(', ')}`;
    },
  },
} satisfies Record<string, GuardDef>;

const states = {
  DiscoverActive: human(
    'discover',
    'Gather the requirements with the human into brief.md: the outcome needed, when it is done, the constraints.',
  ),
  PlanActive: human(
    'plan',
    'Split the work into phases R1…Rn, each with measurable criteria, an output and a maximum of iterations; the ' +
      'human approves plan.md.',
  ),
  ExecuteActive: ai(
    EXECUTE,
    'Run each work phase in iterations by fresh workers: work until nothing remains, confirm once more, verify.',
    {
      executesTasks: true,
      next:
        '`sow agent spawn implementer --iteration` (a fresh worker does the next iteration; `sow iter status` ' +
        'shows where the phases stand)',
    },
  ),
  VerifyActive: ai('verify', 'Review the whole work against the brief; a fail reopens the phases it names.'),
  DeliverActive: ai(
    'deliver',
    "Package the deliverables: every work phase's output written; completing archives the project.",
  ),
  Complete: ended('The work is delivered and archived in .sow/knowledge/iterative/.'),
} satisfies Record<string, StateDef>;

const actions = {
  /** verify_fail: the named phases go back to work; the execute phase starts a new round. */
  reopenPhases: (project, _params, now) => {
    const next = reopenForRework(project, 'verify', EXECUTE, now);
    return withWorkPhases(next, reopenPhases(workPhasesOf(next), reopenedBy(project)));
  },
} satisfies Record<string, ActionImpl>;

const transitions: Transitions<typeof states, typeof guards, typeof actions> = [
  init('DiscoverActive'),
  step('DiscoverActive', 'brief_approved', 'PlanActive', 'briefApproved'),
  step('PlanActive', 'plan_approved', 'ExecuteActive', 'planReady'),
  step('ExecuteActive', 'phases_done', 'VerifyActive', 'allPhasesDone'),
  step('VerifyActive', 'verify_pass', 'DeliverActive', 'reviewPassed'),
  step('VerifyActive', 'verify_fail', 'ExecuteActive', 'reviewFailed', [{ type: 'reopenPhases' }]),
  step('DeliverActive', 'delivered', 'Complete', 'outputsWritten'),
];

export const iterative: ProjectType = defineType({
  name: 'iterative',
  description:
    'Iterative work: a brief, a plan of phases R1…Rn, fresh-context iterations with confirm and verify gates, delivery',
  branchPrefix: 'iter/',
  phases: [
    {
      name: 'discover',
      inputs: [context, source],
      outputs: [brief],
      metadata: { domain: { kind: 'enum', values: [...DOMAINS] } },
    },
    { name: 'plan', inputs: [context], outputs: [plan] },
    {
      name: EXECUTE,
      inputs: [context, source, review],
      outputs: [deliverable],
      metadata: {
        [WORK_PHASES_KEY]: {
          kind: 'readonly',
          why: 'the work phases change only through their commands',
          hint: "use 'sow iter phase add|set', 'sow iter log|verify|extend|block|unblock'",
        },
      },
      hasTasks: true,
    },
    { name: 'verify', inputs: [context], outputs: [review] },
    { name: 'deliver', inputs: [context], outputs: [deliverable] },
  ],
  taskInputs: [reference],
  taskOutputs: [modified],
  states,
  transitions,
  guards,
  actions,
  commands: iterCommands,
  continueNotes: recovery,
  iterationPrompt,
  renders: (project, readDoc): Record<string, string> => {
    const list = workPhasesOf(project);
    // plan.md appears with the first work phase; from then on it follows the phases, the domain and the title.
    if (list.length === 0 && readDoc(`${DIR}/${PLAN}`) === undefined) return {};
    return { [PLAN]: renderPlan(project, list, domainOf(project, readDoc)) };
  },
  advanceNotes: (event, project) => {
    if (event !== 'verify_fail') return [];
    const list = workPhasesOf(project);
    return reopenedBy(project)
      .map((id) => list.find((p) => p.id === id)!)
      .map((p) =>
        p.status === 'timeout'
          ? `${outOfIterations(p)}.`
          : `${p.id} is in progress again: iteration ${p.iterations + 1} of ${p.max} is next ('sow iter next').`,
      );
  },
  validate: (project) => workPhasesProblem(phaseOf(project, EXECUTE).metadata[WORK_PHASES_KEY]),
  scaffold,
  archive({ project, documents, readDoc }, now) {
    const dir = `${ARCHIVE_ROOT}/${project.name}`;
    const list = workPhasesOf(project);
    const outputs = list.map((p) => p.output);
    return {
      files: (documents ?? [])
        .filter((rel) => archived(rel, outputs))
        .map((rel) => ({ from: rel, to: `${dir}/${rel}` })),
      // The project's state as the format keeps it (phase: complete), so `sow iter export` still answers.
      written: [
        {
          to: `${dir}/${ARCHIVED_STATE}`,
          text: `${JSON.stringify(exportedState(project, readDoc ?? (() => undefined), now), null, 2)}\n`,
        },
      ],
      entry: {
        ...archiveEntry('iterative', project, now),
        path: dir,
        phase: 'complete',
        // The index's writer leaves out what is undefined (a verification or completion not had).
        phases: list.map((p) => {
          const { id, title, status, iterations, confirmations, verification, max, output, completed_at } = p;
          return { id, title, status, iterations, confirmations, verification, max, output, completed_at };
        }),
      },
    };
  },
});
