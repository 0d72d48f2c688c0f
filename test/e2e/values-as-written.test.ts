/**
 * Values as a person wrote them, through the built CLI: a hand-edited task file keeps every value
 * a write did not change byte for byte; `--json` and text output print what the file holds
 * (`.inf` as ".inf", an integer beyond 2^53 digit for digit); and YAML built to exhaust sow (an
 * alias bomb, nesting deep enough to overflow the stack, an alias inside its own anchor) is
 * refused with exit 4 in a cloned repository, without a stack trace, touching nothing. Status
 * changes, aliases and hand-edited project files written through, and every use case refusing
 * each hostile file: in-process (src/app/values-as-written.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ok, taskFile, toExecuting, useRepos, type Repo } from './harness.js';
import { useHostile } from './hostile.js';
import { EXHAUSTING, handEditTask, METADATA_READ, withTimesOf } from '../values-cases.js';

const fresh = useRepos();
const hostile = useHostile();

describe('a write leaves every value it did not change as written', () => {
  it(
    'task set on a hand-edited task file: only the changed lines change, byte for byte; the values read ' +
      'as written',
    () => {
      const repo = fresh();
      toExecuting(repo);
      const before = handEditTask(repo);

      ok(repo, ['task', 'set', '--id', '010', 'metadata.reviewer', 'alice']);
      const after = repo.read(taskFile('010'));
      expect(after).not.toBe(before); // updated_at moved on
      expect(after).toBe(
        withTimesOf(before, after).replace("  single: 'it''s'\n", "  single: 'it''s'\n  reviewer: alice\n"),
      );

      const meta = ok(repo, ['task', 'get', '--id', '010', 'metadata', '--json']);
      expect(meta.stdout).toContain('"big":9999999999999999,"bigger":12345678901234567890,');
      expect(meta.json!.data.value).toMatchObject({ ...METADATA_READ, inf: '.inf', ninf: '-.inf', nan: '.nan' });
      expect(ok(repo, ['task', 'get', '--id', '010', 'metadata.bigger']).stdout).toBe('12345678901234567890\n');
      expect(ok(repo, ['task', 'get', '--id', '010', 'metadata.ninf']).stdout).toBe('-.inf\n');
    },
  );
});

describe('--json prints the values a file holds', () => {
  it('.inf, -.inf and .nan as strings; an integer beyond 2^53 digit for digit, in every --json', () => {
    const repo = fresh();
    toExecuting(repo);
    repo.write(
      taskFile('010'),
      repo
        .read(taskFile('010'))
        .replace(
          /^metadata: \{\}$/m,
          'metadata:\n  inf: .inf\n  ninf: -.inf\n  nan: .nan\n  big: 12345678901234567890',
        ),
    );
    const get = ok(repo, ['task', 'get', '--id', '010', '--json']);
    expect(get.stdout).toContain('"metadata":{"inf":".inf","ninf":"-.inf","nan":".nan","big":12345678901234567890}');
    const field = ok(repo, ['task', 'get', '--id', '010', 'metadata', '--json']);
    expect(field.json!.data.value).toEqual({ inf: '.inf', ninf: '-.inf', nan: '.nan', big: 12345678901234567000 });
    // Human output spells them as the file does.
    expect(ok(repo, ['task', 'get', '--id', '010', 'metadata.inf']).stdout).toBe('.inf\n');
    expect(ok(repo, ['task', 'get', '--id', '010']).stdout).toContain(
      '  inf: .inf\n  ninf: -.inf\n  nan: .nan\n  big: 12345678901234567890\n',
    );
  });
});

/** The task file of a committed project, with `yaml` in its metadata, met in a fresh clone. */
function clonedWithTask(yaml: string) {
  const h = hostile();
  toExecuting(h.origin);
  const indented = yaml
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  h.write(taskFile('010'), h.origin.read(taskFile('010')).replace(/^metadata: \{\}$/m, `metadata:\n${indented}`));
  h.commit();
  return { h, clone: h.clone() };
}

/** `sow <args>` exits 4 naming `file`, with `message`, and no stack trace. */
function expectExhausting(clone: Repo, args: string[], message: RegExp, file: string): void {
  const r = clone.sow(args);
  expect(r.code, `sow ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(4);
  const text = args.includes('--json') ? r.json!.error!.message : r.stderr;
  expect(text).toMatch(message);
  expect(text).toContain(file);
  expect(r.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
}

// Every use case that reads the file, for every attack: in-process (src/app/values-as-written.test.ts).
describe('YAML built to exhaust sow is refused, exit 4, in a cloned repository', () => {
  for (const attack of EXHAUSTING) {
    it(`${attack.name} in a committed task file: a read refuses it, nothing changes`, () => {
      const { h, clone } = clonedWithTask(attack.yaml);
      const before = clone.snapshot();
      expectExhausting(clone, ['task', 'list'], attack.message, taskFile('010'));
      expect(clone.snapshot()).toEqual(before);
      h.untouched();
    });
  }

  it('an alias bomb in a committed task file: refused by a read with --json and by a write, nothing changes', () => {
    const attack = EXHAUSTING[0]!;
    const { h, clone } = clonedWithTask(attack.yaml);
    const before = clone.snapshot();
    for (const args of [
      ['task', 'get', '--id', '010', '--json'],
      ['task', 'set', '--id', '010', 'status', 'in_progress'],
    ])
      expectExhausting(clone, args, attack.message, taskFile('010'));
    expect(clone.snapshot()).toEqual(before);
    h.untouched();
  });

  it(`${EXHAUSTING[1]!.name} in .sow/config.yaml: refused, exit 4, in text and --json`, () => {
    const attack = EXHAUSTING[1]!;
    const h = hostile();
    toExecuting(h.origin);
    h.write('.sow/config.yaml', `${attack.yaml}\n`);
    h.commit();
    const clone = h.clone();
    const before = clone.snapshot();
    for (const args of [
      ['check', 'list'],
      ['check', 'list', '--json'],
    ])
      expectExhausting(clone, args, attack.message, '.sow/config.yaml');
    expect(clone.snapshot()).toEqual(before);
    h.untouched();
  });
});
