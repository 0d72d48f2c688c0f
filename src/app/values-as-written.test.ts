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
import { PROJECT, refused, taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { listChecks } from './checks.js';
import { setPhaseField } from './phase.js';
import { continueProject, projectStatus } from './status.js';
import { getTask, listTasks, setTaskField } from './task.js';

const world = worlds({ executing: (w) => toExecuting(w) });

/** Free-form metadata as a person might write it: every kind of value a YAML file can hold. */
const METADATA = `metadata:
  # written by hand
  big: 9999999999999999
  bigger: 12345678901234567890
  oct: 007
  octal: 0o17
  hex: 0x1F
  exp: 1e3
  float: 3.14159265358979323846
  inf: .inf
  ninf: -.inf
  nan: .nan
  tilde: ~
  yes_string: yes
  set: !!set {a, b}
  omap: !!omap [a: 1, b: 2]
  binary: !!binary aGVsbG8=
  custom: !mytag foo
  anchor: &A {x: 1, y: [1, 2]}
  alias: *A
  flow: {a: 1, b: "two"}   # a flow map
  seq: [1, 2, 3]
  literal: |
    line one
    line two
  folded: >-
    folded
    text
  quoted: "tab\\there \\u00e9"
  single: 'it''s'
`;

/** Task 010's file, hand-edited: a comment, other quoting and spacing, and the metadata above. */
function handEditTask(w: World): string {
  const text = w
    .read(taskFile('010'))
    .replace(/^name: .*$/m, "name: 'First task'   # what we agreed")
    .replace(/^metadata: \{\}\n/m, METADATA);
  const edited = `# Task 010, edited by hand\n${text}`;
  w.write(taskFile('010'), edited);
  return edited;
}

/** `text` with its `updated_at:` lines (any indentation) replaced by those of `like`, in order. */
function withTimesOf(text: string, like: string): string {
  const times = [...like.matchAll(/^(\s*)updated_at: .*$/gm)].map((m) => m[0]);
  let i = 0;
  return text.replace(/^(\s*)updated_at: .*$/gm, (line) => times[i++] ?? line);
}

describe('a write leaves every value it did not change as written', () => {
  it('task set on a hand-edited task file: only the changed lines change, byte for byte', async () => {
    const w = await world('executing');
    const before = handEditTask(w);
    w.clock.advance(60);
    await setTaskField(w.ctx(), '010', 'metadata.reviewer', 'alice');
    let after = w.read(taskFile('010'));
    expect(after).not.toBe(before); // updated_at moved on
    expect(after).toBe(withTimesOf(before, after).replace("  single: 'it''s'\n", "  single: 'it''s'\n  reviewer: alice\n"));

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
    expect((await getTask(w.ctx(), '010', 'metadata')).value).toMatchObject({
      oct: 7,
      octal: 15,
      hex: 31,
      exp: 1000,
      tilde: null,
      yes_string: 'yes',
      set: ['a', 'b'],
      omap: { a: 1, b: 2 },
      binary: 'aGVsbG8=',
      custom: 'foo',
      alias: { x: 1, y: [1, 2] },
      literal: 'line one\nline two\n',
      folded: 'folded text',
    });
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
    const edited = `# The project, edited by hand\n${sowWrote
      .replace(/^(\s+)by: user$/gm, (_m, indent: string) => `${indent}by: ${n++ === 0 ? '&who user' : '*who'}`)
      .replace(
        / {4}- from: NoProject\n {6}to: PlanningActive\n {6}event: project_init\n {6}at: ("[^"]+")\n {6}by: &who user\n/,
        '    - {from: NoProject, to: PlanningActive, event: project_init, at: $1, by: &who user} # the start\n',
      )
      .replace(/^( {6})tasks_approved: true$/m, '$1tasks_approved: yes_they_are  # see the call notes')}`;
    expect(edited).toContain('{from: NoProject');
    expect(edited).toContain('*who');
    w.write(PROJECT, edited);

    w.clock.advance(60);
    await setPhaseField(w.ctx(), 'metadata.reviewer', 'alice');
    const after = w.read(PROJECT);
    expect(after).toBe(withTimesOf(edited, after).replace('tasks_approved: yes_they_are  # see the call notes\n', 'tasks_approved: yes_they_are  # see the call notes\n      reviewer: alice\n'));
    expect((await projectStatus(w.ctx())).state).toBe('ImplementationExecuting');
  });

  it('an integer beyond 2^53 where a number is wanted reads as before and stays as written', async () => {
    const w = await world('executing');
    w.write(taskFile('010'), w.read(taskFile('010')).replace(/^iteration: 1$/m, 'iteration: 12345678901234567890 # huge'));
    await setTaskField(w.ctx(), '010', 'metadata.x', '1');
    expect(w.read(taskFile('010'))).toContain('iteration: 12345678901234567890 # huge\n');
  });
});

/** YAML that would exhaust a reader: each refused at once with exit 4. */
const EXHAUSTING: { name: string; yaml: string; message: RegExp }[] = [
  {
    name: 'an alias bomb (billion laughs)',
    yaml: ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]', ...Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`)].join('\n'),
    message: /aliases \(\*name\) that would repeat their anchors' values more than 100 times/,
  },
  { name: 'a flow collection 100,000 levels deep', yaml: `deep: ${'['.repeat(100_000)}${']'.repeat(100_000)}`, message: /nests collections more than 100 levels deep/ },
  { name: 'a list 20,000 levels deep', yaml: `deep:\n  ${'- '.repeat(20_000)}x`, message: /nests collections more than 100 levels deep/ },
  { name: 'an alias inside its own anchor', yaml: 'loop: &l [1, *l]', message: /alias \*l \(line \d+, column \d+\) inside the value its anchor names/ },
];

describe('YAML built to exhaust sow is refused, exit 4', () => {
  it.each(EXHAUSTING)('$name in a task file: every use case that reads it refuses it, naming the file, changing nothing', async ({ yaml, message }) => {
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
  });

  it.each(EXHAUSTING)('$name in .sow/config.yaml: refused, naming the file', async ({ yaml, message }) => {
    const w = await world('executing');
    w.write('.sow/config.yaml', `${yaml}\n`);
    const e = await refused(w, () => listChecks(w.ctx()), 'CONFIG_INVALID', 4);
    expect(e.message).toMatch(message);
    expect(e.message).toContain('.sow/config.yaml');
  });
});
