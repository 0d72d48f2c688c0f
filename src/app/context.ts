/** What a use case needs from the world (folder, environment, clock), given by its caller so tests run in-process. */
import { sep } from 'node:path';
import { projectFolderFor } from '../adapters/repo.js';
import { isoTime } from '../domain/time.js';

export interface AppContext {
  /** The folder the command runs in (the repository is found from it). */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The time now, as an ISO-8601 UTC timestamp. */
  now(): string;
}

/** The context of this process: its environment, the real clock, and its folder as workerFolder says. */
export function processContext(cwd: string = process.cwd()): AppContext {
  return { cwd: workerFolder(cwd, process.env), env: process.env, now: () => isoTime(Date.now()) };
}

// Where a command runs, for state: in a worker's own checkout, the same folder of the project checkout. Without
// SOW_PROJECT_ROOT, a worker's checkout is named by its place (projectFolderFor checks it with git).
export function workerFolder(cwd: string, env: AppContext['env']): string {
  const at = cwd.lastIndexOf(`${sep}.sow${sep}worktrees${sep}.workers${sep}`);
  const project = env['SOW_PROJECT_ROOT'] ?? (at > 0 ? cwd.slice(0, at) : undefined);
  return (project && projectFolderFor(cwd, project)) || cwd;
}
