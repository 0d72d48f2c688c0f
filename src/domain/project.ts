/** The project container: its name rule, its fields, and a new project's first state. */
import { quoted } from './display.js';
import { InvalidNameError, UsageError } from './errors.js';
import { readOnly, type FieldSpec } from './fields.js';
import type { ProjectType } from './project-type.js';
import type { ProjectState } from './schemas.js';

export const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const PROJECT_NAME_RULE = 'lower-case letters, digits and single dashes (at most 64 characters)';

export const isProjectName = (name: string): boolean => NAME_PATTERN.test(name) && name.length <= 64;

/** A project name given on the command line (`sow project new <name>`). */
export function checkProjectName(name: string): string {
  if (!isProjectName(name)) throw new InvalidNameError('project name', name, `use ${PROJECT_NAME_RULE}`);
  return name;
}

export const PROJECT_FIELDS: Record<string, FieldSpec> = {
  name: { kind: 'string', nonEmpty: true },
  description: { kind: 'string' },
  type: readOnly('a project keeps its type'),
  // Moving a project to the branch that is checked out is allowed (a renamed branch); the app checks it.
  branch: { kind: 'string', nonEmpty: true },
  base_branch: { kind: 'string', nonEmpty: true },
  created_at: readOnly('it records when the project was created'),
  updated_at: readOnly('sow keeps it current'),
  statechart: readOnly("only 'sow advance' moves the state machine", "run 'sow advance'"),
  phases: readOnly('phases are set one field at a time', "use 'sow phase set <field> <value> --phase <name>'"),
  metadata: readOnly('it is a map', "set one key of it, e.g. 'metadata.owner'"),
};

export interface NewProjectSpec {
  name: string;
  description: string;
  branch: string;
  baseBranch?: string | undefined;
  planning: boolean;
}

/** `--no-planning` for a type whose planning cannot be skipped: a flag that does not go with the type (exit 2). */
export function checkPlanning(type: ProjectType, planning: boolean): void {
  if (!planning && !type.phases.some((p) => p.name === 'planning' && p.canDisable))
    throw new UsageError(`the ${type.name} project type cannot skip planning`, 'leave out --no-planning');
}

/** A project in the type's initial state, before `project_init` fires (its name and planning checked by the caller). */
export function initialProject(type: ProjectType, spec: NewProjectSpec, now: string): ProjectState {
  const phases: ProjectState['phases'] = {};
  for (const phase of type.phases) {
    phases[phase.name] = {
      name: phase.name,
      status: 'pending',
      enabled: !(phase.name === 'planning' && !spec.planning),
      iteration: 1,
      created_at: now,
      metadata: {},
      inputs: [],
      outputs: [],
    };
  }
  return {
    name: spec.name,
    type: type.name,
    description: spec.description,
    branch: spec.branch,
    ...(spec.baseBranch !== undefined ? { base_branch: spec.baseBranch } : {}),
    created_at: now,
    updated_at: now,
    statechart: { current_state: type.initialState, updated_at: now, history: [] },
    phases,
  };
}

/** What the schema cannot see (a state or phase the type lacks): the first problem, with its field path. */
export function projectProblem(type: ProjectType, project: ProjectState) {
  const state = project.statechart.current_state;
  if (!Object.hasOwn(type.states, state) || type.states[state]!.final) {
    const valid = Object.keys(type.states).filter((s) => !type.states[s]!.final);
    return {
      path: 'statechart.current_state',
      message: `'${state}' is not a state of the ${type.name} lifecycle (states: ${valid.join(', ')})`,
    };
  }
  for (const phase of type.phases) {
    if (!Object.hasOwn(project.phases, phase.name))
      return {
        path: `phases.${phase.name}`,
        message: `the ${type.name} project type has a ${phase.name} phase, and the file lacks it`,
      };
  }
  for (const [name, phase] of Object.entries(project.phases)) {
    if (!type.phases.some((p) => p.name === name))
      return {
        path: `phases.${name}`,
        message:
          `the ${type.name} project type has no ${name} phase ` +
          `(phases: ${type.phases.map((p) => p.name).join(', ')})`,
      };
    if (phase.name !== undefined && phase.name !== name)
      return {
        path: `phases.${name}.name`,
        message: `the ${name} phase is named ${quoted(phase.name)}; a phase's name is its key under phases`,
      };
  }
  return type.validate?.(project);
}
