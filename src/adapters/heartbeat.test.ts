import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heartbeatThread, spawnBlocking } from './heartbeat.js';
import { acquireLock } from './lock.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sow-heartbeat-'));
  path = join(dir, 'lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A shell that waits, blocking this process's event loop (spawnBlocking), until the file's mtime
 * is no longer the one it has now: only something that runs while the loop is blocked can end it.
 * Its status: 0 when the file was touched, null when the generous limit killed it.
 */
function blockedUntilTouched(file: string): number | null {
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(file, old, old);
  const script = 'm=$(stat -c %Y "$1"); while [ "$(stat -c %Y "$1")" = "$m" ]; do sleep 0.05; done';
  return spawnBlocking('sh', ['-c', script, 'sh', file], { timeout: 60_000 }).status;
}

describe('the heartbeat while a synchronous call blocks the event loop', () => {
  it(
    'a held lock is touched while the loop is blocked, ' + 'by a thread started only then and ended with the lock',
    async () => {
      const release = await acquireLock(path, 0);
      expect(heartbeatThread(), 'no thread until a blocking call').toBeUndefined();
      const content = readFileSync(path, 'utf8');
      expect(blockedUntilTouched(path), 'touched while blocked').toBe(0);
      const thread = heartbeatThread();
      expect(thread).toBeDefined();
      const ended = new Promise<number>((resolve) => thread!.once('exit', resolve));
      release();
      expect(heartbeatThread()).toBeUndefined();
      // It ends on its own once told (no terminate): the thread is gone.
      expect(await ended).toBe(0);
      // Without a lock, a blocking call starts nothing.
      writeFileSync(path, content);
      spawnBlocking('true');
      expect(heartbeatThread()).toBeUndefined();
    },
  );

  it('never touches a lock file that is not the one this process made (taken over meanwhile)', async () => {
    const release = await acquireLock(path, 0);
    // Someone else's lock in its place before the thread starts: the thread opens it, finds
    // other content, and lets it be. (It would touch a lock it takes at once, so a second and
    // a half blocked is ample; a slow machine can only make this pass for the wrong reason, never fail.)
    rmSync(path);
    writeFileSync(path, '{"pid":1,"host":"elsewhere","started":0}');
    // A whole second: the file system keeps it exactly.
    const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    utimesSync(path, old, old);
    spawnBlocking('sleep', ['1.5']);
    // Read before the event loop runs again.
    expect(Math.round(statSync(path).mtimeMs)).toBe(old.getTime());
    const thread = heartbeatThread()!;
    const ended = new Promise<number>((resolve) => thread.once('exit', resolve));
    release();
    expect(await ended).toBe(0);
  });
});

describe('one way to block', () => {
  it(
    'no source file but heartbeat.ts calls a program synchronously (spawnSync, execSync, execFileSync): all go ' +
      'through spawnBlocking',
    () => {
      const src = fileURLToPath(new URL('..', import.meta.url));
      const offenders = (readdirSync(src, { recursive: true }) as string[])
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .filter((f) => /\b(spawnSync|execSync|execFileSync)\b/.test(readFileSync(join(src, f), 'utf8')))
        .map((f) => relative(src, join(src, f)));
      expect(offenders).toEqual([join('adapters', 'heartbeat.ts')]);
    },
  );
});
