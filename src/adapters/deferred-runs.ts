/** A worker's run end sow could not record (another branch was checked out), kept in the runtime folder, where no
 * commit can put one, for the next command on the project's branch (app/deferred-runs.ts). */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { readConfined } from './confine.js';
import { writeFileAtomic } from './fs-atomic.js';
import { quietly } from './io-errors.js';
import { ensureRuntimeDir, runtimeBase, runtimeFolder } from './runtime.js';
import type { UsageEntry } from '../domain/schemas.js';

const FOLDER = 'deferred-runs';
const LIMITS = { max: 64 * 1024, what: 'deferred run records', why: 'a record of a run takes a few hundred bytes' };

const TEXT = v.pipe(v.string(), v.minLength(1), v.maxLength(400));

/** A run's end as sow wrote it; a file of another shape is left alone. */
const RUN = v.object({
  version: v.literal(1),
  /** Which project a run belonged to: its name and creation time say which, its branch where it lives. */
  project: v.object({ name: TEXT, created_at: TEXT, branch: TEXT }),
  /** The task the worker ran on; absent for a worker of the project. */
  task: v.optional(TEXT),
  agent_id: TEXT,
  /** The sow process that owned the task while the worker ran. */
  pid: v.pipe(v.number(), v.safeInteger()),
  /** What was checked out when the run ended (absent: a detached HEAD). */
  checked_out: v.optional(v.string()),
  /** The ledger entry, as it would have been written then. */
  entry: v.custom<UsageEntry>((e) => v.is(TEXT, (e as Partial<UsageEntry> | null)?.at)),
});
export type DeferredRun = v.InferOutput<typeof RUN>;
export type ProjectIdentity = DeferredRun['project'];

/** Keeps a run's end until it can be recorded; returns the record's file. */
export function deferRun(root: string, run: DeferredRun): string {
  const name = `${run.entry.at.replace(/[-:.]/g, '')}-${run.agent_id.replace(/[^\w-]/g, '_')}-${process.pid}.json`;
  const path = join(ensureRuntimeDir(root, FOLDER), name);
  writeFileAtomic(path, `${JSON.stringify(run)}\n`);
  return path;
}

/** Whether any run waits to be recorded: a stat, on every command. */
export function hasDeferredRuns(root: string): boolean {
  const dir = quietly(() => runtimeFolder(root, FOLDER));
  return dir !== undefined && (quietly(() => readdirSync(dir)) ?? []).some((n) => n.endsWith('.json'));
}

/** The records waiting, oldest first, each with its file; a file that is not one sow wrote is left alone. */
export function deferredRuns(root: string): { file: string; run: DeferredRun }[] {
  const dir = runtimeFolder(root, FOLDER);
  if (!dir) return [];
  const area = { base: runtimeBase(root), name: "sow's runtime folder" };
  const out: { file: string; run: DeferredRun }[] = [];
  const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  for (const name of names.sort()) {
    const run = quietly(() => v.parse(RUN, JSON.parse(readConfined(area, `${FOLDER}/${name}`, LIMITS) ?? '')));
    if (run && run.entry.agent_id === run.agent_id) out.push({ file: join(dir, name), run });
  }
  return out;
}

/** Removes a record once what it says is written. */
export function removeDeferredRun(file: string): void {
  rmSync(file, { force: true });
}
