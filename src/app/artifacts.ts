// input/output add|set|remove|list for phases and tasks: a path may name a file not written yet, but not to approve.
import type { AppContext } from './context.js';
import {
  artifactAt,
  createArtifact,
  placeholdersIn,
  repositoryPathOf,
  setArtifactField,
  type ArtifactSlot,
  type ArtifactTypeDef,
  type NewArtifact,
  ArtifactFileMissingError,
  ArtifactUnfinishedError,
} from '../domain/artifacts.js';
import { PhaseNotActiveError } from '../domain/errors.js';
import { phaseDef, phaseOf, selectPhase, withPhase } from '../domain/phases.js';
import { placeArtifact } from '../domain/project-types/evidence.js';
import type { ProjectType } from '../domain/project-type.js';
import type { Artifact, ProjectState, TaskState } from '../domain/schemas.js';
import { stampApproval } from '../domain/approvals.js';
import { realPath } from '../adapters/files.js';
import { warn } from '../adapters/notices.js';
import { PROJECT_DIR, taskDir } from './project-files.js';
import { Reader, update } from './workspace.js';
import { type UnitOfWork } from './unit-of-work.js';

export type Direction = 'inputs' | 'outputs';
export type ArtifactHolder = { kind: 'phase'; phase?: string } | { kind: 'task'; id: string };

const singular = (d: Direction) => (d === 'inputs' ? 'input' : 'output');

/** The owner's artifact list as read, with its slot, and how lists name it (the phase, `task <id>`). */
async function resolveOwner(
  type: ProjectType,
  project: ProjectState,
  readTask: (id: string) => Promise<TaskState>,
  owner: ArtifactHolder,
  direction: Direction,
): Promise<{ name: string; list: Artifact[]; slot: ArtifactSlot; phase?: string; task?: TaskState }> {
  if (owner.kind === 'phase') {
    const phase = selectPhase(type, project, owner.phase);
    const slot = {
      label: `the ${phase} phase ${direction}`,
      types: phaseDef(type, phase)[direction],
      command: `sow ${singular(direction)}`,
      owner: `--phase ${phase}`,
    };
    return { name: phase, list: phaseOf(project, phase)[direction], slot, phase };
  }
  const task = await readTask(owner.id);
  const slot = {
    label: `task ${task.id} ${direction}`,
    types: direction === 'inputs' ? type.taskInputs : type.taskOutputs,
    command: `sow task ${singular(direction)}`,
    owner: `--id ${task.id}`,
  };
  return { name: `task ${task.id}`, list: task[direction], slot, task };
}

const typeOf = (slot: ArtifactSlot, artifact: Artifact): ArtifactTypeDef | undefined =>
  slot.types.find((t) => t.name === artifact.type);

/** Where the artifact's file is, relative to the repository root. */
const fileOf = (slot: ArtifactSlot, artifact: Artifact) =>
  repositoryPathOf(artifact.path, typeOf(slot, artifact)?.root ?? 'project');

// Warns about a file not written yet; refuses to approve one, or one still holding its template's placeholders: an
// approval vouches for what is in it.
function checkFile(uow: UnitOfWork, slot: ArtifactSlot, artifact: Artifact): void {
  const file = fileOf(slot, artifact);
  if (uow.docExists(file)) {
    const def = typeOf(slot, artifact);
    if (artifact.approved !== true || !def?.placeholders) return;
    const left = placeholdersIn(def, uow.readDoc(file) ?? '');
    if (left.length) throw new ArtifactUnfinishedError(artifact.path, file, left);
    return;
  }
  if (artifact.approved === true) throw new ArtifactFileMissingError(artifact.path, file);
  warn(`${file} does not exist yet; write it before you approve it`);
}

// The artifact stamped with its file's content as this command leaves it (a rendered document as rendered); unstamped
// when not approved. An approval counts only while the file keeps that content.
function stamped(uow: UnitOfWork, type: ProjectType, project: ProjectState, slot: ArtifactSlot, artifact: Artifact) {
  // Only documents are approved: a file of the code base has no approval to hold.
  if (artifact.approved !== true || (typeOf(slot, artifact)?.root ?? 'project') !== 'project')
    return stampApproval(artifact, undefined);
  const file = fileOf(slot, artifact);
  const rendered = type.renders?.(project, (rel) => uow.readDoc(rel)) ?? {};
  const under = file.slice(PROJECT_DIR.length + 1);
  return stampApproval(artifact, Object.hasOwn(rendered, under) ? rendered[under] : uow.readDoc(file));
}

/** An artifact added, changed or removed, and where it is (was) in its list. */
type Placed = { index: number; artifact: Artifact };
type Change = (
  list: Artifact[],
  slot: ArtifactSlot,
  uow: UnitOfWork,
  stamp: (artifact: Artifact) => Artifact,
) => Promise<Placed & { list: Artifact[] }> | (Placed & { list: Artifact[] });

/** Runs `change` on the artifact list of the owner inside a write transaction. */
async function modify(ctx: AppContext, owner: ArtifactHolder, direction: Direction, change: Change): Promise<Placed> {
  return update(ctx, async (uow) => {
    const project = await uow.project();
    const type = await uow.type();
    const found = await resolveOwner(type, project, (id) => uow.task(id), owner, direction);
    if (found.phase && phaseOf(project, found.phase).enabled === false)
      throw new PhaseNotActiveError(
        `the ${found.phase} phase is disabled in this project`,
        'pick another phase with --phase',
      );
    const { slot } = found;
    const { list, index, artifact } = await change([...found.list], slot, uow, (a) =>
      stamped(uow, type, project, slot, a),
    );
    // The type's own checks (ArtifactTypeDef.check) of the artifacts added or changed.
    for (const a of list) if (!found.list.includes(a)) typeOf(slot, a)?.check?.(a, project);
    if (found.task) uow.setTask({ ...found.task, [direction]: list });
    else uow.setProject(withPhase(project, found.phase!, { ...phaseOf(project, found.phase!), [direction]: list }));
    return { index, artifact };
  });
}

export async function addArtifact(ctx: AppContext, owner: ArtifactHolder, direction: Direction, input: NewArtifact) {
  return modify(ctx, owner, direction, (list, slot, uow, stamp) => {
    const created = createArtifact(slot, { ...input, path: realPath(input.path) }, uow.now, uow.root);
    checkFile(uow, slot, created);
    const artifact = created.approved === true ? stamp(created) : created;
    return { ...placeArtifact(list, artifact), artifact };
  });
}

/** Feedback on a task: the next `feedback/<nnn>.md` written with `text`, recorded as a pending input. */
export async function addFeedback(ctx: AppContext, taskId: string, text: string): Promise<Placed> {
  return modify(ctx, { kind: 'task', id: taskId }, 'inputs', async (list, slot, uow) => {
    // Paths of documents are relative to the project folder: phases/<phase>/tasks/<id>/feedback/<nnn>.md.
    const { id } = await uow.task(taskId);
    const folder = `${taskDir(await uow.taskPhase(), id).slice(PROJECT_DIR.length + 1)}/feedback`;
    const name = (n: number) => `${folder}/${String(n).padStart(3, '0')}.md`;
    let n = 1;
    while (list.some((a) => a.path === name(n)) || uow.docExists(`${PROJECT_DIR}/${name(n)}`)) n++;
    uow.writeDoc(`${PROJECT_DIR}/${name(n)}`, `${text.trim()}\n`);
    const artifact = createArtifact(slot, { type: 'feedback', path: name(n), extra: {} }, uow.now, uow.root);
    return { ...placeArtifact(list, artifact), artifact };
  });
}

export async function setArtifact(
  ctx: AppContext,
  owner: ArtifactHolder,
  direction: Direction,
  index: number,
  field: string,
  raw: string,
): Promise<Placed> {
  return modify(ctx, owner, direction, (list, slot, uow, stamp) => {
    const changed = setArtifactField(
      artifactAt(list, index, slot),
      slot,
      index,
      field,
      field === 'path' ? realPath(raw) : raw,
      uow.root,
    );
    if (field === 'approved' || field === 'path') checkFile(uow, slot, changed);
    // Approving (again) approves the content as it is now; withdrawing drops the stamp.
    const artifact = field === 'approved' ? stamp(changed) : changed;
    return { list: list.map((a, i) => (i === index ? artifact : a)), index, artifact };
  });
}

export async function removeArtifact(ctx: AppContext, owner: ArtifactHolder, direction: Direction, index: number) {
  return modify(ctx, owner, direction, (list, slot) => {
    const artifact = artifactAt(list, index, slot);
    return { list: list.filter((_, i) => i !== index), index, artifact };
  });
}

export async function listArtifacts(ctx: AppContext, owner: ArtifactHolder, direction: Direction) {
  return Reader.read(ctx, async (reader) => {
    const { name, list } = await readerOwner(reader, owner, direction);
    return { owner: name, artifacts: list };
  });
}

const readerOwner = (reader: Reader, owner: ArtifactHolder, direction: Direction) =>
  resolveOwner(reader.type, reader.project, (id) => reader.task(id), owner, direction);

// `input|output show`: the text of an artifact's file, named by its owner and index, never by a path from outside, and
// read through the confined read every document goes through (inside the repository, no link out, at most 8 MB).
export async function showArtifact(ctx: AppContext, owner: ArtifactHolder, direction: Direction, index: number) {
  return Reader.read(
    ctx,
    async (reader) => {
      const { list, slot } = await readerOwner(reader, owner, direction);
      const artifact = artifactAt(list, index, slot);
      const file = fileOf(slot, artifact);
      // null: the file does not exist (yet).
      return { index, artifact, file, text: reader.readDoc(file) ?? null };
    },
    { otherBranch: 'quiet' },
  );
}
