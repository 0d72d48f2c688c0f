/** Runs an agent CLI: an argv, never a shell; prompt on stdin; stdout by line. SIGINT and SIGTERM are passed to the
 * child and awaited, so no worker outlives its command; its background leftovers are not (OUTPUT_GRACE_MS). */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** Where `binary` runs from: itself when it names a path, else the first executable of that name on the PATH. */
export function findOnPath(binary: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (!binary) return undefined;
  const dirs = (env['PATH'] ?? '').split(delimiter).filter(Boolean);
  const candidates = isAbsolute(binary) || binary.includes('/') ? [binary] : dirs.map((dir) => join(dir, binary));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export interface RunRequest {
  binary: string;
  args: readonly string[];
  cwd: string;
  /** The child's whole environment (from the caller's context): nothing comes from this process's. */
  env: Readonly<Record<string, string | undefined>>;
  stdin?: string;
  onLine?: (line: string) => void;
  /** Each line of its stderr (some CLIs say there what they refused). */
  onStderrLine?: (line: string) => void;
  /** How long its output is still read after it exited (OUTPUT_GRACE_MS; tests shorten it). */
  outputGraceMs?: number;
}

export interface RunOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
  /** The first SIGINT or SIGTERM sow received (and passed on) while the child ran. */
  interrupted?: 'SIGINT' | 'SIGTERM';
  /** The child exited, but something it left running held its output, which was read for OUTPUT_GRACE_MS only. */
  leftRunning?: true;
}

const TAIL = 4_000;
/** How long the output is still read after the child exits, while something it left running holds the pipes. */
export const OUTPUT_GRACE_MS = 2_000;

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
export function followStderr(
  stream: NodeJS.ReadableStream,
  onLine?: (line: string) => void,
): { tail(): string; end(): void } {
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
    const handlers = { SIGINT: forward('SIGINT'), SIGTERM: forward('SIGTERM'), exit: () => child.kill('SIGTERM') };
    for (const [event, handler] of Object.entries(handlers)) process.on(event as 'exit', handler);
    const cleanup = () => {
      for (const [event, handler] of Object.entries(handlers)) process.off(event as 'exit', handler);
    };

    const out = lineSplitter((line) => req.onLine?.(line));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => out.push(chunk));
    const stderr = followStderr(child.stderr, req.onStderrLine);
    child.stdin.on('error', () => undefined); // a CLI that exits without reading stdin
    child.stdin.end(req.stdin ?? '');
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const settle = (code: number | null, signal: NodeJS.Signals | null, leftRunning: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(grace);
      cleanup();
      out.end();
      stderr.end();
      resolve({
        code,
        signal,
        stderrTail: stderr.tail(),
        ...(interrupted ? { interrupted } : {}),
        ...(leftRunning ? { leftRunning: true as const } : {}),
      });
    };
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(err);
    });
    // A process the child left running keeps the pipes open, so after its exit they are read for the grace at most.
    child.on('exit', (code, signal) => {
      grace = setTimeout(
        // One more turn of the event loop first: a starved loop would run this timer before reading the pipes.
        () =>
          setImmediate(() => {
            if (settled) return;
            child.stdout.destroy();
            child.stderr.destroy();
            settle(code, signal, true);
          }),
        req.outputGraceMs ?? OUTPUT_GRACE_MS,
      );
    });
    child.on('close', (code, signal) => settle(code, signal, false));
  });
}
