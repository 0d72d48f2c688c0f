import type { ProjectType } from '../project-type.js';

/**
 * The registry again, each type loaded when first asked for: a command that reads or writes the
 * project needs the project's own type, and evaluating all five (their lifecycles, prompts and
 * schemas) cost every such command several million instructions (docs/decisions/0044). The
 * registry (index.ts) holds them all, for what needs every type; a test checks that the two list
 * the same types.
 */
const LOADERS: Readonly<Record<string, () => Promise<ProjectType>>> = {
  standard: async () => (await import('./standard/index.js')).standard,
  exploration: async () => (await import('./exploration/index.js')).exploration,
  design: async () => (await import('./design/index.js')).design,
  breakdown: async () => (await import('./breakdown/index.js')).breakdown,
  iterative: async () => (await import('./iterative/index.js')).iterative,
};

/** The names of the project types, without loading any. */
export const PROJECT_TYPE_NAMES: readonly string[] = Object.keys(LOADERS);

/** The project type of that name, loaded alone; undefined for a name that is none. */
export async function loadProjectType(name: string): Promise<ProjectType | undefined> {
  return Object.hasOwn(LOADERS, name) ? LOADERS[name]!() : undefined;
}
