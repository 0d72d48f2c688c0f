/** `sow phase set|get`: fields and metadata of a phase (default: the one in progress). */
import type { AppContext } from './context.js';
import { coerceField, lookupField, own, parseValue, resolveField, setAtPath } from '../domain/fields.js';
import {
  checkEnabledChange,
  checkMetadataOwner,
  PHASE_FIELDS,
  phaseDef,
  phaseMetadataOwners,
  phaseOf,
  selectPhase,
  withPhase,
} from '../domain/phases.js';
import { Reader, update } from './workspace.js';
import { type UnitOfWork } from './unit-of-work.js';
import { approvalNotHere, nothingToApprove, taskApprovalRecord } from '../domain/approvals.js';
import type { ProjectType } from '../domain/project-type.js';
import type { ProjectState } from '../domain/schemas.js';
import { taskRow } from './ownership.js';

export async function setPhaseField(ctx: AppContext, field: string, raw: string, requested?: string) {
  return update(ctx, async (uow) => {
    const project = await uow.project();
    const type = await uow.type();
    const name = selectPhase(type, project, requested);
    const def = phaseDef(type, name);
    const phase = phaseOf(project, name);
    const resolved = resolveField(field, PHASE_FIELDS, `the ${name} phase`, phaseMetadataOwners(type).keys());
    if (resolved.where === 'field') {
      const value = coerceField(resolved.name, raw, resolved.spec);
      if (resolved.name === 'enabled') checkEnabledChange(type, project, name, value === true);
      uow.setProject(withPhase(project, name, { ...phase, [resolved.name]: value }));
      return { phase: name, field: resolved.name, value };
    }
    const key = resolved.path.join('.');
    const approval = type.taskApproval;
    // The tasks' approval is a person's word on the tasks as they are, recorded with what it covered.
    if (approval && key === approval.key) {
      const { value: approved, metadata } = await approveTasks(uow, type, project, name, raw);
      uow.setProject(withPhase(project, approval.phase, { ...phaseOf(project, approval.phase), metadata }));
      return { phase: approval.phase, field: `metadata.${key}`, value: approved };
    }
    checkMetadataOwner(type, name, key);
    // A key sow keeps itself (readonly) cannot be reached through one of its parts either.
    const top = own(def.metadata, resolved.path[0]!);
    const spec = top?.kind === 'readonly' ? top : own(def.metadata, key);
    const value = spec ? coerceField(key, raw, spec) : parseValue(raw);
    uow.setProject(
      withPhase(project, name, { ...phase, metadata: setAtPath({ ...phase.metadata }, resolved.path, value) }),
    );
    return { phase: name, field: `metadata.${key}`, value };
  });
}

// `phase set tasks_approved <value>`: only in the state that asks for it, and true only with tasks; true records what
// it covers, false drops that record.
async function approveTasks(uow: UnitOfWork, type: ProjectType, project: ProjectState, phase: string, raw: string) {
  const def = type.taskApproval!;
  // A mistake of the command line (wrong phase, not a boolean) before one of the moment.
  checkMetadataOwner(type, phase, def.key);
  const value = coerceField(def.key, raw, { kind: 'boolean' }) as boolean;
  if (project.statechart.current_state !== def.state) throw approvalNotHere(def, project);
  const { [def.record]: _covered, ...metadata } = phaseOf(project, def.phase).metadata;
  if (!value) return { value, metadata: { ...metadata, [def.key]: false } };
  const tasks = await uow.tasks();
  if (tasks.length === 0) throw nothingToApprove(def);
  return {
    value,
    metadata: {
      ...metadata,
      [def.key]: true,
      [def.record]: taskApprovalRecord(tasks, def.phase, (rel) => uow.readDoc(rel)),
    },
  };
}

export async function getPhaseField(ctx: AppContext, field: string, requested?: string) {
  return Reader.read(ctx, async (reader) => {
    const name = selectPhase(reader.type, reader.project, requested);
    const phase = phaseOf(reader.project, name);
    const def = phaseDef(reader.type, name);
    if (field === 'tasks' && def.hasTasks)
      return { phase: name, field: 'tasks', value: (await reader.tasks()).map((t) => taskRow(t, reader.ctx.now())) };
    // A phase written before sow recorded its name still has one: its key.
    if (field === 'name') return { phase: name, field: 'name', value: name };
    const key = field.startsWith('metadata.') ? field.slice('metadata.'.length) : field;
    if (!Object.hasOwn(PHASE_FIELDS, key)) checkMetadataOwner(reader.type, name, key);
    const owners = phaseMetadataOwners(reader.type).keys();
    return { phase: name, ...lookupField(phase, field, PHASE_FIELDS, def.metadata ?? {}, `the ${name} phase`, owners) };
  });
}
