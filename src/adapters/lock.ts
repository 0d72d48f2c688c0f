/** A cross-process lock around every read-modify-write of state: an O_EXCL file naming its holder (decisions 0004,
 * 0016). A stale lock is removed under `<lock>.takeover`, only if still byte for byte the one judged stale. */
import { lstatSync, readFileSync } from 'node:fs';
import * as v from 'valibot';
import { startHeartbeat } from './heartbeat.js';
import { hostName, processGone, samePidNamespace, thisProcess } from './liveness.js';
import { errorClass, LockTimeoutError, UsageError } from '../domain/errors.js';
import { unlinkIfExists, writeNewFile } from './fs-atomic.js';
import { ignoring, quietly } from './io-errors.js';
import { readRegular } from './confine.js';
import { inform } from './notices.js';

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_TIMEOUT_S = 86_400;

/** How long a command waits for the lock: SOW_LOCK_TIMEOUT seconds (0 = do not wait), else 15 s. */
export function lockTimeoutMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env['SOW_LOCK_TIMEOUT'];
  if (raw === undefined || raw === '') return DEFAULT_TIMEOUT_MS;
  const seconds = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(seconds <= MAX_TIMEOUT_S)) {
    throw new UsageError(
      `SOW_LOCK_TIMEOUT='${raw.slice(0, 20)}' is not a number of seconds`,
      `set it to how long to wait for another sow command, e.g. SOW_LOCK_TIMEOUT=60 (at most ${MAX_TIMEOUT_S}), or ` +
        `unset it for ${DEFAULT_TIMEOUT_MS / 1000} s`,
    );
  }
  return Math.round(seconds * 1000);
}
const HEARTBEAT_STALE_MS = 30_000;
/** A lock file with no holder in it: its creator died between creating and writing it. */
const EMPTY_STALE_MS = 2_000;
const TAKEOVER_STALE_MS = 5_000;
/** After this long, a waiting command says whom it waits for. */
const SAY_WAITING_AFTER_MS = 1_000;

/** What a lock names: its holder, as liveness.ts looks for it, and since when; a field of another kind is left out. */
const loose = <T extends v.GenericSchema>(schema: T) => v.fallback(v.optional(schema), undefined);
const HOLDER = v.object({
  pid: v.pipe(v.number(), v.integer(), v.minValue(1)),
  host: v.string(),
  started: v.number(),
  command: loose(v.string()),
  boot: loose(v.string()),
  pstart: loose(v.number()),
  pidns: loose(v.string()),
});
type Holder = v.InferOutput<typeof HOLDER>;

/** A lock or takeover file that is not what sow writes (a folder, a link): exit 4, never a crash. */
export class LockFileError extends errorClass('LOCK_FILE_INVALID', 'state', (path: string, what: string) => [
  `${path} ${what}, not the lock file sow writes`,
  `if no sow command is running, remove it ('rm -r ${path}') and retry`,
  { file: path },
]) {}

/** The locks this process holds → what it wrote in each. */
const held = new Map<string, string>();

function releaseAll(): void {
  for (const [path, content] of held) removeIfOurs(path, content);
}

/** Removes the lock only while it holds what this process wrote: one taken over meanwhile is the new holder's. */
function removeIfOurs(path: string, content: string): void {
  // Gone, or not a file this process wrote (never read through a link).
  if (quietly(() => readRegular(path, path, LOCK_LIMITS)) === content) unlinkIfExists(path);
}

const LOCK_LIMITS = { max: 64 * 1024, what: 'lock files', why: 'a lock names its holder' };

/** Whether the holder is certainly gone, as far as this host can tell; undefined when it cannot tell. */
function holderGone(holder: Holder, path: string): boolean | undefined {
  // Our own pid may be a process of another pid namespace: only its heartbeat can tell.
  if (holder.pid === process.pid && holder.host === hostName() && samePidNamespace(holder) && held.has(path))
    return false;
  return processGone(holder);
}

/** Creates `path` exclusively with `content`; false when it exists. A failed write leaves no file (an empty lock
 * would stop every command). */
function tryCreate(path: string, content: string): boolean {
  try {
    writeNewFile(path, content, false);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function readLock(path: string) {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (stat.isDirectory()) throw new LockFileError(path, 'is a folder');
  if (!stat.isFile()) throw new LockFileError(path, 'is not a regular file');
  const raw = ignoring(['ENOENT'], () => readFileSync(path, 'utf8'));
  if (raw === undefined) return undefined;
  return { raw, holder: quietly(() => v.parse(HOLDER, JSON.parse(raw))), mtimeMs: stat.mtimeMs };
}

type LockInfo = NonNullable<ReturnType<typeof readLock>>;

/** A heartbeat that stopped: not touched for HEARTBEAT_STALE_MS (a time far in the future is no heartbeat either). */
const heartbeatStopped = (mtimeMs: number, now: number, limit: number) => Math.abs(now - mtimeMs) > limit;

function isStale(path: string, info: LockInfo, now: number): boolean {
  if (!info.holder) return heartbeatStopped(info.mtimeMs, now, EMPTY_STALE_MS);
  const gone = holderGone(info.holder, path);
  if (gone !== undefined) return gone;
  return heartbeatStopped(info.mtimeMs, now, HEARTBEAT_STALE_MS);
}

function describeHolder(holder: Holder | undefined): string {
  if (!holder) return 'an unknown process';
  const where =
    holder.host !== hostName() ? ` on ${holder.host}` : samePidNamespace(holder) ? '' : ' in another pid namespace';
  return `pid ${holder.pid}${where}${holder.command ? ` (${holder.command})` : ''}`;
}

function timeout(path: string, info: LockInfo | undefined, timeoutMs: number): LockTimeoutError {
  const holder = info?.holder;
  const since = holder ? `, since ${new Date(holder.started).toISOString()}` : '';
  const elsewhere = holder && holder.host !== hostName();
  const sandboxed = holder && !elsewhere && !samePidNamespace(holder);
  return new LockTimeoutError(
    path,
    `${describeHolder(holder)}${since}`,
    Math.round(timeoutMs / 100) / 10,
    elsewhere
      ? `it runs on ${holder.host}, which keeps the lock fresh while it lives; retry when it is done (the lock frees ` +
          `itself ${HEARTBEAT_STALE_MS / 1000} s after that host stops)`
      : sandboxed
        ? `it runs in another pid namespace (a sandbox or container), which keeps the lock fresh while it lives; ` +
          `retry when it is done (the lock frees itself ${HEARTBEAT_STALE_MS / 1000} s after it stops)`
        : undefined,
  );
}

/** What this process is doing, for whoever waits for its lock: `sow task set`. */
function ownCommand(): string {
  const words: string[] = [];
  for (const arg of process.argv.slice(2)) {
    if (arg.startsWith('-') || !/^[a-z][a-z-]*$/.test(arg) || words.length === 2) break;
    words.push(arg);
  }
  return ['sow', ...words].join(' ');
}

/** One attempt to remove a stale lock under the takeover lock, never waiting; a stale takeover file is removed. */
function takeOver(path: string, staleRaw: string): void {
  const takeoverPath = `${path}.takeover`;
  if (!tryCreate(takeoverPath, JSON.stringify({ ...thisProcess(), started: Date.now() }))) {
    const other = readLock(takeoverPath);
    if (
      other &&
      (heartbeatStopped(other.mtimeMs, Date.now(), TAKEOVER_STALE_MS) ||
        (other.holder && holderGone(other.holder, takeoverPath) === true))
    ) {
      unlinkIfExists(takeoverPath);
    }
    return;
  }
  try {
    const current = readLock(path);
    if (current && current.raw === staleRaw) unlinkIfExists(path);
  } finally {
    unlinkIfExists(takeoverPath);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function acquireLock(path: string, timeoutMs = lockTimeoutMs()): Promise<() => void> {
  if (!process.listeners('exit').includes(releaseAll)) process.on('exit', releaseAll);
  const content = JSON.stringify({ ...thisProcess(), started: Date.now(), command: ownCommand() });
  const began = Date.now();
  const deadline = began + timeoutMs;
  let delay = 2;
  let told = false;
  for (;;) {
    if (tryCreate(path, content)) {
      held.set(path, content);
      // The heartbeat, for holders others cannot look at; it does not keep the process alive.
      const stopBeating = startHeartbeat(path, content);
      return () => {
        stopBeating();
        held.delete(path);
        removeIfOurs(path, content);
      };
    }
    const info = readLock(path);
    if (info && isStale(path, info, Date.now())) takeOver(path, info.raw);
    else if (Date.now() >= deadline) throw timeout(path, info, timeoutMs);
    if (!told && Date.now() - began >= SAY_WAITING_AFTER_MS) {
      told = true;
      inform(`waiting for ${describeHolder(info?.holder)} to finish writing .sow/ …`);
    }
    // Always sleep: a lock that cannot be taken over must not spin the CPU or keep Ctrl-C out.
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
}

export async function withLock<T>(path: string, fn: () => Promise<T> | T): Promise<T> {
  const release = await acquireLock(path);
  try {
    return await fn();
  } finally {
    release();
  }
}

/** Who holds the lock at `path`, since when (ISO), and whether the holder is gone (`sow doctor`); undefined when there
 * is no lock. Reads only. */
export function inspectLock(path: string): { holder: string; since?: string; stale: boolean } | undefined {
  const info = readLock(path);
  if (!info) return undefined;
  const since = info.holder ? new Date(info.holder.started).toISOString() : undefined;
  return { holder: describeHolder(info.holder), ...(since ? { since } : {}), stale: isStale(path, info, Date.now()) };
}

/** Removes the lock at `path` if and only if its holder is gone, as a waiting command would; true when removed. */
export function removeStaleLock(path: string): boolean {
  const info = readLock(path);
  if (!info || !isStale(path, info, Date.now())) return false;
  takeOver(path, info.raw);
  return readLock(path)?.raw !== info.raw;
}
