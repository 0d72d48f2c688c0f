/** Asking an installed tool about itself: an argv, nothing on stdin and a deadline, so none stalls `sow doctor`. */
import { spawn } from 'node:child_process';

export interface ProbeResult {
  /** The binary is not on PATH (or not executable). */
  missing: boolean;
  timedOut: boolean;
  /** Exit code; null when it was killed or never ran. */
  code: number | null;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 1024 * 1024;

/** `env` is the environment the tool runs in (its PATH finds it); `extraEnv` is added to it. */
export function probe(
  binary: string,
  args: readonly string[],
  opts: {
    env: Readonly<Record<string, string | undefined>>;
    extraEnv?: Readonly<Record<string, string>>;
    cwd?: string;
    timeoutMs?: number;
  },
): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const failed = (err: NodeJS.ErrnoException, said: string) =>
      resolve({
        missing: err.code === 'ENOENT' || err.code === 'EACCES',
        timedOut: false,
        code: null,
        stdout,
        stderr: said,
      });
    let child;
    try {
      child = spawn(binary, [...args], {
        ...(opts.cwd ? { cwd: opts.cwd } : {}),
        env: { ...opts.env, NO_COLOR: '1', ...opts.extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      failed(err as NodeJS.ErrnoException, String(err));
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 5_000);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (stdout = (stdout + d).slice(0, MAX_OUTPUT)));
    child.stderr.on('data', (d: string) => (stderr = (stderr + d).slice(0, MAX_OUTPUT)));
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      failed(err, stderr || err.message);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ missing: false, timedOut, code: timedOut ? null : code, stdout, stderr });
    });
  });
}

/** The first non-empty line a tool printed (its version line), without colour codes. */
export function firstLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return (
    text
      .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? ''
  );
}
