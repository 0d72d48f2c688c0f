import { notOneOf } from '../errors.js';
import type { ProjectType } from '../project-type.js';

// The registry: adding a project type is one line here and one folder beside this file. Types load when first asked
// for: evaluating all five cost every command several million instructions.
const LOADERS: Readonly<Record<string, () => Promise<ProjectType>>> = {
  standard: async () => (await import('./standard/index.js')).standard,
  exploration: async () => (await import('./exploration/index.js')).exploration,
  design: async () => (await import('./design/index.js')).design,
  breakdown: async () => (await import('./breakdown/index.js')).breakdown,
  iterative: async () => (await import('./iterative/index.js')).iterative,
};

/** The names of the project types, without loading any. */
export const PROJECT_TYPE_NAMES: readonly string[] = Object.keys(LOADERS);

/** The type of a project that names none. */
export const DEFAULT_TYPE = 'standard';

/** The project type of that name, loaded alone; undefined for a name that is none. */
export async function loadProjectType(name: string): Promise<ProjectType | undefined> {
  return Object.hasOwn(LOADERS, name) ? LOADERS[name]!() : undefined;
}

/** The project type of that name; a name that is none is refused, naming the types there are. */
export async function projectType(name: string): Promise<ProjectType> {
  const type = await loadProjectType(name);
  if (!type) throw notOneOf('project type', name, PROJECT_TYPE_NAMES);
  return type;
}

/** Every project type, in the registry's order (help, completion, what needs them all). */
export const allProjectTypes = (): Promise<ProjectType[]> =>
  Promise.all(PROJECT_TYPE_NAMES.map((name) => LOADERS[name]!()));

/** The type named (--type), else the one a branch's prefix implies (`explore/x` → exploration), else the default. */
export async function typeFor(name: string | undefined, branch: string | undefined): Promise<ProjectType> {
  if (name !== undefined) return projectType(name);
  const types = branch === undefined ? [] : await allProjectTypes();
  return types.find((t) => branch?.startsWith(t.branchPrefix)) ?? projectType(DEFAULT_TYPE);
}

export type { ProjectType } from '../project-type.js';
