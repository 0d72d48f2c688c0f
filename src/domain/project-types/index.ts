import { notOneOf } from '../errors.js';
import type { ProjectType } from '../project-type.js';
import { standard } from './standard/index.js';
import { exploration } from './exploration/index.js';
import { design } from './design/index.js';
import { breakdown } from './breakdown/index.js';
import { iterative } from './iterative/index.js';

/** The registry: adding a project type is one line here and one folder beside this file. */
export const PROJECT_TYPES: Readonly<Record<string, ProjectType>> = { standard, exploration, design, breakdown, iterative };

/** The type of a project that names none. */
export const DEFAULT_TYPE = 'standard';

export function projectType(name: string): ProjectType {
  const type = Object.hasOwn(PROJECT_TYPES, name) ? PROJECT_TYPES[name] : undefined;
  if (!type) throw notOneOf('project type', name, Object.keys(PROJECT_TYPES));
  return type;
}

/** The type a branch's prefix implies (`explore/x` → exploration), if one does. */
export function typeOfBranch(branch: string | undefined): ProjectType | undefined {
  return branch === undefined ? undefined : Object.values(PROJECT_TYPES).find((t) => branch.startsWith(t.branchPrefix));
}

export type { ProjectType } from '../project-type.js';
