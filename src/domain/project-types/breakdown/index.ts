// breakdown: split a large feature into work units (a task each, with an approved spec and its dependencies) after an
// approved discovery document; `sow breakdown publish` makes each an issue or a file.
import { ai, archiveEntry, baseName, defineType, doc, ended, human, init, step, type Transitions } from '../common.js';
import { approvedOutput, phaseOf } from '../../phases.js';
import { byId, isFinished } from '../../tasks.js';
import type { GuardDef, ProjectType, StateDef } from '../../project-type.js';
import { PUBLISHING, publishCommands, unitsDir } from './publish.js';
import { list, placeOf, publicationOf, SPEC, specsOf, unitProblems } from './units.js';

const NAME = 'breakdown';

const context = doc('context', 'A document that gives context (the feature request, earlier notes, designs)');
const discovery = doc(
  'discovery',
  'What the feature is, what it must do, what is known and what is open: the document the units are split from; ' +
    'approving it starts the breakdown',
  { approvable: true },
);
const workUnitSpec = doc(
  SPEC,
  'The spec of one work unit: what to build, the acceptance criteria, what is out of scope; published as the ' +
    "issue's body once approved",
  { approvable: true },
);
const reference = doc('reference', 'A document the unit should start from');

const guards = {
  discoveryApproved: {
    description: 'a discovery output is approved',
    check: ({ project }) => approvedOutput(project, 'discovery', 'discovery'),
    hint: ({ project }) => {
      const outputs = phaseOf(project, 'discovery').outputs;
      const open = outputs.flatMap((a, i) => (a.type === 'discovery' ? [i] : []));
      if (open.length === 0)
        return (
          "write down what the feature is with the human, then add it: 'sow output add --type discovery --path " +
          "discovery.md'"
        );
      return (
        `the human approves the discovery ` +
        `document: ${open.map((i) => `'sow output set --index ${i} approved true'`).join(', or ')}`
      );
    },
  },
  unitsReady: {
    description:
      "every unit is completed or abandoned (at least one completed), each completed unit's work_unit_spec is " +
      'approved, and the dependencies name existing units and form no cycle',
    readsTasks: true,
    check: ({ taskStates }) => taskStates !== undefined && unitProblems(taskStates).length === 0,
    // A unit may be reopened while publishing (its guard says so): what stays is that one was completed.
    standing: ({ tasks }) => tasks.some((t) => t.status === 'completed'),
    hint: ({ taskStates }) =>
      taskStates === undefined ? "run 'sow task list' to see the units" : unitProblems(taskStates).join('; '),
  },
  unitsPublished: {
    description:
      'every unit is still finished, and every completed unit is published (a GitHub issue or a file, recorded ' +
      'on its task)',
    readsTasks: true,
    check: ({ taskStates }) =>
      taskStates !== undefined &&
      taskStates.every((t) => (t.status === 'completed' && publicationOf(t) !== undefined) || t.status === 'abandoned'),
    hint: ({ taskStates }) => {
      const reopened = (taskStates ?? []).filter((t) => !isFinished(t.status)).map((t) => t.id);
      if (reopened.length)
        return (
          `${list(reopened)} ${reopened.length === 1 ? 'was' : 'were'} reopened after the breakdown was ready: ` +
          `complete or abandon ${reopened.length === 1 ? 'it' : 'them'} ('sow task set --id <id> status ` +
          `completed', 'sow task abandon --id <id>')`
        );
      const open = (taskStates ?? []).filter((t) => t.status === 'completed' && !publicationOf(t)).map((t) => t.id);
      return (
        `publish ${open.length ? `${open.length === 1 ? 'unit' : 'units'} ${list(open)}` : 'the units'}: 'sow ` +
        `breakdown publish' ('--dry-run' shows what it would do first)`
      );
    },
  },
} satisfies Record<string, GuardDef>;

const states = {
  Discovery: human(
    'discovery',
    'Understand the feature with the human and write it down; the human approves the discovery document.',
  ),
  Active: human(
    NAME,
    'Split the feature into work units (a task each) with a spec and the units each depends on; the human approves ' +
      'each spec.',
    { executesTasks: true },
  ),
  [PUBLISHING]: ai(
    'publishing',
    'Publish each completed unit, in dependency order, as a GitHub issue or a markdown file.',
  ),
  Completed: ended('The breakdown is complete; its discovery document and specs are in .sow/knowledge/breakdowns/.'),
} satisfies Record<string, StateDef>;

const transitions: Transitions<typeof states, typeof guards> = [
  init('Discovery'),
  step('Discovery', 'discovery_approved', 'Active', 'discoveryApproved'),
  step('Active', 'units_ready', PUBLISHING, 'unitsReady'),
  step(PUBLISHING, 'units_published', 'Completed', 'unitsPublished'),
];

export const breakdown: ProjectType = defineType({
  name: NAME,
  description:
    'Split a large feature into work units with specs and dependencies, then publish them as GitHub issues or files',
  branchPrefix: 'breakdown/',
  phases: [
    { name: 'discovery', inputs: [context], outputs: [discovery] },
    { name: NAME, inputs: [context], hasTasks: true },
    { name: 'publishing', inputs: [] },
  ],
  taskInputs: [reference],
  taskOutputs: [workUnitSpec],
  states,
  transitions,
  guards,
  commands: publishCommands(NAME, () => breakdown),
  archive({ project, tasks }, now) {
    const dir = unitsDir(project.name);
    const documents = phaseOf(project, 'discovery').outputs.filter((a) => a.type === 'discovery' && a.approved);
    const units = tasks.filter((t) => t.status === 'completed').sort(byId);
    return {
      files: [
        ...documents.map((a) => ({ from: a.path, to: `${dir}/${baseName(a.path)}` })),
        ...units.flatMap((t) =>
          specsOf(t).map(({ artifact }) => ({ from: artifact.path, to: `${dir}/specs/${baseName(artifact.path)}` })),
        ),
      ],
      entry: {
        ...archiveEntry(NAME, project, now),
        path: dir,
        units: units.map((t) => ({
          id: t.id,
          title: t.name,
          ...placeOf(publicationOf(t)),
          depends_on: [...t.dependencies],
        })),
      },
    };
  },
});
