/** Asking an installed tool about itself: an argv, nothing on stdin and a deadline, so none stalls `sow doctor`. */
import { execFile, type ExecFileException } from 'node:child_process';

const MAX_OUTPUT = 1024 * 1024;

/** A tool that never ran (a string code: ENOENT, EACCES, an argv Node refuses) says why on stderr. */
const outcome = (err: ExecFileException | null, stdout = '', stderr = '') => ({
  // The binary is not on PATH (or not executable).
  missing: err?.code === 'ENOENT' || err?.code === 'EACCES',
  // execFile's own kill at the deadline; a tool killed by anything else did not time out.
  timedOut: err?.killed === true,
  // Exit code; null when it was killed or never ran.
  code: err ? (typeof err.code === 'number' ? err.code : null) : 0,
  stdout,
  stderr: typeof err?.code === 'string' ? stderr || err.message : stderr,
});

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
): Promise<ReturnType<typeof outcome>> {
  return new Promise((resolve) => {
    const options = {
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      env: { ...opts.env, NO_COLOR: '1', ...opts.extraEnv },
      timeout: opts.timeoutMs ?? 5_000,
      killSignal: 'SIGKILL' as const,
      maxBuffer: MAX_OUTPUT,
      encoding: 'utf8' as const,
    };
    try {
      execFile(binary, [...args], options, (err, stdout, stderr) => resolve(outcome(err, stdout, stderr))).stdin?.end();
    } catch (err) {
      resolve(outcome(err as ExecFileException));
    }
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
