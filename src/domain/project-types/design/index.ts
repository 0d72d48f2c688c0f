// design: write design documents (a task each) with the human; completing keeps the approved ones in the repository's
// knowledge (`.sow/knowledge/adrs/`, `designs/`, or the folders `knowledge.places` names).
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
import type { ArtifactTypeDef } from '../../artifacts.js';
import type { Artifact } from '../../schemas.js';
import type { RepoConfig } from '../../config-schemas.js';
import { phaseOf } from '../../phases.js';
import { isFinished } from '../../tasks.js';
import type { GuardDef, ProjectType, ProjectView, StateDef } from '../../project-type.js';

const PHASE = 'design';

const context = doc('context', 'A document that gives context (the problem, constraints, earlier notes)');
const reference = doc('reference', 'A document the task starts from (a draft, an earlier design, notes)');

/** The documents a design project writes, in the order hints list them; the human approves each. */
const documentTypes: readonly ArtifactTypeDef[] = [
  ['design', 'A design document: the problem, the options, the chosen design'],
  ['adr', 'An architecture decision record: one decision, its context and consequences'],
  ['architecture', 'An architecture description: components, boundaries, data flow'],
  ['diagram', 'A diagram, as text (Mermaid, PlantUML, SVG)'],
  ['spec', 'A specification: an interface, a format, a protocol'],
].map(([name, what]) =>
  doc(name!, `${what}; approved by the human, it is kept in the repository's knowledge when the project completes`, {
    approvable: true,
  }),
);
const names = documentTypes.map((t) => t.name);
const isDocument = (a: Artifact) => names.includes(a.type);
const typeChoices = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;

/** Where a document type goes under .sow/knowledge/ unless the repository's configuration says otherwise. */
const placeOf = (config: RepoConfig, type: string) =>
  config.knowledge?.places?.[type] ?? (type === 'adr' ? 'adrs' : 'designs');

// What keeps the documents from being approved: completed tasks without a document, documents not approved. Undefined
// when the tasks' states were not read.
function missingDocuments(view: ProjectView) {
  if (!view.taskStates) return undefined;
  const undocumented: string[] = [];
  // Each with the command that approves it.
  const unapproved: string[] = [];
  for (const task of view.taskStates.filter((t) => t.status === 'completed')) {
    if (!task.outputs.some(isDocument)) undocumented.push(task.id);
    task.outputs.forEach((a, i) => {
      if (isDocument(a) && a.approved !== true)
        unapproved.push(
          `task ${task.id}'s ${a.type}: 'sow task output set --id ${task.id} --index ${i} approved true'`,
        );
    });
  }
  phaseOf(view.project, PHASE).outputs.forEach((a, i) => {
    if (isDocument(a) && a.approved !== true)
      unapproved.push(`the ${PHASE} phase's ${a.type} ${a.path}: 'sow output set --index ${i} approved true'`);
  });
  return { undocumented, unapproved };
}

const guards = {
  documentsApproved: {
    description:
      'every document task is completed or abandoned, at least one is completed, each completed task has a ' +
      'document, and every document is approved',
    readsTasks: true,
    check: (view) => {
      const m = missingDocuments(view);
      return m !== undefined && tasksDone(view.tasks) && m.undocumented.length === 0 && m.unapproved.length === 0;
    },
    hint: (view) => {
      if (view.tasks.length === 0) return "add the documents to write, a task each: 'sow task add <document>'";
      const open = view.tasks.filter((t) => !isFinished(t.status)).map((t) => t.id);
      if (open.length)
        return (
          `finish or abandon ${open.join(', ')} ('sow task set --id <id> status completed', or 'sow task ` +
          `abandon --id <id>')`
        );
      if (!view.tasks.some((t) => t.status === 'completed'))
        return (
          'complete at least one document: ' + 'a design project whose every document was abandoned has nothing to keep'
        );
      const m = missingDocuments(view);
      if (!m) return "the tasks' documents were not read, so whether they are approved is unknown";
      const parts: string[] = [];
      for (const id of m.undocumented)
        parts.push(
          `task ${id} has no document: 'sow task output add --id ${id} --type <type> --path <file>' ` +
            `(type: ${typeChoices})`,
        );
      if (m.unapproved.length) parts.push(`approve ${m.unapproved.join(', ')} (the human's decision)`);
      return parts.join('; ');
    },
  },
} satisfies Record<string, GuardDef>;

const states = {
  Active: human(PHASE, 'Write each document (a task each) with the human; the human approves each one.', {
    executesTasks: true,
  }),
  Finalizing: human(
    'finalization',
    "Check that the approved documents say what should be kept; completing stores them in the repository's knowledge.",
  ),
  Completed: ended('The design project is complete; its documents are in .sow/knowledge/.'),
} satisfies Record<string, StateDef>;

const transitions: Transitions<typeof states, typeof guards> = [
  init('Active'),
  step('Active', 'documents_approved', 'Finalizing', 'documentsApproved'),
  // Checked again: a document changed since its approval is not kept unseen.
  step('Finalizing', 'design_complete', 'Completed', 'documentsApproved'),
];

export const design: ProjectType = defineType({
  name: 'design',
  description:
    "Write design documents (ADRs, designs, specs) with the human; the approved ones become the repository's knowledge",
  branchPrefix: 'design/',
  phases: [
    { name: PHASE, inputs: [context], outputs: documentTypes, hasTasks: true },
    { name: 'finalization', inputs: [context] },
  ],
  taskInputs: [reference],
  taskOutputs: documentTypes,
  states,
  transitions,
  guards,
  /** The approved documents of the completed tasks, then of the design phase; a file recorded twice is kept once. */
  archive({ project, tasks, config }, now) {
    const files: { from: string; to: string }[] = [];
    const documents: Record<string, string>[] = [];
    const seen = new Set<string>();
    const keep = (a: Artifact, document: Record<string, string>) => {
      if (!isDocument(a) || a.approved !== true || seen.has(a.path)) return;
      seen.add(a.path);
      files.push({ from: a.path, to: `.sow/knowledge/${placeOf(config, a.type)}/${baseName(a.path)}` });
      documents.push(document);
    };
    for (const task of [...tasks].sort((a, b) => Number(a.id) - Number(b.id))) {
      if (task.status !== 'completed') continue;
      for (const a of task.outputs) keep(a, { task: task.id, type: a.type, title: task.name });
    }
    for (const a of phaseOf(project, PHASE).outputs) keep(a, { type: a.type, title: baseName(a.path) });
    return { files, entry: { ...archiveEntry(PHASE, project, now), tags: tagsOf(project, PHASE), documents } };
  },
});
