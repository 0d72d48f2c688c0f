/**
 * The data of the results the two front ends share — the CLI's `--json` and the tools of
 * `sow mcp` — where it is not the use case's return value as it is. One shape, so an agent gets
 * the same JSON whichever way it asks.
 */
import type { Artifact, Owner, TaskState } from '../domain/schemas.js';
import type { CheckRun } from './checks.js';

/** `task next --claim`: the claimed task's id first, for scripts. */
export function claimData(r: { task: TaskState; owner: Owner }): { id: string; task: TaskState; owner: Owner } {
  return { id: r.task.id, task: r.task, owner: r.owner };
}

/**
 * `task set`: the field as set; a completion also says what its task_complete checks did; a
 * status the task had already, `unchanged: true` (nothing was written).
 */
export function taskSetData(r: { id: string; field: string; value: unknown; checks?: CheckRun[]; unchanged?: true }): {
  id: string;
  field: string;
  value: unknown;
  checks?: CheckRun[];
  unchanged?: true;
} {
  return { id: r.id, field: r.field, value: r.value, ...(r.checks ? { checks: r.checks } : {}), ...(r.unchanged ? { unchanged: true as const } : {}) };
}

/** `input|output list`: each artifact with its index, which set and remove take. */
export function artifactListData(artifacts: readonly Artifact[]): (Artifact & { index: number })[] {
  return artifacts.map((a, i) => ({ index: i, ...a }));
}
