/** The heartbeat of held locks (decision 0064), and the one way sow calls a program synchronously: while a call blocks,
 * a worker thread touches the lock file this process opened, so another host's waiter sees it alive. */
import { spawnSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import { quietly } from './io-errors.js';

export const HEARTBEAT_MS = 1_000;

/** The lock files this process holds → what it wrote in each. */
const beating = new Map<string, string>();
let thread: Worker | undefined;

/** The thread's script (CommonJS, run with `eval`): keeps each lock open only if it is the one it was told of. */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const open = new Map();
const touch = (fd) => { const now = new Date(); try { fs.futimesSync(fd, now, now); } catch {} };
const take = (path, content) => {
  let fd;
  try { fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW); } catch { return; }
  const want = Buffer.from(content);
  const got = Buffer.alloc(want.length + 1);
  let n = 0;
  try { n = fs.readSync(fd, got, 0, got.length, 0); } catch {}
  if (n !== want.length || !want.equals(got.subarray(0, n))) return fs.closeSync(fd);
  open.set(path, fd);
  touch(fd);
};
const drop = (path) => { const fd = open.get(path); if (fd !== undefined) { open.delete(path); fs.closeSync(fd); } };
for (const [path, content] of workerData.locks) take(path, content);
const timer = setInterval(() => { for (const fd of open.values()) touch(fd); }, workerData.ms);
parentPort.on('message', (m) => {
  if (m.take) take(m.take, m.content);
  if (m.drop) drop(m.drop);
  if (m.end) { clearInterval(timer); for (const path of [...open.keys()]) drop(path); parentPort.close(); }
});
`;

/** Beats for the lock at `path` until the returned function is called; the timer starts when the event loop first
 * turns with the lock held, so commands that never wait never pay for it. */
export function startHeartbeat(path: string, content: string): () => void {
  beating.set(path, content);
  let timer: NodeJS.Timeout | undefined;
  const soon = setImmediate(() => {
    timer = setInterval(() => {
      const now = new Date();
      quietly(() => utimesSync(path, now, now)); // gone already (released on exit)
    }, HEARTBEAT_MS);
    timer.unref();
  });
  soon.unref();
  thread?.postMessage({ take: path, content });
  return () => {
    clearImmediate(soon);
    if (timer) clearInterval(timer);
    beating.delete(path);
    if (!thread) return;
    thread.postMessage({ drop: path });
    if (beating.size === 0) {
      thread.postMessage({ end: true });
      thread = undefined;
    }
  };
}

/** Called right before the event loop blocks: while a lock is held, the thread beats for it. */
function beforeBlocking(): void {
  if (beating.size === 0 || thread) return;
  // Loaded here, not at start-up: node:worker_threads brings node:stream and twenty modules more.
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const started = new Worker(THREAD, {
    eval: true,
    workerData: { locks: [...beating], ms: HEARTBEAT_MS },
    stdout: true,
    stderr: true,
  });
  // A thread that fails leaves the timer to beat when it can; it must not end the command.
  started.on('error', () => undefined);
  started.unref();
  thread = started;
}

/** `spawnSync` for every synchronous call to another program: the locks held keep beating while it runs. */
export const spawnBlocking = ((...args: Parameters<typeof spawnSync>) => {
  beforeBlocking();
  return spawnSync(...args);
}) as typeof spawnSync;

/** The heartbeat thread, while one beats (for tests). */
export const heartbeatThread = (): Worker | undefined => thread;
