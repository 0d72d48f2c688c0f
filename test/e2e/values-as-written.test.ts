/**
 * Values as a person wrote them: a hand-edited task or project file keeps every value a write did
 * not change byte for byte (number spellings, tags, anchors and aliases, flow style, block
 * scalars, quotes, comments); `--json` prints what the file holds (`.inf` as ".inf", an integer
 * beyond 2^53 digit for digit); and YAML built to exhaust sow (an alias bomb, nesting deep enough
 * to overflow the stack, an alias inside its own anchor) is refused with exit 4 in a cloned
 * repository, promptly, touching nothing.
 */
import { describe, expect, it } from 'vitest';
import { ok, PROJECT, taskFile, toExecuting, useRepos, type Repo } from './harness.js';
import { useHostile } from './hostile.js';

const fresh = useRepos();
const hostile = useHostile();

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
function handEditTask(repo: Repo): string {
  const text = repo
    .read(taskFile('010'))
    .replace(/^name: .*$/m, "name: 'First task'   # what we agreed")
    .replace(/^metadata: \{\}\n/m, METADATA);
  const edited = `# Task 010, edited by hand\n${text}`;
  repo.write(taskFile('010'), edited);
  return edited;
}

/** `text` with its `updated_at:` lines (any indentation) replaced by those of `like`, in order. */
function withTimesOf(text: string, like: string): string {
  const times = [...like.matchAll(/^(\s*)updated_at: .*$/gm)].map((m) => m[0]);
  let i = 0;
  return text.replace(/^(\s*)updated_at: .*$/gm, (line) => times[i++] ?? line);
}

describe('a write leaves every value it did not change as written', () => {
  it('task set on a hand-edited task file: only the changed lines change, byte for byte', () => {
    const repo = fresh();
    toExecuting(repo);
    const before = handEditTask(repo);

    ok(repo, ['task', 'set', '--id', '010', 'metadata.reviewer', 'alice']);
    let after = repo.read(taskFile('010'));
    expect(after).not.toBe(before); // updated_at moved on
    expect(after).toBe(withTimesOf(before, after).replace("  single: 'it''s'\n", "  single: 'it''s'\n  reviewer: alice\n"));

    const second = after;
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    after = repo.read(taskFile('010'));
    const started = /^started_at: .*$/m.exec(after)?.[0];
    expect(started).toBeDefined();
    // status changes in place; started_at is added at the end of the map, after the metadata.
    expect(after).toBe(
      withTimesOf(second, after)
        .replace(/^status: pending$/m, 'status: in_progress')
        .replace('  reviewer: alice\n', `  reviewer: alice\n${started}\n`),
    );

    // And the values read as written.
    const meta = ok(repo, ['task', 'get', '--id', '010', 'metadata', '--json']);
    expect(meta.stdout).toContain('"big":9999999999999999,"bigger":12345678901234567890,');
    expect(meta.json!.data.value).toMatchObject({
      oct: 7,
      octal: 15,
      hex: 31,
      exp: 1000,
      inf: '.inf',
      ninf: '-.inf',
      nan: '.nan',
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
    expect(ok(repo, ['task', 'get', '--id', '010', 'metadata.bigger']).stdout).toBe('12345678901234567890\n');
    expect(ok(repo, ['task', 'get', '--id', '010', 'metadata.ninf']).stdout).toBe('-.inf\n');
  });

  it('a value changed under an alias is written out; its anchor and everything else stay', () => {
    const repo = fresh();
    toExecuting(repo);
    const before = handEditTask(repo);
    ok(repo, ['task', 'set', '--id', '010', 'metadata.alias.x', '5']);
    const after = repo.read(taskFile('010'));
    expect(after).toBe(withTimesOf(before, after).replace('  alias: *A\n', '  alias: {x: 5, "y": [1, 2]}\n'));
    expect(ok(repo, ['task', 'get', '--id', '010', 'metadata.anchor.x']).stdout).toBe('1\n');
  });

  it('phase set on a hand-edited project file: comments, anchors, aliases and flow entries stay', () => {
    const repo = fresh();
    toExecuting(repo);
    const sowWrote = repo.read(PROJECT);
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
    repo.write(PROJECT, edited);

    ok(repo, ['phase', 'set', 'metadata.reviewer', 'alice']);
    const after = repo.read(PROJECT);
    expect(after).toBe(withTimesOf(edited, after).replace('tasks_approved: yes_they_are  # see the call notes\n', 'tasks_approved: yes_they_are  # see the call notes\n      reviewer: alice\n'));
    expect(ok(repo, ['status', '--json']).json!.data.state).toBe('ImplementationExecuting');
  });
});

describe('--json prints the values a file holds', () => {
  it('.inf, -.inf and .nan as strings; an integer beyond 2^53 digit for digit, in every --json', () => {
    const repo = fresh();
    toExecuting(repo);
    repo.write(taskFile('010'), repo.read(taskFile('010')).replace(/^metadata: \{\}$/m, 'metadata:\n  inf: .inf\n  ninf: -.inf\n  nan: .nan\n  big: 12345678901234567890'));
    const get = ok(repo, ['task', 'get', '--id', '010', '--json']);
    expect(get.stdout).toContain('"metadata":{"inf":".inf","ninf":"-.inf","nan":".nan","big":12345678901234567890}');
    const field = ok(repo, ['task', 'get', '--id', '010', 'metadata', '--json']);
    expect(field.json!.data.value).toEqual({ inf: '.inf', ninf: '-.inf', nan: '.nan', big: 12345678901234567000 });
    // Human output spells them as the file does.
    expect(ok(repo, ['task', 'get', '--id', '010', 'metadata.inf']).stdout).toBe('.inf\n');
    expect(ok(repo, ['task', 'get', '--id', '010']).stdout).toContain('  inf: .inf\n  ninf: -.inf\n  nan: .nan\n  big: 12345678901234567890\n');
  });

  it('an integer beyond 2^53 where a number is wanted reads as before and stays as written', () => {
    const repo = fresh();
    toExecuting(repo);
    const text = repo.read(taskFile('010')).replace(/^iteration: 1$/m, 'iteration: 12345678901234567890 # huge');
    repo.write(taskFile('010'), text);
    ok(repo, ['task', 'set', '--id', '010', 'metadata.x', '1']);
    expect(repo.read(taskFile('010'))).toContain('iteration: 12345678901234567890 # huge\n');
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

describe('YAML built to exhaust sow is refused, exit 4, in a cloned repository', () => {
  for (const attack of EXHAUSTING) {
    it(`${attack.name} in a committed task file: every read refuses it, nothing changes`, () => {
      const h = hostile();
      toExecuting(h.origin);
      const indented = attack.yaml
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n');
      h.write(taskFile('010'), h.origin.read(taskFile('010')).replace(/^metadata: \{\}$/m, `metadata:\n${indented}`));
      h.commit();
      const clone = h.clone();
      const before = clone.snapshot();
      for (const args of [['task', 'list'], ['status'], ['project', 'continue'], ['task', 'get', '--id', '010', '--json'], ['task', 'set', '--id', '010', 'status', 'in_progress']]) {
        const r = clone.sow(args);
        expect(r.code, `sow ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(4);
        const text = args.includes('--json') ? r.json!.error!.message : r.stderr;
        expect(text).toMatch(attack.message);
        expect(text).toContain(taskFile('010'));
        expect(r.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
      }
      expect(clone.snapshot()).toEqual(before);
      h.untouched();
    });

    it(`${attack.name} in .sow/config.yaml: refused, exit 4`, () => {
      const h = hostile();
      toExecuting(h.origin);
      h.write('.sow/config.yaml', `${attack.yaml}\n`);
      h.commit();
      const clone = h.clone();
      const before = clone.snapshot();
      for (const args of [
        ['check', 'list'],
        ['check', 'list', '--json'],
      ]) {
        const r = clone.sow(args);
        expect(r.code, `sow ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(4);
        const text = args.includes('--json') ? r.json!.error!.message : r.stderr;
        expect(text).toMatch(attack.message);
        expect(text).toContain('.sow/config.yaml');
        expect(r.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
      }
      expect(clone.snapshot()).toEqual(before);
      h.untouched();
    });
  }
});
