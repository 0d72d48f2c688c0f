import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPath, JournalRefusedError, replayJournal } from './journal.js';
import { commitChange, StaleChangeError, Transaction } from './transaction.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-tx-'));
  mkdirSync(join(root, '.git/sow/tmp'), { recursive: true });
  mkdirSync(join(root, '.sow'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const anything = async () => undefined;
const body = (extra: Partial<Record<string, unknown>>) => ({
  version: 3,
  renames: [],
  folders: [],
  removals: [],
  ...extra,
});
function writeJournal(b: Record<string, unknown>, sum?: string): void {
  writeFileSync(
    journalPath(root),
    JSON.stringify({ ...b, checksum: sum ?? createHash('sha256').update(JSON.stringify(b)).digest('hex') }),
  );
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

  it(
    'refuses, applying nothing, a journal that is not whole, names paths outside .sow/, or would write an invalid ' +
      'state file',
    async () => {
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
    },
  );

  it('a replayed removal of the project keeps it in .git/sow/backup/removed/ instead of deleting it', async () => {
    mkdirSync(join(root, '.sow/project/phases'), { recursive: true });
    writeFileSync(join(root, '.sow/project/phases/work.md'), 'uncommitted work');
    writeJournal(body({ removals: ['.sow/project'] }));
    expect(await replayJournal(root, anything)).toBe(true);
    expect(existsSync(join(root, '.sow/project'))).toBe(false);
    const kept = readdirSync(join(root, '.git/sow/backup/removed'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(root, '.git/sow/backup/removed', kept[0]!, 'phases/work.md'), 'utf8')).toBe(
      'uncommitted work',
    );
  });

  it('a transaction refuses to write or remove through a link out of .sow/, and changes nothing', () => {
    const outside = mkdtempSync(join(tmpdir(), 'sow-outside-'));
    writeFileSync(join(outside, 'keep'), 'k');
    symlinkSync(outside, join(root, '.sow/knowledge'));
    expect(() =>
      new Transaction(root).write('.sow/knowledge/x.md', 'X').write('.sow/.gitignore', 'G').commit(),
    ).toThrow(/is a link to .*outside \.sow/);
    expect(readdirSync(outside)).toEqual(['keep']);
    expect(existsSync(join(root, '.sow/.gitignore'))).toBe(false);
    rmSync(join(root, '.sow/knowledge'));
    mkdirSync(join(root, '.git/sow/x'), { recursive: true });
    symlinkSync(outside, join(root, '.git/sow/agent-outputs'));
    expect(() => new Transaction(root).removeRuntimeTree('agent-outputs').commit()).toThrow(
      /\.git\/sow\/agent-outputs is a link/,
    );
    expect(readdirSync(outside)).toEqual(['keep']);
    rmSync(outside, { recursive: true, force: true });
  });

  it('a journal that is a folder is refused, not a crash', async () => {
    mkdirSync(journalPath(root));
    await expect(replayJournal(root, anything)).rejects.toThrow(/is a folder/);
  });
});

describe('appending to a log', () => {
  const LOG = '.sow/project/t/010/log.md';
  beforeEach(() => {
    mkdirSync(join(root, '.sow/project/t/010'), { recursive: true });
    writeFileSync(join(root, LOG), '# Task log: 010\n\nfirst\n\n');
  });
  const ino = () => statSync(join(root, LOG)).ino;

  it('alone: writes the new bytes in place (same file, nothing rewritten), no journal, no temp file', () => {
    const before = ino();
    new Transaction(root).append(LOG, 'second\n\n').commit();
    expect(readFileSync(join(root, LOG), 'utf8')).toBe('# Task log: 010\n\nfirst\n\nsecond\n\n');
    expect(ino()).toBe(before);
    expect(readdirSync(join(root, '.git/sow/tmp'))).toEqual([]);
  });

  it('with other files: through the journal, still in place; two appends to one log in one change go together', () => {
    const before = ino();
    new Transaction(root)
      .write('.sow/project/t/010/state.yaml', 'S')
      .append(LOG, 'a\n\n')
      .append(LOG, 'b\n\n')
      .commit();
    expect(readFileSync(join(root, LOG), 'utf8')).toBe('# Task log: 010\n\nfirst\n\na\n\nb\n\n');
    expect(ino()).toBe(before);
    expect(existsSync(journalPath(root))).toBe(false);
    expect(readdirSync(join(root, '.git/sow/tmp'))).toEqual([]);
  });

  it('an append to a file written in the same change joins the write', () => {
    new Transaction(root).write(LOG, 'whole\n\n').append(LOG, 'more\n\n').commit();
    expect(readFileSync(join(root, LOG), 'utf8')).toBe('whole\n\nmore\n\n');
  });

  it('only logs are appended to', () => {
    expect(() => new Transaction(root).append('.sow/project/t/010/state.yaml', 'x')).toThrow(/only to logs/);
  });

  it('a log that is a link to a state file is refused, alone or with other files, and nothing changes', () => {
    const state = join(root, '.sow/project/t/010/state.yaml');
    writeFileSync(state, 'id: "010"\n');
    rmSync(join(root, LOG));
    symlinkSync('state.yaml', join(root, LOG));
    expect(() => new Transaction(root).append(LOG, 'x\n\n').commit()).toThrow(/sow appends only to logs/);
    const other = '.sow/project/t/010/description.md';
    expect(() => new Transaction(root).write(other, 'd').append(LOG, 'x\n\n').commit()).toThrow(/appends only to logs/);
    expect(readFileSync(state, 'utf8')).toBe('id: "010"\n');
    expect(existsSync(join(root, other))).toBe(false);
    expect(existsSync(journalPath(root))).toBe(false);
  });

  it(
    'a replay writes only what the interrupted command had not written, ' + 'and never cuts what a person added',
    async () => {
      const size = statSync(join(root, LOG)).size;
      // The crash came after half of the entry was written.
      writeFileSync(join(root, '.git/sow/tmp/a1'), 'entry one\n\n');
      writeFileSync(join(root, LOG), '# Task log: 010\n\nfirst\n\nentry ');
      writeJournal(body({ appends: [{ from: 'tmp/a1', to: LOG, at: size }] }));
      expect(await replayJournal(root, anything)).toBe(true);
      expect(readFileSync(join(root, LOG), 'utf8')).toBe('# Task log: 010\n\nfirst\n\nentry one\n\n');
      expect(readdirSync(join(root, '.git/sow/tmp'))).toEqual([]);

      // Replayed again after the file was edited by hand: the edit stays, the entry goes after it.
      const at = statSync(join(root, LOG)).size;
      writeFileSync(join(root, '.git/sow/tmp/a2'), 'entry two\n\n');
      writeFileSync(join(root, LOG), '# Task log: 010\n\nfirst\n\nentry one\n\nhand\n\n');
      writeJournal(body({ appends: [{ from: 'tmp/a2', to: LOG, at }] }));
      expect(await replayJournal(root, anything)).toBe(true);
      expect(readFileSync(join(root, LOG), 'utf8')).toBe(
        '# Task log: 010\n\nfirst\n\nentry one\n\nhand\n\nentry two\n\n',
      );
    },
  );

  it('refuses a journal that appends to anything but a log, or at no size, applying nothing', async () => {
    writeFileSync(join(root, '.git/sow/tmp/a1'), 'x');
    writeFileSync(join(root, '.sow/project/t/010/state.yaml'), 'S');
    for (const step of [
      { from: 'tmp/a1', to: '.sow/project/t/010/state.yaml', at: 1 },
      { from: 'tmp/a1', to: '.sow/.gitignore', at: 0 },
      { from: 'tmp/a1', to: LOG, at: -1 },
      { from: 'tmp/a1', to: LOG, at: '3' },
      { from: '../a1', to: LOG, at: 0 },
    ]) {
      writeJournal(body({ appends: [step] }));
      await expect(replayJournal(root, anything)).rejects.toBeInstanceOf(JournalRefusedError);
    }
    expect(readFileSync(join(root, LOG), 'utf8')).toBe('# Task log: 010\n\nfirst\n\n');
    expect(readFileSync(join(root, '.sow/project/t/010/state.yaml'), 'utf8')).toBe('S');
  });
});

describe('commitChange: a finished change, written only on the state it was planned from', () => {
  const STATE = '.sow/project/t/010/state.yaml';
  const LOG = '.sow/project/t/010/log.md';
  beforeEach(() => {
    mkdirSync(join(root, '.sow/project/t/010'), { recursive: true });
    writeFileSync(join(root, STATE), 'status: pending\n');
    writeFileSync(join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
  });
  const change = (read = 'status: pending\n', branch = 'main') => ({
    branch,
    read: [{ rel: STATE, text: read }],
    write: { [STATE]: 'status: completed\n' },
    log: [{ rel: LOG, header: '# Task log: 010\n\n', entry: 'done\n' }],
  });
  const state = () => readFileSync(join(root, STATE), 'utf8');

  it('writes the files and begins the log with its header when every file read is as it was read', async () => {
    await commitChange(root, change());
    expect(state()).toBe('status: completed\n');
    expect(readFileSync(join(root, LOG), 'utf8')).toBe('# Task log: 010\n\ndone\n');
  });

  it('refuses, writing nothing: a file read changed, another branch checked out, a write waiting', async () => {
    await expect(commitChange(root, change('status: in_progress\n'))).rejects.toBeInstanceOf(StaleChangeError);
    await expect(commitChange(root, change(undefined, 'other'))).rejects.toBeInstanceOf(StaleChangeError);
    writeJournal(body({}));
    await expect(commitChange(root, change())).rejects.toBeInstanceOf(StaleChangeError);
    expect(state()).toBe('status: pending\n');
    expect(existsSync(join(root, LOG))).toBe(false);
  });
});
