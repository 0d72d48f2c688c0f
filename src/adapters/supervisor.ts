/** A detached worker's supervisor: this sow started again as `sow agent spawn …` in its own session, output under
 * `supervisors/<id>/`, so it outlives its starter, which it tells through a ready file once the session is recorded. */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { EXIT_CODES, SowError, type ErrorKind } from '../domain/errors.js';
import { readConfined } from './confine.js';
import { pickShape } from './record-shape.js';
import { ensureRuntimeDir, runtimeBase, runtimeFolder, runtimePath } from './runtime.js';

/** A worker's events: a long run writes tens of MB. */
const EVENTS_LIMITS = {
  max: 256 * 1024 * 1024,
  what: 'event files',
  why: 'a worker run writes at most some tens of MB of events',
};

type Env = Readonly<Record<string, string | undefined>>;

/** The variable that tells a supervised `sow agent spawn` where to say it has started. */
export const READY_VARIABLE = 'SOW_SUPERVISOR_READY';

/** A supervisor's folder: `ready`, written once the session is recorded (who, on what, its pid); `result`, its stdout
 * (its `--json` result or refusal when it ends); `log`, its stderr (its progress view of the worker, warnings). */
export function supervisorFiles(root: string, id: string) {
  const dir = ensureRuntimeDir(root, join('supervisors', id));
  return { dir, ready: join(dir, 'ready.json'), result: join(dir, 'result.json'), log: join(dir, 'supervisor.log') };
}

export type SupervisorFiles = ReturnType<typeof supervisorFiles>;

/** Whether `path` is a ready file of this repository's supervisors (a variable is checked, never trusted). */
export function isReadyFile(root: string, path: string): boolean {
  const base = runtimePath(root, 'supervisors');
  return path.startsWith(`${base}/`) && path.endsWith('/ready.json') && !path.slice(base.length).includes('..');
}

/** A run folder's name: when it started (so names sort by age), and a random tail. */
export const runId = (now: string) => `${now.replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;

/** How long a started sow may take to record itself: it waits for the lock like any command, then some. */
export const READY_WITHIN_MS = 120_000;

/** How a detached run's failures are said: `who` it is, its codes' prefix (`SUPERVISOR`), what it does `before` it is
 * ready, what it had `notYet` done, where its `log` is; its own refusal has the kind of its exit code, or `kindOf`. */
export interface RunWords {
  who: string;
  code: string;
  before: string;
  notYet: string;
  log: string;
  hint?: string;
  kindOf?: (code: number | null) => ErrorKind;
}

/** Starts `node <script> <args>` detached (older run folders pruned first, best effort) and waits for what `ready()`
 * reads. One that exits first is refused as it said it (its --json envelope), else as having failed; one that says
 * nothing for READY_WITHIN_MS, as silent. Waits use the monotonic clock. */
export async function startDetached<T>(
  run: { script: string; args: readonly string[]; cwd: string; env: Env; files: SupervisorFiles; variable: string },
  ready: () => T | undefined,
  words: RunWords,
  prune: () => unknown,
): Promise<T> {
  try {
    prune();
  } catch {
    // best effort: the folders are only history
  }
  const out = openSync(run.files.result, 'w');
  const err = openSync(run.files.log, 'w');
  let child;
  try {
    child = spawn(process.execPath, [run.script, ...run.args], {
      cwd: run.cwd,
      env: { ...run.env, [run.variable]: run.files.ready },
      detached: true,
      stdio: ['ignore', out, err],
    });
  } finally {
    closeSync(out);
    closeSync(err);
  }
  let exit: number | null | undefined;
  child.once('exit', (code) => (exit = code));
  child.once('error', () => (exit = -1));
  child.unref();
  const deadline = performance.now() + READY_WITHIN_MS;
  for (;;) {
    const got = ready();
    if (got !== undefined) return got;
    if (exit !== undefined) throw refusal(run.files.result, words, exit);
    if (performance.now() > deadline)
      throw new SowError(
        `${words.code}_SILENT`,
        'external',
        `${words.who} (pid ${child.pid ?? -1}) has not ${words.notYet} after ${READY_WITHIN_MS / 1000} s`,
        `see what it says in ${words.log}${words.hint ?? ''}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

const KIND_OF_EXIT = new Map(Object.entries(EXIT_CODES).map(([kind, code]) => [code, kind as ErrorKind]));

/** Why a detached run stopped before it was ready: its own refusal (its --json envelope), else its exit. */
function refusal(resultFile: string, words: RunWords, code: number | null): SowError {
  const said = readEnvelope(resultFile)?.error;
  const kind = words.kindOf?.(code) ?? ((code !== null && KIND_OF_EXIT.get(code)) || 'external');
  if (said) return new SowError(said.code, kind, said.message, said.hint ?? `see ${words.log}`);
  return new SowError(
    `${words.code}_FAILED`,
    'external',
    `${words.who} exited (${code === null ? 'killed by a signal' : `code ${code}`}) before ${words.before}`,
    `see what it says in ${words.log}`,
  );
}

/** A JSON file of a run folder as sow wrote it: no link followed (the runtime folder may have come with the repo),
 * no FIFO waited on, at most `max` bytes; else (or while still written) undefined. */
export function readOwnJson(path: string, max: number = RECORD_MAX): unknown {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    return st.isFile() && st.size <= max ? (JSON.parse(readFileSync(fd, 'utf8')) as unknown) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A record or ready file is a few hundred bytes; anything larger is not one sow wrote. */
const RECORD_MAX = 64 * 1024;

/** The supervisor's `--json` envelope, when it wrote a whole one. */
export type Envelope = {
  ok?: boolean;
  data?: unknown;
  error?: { code: string; message: string; hint?: string; details?: unknown };
};
export const readEnvelope = (path: string): Envelope | undefined => {
  const v = readOwnJson(path, ENVELOPE_MAX);
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Envelope) : undefined;
};
/** An envelope is some tens of KB. */
const ENVELOPE_MAX = 8 * 1024 * 1024;

/** The real folders of the runtime folder's `folder`, oldest first (named by start time); a link leads elsewhere. */
export function runFolders(root: string, folder: string): { name: string; dir: string }[] {
  const base = runtimeFolder(root, folder);
  if (!base) return [];
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: entry.name, dir: join(base, entry.name) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Removes a run folder, rechecked right before: still a real folder, in the runtime folder sow looked at. */
export function removeRunFolder(root: string, folder: string, dir: string): boolean {
  if (runtimeFolder(root, folder) !== dirname(dir) || !lstatSync(dir, { throwIfNoEntry: false })?.isDirectory())
    return false;
  rmSync(dir, { recursive: true, force: true });
  return true;
}

/** The detached workers of this repository, oldest first: what each ready file says, and whether a wait reported it. */
export function supervisedRuns(root: string) {
  const out = [];
  for (const { dir } of runFolders(root, 'supervisors')) {
    const ready = pickShape<{ task?: string; agent_id: string; pid: number; events_file?: string }>(
      readOwnJson(join(dir, 'ready.json')),
      { agent_id: 'string', pid: 'int' },
      { task: 'string', events_file: 'string' },
    );
    if (ready)
      out.push({ dir, ready, waited: lstatSync(join(dir, 'waited'), { throwIfNoEntry: false }) !== undefined });
  }
  return out;
}

/** A detached run a wait has reported keeps its folder (its log, to look at) this long. */
const KEEP_REPORTED_MS = 7 * 24 * 60 * 60 * 1000;
/** And at most this many reported runs keep theirs, however recent. */
const KEEP_REPORTED = 100;

/** Removes the folders of runs reported over a week ago, and all but the last hundred reported (`agent ps` reads each);
 * returns how many. */
export function pruneSupervisedRuns(root: string, now: number): number {
  const reported = runFolders(root, 'supervisors').flatMap(({ dir }) => {
    const waited = lstatSync(join(dir, 'waited'), { throwIfNoEntry: false });
    return waited?.isFile() ? [{ dir, at: waited.mtimeMs }] : [];
  });
  reported.sort((a, b) => b.at - a.at);
  const old = reported.filter((run, i) => i >= KEEP_REPORTED || now - run.at > KEEP_REPORTED_MS);
  return old.filter((run) => removeRunFolder(root, 'supervisors', run.dir)).length;
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
  // Gone since it was read: no time to say.
  const changed = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return { lines: text.split('\n').filter(Boolean), changed };
}

/** The newest run of a task's (or agent's) outputs folder: its raw events file and sow's reading of it. */
export function latestRun(root: string, owner: string): { raw: string; events: string } | undefined {
  const raw = latestEventsFile(root, owner);
  return raw ? { raw, events: raw.replace(/\.jsonl$/, '.events.jsonl') } : undefined;
}
