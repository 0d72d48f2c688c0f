/** The standard project type: planning → implementation → review → finalize, a failed review looping back. */
import { ai, defineType, doc, human, init, step, tasksDone, type Transitions } from '../common.js';
import type { ActionImpl, GuardDef, ProjectType, ProjectView, StateDef } from '../../project-type.js';
import { taskApprovalChanges, taskApprovalWithdrawal, type TaskApprovalDef } from '../../approvals.js';
import { approvedOutput, phaseOf } from '../../phases.js';
import { isFinished } from '../../tasks.js';
import { evidenceGuard } from '../evidence.js';
import { reopenForRework, reviewSays, reviewType } from '../reviews.js';

const context = doc('context', 'A document that gives context (research, notes, decisions)');
const taskList = doc('task_list', 'The planned task list; approving it completes planning', { approvable: true });
const documentation = doc('documentation', 'Documentation written or updated while finalizing');
/** The GitHub issue the project started from: its text, kept under context/ so agents read it offline. */
const githubIssue = doc(
  'github_issue',
  'The GitHub issue the project started from (its text in context/issue-<n>.md); metadata number, url, title',
  { recordedBy: 'sow project new --issue' },
);
const pullRequest = doc(
  'pull_request',
  'The pull request of the project (the body sow wrote, in finalize/pull-request.md); metadata number, url, draft',
  { recordedBy: 'sow pr create' },
);
const reference = doc('reference', 'A reference document the task should follow');
const feedback = doc('feedback', 'Human feedback on the task; metadata.status is pending or addressed', {
  defaultMetadata: { status: 'pending' },
  metadataValues: { status: ['pending', 'addressed'] },
});
const modified = doc('modified', 'A file of the code base the task changed (relative to the repository root)', {
  root: 'repository',
});

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
    check: ({ project: p }) => approvedOutput(p, 'planning', 'task_list'),
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
    check: ({ tasks }) => tasksDone(tasks),
    hint: ({ tasks }) => {
      const open = tasks.filter((t) => !isFinished(t.status));
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
  reviewPassed: reviewSays('review', 'pass'),
  reviewFailed: reviewSays('review', 'fail'),
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

/** review_fail: implementation reopens for rework, and a person approves the rework's tasks again. */
const actions = {
  reopenImplementation: (project, _params, now) =>
    reopenForRework(project, 'review', 'implementation', now, (m) => {
      const { [TASK_APPROVAL.record]: _covered, ...metadata } = m;
      return { ...metadata, tasks_approved: false };
    }),
} satisfies Record<string, ActionImpl>;

const states = {
  PlanningActive: human('planning', 'Scope the work with the human and write an approved task list.'),
  ImplementationPlanning: ai('implementation', 'Turn the approved plan into concrete tasks; the human approves them.'),
  ImplementationExecuting: ai(
    'implementation',
    'Carry out the tasks, delegating each to a worker, until every task is done.',
    { executesTasks: true },
  ),
  ReviewActive: ai('review', 'Review the whole change against the plan and record a pass or fail assessment.'),
  FinalizeDocumentation: ai('finalize', 'Update the documentation the change affects.'),
  FinalizeChecks: ai('finalize', 'Run the tests, linters and builds, and fix what fails.'),
  FinalizeDelete: ai('finalize', 'Clean up the project folder and mark the project deleted.'),
} satisfies Record<string, StateDef>;

const transitions: Transitions<typeof states, typeof guards, typeof actions> = [
  init('ImplementationPlanning', 'planningDisabled'),
  init('PlanningActive'),
  step('PlanningActive', 'complete_planning', 'ImplementationPlanning', 'planningComplete'),
  step('ImplementationPlanning', 'tasks_approved', 'ImplementationExecuting', 'tasksApproved'),
  step('ImplementationExecuting', 'all_tasks_complete', 'ReviewActive', 'allTasksComplete'),
  step('ReviewActive', 'review_pass', 'FinalizeDocumentation', 'reviewPassed'),
  step('ReviewActive', 'review_fail', 'ImplementationPlanning', 'reviewFailed', [{ type: 'reopenImplementation' }]),
  step('FinalizeDocumentation', 'documentation_done', 'FinalizeChecks'),
  step('FinalizeChecks', 'checks_done', 'FinalizeDelete', 'finalizeChecksPassed'),
  step('FinalizeDelete', 'project_delete', 'NoProject', 'projectDeleted'),
];

export const standard: ProjectType = defineType({
  name: 'standard',
  description: 'Plan with the human, implement the tasks, review the change, finalize',
  branchPrefix: 'feat/',
  phases: [
    { name: 'planning', canDisable: true, inputs: [context, githubIssue], outputs: [taskList] },
    {
      name: 'implementation',
      whyRequired: 'its tasks are the change the project makes',
      inputs: [context, reviewType, githubIssue],
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
      whyRequired: 'every change is reviewed before it is finalized',
      inputs: [context],
      outputs: [reviewType],
    },
    {
      name: 'finalize',
      whyRequired:
        'the project ends there (its checks must pass on the finished code, and its last step closes the project)',
      inputs: [context],
      outputs: [documentation, pullRequest],
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
  taskOutputs: [modified],
  states,
  transitions,
  guards,
  actions,
});
