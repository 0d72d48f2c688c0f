import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, processAlive, withLock } from './lock.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sow-lock-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('lock', () => {
  it('serialises holders in one process', async () => {
    const path = join(dir, '.lock');
    const order: string[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        withLock(path, async () => {
          order.push(`in${n}`);
          await new Promise((r) => setTimeout(r, 20));
          order.push(`out${n}`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2) expect(order[i]!.replace('in', '')).toBe(order[i + 1]!.replace('out', ''));
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock whose owner process is dead', async () => {
    const path = join(dir, '.lock');
    const pid = deadPid();
    expect(processAlive(pid)).toBe(false);
    writeFileSync(path, JSON.stringify({ pid, host: hostname(), started: Date.now() }));
    const started = Date.now();
    const release = await acquireLock(path, 2_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    release();
  });

  it('waits for a live owner and times out with the holder named', async () => {
    const path = join(dir, '.lock');
    writeFileSync(path, JSON.stringify({ pid: process.ppid, host: hostname(), started: Date.now() }));
    await expect(acquireLock(path, 200)).rejects.toMatchObject({ code: 'LOCK_TIMEOUT', message: expect.stringContaining(`pid ${process.ppid}`) });
  });

  it('takes over a lock older than the stale limit even from another host', async () => {
    const path = join(dir, '.lock');
    writeFileSync(path, JSON.stringify({ pid: 1, host: 'elsewhere', started: Date.now() - 60_000 }));
    (await acquireLock(path, 1_000))();
  });
});
