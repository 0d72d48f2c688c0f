// exploration: research a topic with the human, a task per topic; completing keeps the approved summaries in
// `.sow/knowledge/explorations/<name>/`.
import {
  archiveEntry,
  baseName,
  defineType,
  doc,
  ended,
  human,
  init,
  step,
  tagsOf,
  tasksDone,
  type Transitions,
} from '../common.js';
import { approvedOutput, phaseOf } from '../../phases.js';
import { isFinished } from '../../tasks.js';
import type { GuardDef, ProjectType, StateDef } from '../../project-type.js';

const context = doc('context', 'A document that gives context (the question, earlier notes)');
const summary = doc('summary', 'A summary of what the exploration found; approving every summary lets it finalize', {
  approvable: true,
});
const findings = doc('findings', 'Notes of what one investigation found');
const reference = doc('reference', 'A document the topic should start from');

const guards = {
  topicsDone: {
    description: 'every topic is completed or abandoned, and at least one is completed',
    check: ({ tasks }) => tasksDone(tasks),
    // A topic may still be added while summarizing (the phase is the same): what stays is that one was completed.
    standing: ({ tasks }) => tasks.some((t) => t.status === 'completed'),
    hint: ({ tasks }) => {
      if (tasks.length === 0) return "add the topics to investigate with 'sow task add <topic>'";
      const open = tasks.filter((t) => !isFinished(t.status));
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
    standing: ({ project }) => approvedOutput(project, 'exploration', 'summary'),
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

const states = {
  Active: human('exploration', 'Investigate each topic (a task each) with the human, writing the findings down.', {
    executesTasks: true,
  }),
  Summarizing: human('exploration', 'Write what the exploration found as summaries; the human approves them.'),
  Finalizing: human(
    'finalization',
    "Check that the summaries say what should be kept; completing stores them in the repository's knowledge.",
  ),
  Completed: ended('The exploration is complete; its summaries are in .sow/knowledge/explorations/.'),
} satisfies Record<string, StateDef>;

const transitions: Transitions<typeof states, typeof guards> = [
  init('Active'),
  step('Active', 'topics_done', 'Summarizing', 'topicsDone'),
  step('Summarizing', 'summaries_approved', 'Finalizing', 'summariesApproved'),
  // Checked again: a summary changed since its approval is not kept unseen.
  step('Finalizing', 'exploration_complete', 'Completed', 'summariesApproved'),
];

export const exploration: ProjectType = defineType({
  name: 'exploration',
  description: "Research a topic with the human; the approved summaries become the repository's knowledge",
  branchPrefix: 'explore/',
  phases: [
    { name: 'exploration', inputs: [context], outputs: [summary, findings], hasTasks: true },
    { name: 'finalization', inputs: [context] },
  ],
  taskInputs: [reference],
  taskOutputs: [findings],
  states,
  transitions,
  guards,
  archive({ project }, now) {
    const dir = `.sow/knowledge/explorations/${project.name}`;
    const summaries = phaseOf(project, 'exploration').outputs.filter((a) => a.type === 'summary' && a.approved);
    return {
      files: summaries.map((a) => ({ from: a.path, to: `${dir}/${baseName(a.path)}` })),
      entry: { ...archiveEntry('exploration', project, now), tags: tagsOf(project, 'exploration'), path: dir },
    };
  },
});
