import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeSync, linkSync, openSync } from 'node:fs';
import { constants, readdirSync } from 'node:fs';
import {
  DIRENT_DIR,
  DIRENT_LINK,
  DIRENT_UNKNOWN,
  fdStamp,
  fileStamp,
  folderEntries,
  rawStampInUse,
  resetFileStamp,
  SECONDS_BASE,
  stampUnlessSame,
  type RawLstat,
} from './file-stamp.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sow-stamp-'));
  resetFileStamp();
});
afterEach(() => {
  resetFileStamp();
  rmSync(dir, { recursive: true, force: true });
});

/** Whole seconds (rounded down) and the nanoseconds after them, as lstat(2) gives a time. */
const parts = (ns: bigint) => {
  const s = ns / 1_000_000_000n - (ns % 1_000_000_000n < 0n ? 1n : 0n);
  return [Number(s), Number(ns - s * 1_000_000_000n)] as const;
};
const expected = (path: string) => {
  const st = lstatSync(path, { bigint: true });
  const [mtimeS, mtimeNs] = parts(st.mtimeNs);
  const [ctimeS, ctimeNs] = parts(st.ctimeNs);
  const [dev, nlink] = [Number(st.dev), Number(st.nlink)];
  return {
    isFile: st.isFile(),
    ino: Number(st.ino),
    size: Number(st.size),
    mtimeS,
    mtimeNs,
    ctimeS,
    ctimeNs,
    dev,
    nlink,
  };
};

/** The stamps of a file, a folder, a link to the file and a dangling link, after a first call that decides the way. */
function stampsOfAKind(): void {
  const file = join(dir, 'state.yaml');
  writeFileSync(file, 'name: one\n');
  // atime, mtime and ctime all different: a field read from the wrong place shows (and a time
  // before 1970: its seconds are rounded down, as lstat(2) gives them).
  utimesSync(file, new Date(2001, 0, 1), new Date(2020, 0, 1, 0, 0, 0, 250));
  writeFileSync(join(dir, 'old'), '');
  utimesSync(join(dir, 'old'), new Date(1969, 11, 31, 23, 59, 58, 500), new Date(1969, 11, 31, 23, 59, 58, 500));
  mkdirSync(join(dir, 'folder'));
  symlinkSync(file, join(dir, 'link'));
  symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
  for (const name of ['state.yaml', 'folder', 'link', 'dangling', 'old'])
    expect(fileStamp(join(dir, name)), name).toEqual(expected(join(dir, name)));
  expect(fileStamp(join(dir, 'link'))!.isFile).toBe(false);
  expect(fileStamp(join(dir, 'missing'))).toBeUndefined();
  // Below a file: ENOTDIR, thrown as fs.lstatSync throws it.
  expect(() => fileStamp(join(dir, 'state.yaml', 'below-a-file'))).toThrow(/ENOTDIR/);
  // A change shows: a longer file, a later mtime.
  writeFileSync(file, 'name: one, longer\n');
  utimesSync(file, new Date(2002, 0, 1), new Date(2030, 0, 1));
  expect(fileStamp(file)).toEqual(expected(file));
  expect(fileStamp(file)!.size).toBe(18);
}

describe('fdStamp', () => {
  it('says of a descriptor what fileStamp says of its path, the link count too', () => {
    const file = join(dir, 'state.yaml');
    writeFileSync(file, 'name: one\n');
    linkSync(file, join(dir, 'second name'));
    expect(fileStamp(file)).toEqual(expected(file));
    const fd = openSync(file, 'r');
    try {
      for (let i = 0; i < 3; i++) expect(fdStamp(fd)).toEqual(expected(file));
      expect(fdStamp(fd).nlink).toBe(2);
      rmSync(join(dir, 'second name'));
      expect(fdStamp(fd)).toEqual(expected(file));
      rmSync(file);
      expect(fdStamp(fd).nlink).toBe(0);
    } finally {
      closeSync(fd);
    }
  });
});

describe('folderEntries', () => {
  /** What fs.readdirSync with types says, as names and whether each is a link or a folder. */
  const listed = (abs: string) =>
    readdirSync(abs, { withFileTypes: true }).map((d) => [d.name, d.isSymbolicLink(), d.isDirectory()]);
  const entries = (abs: string) => {
    const { names, types } = folderEntries(abs);
    return names.map((n, i) => [n, types[i] === DIRENT_LINK, types[i] === DIRENT_DIR]);
  };
  const aFolder = () => {
    writeFileSync(join(dir, 'state.yaml'), '');
    writeFileSync(join(dir, '.hidden'), '');
    mkdirSync(join(dir, '010'));
    symlinkSync(join(dir, '010'), join(dir, '020'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
  };

  it('lists what fs.readdirSync lists, links and folders told apart, and throws as it does', () => {
    aFolder();
    expect(entries(dir)).toEqual(listed(dir));
    expect(entries(dir)).toHaveLength(5);
    expect(() => folderEntries(join(dir, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(() => folderEntries(join(dir, 'state.yaml'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  it('says the same through fs.readdirSync when the binding is not used', () => {
    resetFileStamp(() => undefined);
    aFolder();
    expect(entries(dir)).toEqual(listed(dir));
    expect(() => folderEntries(join(dir, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it("knows libuv's entry types by Node's numbers", () => {
    const uv = constants as unknown as Record<string, number>;
    expect([uv['UV_DIRENT_UNKNOWN'], uv['UV_DIRENT_DIR'], uv['UV_DIRENT_LINK']]).toEqual([
      DIRENT_UNKNOWN,
      DIRENT_DIR,
      DIRENT_LINK,
    ]);
  });
});

describe('stampUnlessSame', () => {
  /** A task index entry's fields: id, inode, size, mtime s, ns, ctime s, ns. */
  const entryOf = (path: string) => {
    const e = expected(path);
    return ['010', e.ino, e.size, e.mtimeS - SECONDS_BASE, e.mtimeNs, e.ctimeS - SECONDS_BASE, e.ctimeNs];
  };

  it('says true only of a regular file with every field of the entry, else the stamp fileStamp gives', () => {
    const file = join(dir, 'state.yaml');
    writeFileSync(file, 'name: one\n');
    mkdirSync(join(dir, 'folder'));
    fileStamp(file);
    expect(rawStampInUse()).toBe(process.platform !== 'win32');
    if (rawStampInUse()) expect(stampUnlessSame(file, entryOf(file))).toBe(true);
    for (let i = 1; i <= 6; i++) {
      const known = entryOf(file);
      known[i] = Number(known[i]) + 1;
      expect(stampUnlessSame(file, known), `field ${i}`).toEqual(expected(file));
    }
    // A folder with the very fields of the entry is no task file.
    expect(stampUnlessSame(join(dir, 'folder'), entryOf(join(dir, 'folder')))).toEqual(expected(join(dir, 'folder')));
    expect(stampUnlessSame(join(dir, 'missing'), entryOf(file))).toBeUndefined();
    expect(stampUnlessSame(file, undefined)).toEqual(expected(file));
  });

  it('gives the stamp, never true, when the binding is not in use', () => {
    resetFileStamp(() => undefined);
    const file = join(dir, 'state.yaml');
    writeFileSync(file, 'name: one\n');
    fileStamp(file);
    expect(stampUnlessSame(file, entryOf(file))).toEqual(expected(file));
  });
});

describe('fileStamp', () => {
  it('says what fs.lstatSync says, through the binding where Node has it', () => {
    stampsOfAKind();
    // On the Node versions sow supports the binding's answer is proved on the first call and used.
    if (process.platform !== 'win32') expect(rawStampInUse()).toBe(true);
  });

  it('says the same through fs.lstatSync when there is no binding to use', () => {
    resetFileStamp(() => undefined);
    stampsOfAKind();
    expect(rawStampInUse()).toBe(false);
  });

  it('is not used with NODE_PENDING_DEPRECATION=1 (it would warn) or SOW_NO_RAW_STAT=1, and says the same', () => {
    for (const name of ['NODE_PENDING_DEPRECATION', 'SOW_NO_RAW_STAT']) {
      process.env[name] = '1';
      try {
        resetFileStamp();
        stampsOfAKind();
        expect(rawStampInUse(), name).toBe(false);
      } finally {
        delete process.env[name];
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
      }
    }
  });

  it('does not use a binding whose first answer differs from fs.lstatSync', () => {
    // Fields in another order than Node's: the first answer is checked, and the binding is never used.
    const shuffled: RawLstat = (path) => {
      const st = lstatSync(path, { throwIfNoEntry: false });
      return (
        st && [
          st.dev,
          st.mode,
          st.nlink,
          st.uid,
          st.gid,
          st.rdev,
          st.blksize,
          st.size,
          st.ino,
          st.blocks,
          0,
          0,
          0,
          0,
          0,
          0,
        ]
      );
    };
    resetFileStamp(() => shuffled);
    stampsOfAKind();
    expect(rawStampInUse()).toBe(false);
  });

  it('uses a binding whose first answer matches, and lets fs.lstatSync say what went wrong when it throws', () => {
    let calls = 0;
    const faithful: RawLstat = (path) => {
      calls++;
      if (path.endsWith('unreadable')) throw new Error('EACCES from the binding');
      const st = lstatSync(path, { throwIfNoEntry: false });
      const e = st && expected(path);
      return (
        st &&
        e && [
          st.dev,
          st.mode,
          st.nlink,
          st.uid,
          st.gid,
          st.rdev,
          st.blksize,
          st.ino,
          st.size,
          st.blocks,
          0,
          0,
          e.mtimeS,
          e.mtimeNs,
          e.ctimeS,
          e.ctimeNs,
        ]
      );
    };
    writeFileSync(join(dir, 'a'), 'x');
    resetFileStamp(() => faithful);
    expect(fileStamp(join(dir, 'a'))).toEqual(expected(join(dir, 'a')));
    expect(rawStampInUse()).toBe(true);
    const before = calls;
    expect(fileStamp(join(dir, 'missing'))).toBeUndefined();
    expect(calls).toBe(before + 1);
    // The binding threw: fs.lstatSync answers instead (here: nothing there).
    expect(fileStamp(join(dir, 'unreadable'))).toBeUndefined();
  });

  it('decides on the first file that is there: a missing one proves nothing', () => {
    writeFileSync(join(dir, 'a'), 'x');
    expect(fileStamp(join(dir, 'missing'))).toBeUndefined();
    expect(fileStamp(join(dir, 'a'))).toEqual(expected(join(dir, 'a')));
    if (process.platform !== 'win32') expect(rawStampInUse()).toBe(true);
  });

  it('refuses a path with a NUL in it, as fs.lstatSync does, instead of cutting it short', () => {
    writeFileSync(join(dir, 'a'), 'x');
    fileStamp(join(dir, 'a'));
    expect(() => fileStamp(`${join(dir, 'a')}\0/../b`)).toThrow(/null bytes|NUL|\\0/i);
  });
});
