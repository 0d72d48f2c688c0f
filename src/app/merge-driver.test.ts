/**
 * `sow merge-driver` in-process: the files git hands it, what it writes, what it records, and what it leaves to
 * git's text merge.
 */
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refused, worlds, type World } from '../../test/inproc.js';
import { emitYaml } from '../adapters/yaml/emit.js';
import { writeConflictRecord } from '../adapters/merge-files.js';
import { conflictRecords, runMergeDriver } from './merge-driver.js';
import { T, task as taskState } from '../../test/merge-fixtures.js';

const world = worlds();
const NOW = () => '2026-01-01T00:00:00.000Z';
const TASK = '.sow/project/phases/implementation/tasks/010/state.yaml';

const task = (over: Record<string, unknown> = {}) => emitYaml(taskState(over));

/** The three temp files git writes in the top of the work tree, and a run of the driver on them. */
function merge(w: World, path: string, base: string, ours: string, theirs: string) {
  writeFileSync(join(w.dir, '.merge_file_O'), base);
  writeFileSync(join(w.dir, '.merge_file_A'), ours);
  writeFileSync(join(w.dir, '.merge_file_B'), theirs);
  return {
    run: () =>
      runMergeDriver(w.dir, { base: '.merge_file_O', ours: '.merge_file_A', theirs: '.merge_file_B', path }, NOW),
    result: () => readFileSync(join(w.dir, '.merge_file_A'), 'utf8'),
  };
}

describe('sow merge-driver', () => {
  it('merges a task file by meaning into %A: both sides’ outputs, the later updated_at', async () => {
    const w = await world('init');
    const out = (path: string, at: number) => ({ type: 'modified', path, created_at: T(at) });
    const m = merge(
      w,
      TASK,
      task(),
      task({ status: 'completed', updated_at: T(5), outputs: [out('a.ts', 4)] }),
      task({ updated_at: T(3), outputs: [out('b.ts', 2)] }),
    );
    expect(await m.run()).toEqual({ path: TASK, how: 'by-meaning' });
    expect(m.result()).toBe(task({ status: 'completed', updated_at: T(5), outputs: [out('b.ts', 2), out('a.ts', 4)] }));
  });

  it('a file a person wrote keeps its comments and spelling where it did not change', async () => {
    const w = await world('init');
    const ours = `# the first task\n${task()}`.replace('name: one', "name: 'one'  # quoted");
    const m = merge(w, TASK, task(), ours, task({ status: 'in_progress' }));
    await m.run();
    expect(m.result()).toBe(ours.replace('status: pending', 'status: in_progress'));
  });

  it(
    'a conflict: exit 1 naming the field and both values; %A is valid YAML with ours; the record is kept for ' +
      'doctor, and dropped when the file merges',
    async () => {
      const w = await world('init');
      const m = merge(
        w,
        TASK,
        task(),
        task({ status: 'completed', name: 'mine' }),
        task({ status: 'abandoned', assigned_agent: 'x' }),
      );
      const e = await refused(w, m.run, 'MERGE_CONFLICT', 1);
      expect(e.message).toBe(
        `'${TASK}': a field both branches changed to different values: 'status' is 'completed' here and 'abandoned' ` +
          `on the other branch; the file keeps this branch's values`,
      );
      expect(e.hint).toContain(`'git add ${TASK}'`);
      expect(m.result()).toBe(task({ status: 'completed', name: 'mine', assigned_agent: 'x' }));
      expect(conflictRecords(w.dir)).toEqual([
        {
          path: TASK,
          at: NOW(),
          fields: [{ field: 'status', base: 'pending', ours: 'completed', theirs: 'abandoned' }],
        },
      ]);
      await merge(w, TASK, task(), task({ name: 'mine' }), task()).run();
      expect(conflictRecords(w.dir)).toEqual([]);
    },
  );

  it('a conflict record that does not read as one (changed by hand) is skipped, the others are read', async () => {
    const w = await world('init');
    const good = { path: 'a', at: NOW(), fields: [{ field: 'status', ours: 1 }] };
    const bad = [{ path: 'b', at: NOW() }, { path: 'c', at: NOW(), fields: [{ name: 'x' }] }, [good], null];
    writeConflictRecord(w.dir, 'merge-conflicts', 'a', JSON.stringify(good));
    bad.forEach((r, i) => writeConflictRecord(w.dir, 'merge-conflicts', `bad${i}`, JSON.stringify(r)));
    expect(conflictRecords(w.dir)).toEqual([good]);
  });

  it('logs keep what both sides appended', async () => {
    const w = await world('init');
    const entry = (s: number) =>
      `---\ntimestamp: "${T(s)}"\nagent: user\naction: note\nresult: success\n---\n\nn${s}\n\n`;
    const head = '# Project log: demo\n\n';
    const m = merge(w, '.sow/project/log.md', head, head + entry(3), head + entry(2));
    await m.run();
    expect(m.result()).toBe(head + entry(2) + entry(3));
  });

  it(
    'what it does not merge by meaning goes to git’s text merge: another file, a file that does not parse, ' +
      'one too large',
    async () => {
      const w = await world('init');
      const clean = merge(w, '.sow/config.yaml', 'a: 1\nb: 2\nc: 3\n', 'a: 10\nb: 2\nc: 3\n', 'a: 1\nb: 2\nc: 30\n');
      expect(await clean.run()).toEqual({ path: '.sow/config.yaml', how: 'text' });
      expect(clean.result()).toBe('a: 10\nb: 2\nc: 30\n');
      const markers = merge(w, '.sow/config.yaml', 'a: 1\n', 'a: 2\n', 'a: 3\n');
      await refused(w, markers.run, 'MERGE_TEXT_CONFLICT', 1);
      expect(markers.result()).toBe('<<<<<<< ours\na: 2\n=======\na: 3\n>>>>>>> theirs\n');
      // A file git cannot merge as text either (binary): exit 5, and %A is this branch's, untouched.
      const binary = merge(w, '.sow/knowledge/logo.png', 'a\0b', 'a\0c', 'a\0d');
      await refused(w, binary.run, 'GIT_MERGE_FILE_FAILED', 5);
      expect(binary.result()).toBe('a\0c');
      // An alias bomb on the other side is never expanded: the text merge takes the file.
      const bomb =
        `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c ` +
        `[*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n`;
      await refused(w, merge(w, TASK, task(), task({ status: 'completed' }), bomb).run, 'MERGE_TEXT_CONFLICT', 1);
      const big = task({ metadata: { blob: 'x'.repeat(1024 * 1024) } });
      expect(await merge(w, TASK, task(), task(), big).run()).toEqual({ path: TASK, how: 'text' });
    },
  );

  it(
    'writes only a real file of the folder git merges in: a link for %A, or a file elsewhere, is refused and ' +
      'left alone',
    async () => {
      const w = await world('init');
      const outside = join(w.dir, '..', `outside-${process.pid}.txt`);
      writeFileSync(outside, 'keep me\n');
      try {
        const m = merge(w, TASK, task(), task(), task({ status: 'completed' }));
        symlinkSync(outside, join(w.dir, '.merge_file_L'));
        await refused(
          w,
          () =>
            runMergeDriver(
              w.dir,
              { base: '.merge_file_O', ours: '.merge_file_L', theirs: '.merge_file_B', path: TASK },
              NOW,
            ),
          'PATH_ESCAPES',
          4,
        );
        await refused(
          w,
          () =>
            runMergeDriver(w.dir, { base: '.merge_file_O', ours: outside, theirs: '.merge_file_B', path: TASK }, NOW),
          'PATH_ESCAPES',
          4,
        );
        await refused(
          w,
          () =>
            runMergeDriver(
              w.dir,
              { base: '.merge_file_O', ours: '.merge_file_none', theirs: '.merge_file_B', path: TASK },
              NOW,
            ),
          'USAGE',
          2,
        );
        expect(readFileSync(outside, 'utf8')).toBe('keep me\n');
        expect(m.result()).toBe(task());
      } finally {
        rmSync(outside, { force: true });
      }
      expect(existsSync(join(w.dir, '.git/sow/merge-conflicts'))).toBe(false);
    },
  );
});
