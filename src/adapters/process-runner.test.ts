import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runProcess } from './process-runner.js';

const left: number[] = [];
afterEach(() => {
  for (const pid of left.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

/** Whether the process runs: there, and not a zombie waiting to be reaped (Linux tells). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return process.platform !== 'linux' || readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] !== 'Z';
};

describe('runProcess', () => {
  it('reads a child to the end and says nothing was left running when its pipes close with it', async () => {
    const lines: string[] = [];
    const r = await runProcess({
      binary: process.execPath,
      args: ['-e', 'console.log("one"); console.log("two"); console.error("oops"); process.exit(3)'],
      cwd: process.cwd(),
      env: process.env,
      onLine: (l) => lines.push(l),
    });
    expect(r).toEqual({ code: 3, signal: null, stderrTail: 'oops\n' });
    expect(lines).toEqual(['one', 'two']);
  });

  it(
    'does not wait for what the child left running (a server started in the background): it reads what the child ' +
      'wrote, then goes on',
    async () => {
      // The child starts a grandchild that inherits its stdout and stderr and lives on, prints its pid and its last
      // words, and exits.
      const child = [
        "const { spawn } = require('node:child_process');",
        "const g = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: ['ignore', 'inherit', " +
          "'inherit'] });",
        'g.unref();',
        'console.log(String(g.pid));',
        "console.log('x'.repeat(100000));",
        "console.log('done');",
      ].join('\n');
      const lines: string[] = [];
      const r = await runProcess({
        binary: process.execPath,
        args: ['-e', child],
        cwd: process.cwd(),
        env: process.env,
        onLine: (l) => lines.push(l),
        outputGraceMs: 50,
      });
      const grandchild = Number(lines[0]);
      left.push(grandchild);
      expect(r).toMatchObject({ code: 0, signal: null, leftRunning: true });
      // Everything the child wrote arrived, the long line whole.
      expect(lines.slice(1)).toEqual(['x'.repeat(100000), 'done']);
      // And sow did not wait for the grandchild: it still runs.
      expect(alive(grandchild)).toBe(true);
      // (Waiting for the grandchild would take its two minutes: the test says so well before.)
    },
    60_000,
  );
});
