import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  confine,
  confineReal,
  existingRealFolder,
  FileTooLargeError,
  normalRelative,
  NotARealFolderError,
  PathEscapeError,
  readConfined,
  readRegular,
  realFolder,
  repoArea,
  sowArea,
  sowPath,
  wherePathLands,
  withinArea,
  type Area,
} from './confine.js';

/** Whether every place a path another program names may land lies in the area (as acp-worker.ts judges it). */
const namesWithin = (area: Area, cwd: string, path: string): boolean =>
  wherePathLands(cwd, path)?.every((real) => withinArea(area, real)) ?? false;

let top: string;
let root: string;
let outside: string;
beforeEach(() => {
  top = mkdtempSync(join(tmpdir(), 'sow-confine-'));
  root = join(top, 'repo');
  outside = join(top, 'outside');
  mkdirSync(join(root, '.sow/project'), { recursive: true });
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'src'));
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret'), 'outside');
});
afterEach(() => rmSync(top, { recursive: true, force: true }));

const limits = { max: 100, what: 'test files', why: 'a test' };

describe('normalRelative', () => {
  it('normalises paths that stay inside and refuses the rest', () => {
    expect(normalRelative('a/./b/../c')).toBe('a/c');
    expect(normalRelative('.sow/project/../../src/x')).toBe('src/x');
    expect(normalRelative('a/')).toBe('a');
    for (const bad of ['', '.', '..', '../x', 'a/../../x', '/etc/passwd', 'C:/x', 'a\0b'])
      expect(normalRelative(bad), bad).toBeUndefined();
  });
});

describe('confine', () => {
  it('returns the path of a plain file or of one that does not exist yet', () => {
    expect(confine(repoArea(root), 'src/a.ts')).toBe(join(root, 'src/a.ts'));
    expect(confine(repoArea(root), 'new/deep/file')).toBe(join(root, 'new/deep/file'));
  });

  it('refuses .. that leads out, absolute paths and .git/', () => {
    expect(() => confine(repoArea(root), '../outside/secret')).toThrow(PathEscapeError);
    expect(() => confine(repoArea(root), '/etc/passwd')).toThrow(PathEscapeError);
    expect(() => confine(repoArea(root), '.git/config')).toThrow(/\.git\//);
    expect(() => confine(repoArea(root), 'src/../.git/hooks/x')).toThrow(/\.git\//);
  });

  it('refuses a link anywhere on the way that leads out, naming it and where it leads', () => {
    symlinkSync(outside, join(root, 'src/lib'));
    let err: unknown;
    try {
      confine(repoArea(root), 'src/lib/secret');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PathEscapeError);
    expect((err as PathEscapeError).kind).toBe('state');
    expect((err as PathEscapeError).details).toMatchObject({ link: 'src/lib', target: outside });
    expect((err as Error).message).toContain(`'src/lib' is a link to '${outside}'`);
  });

  it('refuses a dangling link whose text leads out (a write would create the file there)', () => {
    symlinkSync(join(outside, 'not-yet'), join(root, 'src/new.ts'));
    expect(() => confine(repoArea(root), 'src/new.ts')).toThrow(PathEscapeError);
  });

  it('refuses a link into .git/ and, for .sow/, a link to elsewhere in the repository', () => {
    symlinkSync('../.git', join(root, 'src/g'));
    expect(() => confine(repoArea(root), 'src/g/config')).toThrow(PathEscapeError);
    symlinkSync('../../src', join(root, '.sow/project/code'));
    expect(() => sowPath(root, '.sow/project/code/x')).toThrow(/outside \.sow\//);
  });

  it('allows a link that stays inside, and confineReal says where it leads', () => {
    mkdirSync(join(root, 'docs'));
    symlinkSync('../docs', join(root, 'src/docs'));
    expect(confine(repoArea(root), 'src/docs/a.md')).toBe(join(root, 'src/docs/a.md'));
    expect(confineReal(repoArea(root), 'src/docs/a.md')).toBe(join(root, 'docs/a.md'));
    // Without a link on the way the path is already real, missing parts and all.
    expect(confineReal(repoArea(root), 'src/new/a.md')).toBe(join(repoArea(root).base, 'src/new/a.md'));
  });

  it('refuses a .sow that is a link, even to a harmless place', () => {
    rmSync(join(root, '.sow'), { recursive: true });
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync('elsewhere', join(root, '.sow'));
    expect(() => sowArea(root)).toThrow(NotARealFolderError);
  });
});

describe('realFolder', () => {
  it('creates missing folders and refuses links and files on the way, emptying nothing', () => {
    expect(realFolder({ base: root, name: 'r' }, '.git/sow/tmp')).toBe(join(root, '.git/sow/tmp'));
    rmSync(join(root, '.git/sow/tmp'), { recursive: true });
    symlinkSync(outside, join(root, '.git/sow/tmp'));
    expect(() => realFolder({ base: root, name: 'r' }, '.git/sow/tmp')).toThrow(NotARealFolderError);
    expect(() => existingRealFolder({ base: root, name: 'r' }, '.git/sow/tmp')).toThrow(/is a link/);
    expect(readdirSync(outside)).toEqual(['secret']);
    writeFileSync(join(root, '.git/sow/trash'), '');
    expect(() => realFolder({ base: root, name: 'r' }, '.git/sow/trash')).toThrow(/is a file/);
    // Under a file is not missing: said as such, by both.
    const underFile = { base: join(root, '.git/sow/trash'), name: 'r' };
    expect(() => existingRealFolder(underFile, 'x')).toThrow(/lies under a file/);
    expect(() => realFolder(underFile, 'x')).toThrow(/lies under a file/);
    expect(existingRealFolder({ base: root, name: 'r' }, '.git/sow/none')).toBeUndefined();
    // A name from a file or an environment variable (an agent id) never climbs out.
    expect(() => realFolder({ base: root, name: 'r' }, '.git/sow/agent-outputs/../../../x')).toThrow(PathEscapeError);
    expect(() => realFolder({ base: root, name: 'r' }, '.git/sow/./x')).toThrow(PathEscapeError);
  });
});

describe('readConfined', () => {
  it('reads a file, says undefined for none, refuses folders, big files and links out', () => {
    writeFileSync(join(root, 'src/a.ts'), 'A');
    expect(readConfined(repoArea(root), 'src/a.ts', limits)).toBe('A');
    expect(readConfined(repoArea(root), 'src/none.ts', limits)).toBeUndefined();
    expect(() => readConfined(repoArea(root), 'src', limits)).toThrow(/is a folder/);
    writeFileSync(join(root, 'src/big'), 'x'.repeat(101));
    expect(() => readConfined(repoArea(root), 'src/big', limits)).toThrow(FileTooLargeError);
    symlinkSync(join(outside, 'secret'), join(root, 'src/s'));
    expect(() => readConfined(repoArea(root), 'src/s', limits)).toThrow(PathEscapeError);
  });

  it('a link swapped in after the check is not followed (O_NOFOLLOW on the resolved path)', () => {
    writeFileSync(join(root, 'src/a.ts'), 'A');
    const real = confineReal(repoArea(root), 'src/a.ts');
    // Between the check and the open, the file is replaced by a link.
    renameSync(real, join(root, 'src/a.bak'));
    symlinkSync(join(outside, 'secret'), real);
    expect(() => readRegular(real, 'src/a.ts', limits)).toThrow(/became a link/);
  });
});

describe('namesWithin (paths an agent names, over ACP)', () => {
  it('follows links, judges files not there yet by their folder, keeps out .git and what lies outside', () => {
    const base = mkdtempSync(join(tmpdir(), 'sow-names-'));
    try {
      const root = join(base, 'repo');
      mkdirSync(join(root, 'src'), { recursive: true });
      mkdirSync(join(root, '.git'));
      mkdirSync(join(base, 'outside'));
      symlinkSync(join(base, 'outside'), join(root, 'link-out'));
      symlinkSync(join(root, 'src'), join(base, 'link-in'));
      const area = repoArea(root);
      expect(namesWithin(area, root, 'src/a.ts')).toBe(true);
      expect(namesWithin(area, root, join(root, 'new/deep/file.txt'))).toBe(true);
      expect(namesWithin(area, join(root, 'src'), '../README.md')).toBe(true);
      expect(namesWithin(area, root, '../outside/x')).toBe(false);
      expect(namesWithin(area, root, 'src/../../outside/x')).toBe(false);
      expect(namesWithin(area, root, 'link-out/new-file')).toBe(false);
      expect(namesWithin(area, root, '.git/config')).toBe(false);
      expect(namesWithin(area, root, '/etc/passwd')).toBe(false);
      // A link from outside into the repository names a file inside it.
      expect(namesWithin(area, base, 'link-in/a.ts')).toBe(true);
      // A link met before `..` is followed first, as the system does: `out-deep/..` is outside, whatever the text says.
      mkdirSync(join(base, 'outside/deep'));
      symlinkSync(join(base, 'outside/deep'), join(root, 'out-deep'));
      expect(namesWithin(area, root, 'out-deep/../x')).toBe(false);
      expect(wherePathLands(root, 'out-deep/../x')).toEqual([join(base, 'outside/x'), join(root, 'x')]);
      symlinkSync('loop', join(root, 'loop'));
      expect(wherePathLands(root, 'loop/x')).toBeUndefined();
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
