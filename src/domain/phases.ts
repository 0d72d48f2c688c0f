/** Pure operations on a project's phases, shared by every project type, and the phase's fields. */
import { PhaseNotActiveError, PhaseNotFoundError, ReadOnlyFieldError, WrongPhaseError } from './errors.js';
import { readOnly, type FieldSpec } from './fields.js';
import type { PhaseDef, ProjectType } from './project-type.js';
import type { Phase, ProjectState } from './schemas.js';

export const PHASE_FIELDS: Record<string, FieldSpec> = {
  name: readOnly('a phase keeps its name (its key under phases)'),
  status: readOnly("phase statuses follow the lifecycle; only 'sow advance' changes them", "run 'sow advance'"),
  enabled: { kind: 'boolean' },
  iteration: { kind: 'integer', min: 1 },
  created_at: readOnly('it records when the phase was created'),
  started_at: readOnly('it follows the lifecycle'),
  completed_at: readOnly('it follows the lifecycle'),
  inputs: readOnly('it is a list of artifacts', "use 'sow input add|set|remove'"),
  outputs: readOnly('it is a list of artifacts', "use 'sow output add|set|remove'"),
  tasks: readOnly('tasks live in their own files', "use 'sow task add|set|list'"),
  metadata: readOnly('it is a map', "set one key of it, e.g. 'metadata.owner'"),
};

export function phaseOf(project: ProjectState, name: string): Phase {
  const phase = Object.hasOwn(project.phases, name) ? project.phases[name] : undefined;
  if (!phase) throw new PhaseNotFoundError(name, Object.keys(project.phases));
  return phase;
}

/** Whether the phase has an approved output of that type. */
export const approvedOutput = (project: ProjectState, phase: string, type: string) =>
  phaseOf(project, phase).outputs.some((a) => a.type === type && a.approved === true);

export function phaseDef(type: ProjectType, name: string): PhaseDef {
  const def = type.phases.find((p) => p.name === name);
  if (!def) throw new PhaseNotFoundError(name, phaseNames(type));
  return def;
}

const phaseNames = (type: ProjectType) => type.phases.map((p) => p.name);

export function withPhase(project: ProjectState, name: string, phase: Phase): ProjectState {
  return { ...project, phases: { ...project.phases, [name]: phase } };
}

/** The phase whose folder holds the project's tasks (implementation, for the standard type): every type has one. */
export const taskPhase = (type: ProjectType): string => type.phases.find((p) => p.hasTasks)!.name;

/** Entering a phase: in_progress, started now; a phase entered again counts an iteration. */
export function startPhase(project: ProjectState, name: string, now: string): ProjectState {
  const phase = phaseOf(project, name);
  if (phase.status === 'in_progress') return project;
  const { completed_at: _done, ...rest } = phase;
  return withPhase(project, name, {
    ...rest,
    status: 'in_progress',
    iteration: phase.started_at ? phase.iteration + 1 : phase.iteration,
    started_at: now,
  });
}

export function completePhase(project: ProjectState, name: string, now: string): ProjectState {
  const phase = phaseOf(project, name);
  return withPhase(project, name, { ...phase, status: 'completed', completed_at: now });
}

export function requirePhaseActive(project: ProjectState, phase: string, action: string): void {
  const p = project.phases[phase];
  if (!p || p.status !== 'in_progress')
    throw new PhaseNotActiveError(
      `${action} needs the ${phase} phase in progress, but the project is in ${project.statechart.current_state}`,
      "run 'sow project continue' to see what this state expects, or 'sow advance' to move on",
    );
}

/** `--phase` if given (and known), else the phase in progress. */
export function selectPhase(type: ProjectType, project: ProjectState, requested?: string): string {
  const names = phaseNames(type);
  if (requested !== undefined) {
    if (!names.includes(requested)) throw new PhaseNotFoundError(requested, names);
    return requested;
  }
  const current = names.find((n) => project.phases[n]?.status === 'in_progress');
  if (!current)
    throw new PhaseNotActiveError(
      `no phase is in progress (state ${project.statechart.current_state})`,
      `name one with --phase (${names.join(', ')})`,
    );
  return current;
}

/** Every metadata key some phase of the type gives meaning to, with the phase it belongs to. */
export function phaseMetadataOwners(type: ProjectType): Map<string, string> {
  const owners = new Map<string, string>();
  for (const def of type.phases) for (const key of Object.keys(def.metadata ?? {})) owners.set(key, def.name);
  return owners;
}

/** A metadata key of one phase is refused on others, so a flag nothing reads is never quietly written. */
export function checkMetadataOwner(type: ProjectType, phase: string, key: string): void {
  const owner = phaseMetadataOwners(type).get(key);
  if (owner !== undefined && owner !== phase) throw new WrongPhaseError(key, owner, phase);
}

/** Which phases run is settled at `project new`: a later `enabled` change (but to its own value) is refused. */
export function checkEnabledChange(type: ProjectType, project: ProjectState, name: string, value: boolean): void {
  const def = phaseDef(type, name);
  const phase = phaseOf(project, name);
  if (phase.enabled === value) return;
  // Planning is the one phase a project may skip (initialProject), and only from the start.
  const skip = type.phases.some((p) => p.canDisable)
    ? "only planning can be skipped, and only when the project starts: 'sow project new <name> --no-planning'"
    : `every ${type.name} project runs all of its phases (${phaseNames(type).join(', ')})`;
  if (!value && !def.canDisable)
    throw new ReadOnlyFieldError(
      'enabled',
      `the ${name} phase always runs: ${def.whyRequired ?? `a ${type.name} project runs every one of its phases`}`,
      skip,
    );
  const where = value
    ? `the lifecycle has already passed the ${name} phase, which was skipped`
    : `the ${name} phase has already started`;
  throw new ReadOnlyFieldError('enabled', `which phases run is settled when the project starts, and ${where}`, skip);
}
