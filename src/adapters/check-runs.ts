/**
 * Checks run in the background (`sow check run --detach`): this sow started again in its own session, each run in
 * the runtime folder's `check-runs/<id>/` (runner.json, result.json, runner.log). The record names the pid with its
 * start time, boot and pid namespace, so `sow check wait` can tell it still runs without trusting a pid.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { processGone, processStat, thisProcess, type ProcessRef } from './liveness.js';
import { ensureRuntimeDir, runtimeFolder, runtimePath } from './runtime.js';
import type { SupervisorFiles } from './supervisor.js';

const FOLDER = 'check-runs';
/** The variable that tells a detached `sow check run` where to write its record. */
export const RUNNER_VARIABLE = 'SOW_CHECK_RUNNER';
/** A record is a few hundred bytes, an envelope some tens of KB; anything larger is not sow's. */
const RECORD_MAX = 64 * 1024;
const RESULT_MAX = 8 * 1024 * 1024;
/** Finished runs kept (their logs, to look at); older ones go when a new run starts. */
const KEEP_FINISHED = 20;

/** What a detached check runner says of itself. */
export interface RunnerRecord extends ProcessRef {
  pgrp?: number;
  /** The checks it runs, in order. */
  checks: string[];
  /** Where the evidence goes: a task, or the phase in progress. */
  task?: string;
  phase?: string;
  started_at: string;
  nonce: string;
}

export function checkRunFiles(root: string, id: string): SupervisorFiles {
  const dir = ensureRuntimeDir(root, join(FOLDER, id));
  return { dir, ready: join(dir, 'runner.json'), result: join(dir, 'result.json'), log: join(dir, 'runner.log') };
}

/** Whether `path` is the record file of a run folder of this checkout (a variable is checked, never trusted). */
export function isRunnerFile(root: string, path: string): boolean {
  const base = runtimePath(root, FOLDER);
  const rest = path.startsWith(`${base}/`) ? path.slice(base.length + 1) : '';
  return /^[A-Za-z0-9_-]+\/runner\.json$/.test(rest);
}

/** Written by the runner, whole (a rename, which replaces a link rather than writing through it). */
export function writeRunnerRecord(
  path: string,
  what: { checks: string[]; task?: string; phase?: string; started_at: string },
): RunnerRecord {
  const me = thisProcess();
  const pgrp = processStat(me.pid)?.pgrp;
  const record: RunnerRecord = {
    ...me,
    ...(pgrp !== undefined ? { pgrp } : {}),
    ...what,
    nonce: randomBytes(16).toString('hex'),
  };
  writeFileAtomic(path, `${JSON.stringify(record)}\n`, { durable: false });
  return record;
}

/** In the runner: its record, once past every refusal, at the path the starter named (a run folder of ours only). */
export function announceRunner(
  root: string,
  path: string | undefined,
  what: { checks: string[]; task?: string; phase?: string; started_at: string },
): void {
  if (path !== undefined && isRunnerFile(root, path)) writeRunnerRecord(path, what);
}

/** A file of the run folder, read without following a link, within `max` bytes; undefined when not a file. */
function readOwn(path: string, max: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return undefined;
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** The record, if it has exactly the form sow writes. */
export function readRunnerRecord(path: string): RunnerRecord | undefined {
  const text = readOwn(path, RECORD_MAX);
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  const int = (k: string) => typeof r[k] === 'number' && Number.isSafeInteger(r[k]);
  const optional = (k: string, t: 'string' | 'number') =>
    r[k] === undefined || (t === 'number' ? int(k) : typeof r[k] === 'string');
  if (
    !int('pid') ||
    typeof r['host'] !== 'string' ||
    typeof r['started_at'] !== 'string' ||
    typeof r['nonce'] !== 'string'
  )
    return undefined;
  if (!Array.isArray(r['checks']) || !r['checks'].every((c) => typeof c === 'string')) return undefined;
  if (
    !optional('pstart', 'number') ||
    !optional('pgrp', 'number') ||
    !optional('boot', 'string') ||
    !optional('pidns', 'string') ||
    !optional('task', 'string') ||
    !optional('phase', 'string')
  )
    return undefined;
  return r as unknown as RunnerRecord;
}

/** The runner's `--json` envelope, once it wrote a whole one. */
export function readRunResult(
  path: string,
):
  | { ok?: boolean; data?: unknown; error?: { code: string; message: string; hint?: string; details?: unknown } }
  | undefined {
  const text = readOwn(path, RESULT_MAX);
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as { ok?: boolean }) : undefined;
  } catch {
    return undefined; // still being written
  }
}

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
  const base = runtimeFolder(root, FOLDER);
  if (!base) return [];
  const out: CheckRunFolder[] = [];
  for (const entry of readdirSync(base, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    // Only real folders: a link here leads somewhere sow did not make.
    if (!entry.isDirectory()) continue;
    const dir = join(base, entry.name);
    const files = {
      dir,
      ready: join(dir, 'runner.json'),
      result: join(dir, 'result.json'),
      log: join(dir, 'runner.log'),
    };
    const record = readRunnerRecord(files.ready);
    if (record) out.push({ id: entry.name, files, record });
  }
  return out;
}

/**
 * Removes the folders of all but the newest finished runs (and runs with no runner after an hour); only real
 * folders, rechecked right before. Best effort.
 */
export function pruneCheckRuns(root: string, now: number): void {
  const base = runtimeFolder(root, FOLDER);
  if (!base) return;
  const finished: string[] = [];
  for (const entry of readdirSync(base, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? 1 : a.name > b.name ? -1 : 0,
  )) {
    if (!entry.isDirectory()) continue;
    const dir = join(base, entry.name);
    const record = readRunnerRecord(join(dir, 'runner.json'));
    if (record ? !runnerRunning(record) : now - (lstatSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? now) > 3_600_000)
      finished.push(dir);
  }
  for (const dir of finished.slice(KEEP_FINISHED)) {
    if (runtimeFolder(root, FOLDER) !== base || !lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
    rmSync(dir, { recursive: true, force: true });
  }
}
