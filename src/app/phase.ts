import { PhaseNotActiveError, PhaseNotFoundError, ReadOnlyFieldError } from '../domain/errors.js';
import { coerceField, lookupField, parseValue, resolveField, setAtPath, type FieldSpec } from '../domain/fields.js';
import { phaseOf, withPhase } from '../domain/project-types/phase-ops.js';
import type { ProjectType } from '../domain/project-types/types.js';
import type { Phase, ProjectState } from '../domain/schemas.js';
import { Reader, update } from './workspace.js';

/** `--phase` if given (and known), else the phase in progress. */
export function selectPhase(type: ProjectType, project: ProjectState, requested?: string): string {
  const names = type.phases.map((p) => p.name);
  if (requested !== undefined) {
    if (!names.includes(requested)) throw new PhaseNotFoundError(requested, names);
    return requested;
  }
  const current = names.find((n) => project.phases[n]?.status === 'in_progress');
  if (!current) {
    throw new PhaseNotActiveError(`no phase is in progress (state ${project.statechart.current_state})`, `name one with --phase (${names.join(', ')})`);
  }
  return current;
}

const PHASE_FIELDS: Record<string, FieldSpec> = {
  status: { kind: 'readonly', why: "phase statuses follow the lifecycle; only 'sow advance' changes them", hint: "run 'sow advance'" },
  enabled: { kind: 'boolean' },
  iteration: { kind: 'integer', min: 1 },
  created_at: { kind: 'readonly', why: 'it records when the phase was created' },
  started_at: { kind: 'readonly', why: 'it follows the lifecycle' },
  completed_at: { kind: 'readonly', why: 'it follows the lifecycle' },
  inputs: { kind: 'readonly', why: 'it is a list of artifacts', hint: "use 'sow input add|set|remove'" },
  outputs: { kind: 'readonly', why: 'it is a list of artifacts', hint: "use 'sow output add|set|remove'" },
  tasks: { kind: 'readonly', why: 'it summarises the tasks', hint: "use 'sow task add|set'" },
};

export async function setPhaseField(cwd: string, field: string, raw: string, requested?: string): Promise<{ phase: string; field: string; value: unknown }> {
  return update(cwd, async (uow) => {
    const project = await uow.project();
    const type = await uow.type();
    const name = selectPhase(type, project, requested);
    const def = type.phases.find((p) => p.name === name)!;
    const phase = phaseOf(project, name);
    const resolved = resolveField(field, PHASE_FIELDS);
    let next: Phase;
    let label: string;
    let value: unknown;
    if (resolved.where === 'field') {
      value = coerceField(resolved.name, raw, resolved.spec);
      if (resolved.name === 'enabled') {
        if (value === false && !def.canDisable) throw new ReadOnlyFieldError('enabled', `the ${name} phase cannot be disabled${name === 'review' ? ' (review is mandatory, ADR-012)' : ''}`);
        if (phase.status !== 'pending') throw new ReadOnlyFieldError('enabled', `the ${name} phase has already started`);
      }
      next = { ...phase, [resolved.name]: value };
      label = resolved.name;
    } else {
      const key = resolved.path.join('.');
      const spec = def.metadata?.[key];
      value = spec ? coerceField(key, raw, spec) : parseValue(raw);
      next = { ...phase, metadata: setAtPath({ ...phase.metadata }, resolved.path, value) };
      label = `metadata.${key}`;
    }
    uow.setProject(withPhase(project, name, next));
    return { phase: name, field: label, value };
  });
}

export async function getPhaseField(cwd: string, field: string, requested?: string): Promise<{ phase: string; field: string; value: unknown }> {
  const reader = await Reader.open(cwd);
  const name = selectPhase(reader.type, reader.project, requested);
  const phase = phaseOf(reader.project, name);
  const def = reader.type.phases.find((p) => p.name === name);
  const { field: label, value } = lookupField(phase, field, PHASE_FIELDS, def?.metadata ?? {}, `the ${name} phase`);
  return { phase: name, field: label, value };
}
