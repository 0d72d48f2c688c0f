/**
 * Values as a person wrote them, in-process: a write through a use case leaves every value of a
 * hand-edited task or project file it did not change byte for byte (number spellings, tags,
 * anchors and aliases, flow style, block scalars, quotes, comments), and YAML built to exhaust sow
 * (an alias bomb, nesting deep enough to overflow the stack, an alias inside its own anchor) is
 * refused by every use case that reads the file, changing nothing. Moved from
 * test/e2e/values-as-written.test.ts, which keeps `--json` and text output of such values and
 * one hostile file of each kind in a cloned repository.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, refused, taskFile, toExecuting, worlds } from '../../test/inproc.js';
import { listChecks } from './check-list.js';
import { setTaskField } from './task-change.js';
import { setPhaseField } from './phase.js';
import { continueProject, projectStatus } from './status.js';
import { getTask, listTasks } from './task.js';
import { EXHAUSTING, handEditTask, METADATA_READ, withTimesOf } from '../../test/values-cases.js';

const world = worlds({ executing: (w) => toExecuting(w) });

describe('a write leaves every value it did not change as written', () => {
  it('task set on a hand-edited task file: only the changed lines change, byte for byte', async () => {
    const w = await world('executing');
    const before = handEditTask(w);
    w.clock.advance(60);
    await setTaskField(w.ctx(), '010', 'metadata.reviewer', 'alice');
    let after = w.read(taskFile('010'));
    expect(after).not.toBe(before); // updated_at moved on
    expect(after).toBe(
      withTimesOf(before, after).replace("  single: 'it''s'\n", "  single: 'it''s'\n  reviewer: alice\n"),
    );

    const second = after;
    w.clock.advance(60);
    await setTaskField(w.ctx(), '010', 'status', 'in_progress');
    after = w.read(taskFile('010'));
    const started = /^started_at: .*$/m.exec(after)?.[0];
    expect(started).toBeDefined();
    // status changes in place; started_at is added at the end of the map, after the metadata.
    expect(after).toBe(
      withTimesOf(second, after)
        .replace(/^status: pending$/m, 'status: in_progress')
        .replace('  reviewer: alice\n', `  reviewer: alice\n${started}\n`),
    );
    // And the values read as written.
    expect((await getTask(w.ctx(), '010', 'metadata')).value).toMatchObject(METADATA_READ);
  });

  it('a value changed under an alias is written out; its anchor and everything else stay', async () => {
    const w = await world('executing');
    const before = handEditTask(w);
    await setTaskField(w.ctx(), '010', 'metadata.alias.x', '5');
    const after = w.read(taskFile('010'));
    expect(after).toBe(withTimesOf(before, after).replace('  alias: *A\n', '  alias: {x: 5, "y": [1, 2]}\n'));
    expect((await getTask(w.ctx(), '010', 'metadata.anchor.x')).value).toBe(1);
  });

  it('phase set on a hand-edited project file: comments, anchors, aliases and flow entries stay', async () => {
    const w = await world('executing');
    const sowWrote = w.read(PROJECT);
    // A person anchors the first `by:` and aliases the others, writes one history entry in flow
    // style, and comments the file.
    let n = 0;
    const start =
      / {4}- from: NoProject\n {6}to: PlanningActive\n {6}event: project_init\n {6}at: ("[^"]+")\n {6}by: &who user\n/;
    const edited = `# The project, edited by hand\n${sowWrote
      .replace(/^(\s+)by: user$/gm, (_m, indent: string) => `${indent}by: ${n++ === 0 ? '&who user' : '*who'}`)
      .replace(
        start,
        '    - {from: NoProject, to: PlanningActive, event: project_init, at: $1, by: &who user} # the start\n',
      )
      .replace(/^( {6})tasks_approved: true$/m, '$1tasks_approved: yes_they_are  # see the call notes')}`;
    expect(edited).toContain('{from: NoProject');
    expect(edited).toContain('*who');
    w.write(PROJECT, edited);

    w.clock.advance(60);
    await setPhaseField(w.ctx(), 'metadata.reviewer', 'alice');
    const after = w.read(PROJECT);
    // The new key goes after the last one of the map (the record of what the approval covered).
    expect(after).toBe(
      withTimesOf(edited, after).replace(/( {6}approved_tasks:\n(?: {8}.*\n)+)/, '$1      reviewer: alice\n'),
    );
    expect(after).toContain('tasks_approved: yes_they_are  # see the call notes\n');
    expect((await projectStatus(w.ctx())).state).toBe('ImplementationExecuting');
  });

  it('an integer beyond 2^53 where a number is wanted reads as before and stays as written', async () => {
    const w = await world('executing');
    w.write(
      taskFile('010'),
      w.read(taskFile('010')).replace(/^iteration: 1$/m, 'iteration: 12345678901234567890 # huge'),
    );
    await setTaskField(w.ctx(), '010', 'metadata.x', '1');
    expect(w.read(taskFile('010'))).toContain('iteration: 12345678901234567890 # huge\n');
  });
});

describe('YAML built to exhaust sow is refused, exit 4', () => {
  it.each(EXHAUSTING)(
    '$name in a task file: every use case that reads it refuses it, naming the file, changing nothing',
    async ({ yaml, message }) => {
      const w = await world('executing');
      const indented = yaml
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n');
      w.write(taskFile('010'), w.read(taskFile('010')).replace(/^metadata: \{\}$/m, `metadata:\n${indented}`));
      for (const [what, run] of [
        ['task list', () => listTasks(w.ctx())],
        ['status', () => projectStatus(w.ctx())],
        ['project continue', () => continueProject(w.ctx())],
        ['task get', () => getTask(w.ctx(), '010')],
        ['task set', () => setTaskField(w.ctx(), '010', 'status', 'in_progress')],
      ] as const) {
        const e = await refused(w, run, 'STATE_FILE_INVALID', 4);
        expect(e.message, what).toMatch(message);
        expect(e.message, what).toContain(taskFile('010'));
      }
    },
  );

  it.each(EXHAUSTING)('$name in .sow/config.yaml: refused, naming the file', async ({ yaml, message }) => {
    const w = await world('executing');
    w.write('.sow/config.yaml', `${yaml}\n`);
    const e = await refused(w, () => listChecks(w.ctx()), 'CONFIG_INVALID', 4);
    expect(e.message).toMatch(message);
    expect(e.message).toContain('.sow/config.yaml');
  });
});
