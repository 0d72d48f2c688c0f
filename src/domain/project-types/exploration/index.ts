/**
 * exploration: research a topic with the human. Each task is a topic to investigate; the findings
 * are written down, summarised, and the approved summaries are kept in the repository's knowledge
 * (`.sow/knowledge/explorations/<name>/`, listed in `.sow/knowledge/index.yaml`) when the project
 * completes.
 */
import { complete, NO_PROJECT, phaseActions, start, tagsOf } from '../common.js';
import type { ArtifactTypeDef } from '../../artifacts.js';
import { phaseOf } from '../../phases.js';
import type { ActionImpl, GuardDef, ProjectType, StateDef, TransitionDef } from '../../project-type.js';
import { evidenceType as evidence } from '../evidence.js';

const context: ArtifactTypeDef = {
  name: 'context',
  root: 'project',
  description: 'A document that gives context (the question, earlier notes)',
};
const summary: ArtifactTypeDef = {
  name: 'summary',
  root: 'project',
  description: 'A summary of what the exploration found; approving every summary lets it finalize',
  approvable: true,
};
const findings: ArtifactTypeDef = {
  name: 'findings',
  root: 'project',
  description: 'Notes of what one investigation found',
};
const reference: ArtifactTypeDef = {
  name: 'reference',
  root: 'project',
  description: 'A document the topic should start from',
};

const resolved = (s: string) => s === 'completed' || s === 'abandoned';

const guards = {
  topicsDone: {
    description: 'every topic is completed or abandoned, and at least one is completed',
    check: ({ tasks }) =>
      tasks.length > 0 && tasks.every((t) => resolved(t.status)) && tasks.some((t) => t.status === 'completed'),
    // A topic may still be added while summarizing (the phase is the same): what stays is that one was completed.
    standing: ({ tasks }) => tasks.some((t) => t.status === 'completed'),
    hint: ({ tasks }) => {
      if (tasks.length === 0) return "add the topics to investigate with 'sow task add <topic>'";
      const open = tasks.filter((t) => !resolved(t.status));
      if (open.length)
        return `finish or abandon ${open.map((t) => t.id).join(', ')} ('sow task set --id <id> status completed')`;
      return 'complete at least one topic: an exploration where every topic was abandoned found nothing to summarise';
    },
  },
  summariesApproved: {
    description: 'there is at least one summary output, and every summary is approved',
    check: ({ project }) => {
      const s = phaseOf(project, 'exploration').outputs.filter((a) => a.type === 'summary');
      return s.length > 0 && s.every((a) => a.approved === true);
    },
    // A draft may still be added while finalizing (it is not kept unless approved): what stays is an approved summary.
    standing: ({ project }) =>
      phaseOf(project, 'exploration').outputs.some((a) => a.type === 'summary' && a.approved === true),
    hint: ({ project }) => {
      const outputs = phaseOf(project, 'exploration').outputs;
      const s = outputs.filter((a) => a.type === 'summary');
      if (s.length === 0) return "write the summary and add it: 'sow output add --type summary --path summary.md'";
      const open = s.filter((a) => a.approved !== true).map((a) => outputs.indexOf(a));
      // Checked again when finalizing, where the phase in progress is another one.
      const finalizing = project.statechart.current_state === 'Finalizing';
      const command = (i: number) =>
        finalizing
          ? `'sow output set --phase exploration --index ${i} approved true'`
          : `'sow output set --index ${i} approved true'`;
      return `approve ${open.length === 1 ? 'the summary' : 'the summaries'}: ${open.map(command).join(', ')}`;
    },
  },
} satisfies Record<string, GuardDef>;

/** Checked against the states, guards and actions: a name misspelt here does not compile. */
const transitions: TransitionDef<keyof typeof states, keyof typeof guards, keyof typeof actions>[] = [
  { from: 'NoProject', event: 'project_init', to: 'Active', actions: [start('exploration')], automatic: false },
  { from: 'Active', event: 'topics_done', to: 'Summarizing', guard: 'topicsDone', automatic: true },
  {
    from: 'Summarizing',
    event: 'summaries_approved',
    to: 'Finalizing',
    guard: 'summariesApproved',
    actions: [complete('exploration'), start('finalization')],
    automatic: true,
  },
  // Checked again: what is kept is what the human approved, so a summary changed since its approval is not kept unseen.
  {
    from: 'Finalizing',
    event: 'exploration_complete',
    to: 'Completed',
    guard: 'summariesApproved',
    actions: [complete('finalization')],
    automatic: true,
  },
];

const states = {
  NoProject: NO_PROJECT,
  Active: {
    phase: 'exploration',
    lead: 'human',
    purpose: 'Investigate each topic (a task each) with the human, writing the findings down.',
    executesTasks: true,
  },
  Summarizing: {
    phase: 'exploration',
    lead: 'human',
    purpose: 'Write what the exploration found as summaries; the human approves them.',
  },
  Finalizing: {
    phase: 'finalization',
    lead: 'human',
    purpose: "Check that the summaries say what should be kept; completing stores them in the repository's knowledge.",
  },
  Completed: {
    phase: null,
    lead: null,
    purpose: 'The exploration is complete; its summaries are in .sow/knowledge/explorations/.',
    final: true,
  },
} satisfies Record<string, StateDef>;

const actions = { ...phaseActions } satisfies Record<string, ActionImpl>;

export const exploration: ProjectType = {
  name: 'exploration',
  description: "Research a topic with the human; the approved summaries become the repository's knowledge",
  branchPrefix: 'explore/',
  phases: [
    {
      name: 'exploration',
      canDisable: false,
      inputs: [context],
      outputs: [summary, findings, evidence],
      hasTasks: true,
    },
    { name: 'finalization', canDisable: false, inputs: [context], outputs: [evidence] },
  ],
  taskInputs: [reference],
  taskOutputs: [findings, evidence],
  initialState: 'NoProject',
  states,
  transitions,
  guards,
  actions,
  archive({ project }, now) {
    const dir = `.sow/knowledge/explorations/${project.name}`;
    const summaries = phaseOf(project, 'exploration').outputs.filter(
      (a) => a.type === 'summary' && a.approved === true,
    );
    return {
      files: summaries.map((a) => ({ from: a.path, to: `${dir}/${a.path.split('/').at(-1)!}` })),
      entry: {
        type: 'exploration',
        topic: project.description || project.name,
        name: project.name,
        branch: project.branch,
        date: now.slice(0, 10),
        tags: tagsOf(project, 'exploration'),
        path: dir,
      },
    };
  },
};
