/**
 * input/output add|set|remove|list for phases and tasks: one implementation, two kinds of owner.
 */
import { artifactAt, createArtifact, formatArtifact, setArtifactField, type ArtifactSlot, type NewArtifact } from '../domain/artifacts.js';
import { phaseOf, tasksOf, withPhase } from '../domain/project-types/phase-ops.js';
import type { ProjectType } from '../domain/project-types/types.js';
import type { Artifact, ProjectState } from '../domain/schemas.js';
import { findTask } from '../domain/tasks.js';
import { PhaseNotActiveError } from '../domain/errors.js';
import { selectPhase } from './phase.js';
import { Reader, update, type UnitOfWork } from './workspace.js';

export type Direction = 'inputs' | 'outputs';
export type Owner = { kind: 'phase'; phase?: string } | { kind: 'task'; id: string };

export interface Located {
  owner: string;
  slot: ArtifactSlot;
  list: Artifact[];
}

const singular = (d: Direction) => (d === 'inputs' ? 'input' : 'output');

function phaseSlot(type: ProjectType, phase: string, direction: Direction): ArtifactSlot {
  const def = type.phases.find((p) => p.name === phase)!;
  return { label: `the ${phase} phase ${direction}`, types: def[direction], listCommand: `sow ${singular(direction)} list --phase ${phase}` };
}

function taskSlot(type: ProjectType, id: string, direction: Direction): ArtifactSlot {
  return {
    label: `task ${id} ${direction}`,
    types: direction === 'inputs' ? type.taskInputs : type.taskOutputs,
    listCommand: `sow task ${singular(direction)} list --id ${id}`,
  };
}

function checkPhaseEnabled(project: ProjectState, phase: string): void {
  if (phaseOf(project, phase).enabled === false) {
    throw new PhaseNotActiveError(`the ${phase} phase is disabled in this project`, 'pick another phase with --phase');
  }
}

/** Runs `change` on the artifact list of the owner inside a write transaction. */
async function modify<R>(cwd: string, owner: Owner, direction: Direction, change: (list: Artifact[], slot: ArtifactSlot, now: string) => { list: Artifact[]; result: R }): Promise<R> {
  return update(cwd, async (uow: UnitOfWork) => {
    const project = await uow.project();
    const type = await uow.type();
    if (owner.kind === 'phase') {
      const phase = selectPhase(type, project, owner.phase);
      checkPhaseEnabled(project, phase);
      const current = phaseOf(project, phase);
      const { list, result } = change([...current[direction]], phaseSlot(type, phase, direction), uow.now);
      uow.setProject(withPhase(project, phase, { ...current, [direction]: list }));
      return result;
    }
    findTask(tasksOf(project), owner.id);
    const task = await uow.task(owner.id);
    const { list, result } = change([...task[direction]], taskSlot(type, owner.id, direction), uow.now);
    await uow.setTask({ ...task, [direction]: list });
    return result;
  });
}

export async function addArtifact(cwd: string, owner: Owner, direction: Direction, input: NewArtifact): Promise<{ index: number; artifact: Artifact }> {
  return modify(cwd, owner, direction, (list, slot, now) => {
    const artifact = createArtifact(slot, input, now);
    return { list: [...list, artifact], result: { index: list.length, artifact } };
  });
}

export async function setArtifact(cwd: string, owner: Owner, direction: Direction, index: number, field: string, raw: string): Promise<{ index: number; artifact: Artifact }> {
  return modify(cwd, owner, direction, (list, slot) => {
    const artifact = setArtifactField(artifactAt(list, index, slot), slot, field, raw);
    return { list: list.map((a, i) => (i === index ? artifact : a)), result: { index, artifact } };
  });
}

export async function removeArtifact(cwd: string, owner: Owner, direction: Direction, index: number): Promise<{ index: number; artifact: Artifact }> {
  return modify(cwd, owner, direction, (list, slot) => {
    const artifact = artifactAt(list, index, slot);
    return { list: list.filter((_, i) => i !== index), result: { index, artifact } };
  });
}

export async function listArtifacts(cwd: string, owner: Owner, direction: Direction): Promise<{ owner: string; artifacts: Artifact[] }> {
  const reader = await Reader.open(cwd);
  if (owner.kind === 'phase') {
    const phase = selectPhase(reader.type, reader.project, owner.phase);
    return { owner: phase, artifacts: phaseOf(reader.project, phase)[direction] };
  }
  findTask(tasksOf(reader.project), owner.id);
  return { owner: `task ${owner.id}`, artifacts: (await reader.task(owner.id))[direction] };
}

export { formatArtifact };
