import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { acquireLock, withLock } from './lock.js';
import { BOOT, hostName, PIDNS, processAlive, processGone } from './liveness.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sow-lock-'));
  path = join(dir, 'lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}
const procStart = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]);
const linux = process.platform === 'linux';
const writeLock = (holder: Record<string, unknown>, mtime?: Date) => {
  writeFileSync(path, JSON.stringify({ host: hostname(), started: Date.now(), ...holder }));
  if (mtime) utimesSync(path, mtime, mtime);
};
const past = (ms: number) => new Date(Date.now() - ms);
const future = (ms: number) => new Date(Date.now() + ms);
/** Waits for `cond`, checking every 20 ms, for at most `limitMs` (generous: a loaded machine is slow). */
async function until(cond: () => boolean, limitMs = 120_000): Promise<boolean> {
  const end = Date.now() + limitMs;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe('hostName', () => {
  it('is the name os.hostname() gives (read without loading node:os on Linux)', () => {
    expect(hostName()).toBe(hostname());
  });
});

describe('lock', () => {
  it('serialises holders in one process', async () => {
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
    for (let i = 0; i < order.length; i += 2)
      expect(order[i]!.replace('in', '')).toBe(order[i + 1]!.replace('out', ''));
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock whose holder process is dead, at once (with no time to wait at all)', async () => {
    const pid = deadPid();
    expect(processAlive(pid)).toBe(false);
    writeLock({ pid });
    (await acquireLock(path, 0))();
    writeLock({ pid, ...(PIDNS ? { pidns: PIDNS } : {}) });
    (await acquireLock(path, 0))();
  });

  it('never takes a lock from a live holder because of its age, or because its start lies in the future', async () => {
    writeLock({ pid: process.ppid, started: Date.now() - 3_600_000 }, past(3_600_000));
    await expect(acquireLock(path, 300)).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
      message: expect.stringContaining(`pid ${process.ppid}`),
    });
    writeLock({ pid: process.ppid, started: Date.now() + 3_600_000 }, future(3_600_000));
    await expect(acquireLock(path, 300)).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
  });

  it.skipIf(!linux)('takes over from a zombie holder and from a reused pid (another start time)', async () => {
    // `sleep 2` ends after its parent has exec'd into `sleep 600`, which never reaps it: a zombie until the parent ends
    // (killed below). A child that ended before the exec could be reaped by the shell itself on a loaded machine
    // (`sleep 0` was, with a suite and helpers' tests side by side, after the parent had been made to live).
    const shell = spawn('sh', ['-c', 'sleep 2 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
    onTestFinished(() => void shell.kill());
    const zombie = Number(await new Promise<string>((r) => shell.stdout.once('data', (d) => r(String(d).trim()))));
    const stat = () => {
      try {
        return readFileSync(`/proc/${zombie}/stat`, 'utf8');
      } catch {
        return '';
      }
    };
    expect(await until(() => /\) Z /.test(stat())), 'a zombie').toBe(true);
    expect(processAlive(zombie), 'kill(pid, 0) counts a zombie as alive').toBe(true);
    writeLock({ pid: zombie });
    (await acquireLock(path, 1_000))();
    shell.kill();
    // A live pid whose start time is not the recorded one: the holder died and the pid was reused.
    writeLock({ pid: process.ppid, pstart: procStart(process.ppid) + 1 });
    (await acquireLock(path, 1_000))();
    // The same pid with its own start time: alive.
    writeLock({ pid: process.ppid, pstart: procStart(process.ppid) });
    await expect(acquireLock(path, 300)).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
  });

  it(
    'a holder it cannot look at (another host, or our own pid from another pid namespace) keeps the lock while its ' +
      'heartbeat goes on',
    async () => {
      writeLock({ pid: 1, host: 'elsewhere' }, past(1_000));
      await expect(acquireLock(path, 300)).rejects.toMatchObject({
        code: 'LOCK_TIMEOUT',
        message: expect.stringContaining('on elsewhere'),
      });
      writeLock({ pid: 1, host: 'elsewhere' }, past(60_000));
      (await acquireLock(path, 1_000))();
      writeLock({ pid: process.pid }, past(1_000));
      await expect(acquireLock(path, 300)).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
      writeLock({ pid: process.pid }, past(60_000));
      (await acquireLock(path, 1_000))();
    },
  );

  it.skipIf(!linux)('a holder in another pid namespace is judged by its heartbeat, never by its pid', async () => {
    const other = 'pid:[4026530000]';
    expect(PIDNS).toMatch(/^pid:\[\d+\]$/);
    expect(other).not.toBe(PIDNS);
    // pid 1 in a sandbox: out here pid 1 is another process (another start time), which would
    // read as "the holder died and its pid was reused".
    const sandboxed = { pid: 1, boot: BOOT, pstart: procStart(1) + 1, pidns: other };
    expect(processGone({ ...sandboxed, host: hostname() }), 'not looked up').toBeUndefined();
    expect(
      processGone({ pid: 1, host: hostname(), boot: BOOT!, pstart: procStart(1) + 1 }),
      'without the namespace it would be',
    ).toBe(true);
    writeLock(sandboxed, past(1_000));
    await expect(acquireLock(path, 0)).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
      message: expect.stringContaining('pid 1 in another pid namespace'),
      hint: expect.stringContaining('another pid namespace'),
    });
    // A pid that does not exist out here, or a namespace its holder could not read: the same.
    writeLock({ ...sandboxed, pid: deadPid() }, past(1_000));
    await expect(acquireLock(path, 0)).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    writeLock({ ...sandboxed, pidns: 'unknown' }, past(1_000));
    await expect(acquireLock(path, 0)).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    // Its heartbeat stopped: gone.
    writeLock(sandboxed, past(60_000));
    (await acquireLock(path, 0))();
    // Another boot is gone whatever the namespace.
    writeLock({ ...sandboxed, boot: '00000000-0000-0000-0000-000000000000' }, past(1_000));
    (await acquireLock(path, 0))();
  });

  it('releasing removes only its own lock: one taken over meanwhile stays with its new holder', async () => {
    const release = await acquireLock(path, 1_000);
    // While this holder was stopped, another process took the lock over and wrote its own.
    const theirs = JSON.stringify({ pid: 424242, host: 'elsewhere', started: Date.now() });
    writeFileSync(path, theirs);
    release();
    expect(readFileSync(path, 'utf8')).toBe(theirs);
    // Its own lock it removes.
    rmSync(path);
    (await acquireLock(path, 1_000))();
    expect(existsSync(path)).toBe(false);
  });

  it('no pid names a process group: 0, negative and non-integer pids are never alive', () => {
    for (const pid of [0, -1, -process.pid, 1.5, Number.NaN]) expect(processAlive(pid), String(pid)).toBe(false);
    expect(processAlive(process.pid)).toBe(true);
  });

  it('records its pid namespace (Linux) with its pid', async () => {
    const release = await acquireLock(path, 0);
    const held = JSON.parse(readFileSync(path, 'utf8'));
    expect(held).toMatchObject({ pid: process.pid, host: hostname() });
    if (linux) expect(held.pidns).toBe(PIDNS);
    release();
  });

  it('a holder beats its heartbeat while it holds the lock', async () => {
    const release = await acquireLock(path, 1_000);
    const old = past(60_000);
    utimesSync(path, old, old);
    expect(await until(() => statSync(path).mtimeMs > old.getTime() + 30_000), 'touched again').toBe(true);
    release();
  });

  it(
    'a takeover file dated in the future does not hang the wait: it is cleared and the stale lock taken (with no ' +
      'time to wait)',
    async () => {
      writeLock({ pid: deadPid() });
      writeFileSync(`${path}.takeover`, JSON.stringify({ pid: process.ppid, host: hostname(), started: Date.now() }));
      utimesSync(`${path}.takeover`, future(3_600_000), future(3_600_000));
      (await acquireLock(path, 0))();
      expect(existsSync(`${path}.takeover`)).toBe(false);
    },
  );

  it('a lock that is a folder is an error naming it, not a crash or a wait', async () => {
    mkdirSync(path);
    await expect(acquireLock(path, 300)).rejects.toMatchObject({
      code: 'LOCK_FILE_INVALID',
      kind: 'state',
      message: expect.stringContaining('is a folder'),
    });
  });
});
