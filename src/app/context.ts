/**
 * What a use case needs from the world it runs in — the folder, the environment, the clock — given to it instead of
 * read from globals, so that `app/` runs in-process under a test with a fixed clock and the environment of a worker,
 * and the CLI, `sow mcp` and a long-lived server each say where a call runs. The CLI makes one per command
 * (`processContext`); tests make their own.
 *
 * Every use case takes an `AppContext`, built by its caller; none takes a bare folder.
 */
import { sep } from 'node:path';
import { projectFolderFor } from '../adapters/repo.js';

export interface AppContext {
  /** The folder the command runs in (the repository is found from it). */
  readonly cwd: string;
  /** The environment: SOW_AGENT_ID, SOW_SESSION_ID, SOW_TASK_ID, SOW_OWNER, SOW_LOCK_TIMEOUT … */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The time now, as an ISO-8601 UTC timestamp (what state files record). */
  now(): string;
}

/**
 * The context of this process: its environment and the real clock. A worker spawned in a checkout of its own
 * (SOW_PROJECT_ROOT names the project checkout) acts on the project checkout's state: its folder there stands in for
 * the one it runs in (see workerFolder).
 */
export function processContext(cwd: string = process.cwd()): AppContext {
  return { cwd: workerFolder(cwd, process.env), env: process.env, now: () => new Date().toISOString() };
}

/**
 * Where a command runs, for state: in a worker's own checkout (a linked worktree of the project's repository, as git
 * lists it), the same folder of the project checkout that SOW_PROJECT_ROOT names, so that its task state has one truth;
 * anywhere else, `cwd` itself.
 */
export function workerFolder(cwd: string, env: AppContext['env']): string {
  const project = env['SOW_PROJECT_ROOT'] ?? checkoutHolding(cwd);
  return (project && projectFolderFor(cwd, project)) || cwd;
}

/**
 * A person (or a script) at a terminal in a worker's checkout has no SOW_PROJECT_ROOT: the checkout's place names its
 * project checkout (`<project>/.sow/worktrees/.workers/<name>`), so `sow task list` there shows the tasks as they are,
 * not the checkout's old copy of them. Only a string test here; projectFolderFor checks with git's records that it
 * really is one.
 */
function checkoutHolding(cwd: string): string | undefined {
  const at = cwd.lastIndexOf(`${sep}.sow${sep}worktrees${sep}.workers${sep}`);
  return at > 0 ? cwd.slice(0, at) : undefined;
}
