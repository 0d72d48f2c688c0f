/**
 * `sow migrate` in-process, on a workspace sow 0.1.0 made (test/fixtures/v1/executing): the dry
 * run lists and writes nothing, the run keeps a backup and stamps its history entry with the
 * context's clock, a second run has nothing to do, and layouts it cannot read are refused.
 */
import { cpSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_V1 } from '../../test/e2e/fixtures.js';
import { PROJECT, refused, T0, worlds, type World } from '../../test/inproc.js';
import { migrate } from './migrate.js';
import { projectStatus } from './status.js';

const world = worlds({
  /** The executing fixture of sow 0.1.0 (in place of the .sow/ of init), committed on its branch. */
  v1: async (w) => {
    rmSync(join(w.dir, '.sow'), { recursive: true, force: true });
    cpSync(join(FIXTURES_V1, 'executing', 'tree'), w.dir, { recursive: true });
    renameSync(join(w.dir, 'dot-sow'), join(w.dir, '.sow'));
    w.git(['checkout', '-q', '-b', 'feat/add-auth']);
    w.git(['add', '-A']);
    w.git(['commit', '-qm', 'fixture']);
  },
});

const changedFiles = (r: { changes: { file: string }[] }) => [...new Set(r.changes.map((c) => c.file))];

describe('migrate', () => {
  it('--dry-run lists every change, the new .version last, and writes nothing', async () => {
    const w = await world('v1');
    const before = w.snapshot();
    const r = await migrate(w.ctx(), true);
    expect(r).toMatchObject({ from: 1, to: 2, dryRun: true });
    expect(r.backup).toBeUndefined();
    expect(r.changes.at(-1)).toEqual({ file: '.sow/.version', change: 'layout 1 → 2' });
    expect(changedFiles(r)).toContain(PROJECT);
    expect(w.snapshot()).toEqual(before);
  });

  it('converts every state file, keeps a byte-identical backup, stamps the migration with the context’s clock; then there is nothing to do', async () => {
    const w = await world('v1');
    const before = w.snapshot();
    w.clock.advance(60);
    const dry = await migrate(w.ctx(), true);
    const r = await migrate(w.ctx(), false);
    expect(r.changes).toEqual(dry.changes);
    expect(r.backup).toBe('.sow/.backup/1');
    for (const [rel, text] of before) if (!rel.startsWith('.sow/.backup/')) expect(w.read(rel.replace(/^\.sow\//, '.sow/.backup/1/')), rel).toBe(text);
    expect(w.read('.sow/.version')).toBe('2\n');
    const history = w.yaml(PROJECT).statechart.history;
    expect(history.at(-1)).toMatchObject({ event: 'migrate', by: 'sow migrate', at: new Date(Date.parse(T0) + 60_000).toISOString() });
    expect(await projectStatus(w.ctx())).toMatchObject({ name: 'add-auth', state: 'ImplementationExecuting', tasks: { total: 3 } });
    const after = w.snapshot();
    expect(await migrate(w.ctx(), false)).toEqual({ from: 2, to: 2, dryRun: false, changes: [] });
    expect(w.snapshot()).toEqual(after);
  });

  it('refuses a layout newer than this sow (upgrade) and one older than any it converts, and outside a workspace, changing nothing', async () => {
    const refuse = async (version: string, code: string, exit: number) => {
      const w: World = await world('init');
      w.write('.sow/.version', version);
      return refused(w, () => migrate(w.ctx(), false), code, exit);
    };
    expect((await refuse('3\n', 'SOW_TOO_OLD', 4)).message).toContain('layout version 3, made by a newer sow');
    await refuse('0\n', 'MIGRATION_NEEDED', 4);
    await refuse('x\n', 'STATE_FILE_INVALID', 4);
    const bare = await world('bare');
    await refused(bare, () => migrate(bare.ctx(), true), 'NOT_INITIALIZED', 1);
  });
});
