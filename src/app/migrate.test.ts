/**
 * `sow migrate` in-process, on a workspace sow 0.1.0 made (test/fixtures/v1/executing): the dry
 * run lists and writes nothing, the run keeps a backup and stamps its history entry with the
 * context's clock, a second run has nothing to do, and layouts it cannot read are refused.
 */
import { cpSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_V1, loadFixture, SCENARIOS, type Scenario } from '../../test/e2e/fixtures.js';
import { PROJECT, refused, T0, toExecuting, worlds, type World } from '../../test/inproc.js';
import { advanceProject } from './advance.js';
import { addArtifact } from './artifacts.js';
import { initWorkspace } from './init.js';
import { migrate } from './migrate.js';
import { getPhaseField } from './phase.js';
import { newProject } from './project.js';
import { continueProject, projectStatus } from './status.js';
import { listTasks, setTaskField } from './task.js';

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

/** A fixture of sow 0.1.0 as test/e2e/fixtures.ts's fixtureRepo makes it: on its branch, committed, no `sow init`. */
async function v1World(scenario: Scenario): Promise<World> {
  const w = await world('bare');
  cpSync(join(FIXTURES_V1, scenario, 'tree'), w.dir, { recursive: true });
  renameSync(join(w.dir, 'dot-sow'), join(w.dir, '.sow'));
  const { branch } = loadFixture(scenario).meta;
  if (branch !== 'main') w.git(['checkout', '-q', '-b', branch]);
  w.git(['add', '-A']);
  w.git(['commit', '-qm', 'fixture']);
  return w;
}

/** The use cases of the commands that read or write the workspace (task set only where task 010 exists). */
function workspaceUses(w: World): [string, () => Promise<unknown>][] {
  return [
    ['task list', () => listTasks(w.ctx())],
    ['project status', () => projectStatus(w.ctx())],
    ['project continue', () => continueProject(w.ctx())],
    ['advance', () => advanceProject(w.ctx(), undefined, false)],
    ...(w.exists('.sow/project/phases/implementation/tasks/010/state.yaml') || w.exists('.sow/project/phases/implementation/tasks/010')
      ? ([['task set', () => setTaskField(w.ctx(), '010', 'status', 'completed')]] as [string, () => Promise<unknown>][])
      : []),
    ['input add', () => addArtifact(w.ctx(), { kind: 'phase' }, 'inputs', { type: 'context', path: 'x.md', extra: {} })],
    ['init', async () => initWorkspace(w.dir)],
    ['phase get', () => getPhaseField(w.ctx(), 'status')],
    ['project new', () => newProject(w.ctx(), { name: 'other', description: 'x', planning: true })],
  ];
}

// Moved from test/e2e/migrate.test.ts, which keeps every command through the command line on one
// fixture (and a few on each of the others).
describe('a layout it does not read', () => {
  it.each(SCENARIOS)('layout 1 (%s, as sow 0.1.0 left it): every use case that reads or writes the workspace is refused with MIGRATION_NEEDED (exit 4), changing nothing', async (scenario) => {
    const w = await v1World(scenario);
    const head = w.git(['rev-parse', 'HEAD']);
    const branches = w.git(['branch', '--list']);
    for (const [what, run] of workspaceUses(w)) {
      const e = await refused(w, run, 'MIGRATION_NEEDED', 4);
      expect(e.message, what).toMatch(/layout version 1\b/);
      expect(e.hint, what).toMatch(/sow migrate/);
    }
    expect(w.read('.sow/.version')).toBe(loadFixture(scenario).files.get('.sow/.version'));
    expect(w.git(['branch', '--list'])).toBe(branches);
    expect(w.git(['rev-parse', 'HEAD'])).toBe(head);
    expect(w.git(['status', '--porcelain', '--untracked-files=all'])).toBe('');
  });

  it('a layout newer than this sow: every use case that reads or writes the workspace is refused with SOW_TOO_OLD (exit 4), changing nothing', async () => {
    const w = await world('init');
    await toExecuting(w);
    w.write('.sow/.version', '3\n');
    for (const [what, run] of workspaceUses(w)) {
      const e = await refused(w, run, 'SOW_TOO_OLD', 4);
      expect(e.message, what).toMatch(/layout version 3\b/);
      expect(e.hint, what).toMatch(/upgrade sow/);
    }
    expect(w.exists('.sow/.backup')).toBe(false);
  });
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
