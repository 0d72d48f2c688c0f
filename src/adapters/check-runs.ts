/** Checks run in the background (`check run --detach`), each in `check-runs/<id>/`. The record names the pid with its
 * start time, boot and pid namespace, so `check wait` can tell it still runs without trusting a pid. */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import type { ProcessRef } from '../domain/signal-proof.js';
import { processGone } from './liveness.js';
import { processRecord } from './signals.js';
import { ensureRuntimeDir, runtimePath } from './runtime.js';
import { pickShape } from './record-shape.js';
import { readOwnJson, removeRunFolder, runFolders, type SupervisorFiles } from './supervisor.js';

const FOLDER = 'check-runs';
/** The variable that tells a detached `sow check run` where to write its record. */
export const RUNNER_VARIABLE = 'SOW_CHECK_RUNNER';
/** Finished runs kept (their logs, to look at); older ones go when a new run starts. */
const KEEP_FINISHED = 20;

/** What a detached check runner says of itself: the checks it runs, in order, and where their evidence goes (a task,
 * or the phase in progress). */
type Runner = { checks: string[]; task?: string; phase?: string; started_at: string };
export type RunnerRecord = ProcessRef & Runner & { pgrp?: number; nonce: string };

const filesIn = (dir: string): SupervisorFiles => ({
  dir,
  ready: join(dir, 'runner.json'),
  result: join(dir, 'result.json'),
  log: join(dir, 'runner.log'),
});

export const checkRunFiles = (root: string, id: string) => filesIn(ensureRuntimeDir(root, join(FOLDER, id)));

/** In the runner: its record, once past every refusal, at the path the starter named, written whole (a rename, which
 * replaces a link rather than writing through it). The path is a variable's: checked to be a run folder of ours. */
export function announceRunner(root: string, path: string | undefined, what: Runner): void {
  const base = `${runtimePath(root, FOLDER)}/`;
  if (path?.startsWith(base) && /^[A-Za-z0-9_-]+\/runner\.json$/.test(path.slice(base.length)))
    writeFileAtomic(path, `${JSON.stringify(processRecord(what))}\n`, { durable: false });
}

/** The record, if it has exactly the form sow writes. */
export const readRunnerRecord = (path: string): RunnerRecord | undefined =>
  pickShape<RunnerRecord>(
    readOwnJson(path),
    { pid: 'int', host: 'string', started_at: 'string', nonce: 'string', checks: 'strings' },
    { pstart: 'int', pgrp: 'int', boot: 'string', pidns: 'string', task: 'string', phase: 'string' },
  );

/** Whether the record's process runs now (pid, start time, boot and pid namespace agree). */
export function runnerRunning(record: RunnerRecord): boolean {
  return processGone(record) === false;
}

export interface CheckRunFolder {
  id: string;
  files: SupervisorFiles;
  record: RunnerRecord;
}

/** The detached check runs of this checkout that recorded themselves, oldest first. */
export function checkRuns(root: string): CheckRunFolder[] {
  return runFolders(root, FOLDER).flatMap(({ name, dir }) => {
    const files = filesIn(dir);
    const record = readRunnerRecord(files.ready);
    return record ? [{ id: name, files, record }] : [];
  });
}

/** Removes the folders of all but the newest finished runs (and runs with no runner after an hour). Best effort. */
export function pruneCheckRuns(root: string, now: number): void {
  const finished = runFolders(root, FOLDER)
    .reverse()
    .filter(({ dir }) => {
      const record = readRunnerRecord(join(dir, 'runner.json'));
      if (record) return !runnerRunning(record);
      return now - (lstatSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? now) > 3_600_000;
    });
  for (const { dir } of finished.slice(KEEP_FINISHED)) removeRunFolder(root, FOLDER, dir);
}
