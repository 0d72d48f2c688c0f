/**
 * Task files held open between calls (Linux): a stamp from a descriptor is believed only while it must equal the
 * stamp by path. Each way of making the path name other bytes is seen at the next call: an edit in place, a file
 * renamed over it, the file renamed away and another put in its place, the task folder replaced.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileStamp, type FileStamp } from './file-stamp.js';
import { HeldFiles } from './held-files.js';

let root: string;
let tasks: string;
let held: HeldFiles;
const file = (id: string) => join(tasks, id, 'state.yaml');
const LATER = () => Date.now() + 60_000;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-held-'));
  tasks = join(root, 'tasks');
  for (const id of ['010', '020']) {
    mkdirSync(join(tasks, id), { recursive: true });
    writeFileSync(file(id), `task ${id}\n`);
  }
  held = new HeldFiles();
});
afterEach(() => {
  held.release();
  rmSync(root, { recursive: true, force: true });
});

/** The fields the index compares. */
const plain = (s: FileStamp | undefined) =>
  s && { isFile: s.isFile, ino: s.ino, size: s.size, m: [s.mtimeS, s.mtimeNs], c: [s.ctimeS, s.ctimeNs] };
/** One call's pass: the stamp of each task file, as the index's check takes it. */
function pass(now = LATER()) {
  held.begin(tasks, now);
  return new Map(['010', '020'].map((id) => [id, plain(held.stamp(id, file))]));
}
/**
 * Waits until the file system's clock has moved past the stamps of the task files, as it has for a real file held
 * (held only once settled): a change made now shows in the stamp of what it touches.
 */
function afterTheirTick(): void {
  const probe = join(root, 'probe');
  const seen = ['010', '020'].map((id) => fileStamp(file(id))!);
  for (;;) {
    writeFileSync(probe, '');
    const p = fileStamp(probe)!;
    if (seen.every((s) => p.ctimeS > s.ctimeS || (p.ctimeS === s.ctimeS && p.ctimeNs > s.ctimeNs))) break;
  }
}
const byPath = () => new Map(['010', '020'].map((id) => [id, plain(fileStamp(file(id)))]));

describe.runIf(process.platform === 'linux')('task files held open between calls', () => {
  it('holds each file after the first pass and answers as a stamp by path would', () => {
    expect(pass()).toEqual(byPath());
    expect(held.size).toBe(2);
    expect(pass()).toEqual(byPath());
  });

  it('an edit in place that keeps the size is seen', () => {
    pass();
    const before = pass();
    afterTheirTick();
    writeFileSync(file('010'), 'task 01O\n');
    const after = pass();
    expect(after.get('010')).not.toEqual(before.get('010'));
    expect(after).toEqual(byPath());
  });

  it('a file renamed over it, as sow writes, is seen', () => {
    pass();
    afterTheirTick();
    writeFileSync(join(tasks, '010', '.new'), 'task 010\n');
    renameSync(join(tasks, '010', '.new'), file('010'));
    expect(pass()).toEqual(byPath());
  });

  it('the file renamed away and another put in its place is seen', () => {
    pass();
    afterTheirTick();
    renameSync(file('020'), join(tasks, '020', 'old.yaml'));
    writeFileSync(file('020'), 'task 020\n');
    expect(pass()).toEqual(byPath());
    rmSync(file('020'));
    expect(pass().get('020')).toBeUndefined();
  });

  it('a task folder replaced (the held file itself untouched) is seen: every file is statted by path again', () => {
    pass();
    renameSync(join(tasks, '010'), join(root, 'elsewhere'));
    mkdirSync(join(tasks, '010'));
    writeFileSync(file('010'), 'task 010\n');
    expect(pass()).toEqual(byPath());
  });

  it('holds nothing while the tasks folder has not settled, nor a link, and lets every file go on release', () => {
    pass(Date.now());
    expect(held.size).toBe(0);
    rmSync(file('020'));
    symlinkSync(file('010'), file('020'));
    pass();
    pass();
    expect(held.size).toBe(1);
    held.release();
    expect(held.size).toBe(0);
  });
});

describe('how many files are held', () => {
  const limits = (soft: string) =>
    `Limit                     Soft Limit           Hard Limit           Units     \n` +
    `Max open files            ${soft}                4096                 files     \n`;

  it('a quarter of the limit of open files, at most 4,096, none when the limit is unknown', async () => {
    const { heldLimit } = await import('./held-files.js');
    expect(heldLimit(limits('1024'))).toBe(256);
    expect(heldLimit(limits('1048576'))).toBe(4096);
    expect(heldLimit(limits('unlimited'))).toBe(4096);
    expect(heldLimit(undefined)).toBe(0);
    expect(heldLimit('Max processes 100 100\n')).toBe(0);
  });

  it('holds no more than its limit', () => {
    held.release();
    held = new HeldFiles(1);
    pass();
    expect(held.size).toBe(1);
  });
});
