/**
 * A worker's permissions over ACP with the real file system under them: paths land where the
 * system takes them, so a link inside the repository to a protected file is that file, and a link
 * met before `..` cannot lead a path out while its text looks inside.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decidePermission } from '../domain/acp-permissions.js';
import { workerPolicy } from './acp-worker.js';

let top: string;
let root: string;
let outside: string;
beforeEach(() => {
  top = realpathSync(mkdtempSync(join(tmpdir(), 'sow-acp-policy-')));
  root = join(top, 'repo');
  outside = join(top, 'outside');
  for (const d of ['.git/hooks', 'src/deep', '.claude/sub', '.sow/worktrees/.workers/main--task-010', 'outside'])
    mkdirSync(join(d === 'outside' ? top : root, d), { recursive: true });
  mkdirSync(join(outside, 'a/b'), { recursive: true });
  writeFileSync(join(root, '.git/config'), '[core]\n');
  writeFileSync(join(root, '.sow/worktrees/.workers/main--task-010/.git'), 'gitdir: x\n');
  writeFileSync(join(outside, 'a/secret'), 'secret');
});
afterEach(() => rmSync(top, { recursive: true, force: true }));

const edit = (path: string, cwd = root, from = root) =>
  decidePermission(
    { kind: 'edit', title: 'Write', rawInput: { file_path: path } },
    workerPolicy('safe', [], from, cwd),
  );
const read = (path: string) =>
  decidePermission({ kind: 'read', title: 'Read', rawInput: { path } }, workerPolicy('safe', [], root, root));

describe('workerPolicy (safe, on the real file system)', () => {
  it('a link inside the repository to a protected file is that file', () => {
    symlinkSync('.git/config', join(root, 'cfg'));
    symlinkSync(join(root, '.git/hooks'), join(root, 'hooks'));
    symlinkSync('.claude/settings.json', join(root, 'dangling'));
    symlinkSync('.sow/worktrees/.workers/main--task-010/.git', join(root, 'gitfile'));
    expect(edit('cfg')).toMatchObject({ allow: false, reason: expect.stringMatching(/^\.git\/config is git's own/) });
    expect(edit(join(root, 'hooks/post-commit'))).toMatchObject({
      allow: false,
      reason: expect.stringMatching(/^\.git\/hooks\/post-commit is git's own/),
    });
    expect(edit('dangling')).toMatchObject({
      allow: false,
      reason: expect.stringMatching(/^\.claude\/settings\.json is protected/),
    });
    expect(edit('gitfile')).toMatchObject({
      allow: false,
      reason: expect.stringMatching(/^\.sow\/worktrees\/\.workers\/main--task-010\/\.git is git's own/),
    });
    expect(read('cfg')).toMatchObject({ allow: false, reason: expect.stringContaining('.git/config') });
    expect(edit('src/deep/a.ts').allow).toBe(true);
  });

  it(
    'a link met before .. is followed as the system follows it; ' + 'both readings must stay inside and unprotected',
    () => {
      symlinkSync(join(outside, 'a/b'), join(root, 'out'));
      symlinkSync('.claude/sub', join(root, 'cl'));
      symlinkSync('src/deep', join(root, 'in'));
      // The text says "secret in the repository"; the system reads the secret outside.
      expect(read('out/../secret')).toMatchObject({
        allow: false,
        reason: expect.stringMatching(/^it reads outside the repository/),
      });
      expect(edit('out/../secret').allow).toBe(false);
      // The text says settings.json at the top; the system writes .claude/settings.json.
      expect(edit('cl/../settings.json')).toMatchObject({
        allow: false,
        reason: expect.stringMatching(/^\.claude\/settings\.json is protected/),
      });
      expect(edit('in/../x.ts').allow).toBe(true); // src/x.ts for the system, x.ts tidied: both inside
      // x.ts for the system, but tidied it climbs out of the repository: a tool that tidies first writes there.
      expect(edit('in/../../x.ts')).toMatchObject({
        allow: false,
        reason: expect.stringMatching(/outside the repository/),
      });
      symlinkSync('loop', join(root, 'loop'));
      expect(edit('loop/x').allow).toBe(false);
    },
  );

  it("in a worker's own checkout, paths are relative to it and its .git is protected", () => {
    const checkout = join(root, '.sow/worktrees/.workers/main--task-010');
    expect(edit('.git', checkout, checkout)).toMatchObject({
      allow: false,
      reason: expect.stringMatching(/^\.git is git's own/),
    });
    expect(edit('src/a.ts', checkout, checkout).allow).toBe(true);
    // The project checkout's files are outside the worker's checkout.
    expect(edit(join(root, 'src/a.ts'), checkout, checkout)).toMatchObject({
      allow: false,
      reason: expect.stringMatching(/outside the repository/),
    });
  });
});
