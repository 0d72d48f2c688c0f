import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPath, JournalRefusedError, replayJournal, Transaction } from './transaction.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-tx-'));
  mkdirSync(join(root, '.sow/.runtime/tmp'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const anything = async () => undefined;
const body = (extra: Partial<Record<string, unknown>>) => ({ version: 2, renames: [], folders: [], removals: [], ...extra });
function writeJournal(b: Record<string, unknown>, sum?: string): void {
  writeFileSync(journalPath(root), JSON.stringify({ ...b, checksum: sum ?? createHash('sha256').update(JSON.stringify(b)).digest('hex') }));
}

describe('Transaction', () => {
  it('writes every file, creates folders whole and removes trees; leaves no journal and no temp files', () => {
    mkdirSync(join(root, '.sow/gone/deep'), { recursive: true });
    writeFileSync(join(root, '.sow/gone/deep/f'), 'x');
    new Transaction(root).write('.sow/a/b.txt', 'B').write('.sow/c.txt', 'C').createFolder('.sow/t/010', { 'state.yaml': 'S', 'feedback/.gitkeep': '' }).removeTree('.sow/gone').commit();
    expect(readFileSync(join(root, '.sow/a/b.txt'), 'utf8')).toBe('B');
    expect(readFileSync(join(root, '.sow/c.txt'), 'utf8')).toBe('C');
    expect(readFileSync(join(root, '.sow/t/010/state.yaml'), 'utf8')).toBe('S');
    expect(existsSync(join(root, '.sow/t/010/feedback/.gitkeep'))).toBe(true);
    expect(existsSync(join(root, '.sow/gone'))).toBe(false);
    expect(existsSync(journalPath(root))).toBe(false);
    expect(readdirSync(join(root, '.sow/.runtime/tmp'))).toEqual([]);
  });

  it('a journal left by a crash is replayed: the renames that had not happened yet, then it is gone', async () => {
    writeFileSync(join(root, '.sow/.runtime/tmp/w1'), 'new');
    writeFileSync(join(root, '.sow/one.txt'), 'old');
    writeJournal(body({ renames: [{ from: '.sow/.runtime/tmp/w1', to: '.sow/one.txt' }, { from: '.sow/.runtime/tmp/w0', to: '.sow/done.txt' }] }));
    expect(await replayJournal(root, anything)).toBe(true);
    expect(readFileSync(join(root, '.sow/one.txt'), 'utf8')).toBe('new');
    expect(existsSync(journalPath(root))).toBe(false);
    expect(await replayJournal(root, anything)).toBe(false);
  });

  it('refuses, applying nothing, a journal that is not whole, names paths outside .sow/, or would write an invalid state file', async () => {
    writeFileSync(join(root, '.sow/.runtime/tmp/w1'), 'evil');
    const refused = async (b: Record<string, unknown>, sum?: string, check = anything) => {
      writeJournal(b, sum);
      await expect(replayJournal(root, check)).rejects.toThrow(JournalRefusedError);
      expect(existsSync(journalPath(root)), 'the journal stays for a person to look at').toBe(true);
      expect(existsSync(join(root, '.sow/.runtime/tmp/w1'))).toBe(true);
    };
    const ok = { from: '.sow/.runtime/tmp/w1', to: '.sow/x.txt' };
    await refused(body({ renames: [ok] }), 'not-the-checksum');
    await refused(body({ renames: [{ from: '.sow/.runtime/tmp/w1', to: '../outside.txt' }] }));
    await refused(body({ renames: [{ from: '.sow/.runtime/tmp/w1', to: '.sow/../../outside.txt' }] }));
    await refused(body({ renames: [{ from: '/etc/passwd', to: '.sow/x.txt' }] }));
    await refused(body({ renames: [{ from: '.sow/project/state.yaml', to: '.sow/x.txt' }] }));
    await refused(body({ removals: ['src'] }));
    await refused(body({ removals: ['.sow'] }));
    // Through a symlink inside .sow/ that leads out of it.
    const outside = mkdtempSync(join(tmpdir(), 'sow-outside-'));
    symlinkSync(outside, join(root, '.sow/link'));
    await refused(body({ renames: [{ from: '.sow/.runtime/tmp/w1', to: '.sow/link/pwned.txt' }] }));
    expect(readdirSync(outside)).toEqual([]);
    rmSync(outside, { recursive: true, force: true });
    await refused(body({ renames: [ok] }), undefined, async () => { throw new Error('not a valid state file'); });
    writeFileSync(journalPath(root), '{"version":2,"ren');
    await expect(replayJournal(root, anything)).rejects.toThrow(/not valid JSON/);
    expect(existsSync(join(root, '.sow/x.txt'))).toBe(false);
  });

  it('a journal that is a folder is refused, not a crash', async () => {
    mkdirSync(journalPath(root));
    await expect(replayJournal(root, anything)).rejects.toThrow(/is a folder/);
  });
});
