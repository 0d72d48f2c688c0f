/**
 * A detached worker's supervisor: this sow started again as `sow agent spawn …` in its own session (setsid), output
 * to files under the runtime folder's `supervisors/<id>/`, so it outlives its starter. It does what a blocking spawn
 * does and tells the starter through a ready file once the session is recorded.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { readConfined } from './confine.js';
import { ensureRuntimeDir, runtimeBase, runtimeFolder, runtimePath } from './runtime.js';

/** A worker's events: a long run writes tens of MB. */
const EVENTS_LIMITS = {
  max: 256 * 1024 * 1024,
  what: 'event files',
  why: 'a worker run writes at most some tens of MB of events',
};

/** The variable that tells a supervised `sow agent spawn` where to say it has started. */
export const READY_VARIABLE = 'SOW_SUPERVISOR_READY';

export interface SupervisorFiles {
  dir: string;
  /** Written by the supervisor once the session is recorded: who, on what, its pid. */
  ready: string;
  /** The supervisor's stdout: its `--json` result (or refusal) when it ends. */
  result: string;
  /** The supervisor's stderr: its progress view of the worker, warnings. */
  log: string;
}

export function supervisorFiles(root: string, id: string): SupervisorFiles {
  const dir = ensureRuntimeDir(root, join('supervisors', id));
  return { dir, ready: join(dir, 'ready.json'), result: join(dir, 'result.json'), log: join(dir, 'supervisor.log') };
}

/** Whether `path` is a ready file of this repository's supervisors (a variable is checked, never trusted). */
export function isReadyFile(root: string, path: string): boolean {
  const base = runtimePath(root, 'supervisors');
  return path.startsWith(`${base}/`) && path.endsWith('/ready.json') && !path.slice(base.length).includes('..');
}

/** Writes the ready file whole (a rename), so the starter never reads half of it. */
export function writeReady(path: string, data: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data));
  renameSync(tmp, path);
}

export interface Started {
  pid: number;
  /** Settles with the supervisor's exit code (null after a signal) — only while the starter waits. */
  exited: Promise<number | null>;
}

/** Starts `node <script> <args>` detached (own session, output to the files); `variable` names files.ready to it. */
export function startDetached(
  script: string,
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  files: SupervisorFiles,
  variable: string = READY_VARIABLE,
): Started {
  const out = openSync(files.result, 'w');
  const err = openSync(files.log, 'w');
  try {
    const child = spawn(process.execPath, [script, ...args], {
      cwd,
      env: { ...env, [variable]: files.ready },
      detached: true,
      stdio: ['ignore', out, err],
    });
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.once('error', () => resolve(-1));
    });
    child.unref();
    return { pid: child.pid ?? -1, exited };
  } finally {
    closeSync(out);
    closeSync(err);
  }
}

/** The ready file's content, once it is there. */
export function readReady(path: string): unknown {
  let fd: number;
  try {
    // O_NOFOLLOW: the runtime folder may have come with the repository; a link there is not followed.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    return JSON.parse(readFileSync(fd, 'utf8')) as unknown;
  } finally {
    closeSync(fd);
  }
}

/** The supervisor's `--json` envelope, when it wrote a whole one. */
type Envelope = { ok?: boolean; error?: { code: string; message: string; hint?: string } };
export function readEnvelope(path: string): Envelope | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Envelope;
  } catch {
    return undefined;
  }
}

/** A detached worker this repository started: what its ready file says, and whether a wait has reported it. */
export interface SupervisedRun {
  dir: string;
  ready: { task?: string; agent_id: string; pid: number; events_file?: string };
  waited: boolean;
}

/** The detached workers of this repository, oldest first (their folders are named by start time). */
export function supervisedRuns(root: string): SupervisedRun[] {
  const base = runtimeFolder(root, 'supervisors');
  if (!base) return [];
  const out: SupervisedRun[] = [];
  const entries = readdirSync(base, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    // Only real folders: a link here (committed with the repository) leads somewhere sow did not make.
    if (!entry.isDirectory()) continue;
    const dir = join(base, entry.name);
    let ready: unknown;
    try {
      ready = readReady(join(dir, 'ready.json'));
    } catch {
      continue;
    }
    if (!ready || typeof ready !== 'object') continue;
    const r = ready as Record<string, unknown>;
    if (typeof r['agent_id'] !== 'string' || typeof r['pid'] !== 'number') continue;
    out.push({
      dir,
      ready: {
        agent_id: r['agent_id'],
        pid: r['pid'],
        ...(typeof r['task'] === 'string' ? { task: r['task'] } : {}),
        ...(typeof r['events_file'] === 'string' ? { events_file: r['events_file'] } : {}),
      },
      waited: lexists(join(dir, 'waited')),
    });
  }
  return out;
}

/** A detached run a wait has reported keeps its folder (its log, to look at) this long. */
const KEEP_REPORTED_MS = 7 * 24 * 60 * 60 * 1000;
/** And at most this many reported runs keep theirs, however recent. */
const KEEP_REPORTED = 100;

/**
 * Removes the folders of runs a wait reported over a week ago, and all but the last hundred reported, since every
 * `agent ps` reads each folder. Only real folders, rechecked right before; returns how many it removed.
 */
export function pruneSupervisedRuns(root: string, now: number): number {
  const base = runtimeFolder(root, 'supervisors');
  if (!base) return 0;
  const reported: { dir: string; at: number }[] = [];
  for (const entry of readdirSync(base, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(base, entry.name);
    try {
      const waited = lstatSync(join(dir, 'waited'));
      if (waited.isFile()) reported.push({ dir, at: waited.mtimeMs });
    } catch {
      // not reported yet
    }
  }
  reported.sort((a, b) => b.at - a.at);
  let removed = 0;
  for (const [i, run] of reported.entries()) {
    if (i < KEEP_REPORTED && now - run.at <= KEEP_REPORTED_MS) continue;
    if (runtimeFolder(root, 'supervisors') !== base || !lstatSync(run.dir, { throwIfNoEntry: false })?.isDirectory())
      continue;
    rmSync(run.dir, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** Marks a detached worker as reported by a wait, so the next wait without names does not report it again. */
export function markWaited(dir: string): void {
  try {
    // O_EXCL: created new or not at all — never written through a link that was there already.
    writeFileSync(join(dir, 'waited'), '', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

const lexists = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

/** The newest run file of a task's (or agent's) outputs folder: the events of its latest spawn or resume. */
export function latestEventsFile(root: string, owner: string): string | undefined {
  const dir = runtimeFolder(root, join('agent-outputs', owner));
  if (!dir) return undefined;
  const names = readdirSync(dir)
    .filter((n) => /-(spawn|resume)\.jsonl$/.test(n))
    .sort();
  return names.length ? join(dir, names.at(-1)!) : undefined;
}

/** The events of a run and when the file last changed: only files under `agent-outputs/`, read confined. */
export function readEvents(root: string, file: string): { lines: string[]; changed: number } | undefined {
  const base = runtimePath(root, 'agent-outputs');
  if (!file.startsWith(`${base}/`) || !file.endsWith('.jsonl')) return undefined;
  const area = { base: runtimeBase(root), name: "sow's runtime folder" };
  const text = readConfined(area, relative(area.base, file), EVENTS_LIMITS);
  if (text === undefined) return undefined;
  let changed = 0;
  try {
    changed = statSync(file).mtimeMs;
  } catch {
    // gone since it was read: no time to say
  }
  return { lines: text.split('\n').filter(Boolean), changed };
}

/** The newest run of a task's (or agent's) outputs folder: its raw events file and sow's reading of it. */
export function latestRun(root: string, owner: string): { raw: string; events: string } | undefined {
  const raw = latestEventsFile(root, owner);
  return raw ? { raw, events: raw.replace(/\.jsonl$/, '.events.jsonl') } : undefined;
}
