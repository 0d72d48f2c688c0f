/** The data of results the CLI's `--json` and `sow mcp` share: one shape, whichever way an agent asks. */
import type { Artifact, Owner, TaskState } from '../domain/schemas.js';
import type { CheckRun } from './checks.js';
import type { TaskNeeds } from './task.js';

/** A task as `task get` and a claim give it: its description after its name, and nothing empty. */
export function taskData(task: TaskState, description: string | undefined) {
  const { id, name, ...rest } = task;
  return withoutEmpty({ id, name, ...(description !== undefined ? { description } : {}), ...rest });
}

/** `task next --claim`: the claimed task's id first, for scripts; the task with its description; what it needs. */
export function claimData(
  r: { task: TaskState; owner: Owner },
  brief: { description?: string; needs?: TaskNeeds } = {},
) {
  const needs = brief.needs && Object.keys(brief.needs).length ? brief.needs : undefined;
  return {
    id: r.task.id,
    task: taskData(r.task, brief.description),
    owner: withoutEmpty(r.owner),
    ...(needs ? { needs } : {}),
  };
}

/** `task set`: the field as set, what a completion's checks did, and `unchanged: true` when nothing was written. */
export function taskSetData({ id, field, value, checks, unchanged }: TaskSet): TaskSet {
  return { id, field, value, ...(checks ? { checks } : {}), ...(unchanged ? { unchanged } : {}) };
}
type TaskSet = { id: string; field: string; value: unknown; checks?: CheckRun[]; unchanged?: true };

/** `input|output list`: each artifact with its index, which set and remove take. */
export function artifactListData(artifacts: readonly Artifact[]): (Artifact & { index: number })[] {
  return artifacts.map((a, i) => ({ index: i, ...a }));
}

// A result without keys that say nothing (null, undefined, empty lists and objects), at every depth but inside lists
// (an artifact's `exit_code: null` is said on purpose). An agent pays for every token it reads.
export function withoutEmpty<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => compactObject(v)) as T;
  return compactObject(value);
}

function compactObject<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v)) {
      if (v.length) out[key] = v;
      continue;
    }
    const kept = compactObject(v);
    if (typeof kept === 'object' && kept !== null && Object.keys(kept).length === 0) continue;
    out[key] = kept;
  }
  return out as T;
}
