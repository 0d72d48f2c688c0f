import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPath, JournalRefusedError, replayJournal, Transaction } from './transaction.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-tx-'));
  mkdirSync(join(root, '.git/sow/tmp'), { recursive: true });
  mkdirSync(join(root, '.sow'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const anything = async () => undefined;
const body = (extra: Partial<Record<string, unknown>>) => ({ version: 3, renames: [], folders: [], removals: [], ...extra });
function writeJournal(b: Record<string, unknown>, sum?: string): void {
  writeFileSync(journalPath(root), JSON.stringify({ ...b, checksum: sum ?? createHash('sha256').update(JSON.stringify(b)).digest('hex') }));
}

describe('Transaction', () => {
  it('writes every file, creates folders whole and removes trees; leaves no journal and no temp files', () => {
    mkdirSync(join(root, '.git/sow/agent-outputs/deep'), { recursive: true });
    writeFileSync(join(root, '.git/sow/agent-outputs/deep/f'), 'x');
    new Transaction(root)
      .write('.sow/knowledge/a/b.txt', 'B')
      .write('.sow/.gitignore', 'C')
      .createFolder('.sow/project/t/010', { 'state.yaml': 'S', 'feedback/.gitkeep': '' })
      .removeRuntimeTree('agent-outputs')
      .commit();
    expect(readFileSync(join(root, '.sow/knowledge/a/b.txt'), 'utf8')).toBe('B');
    expect(readFileSync(join(root, '.sow/.gitignore'), 'utf8')).toBe('C');
    expect(readFileSync(join(root, '.sow/project/t/010/state.yaml'), 'utf8')).toBe('S');
    expect(existsSync(join(root, '.sow/project/t/010/feedback/.gitkeep'))).toBe(true);
    expect(existsSync(join(root, '.git/sow/agent-outputs'))).toBe(false);
    expect(existsSync(journalPath(root))).toBe(false);
    expect(readdirSync(join(root, '.git/sow/tmp'))).toEqual([]);
  });

  it('a journal left by a crash is replayed: the renames that had not happened yet, then it is gone', async () => {
    writeFileSync(join(root, '.git/sow/tmp/w1'), 'new');
    mkdirSync(join(root, '.sow/project'));
    writeFileSync(join(root, '.sow/project/one.txt'), 'old');
    writeJournal(
      body({
        renames: [
          { from: 'tmp/w1', to: '.sow/project/one.txt' },
          { from: 'tmp/w0', to: '.sow/project/done.txt' },
        ],
      }),
    );
    expect(await replayJournal(root, anything)).toBe(true);
    expect(readFileSync(join(root, '.sow/project/one.txt'), 'utf8')).toBe('new');
    expect(existsSync(journalPath(root))).toBe(false);
    expect(await replayJournal(root, anything)).toBe(false);
  });

  it('refuses, applying nothing, a journal that is not whole, names paths outside .sow/, or would write an invalid state file', async () => {
    writeFileSync(join(root, '.git/sow/tmp/w1'), 'evil');
    const refused = async (b: Record<string, unknown>, sum?: string, check = anything) => {
      writeJournal(b, sum);
      await expect(replayJournal(root, check)).rejects.toThrow(JournalRefusedError);
      expect(existsSync(journalPath(root)), 'the journal stays for a person to look at').toBe(true);
      expect(existsSync(join(root, '.git/sow/tmp/w1'))).toBe(true);
    };
    const ok = { from: 'tmp/w1', to: '.sow/project/x.txt' };
    await refused(body({ renames: [ok] }), 'not-the-checksum');
    await refused(body({ renames: [{ from: 'tmp/w1', to: '../outside.txt' }] }));
    await refused(body({ renames: [{ from: 'tmp/w1', to: '.sow/../../outside.txt' }] }));
    await refused(body({ renames: [{ from: '/etc/passwd', to: '.sow/project/x.txt' }] }));
    await refused(body({ renames: [{ from: '.sow/project/state.yaml', to: '.sow/project/x.txt' }] }));
    await refused(body({ removals: ['src'] }));
    await refused(body({ removals: ['.sow'] }));
    // Inside .sow/, but never removed by sow: the knowledge, a worktree (uncommitted code), the backups.
    await refused(body({ removals: ['.sow/knowledge'] }));
    await refused(body({ removals: ['.sow/worktrees/feat/x'] }));
    await refused(body({ removals: ['.sow/.backup'] }));
    await refused(body({ removals: ['runtime:backup'] }));
    await refused(body({ removals: ['runtime:../..'] }));
    // Temp files only from sow's temp folders, by a plain name.
    await refused(body({ renames: [{ from: 'tmp/../../x', to: '.sow/project/x.txt' }] }));
    await refused(body({ renames: [{ from: '.git/sow/tmp/w1', to: '.sow/project/x.txt' }] }));
    await refused(body({ renames: [{ from: 'tmp/sub/w1', to: '.sow/project/x.txt' }] }));
    await refused(body({ removals: ['.sow/project/'] }));
    // Nor written through a journal: a worktree's code, sow's config, the runtime folder.
    await refused(body({ renames: [{ from: 'tmp/w1', to: '.sow/worktrees/b/src/main.c' }] }));
    await refused(body({ renames: [{ from: 'tmp/w1', to: '.sow/config.yaml' }] }));
    await refused(body({ renames: [{ from: 'tmp/w1', to: '.git/sow/lock' }] }));
    // Through a symlink inside .sow/ that leads out of it.
    const outside = mkdtempSync(join(tmpdir(), 'sow-outside-'));
    symlinkSync(outside, join(root, '.sow/link'));
    await refused(body({ renames: [{ from: 'tmp/w1', to: '.sow/link/pwned.txt' }] }));
    rmSync(join(root, '.sow/link'));
    mkdirSync(join(root, '.sow/project'));
    symlinkSync(outside, join(root, '.sow/project/sub'));
    await refused(body({ renames: [{ from: 'tmp/w1', to: '.sow/project/sub/pwned.txt' }] }));
    rmSync(join(root, '.sow/project'), { recursive: true });
    expect(readdirSync(outside)).toEqual([]);
    rmSync(outside, { recursive: true, force: true });
    await refused(body({ renames: [ok] }), undefined, async () => {
      throw new Error('not a valid state file');
    });
    writeFileSync(journalPath(root), '{"version":3,"ren');
    await expect(replayJournal(root, anything)).rejects.toThrow(/not valid JSON/);
    expect(existsSync(join(root, '.sow/project/x.txt'))).toBe(false);
  });

  it('a replayed removal of the project keeps it in .git/sow/backup/removed/ instead of deleting it', async () => {
    mkdirSync(join(root, '.sow/project/phases'), { recursive: true });
    writeFileSync(join(root, '.sow/project/phases/work.md'), 'uncommitted work');
    writeJournal(body({ removals: ['.sow/project'] }));
    expect(await replayJournal(root, anything)).toBe(true);
    expect(existsSync(join(root, '.sow/project'))).toBe(false);
    const kept = readdirSync(join(root, '.git/sow/backup/removed'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(root, '.git/sow/backup/removed', kept[0]!, 'phases/work.md'), 'utf8')).toBe('uncommitted work');
  });

  it('a transaction refuses to write or remove through a link out of .sow/, and changes nothing', () => {
    const outside = mkdtempSync(join(tmpdir(), 'sow-outside-'));
    writeFileSync(join(outside, 'keep'), 'k');
    symlinkSync(outside, join(root, '.sow/knowledge'));
    expect(() => new Transaction(root).write('.sow/knowledge/x.md', 'X').write('.sow/.gitignore', 'G').commit()).toThrow(/is a link to .*outside \.sow/);
    expect(readdirSync(outside)).toEqual(['keep']);
    expect(existsSync(join(root, '.sow/.gitignore'))).toBe(false);
    rmSync(join(root, '.sow/knowledge'));
    mkdirSync(join(root, '.git/sow/x'), { recursive: true });
    symlinkSync(outside, join(root, '.git/sow/agent-outputs'));
    expect(() => new Transaction(root).removeRuntimeTree('agent-outputs').commit()).toThrow(/\.git\/sow\/agent-outputs is a link/);
    expect(readdirSync(outside)).toEqual(['keep']);
    rmSync(outside, { recursive: true, force: true });
  });

  it('a journal that is a folder is refused, not a crash', async () => {
    mkdirSync(journalPath(root));
    await expect(replayJournal(root, anything)).rejects.toThrow(/is a folder/);
  });
});
