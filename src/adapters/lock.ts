/**
 * A cross-process lock around every read-modify-write of project state. The lock is a file
 * created with O_EXCL holding the owner's pid, host, start time and command. A lock whose owner is a
 * dead process on this host, or that is older than STALE_MS, is taken over — under a second,
 * short-lived "takeover" lock, so two waiters that both see the same dead owner cannot both take
 * over and end up holding the lock together. Why not proper-lockfile: docs/decisions/0004-lock.md.
 */
import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { LockTimeoutError } from '../domain/errors.js';
import { unlinkIfExists } from './fs-atomic.js';
import { inform } from './notices.js';

const STALE_MS = 30_000;
const TAKEOVER_STALE_MS = 5_000;
const DEFAULT_TIMEOUT_MS = 15_000;
/** After this long, a waiting command says whom it waits for. */
const SAY_WAITING_AFTER_MS = 1_000;

interface Holder { pid: number; host: string; started: number; command?: string }

/** What this process is doing, for whoever waits for its lock: `sow task set`. */
function ownCommand(): string {
  const words: string[] = [];
  for (const arg of process.argv.slice(2)) {
    if (arg.startsWith('-') || !/^[a-z][a-z-]*$/.test(arg) || words.length === 2) break;
    words.push(arg);
  }
  return ['sow', ...words].join(' ');
}

const held = new Set<string>();
let exitHookInstalled = false;

function releaseAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const path of held) unlinkIfExists(path);
  });
}

function tryCreate(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(path: string): { raw: string; holder: Holder | undefined; mtimeMs: number } | undefined {
  try {
    const raw = readFileSync(path, 'utf8');
    const mtimeMs = statSync(path).mtimeMs;
    let holder: Holder | undefined;
    try {
      const parsed = JSON.parse(raw) as Partial<Holder>;
      if (typeof parsed.pid === 'number' && typeof parsed.host === 'string' && typeof parsed.started === 'number') {
        holder = { pid: parsed.pid, host: parsed.host, started: parsed.started, ...(typeof parsed.command === 'string' ? { command: parsed.command } : {}) };
      }
    } catch {
      holder = undefined;
    }
    return { raw, holder, mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(info: { holder: Holder | undefined; mtimeMs: number }, now: number): boolean {
  const { holder } = info;
  // An empty or garbled file: its creator died between create and write, or it was edited.
  if (!holder) return now - info.mtimeMs > 2_000;
  if (holder.host === hostname() && holder.pid !== process.pid && !processAlive(holder.pid)) return true;
  return now - holder.started > STALE_MS;
}

function describeHolder(holder: Holder | undefined): string {
  if (!holder) return 'an unknown process';
  return `pid ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}${holder.command ? ` (${holder.command})` : ''}`;
}

/** Removes a stale lock, but only if it is still the very lock that was judged stale. */
function takeOver(path: string, staleRaw: string): void {
  const takeoverPath = `${path}.takeover`;
  if (!tryCreate(takeoverPath, String(process.pid))) {
    const info = readHolder(takeoverPath);
    if (info && Date.now() - info.mtimeMs > TAKEOVER_STALE_MS) unlinkIfExists(takeoverPath);
    return;
  }
  try {
    const current = readHolder(path);
    if (current && current.raw === staleRaw) unlinkIfExists(path);
  } finally {
    unlinkIfExists(takeoverPath);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function acquireLock(path: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<() => void> {
  releaseAllOnExit();
  const content = JSON.stringify({ pid: process.pid, host: hostname(), started: Date.now(), command: ownCommand() });
  const began = Date.now();
  const deadline = began + timeoutMs;
  let delay = 2;
  let told = false;
  for (;;) {
    if (tryCreate(path, content)) {
      held.add(path);
      return () => {
        held.delete(path);
        unlinkIfExists(path);
      };
    }
    const info = readHolder(path);
    if (info && isStale(info, Date.now())) {
      takeOver(path, info.raw);
      continue;
    }
    if (Date.now() > deadline) throw new LockTimeoutError(path, describeHolder(info?.holder));
    if (!told && Date.now() - began >= SAY_WAITING_AFTER_MS) {
      told = true;
      inform(`waiting for ${describeHolder(info?.holder)} to finish writing .sow/ …`);
    }
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
