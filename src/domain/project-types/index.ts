import { UsageError } from '../errors.js';
import type { ProjectType } from './types.js';
import { standard } from './standard/index.js';

/** The registry: adding a project type is one line here and one folder beside this file. */
export const PROJECT_TYPES: Readonly<Record<string, ProjectType>> = { standard };

export function projectType(name: string): ProjectType {
  const type = Object.hasOwn(PROJECT_TYPES, name) ? PROJECT_TYPES[name] : undefined;
  if (!type) throw new UsageError(`unknown project type '${name}'`, `known types: ${Object.keys(PROJECT_TYPES).join(', ')}`);
  return type;
}

export type { ProjectType } from './types.js';
