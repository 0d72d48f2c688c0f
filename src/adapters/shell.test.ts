import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeLog, createLog, noteInLog, runShell, type LogFile } from './shell.js';
import { hostName, processGone } from './liveness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'sow-shell-'));
  dirs.push(d);
  return d;
};

/** Alive, and not a zombie waiting for its parent to reap it. */
const running = (pid: number) => processGone({ pid, host: hostName() }) !== true;

async function waitGone(pid: number, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!running(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !running(pid);
}

const run = async (command: string, timeoutMs: number, signal?: AbortSignal) => {
  const dir = temp();
  const log: LogFile = createLog(join(dir, 'logs'), 'x');
  try {
    const outcome = await runShell({ command, cwd: dir, timeoutMs, log, ...(signal ? { signal } : {}) });
    noteInLog(log, '# end');
    return { outcome, dir, text: readFileSync(log.path, 'utf8') };
  } finally {
    closeLog(log);
  }
};

describe('runShell', () => {
  it('runs a shell string in cwd, stdout and stderr into the log in order, with its exit code', async () => {
    const r = await run('echo out; echo err >&2; pwd; exit 3', 10_000);
    expect(r.outcome).toMatchObject({ code: 3, timedOut: false, aborted: false });
    expect(r.text).toBe(`out\nerr\n${r.dir}\n# end\n`);
  });

  it('on timeout stops the whole process group, grandchildren included; the exit code is null', async () => {
    const dir = temp();
    const pidFile = join(dir, 'pid');
    const r = await run(`sleep 30 & echo $! > ${pidFile}; wait`, 300);
    expect(r.outcome).toMatchObject({ code: null, timedOut: true });
    expect(r.outcome.durationMs).toBeLessThan(3000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitGone(pid)).toBe(true);
  });

  it('stops what a check left running when its shell exits', async () => {
    const dir = temp();
    const pidFile = join(dir, 'pid');
    const r = await run(`sleep 30 > /dev/null 2>&1 & echo $! > ${pidFile}; exit 0`, 10_000);
    expect(r.outcome).toMatchObject({ code: 0, timedOut: false });
    expect(await waitGone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('an abort stops the group', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await run('sleep 30', 10_000, controller.signal);
    expect(r.outcome).toMatchObject({ code: null, aborted: true, timedOut: false });
  });
});

describe('createLog', () => {
  it('never reuses a log: a second run of the same name and time gets its own file', () => {
    const dir = temp();
    const a = createLog(join(dir, 'evidence'), '20260101T000000.000Z-unit');
    const b = createLog(join(dir, 'evidence'), '20260101T000000.000Z-unit');
    closeLog(a);
    closeLog(b);
    expect(a.path.endsWith('/20260101T000000.000Z-unit.log')).toBe(true);
    expect(b.path.endsWith('/20260101T000000.000Z-unit.2.log')).toBe(true);
  });
  it('notes start on a line of their own', () => {
    const dir = temp();
    const log = createLog(dir, 'x');
    noteInLog(log, '# a');
    closeLog(log);
    expect(readFileSync(log.path, 'utf8')).toBe('# a\n');
  });
});
