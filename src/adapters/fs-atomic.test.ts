import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRealFolder } from './confine.js';
import { clearDir, removeTreeAtomic } from './fs-atomic.js';

let top: string;
let dir: string;
let outside: string;
beforeEach(() => {
  top = mkdtempSync(join(tmpdir(), 'sow-fsatomic-'));
  dir = join(top, 'tmp');
  outside = join(top, 'outside');
  mkdirSync(dir);
  mkdirSync(outside);
  writeFileSync(join(outside, 'a'), 'keep');
  writeFileSync(join(outside, 'b'), 'keep');
});
afterEach(() => rmSync(top, { recursive: true, force: true }));

/** Swaps `dir` for a link to `outside` the `n`th time it is asked, then says whether `dir` is still a real folder. */
function swapOn(n: number): () => boolean {
  let calls = 0;
  return () => {
    if (++calls === n) {
      renameSync(dir, `${dir}.moved`);
      symlinkSync(outside, dir);
    }
    return isRealFolder(dir);
  };
}

describe('clearDir', () => {
  it('empties a real folder', () => {
    writeFileSync(join(dir, 'a'), 'x');
    mkdirSync(join(dir, 'b'));
    clearDir(dir, () => isRealFolder(dir));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops when the folder becomes a link between two removals: nothing behind the link is removed', () => {
    writeFileSync(join(dir, 'a'), 'x');
    writeFileSync(join(dir, 'b'), 'x');
    clearDir(dir, swapOn(2));
    expect(readdirSync(outside).sort()).toEqual(['a', 'b']);
  });
});

describe('removeTreeAtomic', () => {
  it('moves the tree into the trash and deletes it there', () => {
    mkdirSync(join(top, 'project/deep'), { recursive: true });
    writeFileSync(join(top, 'project/deep/f'), 'x');
    removeTreeAtomic(join(top, 'project'), dir, () => isRealFolder(dir));
    expect(existsSync(join(top, 'project'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
