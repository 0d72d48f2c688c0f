/**
 * The standard project type: planning → implementation → review → finalize, with the
 * review-fail loop back to implementation planning.
 */
import { complete, NO_PROJECT, phaseActions, start } from '../common.js';
import type { ArtifactTypeDef } from '../../artifacts.js';
import type { Artifact, ProjectState } from '../../schemas.js';
import type { ActionImpl, GuardDef, ProjectType, ProjectView, StateDef, TransitionDef } from '../../project-type.js';
import { taskApprovalChanges, taskApprovalWithdrawal, type TaskApprovalDef } from '../../approvals.js';
import { phaseOf, withPhase } from '../../phases.js';
import { evidenceGuard, evidenceType as evidence } from '../evidence.js';
import {
  assessmentOf,
  latestApprovedReview as latestOf,
  reviewHint as sharedHint,
  reviewsOfRound,
  reviewType,
} from '../reviews.js';

const context: ArtifactTypeDef = {
  name: 'context',
  root: 'project',
  description: 'A document that gives context (research, notes, decisions)',
};
const taskList: ArtifactTypeDef = {
  name: 'task_list',
  root: 'project',
  description: 'The planned task list; approving it completes planning',
  approvable: true,
};
const review = reviewType;
const documentation: ArtifactTypeDef = {
  name: 'documentation',
  root: 'project',
  description: 'Documentation written or updated while finalizing',
};
/** The GitHub issue the project started from: its text, kept under context/ so agents read it offline. */
const githubIssue: ArtifactTypeDef = {
  name: 'github_issue',
  root: 'project',
  description:
    'The GitHub issue the project started from (its text in context/issue-<n>.md); metadata number, url, title',
  recordedBy: 'sow project new --issue',
};
/** The pull request that delivers the project: the body sow wrote for it; metadata number, url, draft. */
const pullRequest: ArtifactTypeDef = {
  name: 'pull_request',
  root: 'project',
  description:
    'The pull request of the project (the body sow wrote, in finalize/pull-request.md); metadata number, url, draft',
  recordedBy: 'sow pr create',
};
const reference: ArtifactTypeDef = {
  name: 'reference',
  root: 'project',
  description: 'A reference document the task should follow',
};
const feedback: ArtifactTypeDef = {
  name: 'feedback',
  root: 'project',
  description: 'Human feedback on the task; metadata.status is pending or addressed',
  defaultMetadata: { status: 'pending' },
  metadataValues: { status: ['pending', 'addressed'] },
};
const modified: ArtifactTypeDef = {
  name: 'modified',
  root: 'repository',
  description: 'A file of the code base the task changed (relative to the repository root)',
};

/** The reviews of the current review round (since the review phase last started). */
export const reviewsOfRoundOf = (project: ProjectState): Artifact[] => reviewsOfRound(project, 'review');
/** The latest approved review of this round decides. */
export const latestApprovedReview = (project: ProjectState): Artifact | undefined => latestOf(project, 'review');

/** `sow phase set tasks_approved true`, given in ImplementationPlanning for the tasks as they are then. */
const TASK_APPROVAL: TaskApprovalDef = {
  phase: 'implementation',
  key: 'tasks_approved',
  record: 'approved_tasks',
  state: 'ImplementationPlanning',
};
const approvedFlag = ({ project }: ProjectView) =>
  phaseOf(project, TASK_APPROVAL.phase).metadata[TASK_APPROVAL.key] === true;

const guards = {
  planningComplete: {
    description: 'a task_list output of planning is approved',
    check: ({ project: p }) =>
      phaseOf(p, 'planning').outputs.some((a) => a.type === 'task_list' && a.approved === true),
    hint: ({ project: p }) => {
      const index = phaseOf(p, 'planning').outputs.findIndex((a) => a.type === 'task_list');
      return index < 0
        ? "add the task list with 'sow output add --type task_list --path planning/tasks.md', then approve it with " +
            "'sow output set --index <n> approved true'"
        : `approve the task list with 'sow output set --index ${index} approved true'`;
    },
  },
  tasksApproved: {
    description: 'tasks_approved is true, given for the tasks as they are now, and at least one task exists',
    check: (view) =>
      approvedFlag(view) && view.tasks.length > 0 && taskApprovalChanges(TASK_APPROVAL, view).length === 0,
    // Once work started, tasks may be added (with the human's say): the approval was given, which is what stays.
    standing: (view) => approvedFlag(view) && view.tasks.length > 0,
    withdrawals: (view) => [taskApprovalWithdrawal(TASK_APPROVAL, view)].filter((w) => w !== undefined),
    hint: (view) => {
      if (view.tasks.length === 0)
        return (
          "add tasks with 'sow task add \"<name>\" --agent implementer', then run 'sow phase set " +
          "tasks_approved true'"
        );
      const withdrawn = taskApprovalWithdrawal(TASK_APPROVAL, view);
      if (withdrawn)
        return (
          `the tasks changed since they were approved (${withdrawn.changed.join('; ')}): show the human the ` +
          `tasks ('sow task list'), then run 'sow phase set tasks_approved true' again`
        );
      return "review the tasks ('sow task list'), then run 'sow phase set tasks_approved true'";
    },
  },
  allTasksComplete: {
    description: 'every task is completed or abandoned, with at least one completed',
    check: ({ tasks }) => {
      return (
        tasks.length > 0 &&
        tasks.every((t) => t.status === 'completed' || t.status === 'abandoned') &&
        tasks.some((t) => t.status === 'completed')
      );
    },
    hint: ({ tasks }) => {
      const open = tasks.filter((t) => t.status !== 'completed' && t.status !== 'abandoned');
      if (open.length === 0) return "at least one task must be completed: 'sow task set --id <id> status completed'";
      const shown = open
        .slice(0, 5)
        .map((t) => `${t.id} (${t.status})`)
        .join(', ');
      return (
        `unfinished: ${shown}${open.length > 5 ? ` and ${open.length - 5} more` : ''}; finish them with 'sow ` +
        `task set --id <id> status completed' or drop them with 'sow task abandon --id <id>'`
      );
    },
  },
  reviewPassed: {
    description: "the latest approved review of this round has assessment 'pass'",
    check: ({ project }) => assessmentOf(latestApprovedReview(project)) === 'pass',
    hint: ({ project }) => reviewHint(project, 'pass'),
  },
  reviewFailed: {
    description: "the latest approved review of this round has assessment 'fail'",
    check: ({ project }) => assessmentOf(latestApprovedReview(project)) === 'fail',
    hint: ({ project }) => reviewHint(project, 'fail'),
  },
  projectDeleted: {
    description: 'project_deleted is true',
    check: ({ project: p }) => phaseOf(p, 'finalize').metadata['project_deleted'] === true,
    hint: () => "clean up, then run 'sow phase set project_deleted true'",
  },
  // Checked, not trusted: the finalize checks must have passed, on the code as it is now.
  finalizeChecksPassed: evidenceGuard('finalize', 'finalize'),
  planningDisabled: {
    description: 'the planning phase is disabled (--no-planning)',
    check: ({ project: p }) => phaseOf(p, 'planning').enabled === false,
    hint: () => "start the project with 'sow project new <name> --no-planning'",
  },
} satisfies Record<string, GuardDef>;

const reviewHint = (project: ProjectState, assessment: 'pass' | 'fail') => sharedHint(project, 'review', assessment);

/**
 * review_fail: reopen implementation for rework. The failed review is copied into the
 * implementation inputs, so the rework plan sees it, and stays in the review outputs as history.
 */
const reopenImplementation: ActionImpl = (project, _params, now) => {
  const reviewPhase = phaseOf(project, 'review');
  const reviews = reviewsOfRoundOf(project);
  let next = withPhase(project, 'review', { ...reviewPhase, status: 'failed', completed_at: now });
  const impl = phaseOf(next, 'implementation');
  const { completed_at: _done, ...rest } = impl;
  const { [TASK_APPROVAL.record]: _covered, ...metadata } = impl.metadata;
  next = withPhase(next, 'implementation', {
    ...rest,
    status: 'in_progress',
    iteration: impl.iteration + 1,
    metadata: { ...metadata, tasks_approved: false },
    inputs: [...impl.inputs, ...reviews],
  });
  return next;
};

const actions = { ...phaseActions, reopenImplementation } satisfies Record<string, ActionImpl>;

const states = {
  NoProject: NO_PROJECT,
  PlanningActive: {
    phase: 'planning',
    lead: 'human',
    purpose: 'Scope the work with the human and write an approved task list.',
  },
  ImplementationPlanning: {
    phase: 'implementation',
    lead: 'ai',
    purpose: 'Turn the approved plan into concrete tasks; the human approves them.',
  },
  ImplementationExecuting: {
    phase: 'implementation',
    lead: 'ai',
    purpose: 'Carry out the tasks, delegating each to a worker, until every task is done.',
    executesTasks: true,
  },
  ReviewActive: {
    phase: 'review',
    lead: 'ai',
    purpose: 'Review the whole change against the plan and record a pass or fail assessment.',
  },
  FinalizeDocumentation: { phase: 'finalize', lead: 'ai', purpose: 'Update the documentation the change affects.' },
  FinalizeChecks: { phase: 'finalize', lead: 'ai', purpose: 'Run the tests, linters and builds, and fix what fails.' },
  FinalizeDelete: {
    phase: 'finalize',
    lead: 'ai',
    purpose: 'Clean up the project folder and mark the project deleted.',
  },
} satisfies Record<string, StateDef>;

/** Checked against the states, guards and actions: a name misspelt here does not compile. */
const transitions: TransitionDef<keyof typeof states, keyof typeof guards, keyof typeof actions>[] = [
  {
    from: 'NoProject',
    event: 'project_init',
    to: 'ImplementationPlanning',
    guard: 'planningDisabled',
    actions: [start('implementation')],
    automatic: false,
  },
  { from: 'NoProject', event: 'project_init', to: 'PlanningActive', actions: [start('planning')], automatic: false },
  {
    from: 'PlanningActive',
    event: 'complete_planning',
    to: 'ImplementationPlanning',
    guard: 'planningComplete',
    actions: [complete('planning'), start('implementation')],
    automatic: true,
  },
  {
    from: 'ImplementationPlanning',
    event: 'tasks_approved',
    to: 'ImplementationExecuting',
    guard: 'tasksApproved',
    automatic: true,
  },
  {
    from: 'ImplementationExecuting',
    event: 'all_tasks_complete',
    to: 'ReviewActive',
    guard: 'allTasksComplete',
    actions: [complete('implementation'), start('review')],
    automatic: true,
  },
  {
    from: 'ReviewActive',
    event: 'review_pass',
    to: 'FinalizeDocumentation',
    guard: 'reviewPassed',
    actions: [complete('review'), start('finalize')],
    automatic: true,
  },
  {
    from: 'ReviewActive',
    event: 'review_fail',
    to: 'ImplementationPlanning',
    guard: 'reviewFailed',
    actions: [{ type: 'reopenImplementation' }],
    automatic: true,
  },
  { from: 'FinalizeDocumentation', event: 'documentation_done', to: 'FinalizeChecks', automatic: true },
  {
    from: 'FinalizeChecks',
    event: 'checks_done',
    to: 'FinalizeDelete',
    guard: 'finalizeChecksPassed',
    automatic: true,
  },
  {
    from: 'FinalizeDelete',
    event: 'project_delete',
    to: 'NoProject',
    guard: 'projectDeleted',
    actions: [complete('finalize')],
    automatic: true,
  },
];

export const standard: ProjectType = {
  name: 'standard',
  description: 'Plan with the human, implement the tasks, review the change, finalize',
  branchPrefix: 'feat/',
  phases: [
    { name: 'planning', canDisable: true, inputs: [context, githubIssue], outputs: [taskList, evidence] },
    {
      name: 'implementation',
      canDisable: false,
      whyRequired: 'its tasks are the change the project makes',
      inputs: [context, review, githubIssue],
      outputs: [evidence],
      metadata: {
        tasks_approved: { kind: 'boolean' },
        approved_tasks: {
          kind: 'readonly',
          why: 'sow records which tasks an approval covered, as they were then',
          hint: "run 'sow phase set tasks_approved true' to approve the tasks as they are now",
        },
      },
      hasTasks: true,
    },
    {
      name: 'review',
      canDisable: false,
      whyRequired: 'every change is reviewed before it is finalized',
      inputs: [context],
      outputs: [review, evidence],
    },
    {
      name: 'finalize',
      canDisable: false,
      whyRequired:
        'the project ends there (its checks must pass on the finished code, and its last step closes the project)',
      inputs: [context],
      outputs: [documentation, evidence, pullRequest],
      metadata: { project_deleted: { kind: 'boolean' } },
    },
  ],
  pullRequest: {
    reviewPhase: 'review',
    recordPhase: 'finalize',
    states: ['FinalizeDocumentation', 'FinalizeChecks', 'FinalizeDelete'],
  },
  promptVariables: (project): Record<string, string> => {
    const round = project.phases['review']?.iteration;
    return round === undefined ? {} : { review_iteration: String(round) };
  },
  taskApproval: TASK_APPROVAL,
  taskInputs: [reference, feedback],
  taskOutputs: [modified, evidence],
  initialState: 'NoProject',
  states,
  transitions,
  guards,
  actions,
};
