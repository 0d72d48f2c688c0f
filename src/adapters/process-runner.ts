/**
 * Runs an agent CLI: argv array, never a shell; explicit cwd; prompt on stdin. Its stdout is read
 * line by line (agent CLIs print JSON events); the tail of its stderr is kept for errors. A SIGINT
 * or SIGTERM that reaches sow is passed on to the child, and sow waits for it to end (a second one
 * ends sow at once, main.ts), so no worker outlives the command that started it and the command
 * can still say how the task stands; the outcome names the signal.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export function findOnPath(binary: string, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (!binary) return undefined;
  const candidates =
    isAbsolute(binary) || binary.includes('/')
      ? [binary]
      : (env['PATH'] ?? '')
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, binary));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

export interface RunRequest {
  binary: string;
  args: readonly string[];
  cwd: string;
  /** The child's whole environment (the caller's context's, with what the run adds): nothing comes from this process's. */
  env: Readonly<Record<string, string | undefined>>;
  stdin?: string;
  onLine?: (line: string) => void;
  /** Each line of its stderr (some CLIs say there what they refused). */
  onStderrLine?: (line: string) => void;
}

export interface RunOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
  /** The first SIGINT or SIGTERM sow received (and passed on) while the child ran. */
  interrupted?: 'SIGINT' | 'SIGTERM';
}

const TAIL = 4_000;

/** Splits a stream's text into lines for `onLine`; `end()` gives it what is left after the last newline. */
export function lineSplitter(onLine: (line: string) => void): { push(chunk: string): string; end(): void } {
  let pending = '';
  return {
    /** Takes a chunk; returns what is still waiting for its newline. */
    push(chunk) {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        onLine(line);
      }
      return pending;
    },
    end() {
      if (pending) onLine(pending);
      pending = '';
    },
  };
}

/** A child's stderr: its last few thousand characters kept for errors, each line to `onLine`. */
export function followStderr(stream: NodeJS.ReadableStream, onLine?: (line: string) => void): { tail(): string; end(): void } {
  let tail = '';
  const lines = lineSplitter((line) => onLine?.(line));
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-TAIL);
    if (onLine) lines.push(chunk);
  });
  return { tail: () => tail, end: () => lines.end() };
}

export function runProcess(req: RunRequest): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(req.binary, [...req.args], {
      cwd: req.cwd,
      env: { ...req.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let interrupted: 'SIGINT' | 'SIGTERM' | undefined;
    const forward = (signal: 'SIGINT' | 'SIGTERM') => () => {
      interrupted ??= signal;
      child.kill(signal);
    };
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    const onExit = () => child.kill('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    process.on('exit', onExit);
    const cleanup = () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      process.off('exit', onExit);
    };

    const out = lineSplitter((line) => req.onLine?.(line));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => out.push(chunk));
    const stderr = followStderr(child.stderr, req.onStderrLine);
    child.stdin.on('error', () => undefined); // a CLI that exits without reading stdin
    child.stdin.end(req.stdin ?? '');
    child.on('error', (err) => {
      cleanup();
      reject(err);
    });
    child.on('close', (code, signal) => {
      cleanup();
      out.end();
      stderr.end();
      resolve({ code, signal, stderrTail: stderr.tail(), ...(interrupted ? { interrupted } : {}) });
    });
  });
}
