/**
 * input/output add|set|remove|list for phases and tasks. A path may name a file not written yet; approving needs the
 * file.
 */
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
import type { Artifact, ProjectState } from '../domain/schemas.js';
import { stampApproval } from '../domain/approvals.js';
import { realPath } from '../adapters/files.js';
import { warn } from '../adapters/notices.js';
import { PROJECT_DIR, taskDir } from './project-files.js';
import { Reader, update } from './workspace.js';
import { type UnitOfWork } from './unit-of-work.js';

export type Direction = 'inputs' | 'outputs';
export type ArtifactHolder = { kind: 'phase'; phase?: string } | { kind: 'task'; id: string };

const singular = (d: Direction) => (d === 'inputs' ? 'input' : 'output');

function phaseSlot(type: ProjectType, phase: string, direction: Direction): ArtifactSlot {
  return {
    label: `the ${phase} phase ${direction}`,
    types: phaseDef(type, phase)[direction],
    command: `sow ${singular(direction)}`,
    owner: `--phase ${phase}`,
  };
}

function taskSlot(type: ProjectType, id: string, direction: Direction): ArtifactSlot {
  return {
    label: `task ${id} ${direction}`,
    types: direction === 'inputs' ? type.taskInputs : type.taskOutputs,
    command: `sow task ${singular(direction)}`,
    owner: `--id ${id}`,
  };
}

function checkPhaseEnabled(project: ProjectState, phase: string): void {
  if (phaseOf(project, phase).enabled === false) {
    throw new PhaseNotActiveError(`the ${phase} phase is disabled in this project`, 'pick another phase with --phase');
  }
}

const typeOf = (slot: ArtifactSlot, artifact: Artifact): ArtifactTypeDef | undefined =>
  slot.types.find((t) => t.name === artifact.type);

/** Where the artifact's file is, relative to the repository root. */
export const fileOf = (slot: ArtifactSlot, artifact: Artifact) =>
  repositoryPathOf(artifact.path, typeOf(slot, artifact)?.root ?? 'project');

/**
 * Warns about a file not written yet; refuses to approve one, or one still holding its template's placeholders: an
 * approval vouches for what is in it.
 */
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

/** The type's own checks (ArtifactTypeDef.check) of the artifacts `change` added or changed. */
function checkChanged(
  project: ProjectState,
  slot: ArtifactSlot,
  before: readonly Artifact[],
  after: readonly Artifact[],
): void {
  for (const artifact of after) if (!before.includes(artifact)) typeOf(slot, artifact)?.check?.(artifact, project);
}

/**
 * The artifact stamped with its file's content as this command leaves it (a rendered document as rendered); unstamped
 * when not approved. An approval counts only while the file keeps that content.
 */
function stamped(
  uow: UnitOfWork,
  type: ProjectType,
  project: ProjectState,
  slot: ArtifactSlot,
  artifact: Artifact,
): Artifact {
  // Only documents are approved: a file of the code base has no approval to hold.
  if (artifact.approved !== true || (typeOf(slot, artifact)?.root ?? 'project') !== 'project')
    return stampApproval(artifact, undefined);
  const file = fileOf(slot, artifact);
  const rendered = type.renders?.(project, (rel) => uow.readDoc(rel)) ?? {};
  const under = file.slice(PROJECT_DIR.length + 1);
  return stampApproval(artifact, Object.hasOwn(rendered, under) ? rendered[under] : uow.readDoc(file));
}

type Stamp = (artifact: Artifact) => Artifact;

/** Runs `change` on the artifact list of the owner inside a write transaction. */
async function modify<R>(
  ctx: AppContext,
  owner: ArtifactHolder,
  direction: Direction,
  change: (list: Artifact[], slot: ArtifactSlot, uow: UnitOfWork, stamp: Stamp) => { list: Artifact[]; result: R },
): Promise<R> {
  return update(ctx, async (uow) => {
    const project = await uow.project();
    const type = await uow.type();
    if (owner.kind === 'phase') {
      const phase = selectPhase(type, project, owner.phase);
      checkPhaseEnabled(project, phase);
      const current = phaseOf(project, phase);
      const slot = phaseSlot(type, phase, direction);
      const { list, result } = change([...current[direction]], slot, uow, (a) => stamped(uow, type, project, slot, a));
      checkChanged(project, slot, current[direction], list);
      uow.setProject(withPhase(project, phase, { ...current, [direction]: list }));
      return result;
    }
    const task = await uow.task(owner.id);
    const slot = taskSlot(type, task.id, direction);
    const { list, result } = change([...task[direction]], slot, uow, (a) => stamped(uow, type, project, slot, a));
    checkChanged(project, slot, task[direction], list);
    uow.setTask({ ...task, [direction]: list });
    return result;
  });
}

export async function addArtifact(
  ctx: AppContext,
  owner: ArtifactHolder,
  direction: Direction,
  input: NewArtifact,
): Promise<{ index: number; artifact: Artifact }> {
  return modify(ctx, owner, direction, (list, slot, uow, stamp) => {
    const created = createArtifact(slot, { ...input, path: realPath(input.path) }, uow.now, uow.root).artifact;
    checkFile(uow, slot, created);
    const artifact = created.approved === true ? stamp(created) : created;
    const placed = placeArtifact(list, artifact);
    return { list: placed.list, result: { index: placed.index, artifact } };
  });
}

/**
 * Feedback on a task in one transaction: the next `feedback/<nnn>.md` written with `text`, recorded as a pending input.
 */
export async function addFeedback(
  ctx: AppContext,
  taskId: string,
  text: string,
): Promise<{ index: number; artifact: Artifact }> {
  return update(ctx, async (uow) => {
    const type = await uow.type();
    const task = await uow.task(taskId);
    const slot = taskSlot(type, task.id, 'inputs');
    // Paths of documents are relative to the project folder: phases/<phase>/tasks/<id>/feedback/<nnn>.md.
    const folder = `${taskDir(await uow.taskPhase(), task.id).slice(PROJECT_DIR.length + 1)}/feedback`;
    const list = [...task.inputs];
    const name = (n: number) => `${folder}/${String(n).padStart(3, '0')}.md`;
    let n = 1;
    while (list.some((a) => a.path === name(n)) || uow.docExists(`${PROJECT_DIR}/${name(n)}`)) n++;
    uow.writeDoc(`${PROJECT_DIR}/${name(n)}`, `${text.trim()}\n`);
    const { artifact } = createArtifact(slot, { type: 'feedback', path: name(n), extra: {} }, uow.now, uow.root);
    const placed = placeArtifact(list, artifact);
    checkChanged(await uow.project(), slot, task.inputs, placed.list);
    uow.setTask({ ...task, inputs: placed.list });
    return { index: placed.index, artifact };
  });
}

export async function setArtifact(
  ctx: AppContext,
  owner: ArtifactHolder,
  direction: Direction,
  index: number,
  field: string,
  raw: string,
): Promise<{ index: number; artifact: Artifact }> {
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
    return { list: list.map((a, i) => (i === index ? artifact : a)), result: { index, artifact } };
  });
}

export async function removeArtifact(
  ctx: AppContext,
  owner: ArtifactHolder,
  direction: Direction,
  index: number,
): Promise<{ index: number; artifact: Artifact }> {
  return modify(ctx, owner, direction, (list, slot) => {
    const artifact = artifactAt(list, index, slot);
    return { list: list.filter((_, i) => i !== index), result: { index, artifact } };
  });
}

/** The owner's artifact list as read, with its slot, and how lists name it (the phase, `task <id>`). */
export async function readOwner(
  reader: Reader,
  owner: ArtifactHolder,
  direction: Direction,
): Promise<{ name: string; list: Artifact[]; slot: ArtifactSlot }> {
  if (owner.kind === 'phase') {
    const phase = selectPhase(reader.type, reader.project, owner.phase);
    return {
      name: phase,
      list: phaseOf(reader.project, phase)[direction],
      slot: phaseSlot(reader.type, phase, direction),
    };
  }
  const task = await reader.task(owner.id);
  return { name: `task ${task.id}`, list: task[direction], slot: taskSlot(reader.type, task.id, direction) };
}

export async function listArtifacts(
  ctx: AppContext,
  owner: ArtifactHolder,
  direction: Direction,
): Promise<{ owner: string; artifacts: Artifact[] }> {
  return Reader.read(ctx, async (reader) => {
    const { name, list } = await readOwner(reader, owner, direction);
    return { owner: name, artifacts: list };
  });
}
