/** `sow init` in-process: what it creates, what it fills in when run again, and the layouts it refuses. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Transaction } from '../adapters/transaction.js';
import { refused, worlds } from '../../test/inproc.js';
import { GITIGNORE_LINES, initWorkspace, missingIgnoreLines, repairIgnoreFile, SOW_GITIGNORE } from './init.js';
import { MERGE_DRIVER, SOW_GITATTRIBUTES } from './merge-setup.js';

const world = worlds();

describe('init', () => {
  it(
    'in a git repository (from a subfolder too): the ignore file, the knowledge and refs folders, and ' +
      '.version last',
    async () => {
      const w = await world('bare');
      w.write('src/deep/.keep', '');
      const r = initWorkspace(`${w.dir}/src/deep`);
      expect(r).toEqual({
        root: w.dir,
        created: [
          '.sow/.gitignore',
          '.sow/.gitattributes',
          '.sow/knowledge/.gitkeep',
          '.sow/refs/.gitkeep',
          '.sow/.version',
        ],
        repaired: [],
        alreadyInitialised: false,
        configured: ['merge.sow.driver', 'merge.sow.name'],
      });
      expect(w.read('.sow/.gitignore')).toBe(SOW_GITIGNORE);
      // git merges every file of .sow/ with sow's driver, which the repository's git config names.
      expect(w.read('.sow/.gitattributes')).toBe(SOW_GITATTRIBUTES);
      expect(w.git(['check-attr', 'merge', '--', '.sow/project/state.yaml'])).toBe(
        '.sow/project/state.yaml: merge: sow',
      );
      expect(w.git(['config', '--local', '--get', 'merge.sow.driver'])).toBe(MERGE_DRIVER);
      expect(w.read('.sow/.version')).toBe('2\n');
      expect(missingIgnoreLines(w.dir)).toEqual([]);
    },
  );

  it(
    'again: nothing to do; with files gone or ignore lines missing, it fills in only those, keeping the ' +
      'person’s own lines',
    async () => {
      const w = await world('init');
      const before = w.snapshot();
      expect(initWorkspace(w.dir)).toEqual({
        root: w.dir,
        created: [],
        repaired: [],
        alreadyInitialised: true,
        configured: [],
      });
      expect(w.snapshot()).toEqual(before);
      w.write('.sow/.gitignore', '# mine\n.runtime/\nnotes/');
      w.git(['rm', '-q', '--cached', '--ignore-unmatch', '.sow/refs/.gitkeep']);
      rmSync(`${w.dir}/.sow/refs/.gitkeep`);
      const r = initWorkspace(w.dir);
      expect(r).toEqual({
        root: w.dir,
        created: ['.sow/refs/.gitkeep'],
        repaired: ['.sow/.gitignore: .backup/', '.sow/.gitignore: worktrees/'],
        alreadyInitialised: true,
        configured: [],
      });
      // A repository initialised before the merge driver: init again registers it, keeping the person's attributes.
      w.write('.sow/.gitattributes', '*.md text\n');
      w.git(['config', '--unset', 'merge.sow.driver']);
      expect(initWorkspace(w.dir)).toEqual({
        root: w.dir,
        created: [],
        repaired: ['.sow/.gitattributes: * merge=sow'],
        alreadyInitialised: true,
        configured: ['merge.sow.driver'],
      });
      expect(w.read('.sow/.gitattributes')).toBe('*.md text\n* merge=sow\n');
      expect(w.read('.sow/.gitignore')).toBe('# mine\n.runtime/\nnotes/\n.backup/\nworktrees/\n');
    },
  );

  it(
    'refuses outside a git repository, a layout an older sow wrote (migrate) and one a newer sow wrote (upgrade), ' +
      'changing nothing',
    async () => {
      const plain = mkdtempSync(`${tmpdir()}/sow-inproc-init-`);
      try {
        const w = await world('bare');
        await refused(w, async () => initWorkspace(plain), 'NOT_A_GIT_REPOSITORY', 1);
      } finally {
        rmSync(plain, { recursive: true, force: true });
      }
      const old = await world('init');
      old.write('.sow/.version', '1\n');
      old.write('.sow/.gitignore', '');
      const e = await refused(old, async () => initWorkspace(old.dir), 'MIGRATION_NEEDED', 4);
      expect(e.hint).toContain("'sow migrate --dry-run'");
      const newer = await world('init');
      newer.write('.sow/.version', '3\n');
      expect((await refused(newer, async () => initWorkspace(newer.dir), 'SOW_TOO_OLD', 4)).hint).toMatch(
        /^upgrade sow.*; nothing was changed$/,
      );
      const garbled = await world('init');
      garbled.write('.sow/.version', 'two\n');
      await refused(garbled, async () => initWorkspace(garbled.dir), 'STATE_FILE_INVALID', 4);
    },
  );
});

describe('the ignore file', () => {
  it(
    'missing lines are every line without a file, the absent ones otherwise; a repair writes them in the ' +
      'transaction only',
    async () => {
      const w = await world('bare');
      expect(missingIgnoreLines(w.dir)).toEqual(GITIGNORE_LINES);
      const tx = new Transaction(w.dir);
      expect(repairIgnoreFile(w.dir, tx)).toEqual({ created: true, added: GITIGNORE_LINES });
      expect(w.exists('.sow/.gitignore'), 'not before the commit').toBe(false);
      tx.commit();
      expect(w.read('.sow/.gitignore')).toBe(SOW_GITIGNORE);

      w.write('.sow/.gitignore', '  worktrees/  \n');
      expect(missingIgnoreLines(w.dir)).toEqual(['.runtime/', '.backup/']);
      const again = new Transaction(w.dir);
      expect(repairIgnoreFile(w.dir, again)).toEqual({ created: false, added: ['.runtime/', '.backup/'] });
      again.commit();
      expect(w.read('.sow/.gitignore')).toBe('  worktrees/  \n.runtime/\n.backup/\n');
      const none = new Transaction(w.dir);
      expect(repairIgnoreFile(w.dir, none)).toEqual({ created: false, added: [] });
      none.commit();
      w.write('.sow/.gitignore', '');
      const empty = new Transaction(w.dir);
      repairIgnoreFile(w.dir, empty);
      empty.commit();
      expect(w.read('.sow/.gitignore')).toBe(`${GITIGNORE_LINES.join('\n')}\n`);
    },
  );
});
