import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPath, replayJournal, Transaction } from './transaction.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-tx-'));
  mkdirSync(join(root, '.sow/.runtime'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('Transaction', () => {
  it('writes every file, creates folders and removes trees', () => {
    mkdirSync(join(root, 'gone/deep'), { recursive: true });
    writeFileSync(join(root, 'gone/deep/f'), 'x');
    new Transaction(root).write('a/b.txt', 'B').write('c.txt', 'C').mkdir('a/empty').removeTree('gone').commit();
    expect(readFileSync(join(root, 'a/b.txt'), 'utf8')).toBe('B');
    expect(readFileSync(join(root, 'c.txt'), 'utf8')).toBe('C');
    expect(existsSync(join(root, 'a/empty/.gitkeep'))).toBe(true);
    expect(existsSync(join(root, 'gone'))).toBe(false);
    expect(existsSync(journalPath(root))).toBe(false);
  });

  it('a journal left by a crash is replayed in full', () => {
    writeFileSync(join(root, 'one.txt'), 'old');
    writeFileSync(journalPath(root), JSON.stringify({ version: 1, writes: [{ path: 'one.txt', text: 'new' }, { path: 'two/t.txt', text: '2' }], removals: [] }));
    expect(replayJournal(root)).toBe(true);
    expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('new');
    expect(readFileSync(join(root, 'two/t.txt'), 'utf8')).toBe('2');
    expect(existsSync(journalPath(root))).toBe(false);
    expect(replayJournal(root)).toBe(false);
  });

  it('an unreadable journal was never committed and is dropped', () => {
    writeFileSync(join(root, 'one.txt'), 'old');
    writeFileSync(journalPath(root), '{"version":1,"wri');
    expect(replayJournal(root)).toBe(false);
    expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('old');
  });
});
