/** Runs a check declared in `.sow/config.yaml` through `/bin/sh -c`, the one place sow runs a shell string, in its own
 * process group stopped whole on timeout, abort or exit, so it never writes to its log after it was recorded. */
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ExternalToolError } from '../domain/errors.js';
import { quietly } from './io-errors.js';

const SHELL = '/bin/sh';
/** How long a timed-out or aborted check has, after SIGTERM, before SIGKILL. */
const GRACE_MS = 2_000;

/** A log file this run created (never one that existed), by its absolute path. */
export type LogFile = { readonly path: string; readonly fd: number };

/** Creates `<dir>/<stem>.log`, or `<stem>.2.log`, … when another run got there first. */
export function createLog(dir: string, stem: string): LogFile {
  mkdirSync(dir, { recursive: true });
  for (let n = 1; ; n++) {
    const path = join(dir, `${stem}${n === 1 ? '' : `.${n}`}.log`);
    try {
      // Append mode, shared with the check's shell: every write lands at the end, sow's and its own.
      return { path, fd: openSync(path, 'ax+') };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw err;
    }
  }
}

/** Appends a line of sow's own to the log, on a line of its own. */
export function noteInLog(log: LogFile, text: string): void {
  const size = fstatSync(log.fd).size;
  let lead = '';
  if (size > 0) {
    const last = Buffer.alloc(1);
    readSync(log.fd, last, 0, 1, size - 1);
    if (last[0] !== 0x0a) lead = '\n';
  }
  writeSync(log.fd, `${lead}${text}\n`);
}

export function closeLog(log: LogFile): void {
  closeSync(log.fd);
}

/** Removes a log this run created (an interrupted run records nothing, and keeps none of its logs). */
export function removeLog(path: string): void {
  rmSync(path, { force: true });
}

export interface ShellRequest {
  command: string;
  cwd: string;
  timeoutMs: number;
  /** Where stdout and stderr go. */
  log: LogFile;
  signal?: AbortSignal;
}

export interface ShellOutcome {
  /** The shell's exit code; null when it was ended by a signal (as on a timeout). */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

/** Signals the group, if it is not gone already. */
const killGroup = (pid: number, signal: NodeJS.Signals) => quietly(() => process.kill(-pid, signal));

export function runShell(req: ShellRequest): Promise<ShellOutcome> {
  return new Promise((resolve, reject) => {
    if (req.signal?.aborted)
      return resolve({ code: null, signal: null, timedOut: false, aborted: true, durationMs: 0 });
    const started = performance.now();
    const child = spawn(SHELL, ['-c', req.command], {
      cwd: req.cwd,
      stdio: ['ignore', req.log.fd, req.log.fd],
      detached: true,
    });
    const pid = child.pid;
    let timedOut = false;
    let aborted = false;
    let timer: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    const stop = () => {
      if (pid === undefined || grace) return;
      killGroup(pid, 'SIGTERM');
      grace = setTimeout(() => killGroup(pid, 'SIGKILL'), GRACE_MS);
    };
    // sow exiting (Ctrl-C is exit 130) takes the check with it: its group is not the terminal's.
    const onExit = () => pid !== undefined && killGroup(pid, 'SIGKILL');
    // A closed terminal ends sow without 'exit' handlers: stop the check, then exit as SIGHUP would.
    const onHangup = () => {
      onExit();
      process.exit(129);
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };
    const cleanup = () => {
      clearTimeout(timer);
      clearTimeout(grace);
      process.off('exit', onExit);
      process.off('SIGHUP', onHangup);
      req.signal?.removeEventListener('abort', onAbort);
    };
    process.on('exit', onExit);
    process.on('SIGHUP', onHangup);
    req.signal?.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, req.timeoutMs);

    child.on('error', (err) => {
      cleanup();
      const hint = `checks run through ${SHELL}; make sure it exists`;
      reject(new ExternalToolError(SHELL, `cannot run a check: ${err.message}`, hint));
    });
    child.on('exit', (code, signal) => {
      cleanup();
      // What the command started and left behind goes with it.
      if (pid !== undefined) killGroup(pid, 'SIGKILL');
      resolve({
        code: timedOut || aborted ? null : code,
        signal,
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}

/** The last `lines` lines of a log (at most its last 64 KiB), without sow's own `# sow` notes. */
export function logTail(path: string, lines: number): string[] {
  const fd = quietly(() => openSync(path, 'r'));
  if (fd === undefined) return [];
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    const text = buf
      .toString('utf8')
      .split('\n')
      .filter((l) => !l.startsWith('# sow'));
    while (text.length && text.at(-1)!.trim() === '') text.pop();
    return text.slice(-lines);
  } finally {
    closeSync(fd);
  }
}
