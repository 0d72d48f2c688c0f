/**
 * Small helpers for the real-agents suite: bounded child processes (each in its own process group,
 * killed as a group on timeout), ANSI stripping, and a tiny logger.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const stripAnsi = (s) =>
  s
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')
    .replace(/\x1b\][^\x07]*\x07/g, '')
    .replace(/\r$/gm, '');

/**
 * Runs a command with a hard timeout. The child gets its own process group so that a timeout kills
 * it and everything it started (an agent CLI and its tools) — by that group's id only.
 */
export function run(binary, args, { cwd, env, input, timeoutMs = 120_000, maxOutput = 4_000_000 } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    let child;
    try {
      child = spawn(binary, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      resolve({ code: null, signal: null, stdout: '', stderr: String(err), timedOut: false, ms: 0, error: err });
      return;
    }
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const killGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        try {
          child.kill(signal);
        } catch {
          // already gone
        }
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), 3_000).unref();
    }, timeoutMs);
    const onExit = () => killGroup('SIGKILL');
    process.on('exit', onExit);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c) => {
      if (stdout.length < maxOutput) stdout += c;
    });
    child.stderr.on('data', (c) => {
      if (stderr.length < maxOutput) stderr += c;
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
    child.on('error', (err) => {
      clearTimeout(timer);
      process.off('exit', onExit);
      resolve({
        code: null,
        signal: null,
        stdout,
        stderr: `${stderr}${err.message}`,
        timedOut,
        ms: Date.now() - started,
        error: err,
      });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      process.off('exit', onExit);
      // Anything the child left behind in its group (a tool still running) goes too.
      killGroup('SIGKILL');
      resolve({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started });
    });
  });
}

/** The last `n` non-empty lines of a text, indented, for reports. */
export function tail(text, n = 12, indent = '      ') {
  const lines = stripAnsi(text ?? '')
    .split('\n')
    .filter((l) => l.trim());
  return lines
    .slice(-n)
    .map((l) => `${indent}${l.length > 400 ? `${l.slice(0, 400)}…` : l}`)
    .join('\n');
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A home of its own for an agent CLI under `home` (made): HOME, the XDG folders and each CLI's own home variable. */
export function agentHomes(home) {
  const dirs = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local/state'),
    CLAUDE_CONFIG_DIR: join(home, 'claude-config'),
    CODEX_HOME: join(home, 'codex-home'),
    GEMINI_CLI_HOME: join(home, 'gemini-home'),
    COPILOT_HOME: join(home, 'copilot-home'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  return dirs;
}
