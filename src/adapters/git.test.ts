import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitObjects, headCommit, headTreeWithout, worktreeTree } from './git.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function repo() {
  const dir = mkdtempSync(join(tmpdir(), 'sow-git-'));
  dirs.push(dir);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  git('init', '-q', '-b', 'main');
  return { dir, git, write };
}

describe('worktreeTree: the code outside .sow/, as a tree hash', () => {
  it("is HEAD's tree without .sow/ when nothing changed, and .sow/ never changes it", () => {
    const r = repo();
    r.write('src/a.ts', 'a\n');
    r.write('.sow/project/state.yaml', 'x: 1\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'one');
    const tree = worktreeTree(r.dir, '.sow');
    expect(tree).toBe(headTreeWithout(r.dir, '.sow'));
    expect(r.git('ls-tree', '--name-only', tree)).toBe('src');
    // The tree of HEAD with .sow/ is another: .sow/ is left out.
    expect(tree).not.toBe(r.git('rev-parse', 'HEAD^{tree}'));
    r.write('.sow/project/state.yaml', 'x: 2\n');
    r.write('.sow/project/evidence/new.log', 'log\n');
    expect(worktreeTree(r.dir, '.sow')).toBe(tree);
  });

  it('changes with a modified file, an untracked file and a deleted file, not with an ignored one', () => {
    const r = repo();
    r.write('.gitignore', 'build/\n');
    r.write('src/a.ts', 'a\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'one');
    const clean = worktreeTree(r.dir, '.sow');
    r.write('build/out.js', 'ignored\n');
    expect(worktreeTree(r.dir, '.sow')).toBe(clean);
    r.write('src/b.ts', 'untracked\n');
    const withUntracked = worktreeTree(r.dir, '.sow');
    expect(withUntracked).not.toBe(clean);
    rmSync(join(r.dir, 'src/b.ts'));
    expect(worktreeTree(r.dir, '.sow')).toBe(clean);
    r.write('src/a.ts', 'changed\n');
    expect(worktreeTree(r.dir, '.sow')).not.toBe(clean);
    r.write('src/a.ts', 'a\n');
    expect(worktreeTree(r.dir, '.sow')).toBe(clean);
    rmSync(join(r.dir, 'src/a.ts'));
    expect(worktreeTree(r.dir, '.sow')).not.toBe(clean);
  });

  it('keeps a tracked file that a .gitignore matches, as git add -A does', () => {
    const r = repo();
    r.write('keep.log', 'tracked\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'one');
    r.write('.gitignore', '*.log\n');
    r.git('add', '.gitignore');
    r.git('commit', '-q', '-m', 'ignore logs');
    expect(worktreeTree(r.dir, '.sow')).toBe(headTreeWithout(r.dir, '.sow'));
  });

  it('never writes the real index: its bytes and its mtime stay', () => {
    const r = repo();
    r.write('src/a.ts', 'a\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'one');
    r.write('src/a.ts', 'changed\n');
    r.write('src/new.ts', 'new\n');
    r.write('.sow/x', 'x\n');
    const index = join(r.dir, '.git', 'index');
    // (git status itself refreshes the index: ask it first.)
    const status = r.git('status', '--porcelain');
    const before = { bytes: readFileSync(index), mtime: statSync(index).mtimeMs };
    worktreeTree(r.dir, '.sow');
    expect(readFileSync(index).equals(before.bytes)).toBe(true);
    expect(statSync(index).mtimeMs).toBe(before.mtime);
    expect(r.git('status', '--porcelain')).toBe(status);
  });

  it('works in a repository without commits', () => {
    const r = repo();
    expect(headCommit(r.dir)).toBeNull();
    const empty = headTreeWithout(r.dir, '.sow');
    expect(worktreeTree(r.dir, '.sow')).toBe(empty);
    r.write('.sow/x', 'x\n');
    expect(worktreeTree(r.dir, '.sow')).toBe(empty);
    r.write('a.txt', 'a\n');
    expect(worktreeTree(r.dir, '.sow')).not.toBe(empty);
  });
});

describe('headCommit', () => {
  it('is the sha of HEAD', () => {
    const r = repo();
    r.git('commit', '-q', '--allow-empty', '-m', 'one');
    expect(headCommit(r.dir)).toBe(r.git('rev-parse', 'HEAD'));
  });
});

describe('gitObjects: many objects in one cat-file --batch', () => {
  it(
    'each id with its type and content (sizes in bytes, contents as UTF-8); missing ids and what is no ' +
      'id left out',
    () => {
      const r = repo();
      r.write('a.txt', 'owner: Zoë\nmachine: laptop-3\n');
      r.write('b.txt', 'ünïcödé\n\nsecond line\n');
      const ida = r.git('hash-object', '-w', 'a.txt');
      const idb = r.git('hash-object', '-w', 'b.txt');
      const commit = r.git('commit-tree', '-m', 'claim of task 010\n\nowner: Zoë', r.git('mktree'));
      const missing = 'f'.repeat(40);
      const got = gitObjects(r.dir, [ida, missing, `${idb}\n${ida}`, idb, commit, '--upload-pack=x']);
      expect([...got.keys()]).toEqual([ida, idb, commit]);
      expect(got.get(ida)).toEqual({ type: 'blob', content: 'owner: Zoë\nmachine: laptop-3\n' });
      expect(got.get(idb)).toEqual({ type: 'blob', content: 'ünïcödé\n\nsecond line\n' });
      expect(got.get(commit)!.type).toBe('commit');
      expect(got.get(commit)!.content).toMatch(/\n\nclaim of task 010\n\nowner: Zoë\n$/);
      expect(gitObjects(r.dir, [])).toEqual(new Map());
    },
  );
});
