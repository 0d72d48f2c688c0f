/**
 * The exit code is derived from the error's kind in one place; a script reads the error code. So
 * an error code means one exit code wherever it is thrown: this reads every refusal in the sources.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, exitCodeFor, InvalidValueError, notOneOf, PhaseNotActiveError, UsageError } from './errors.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** Every `super('CODE', 'kind'` and `new SowError('CODE', 'kind'` in the sources, with where it is. */
function refusals(): { code: string; kind: string; file: string }[] {
  const out: { code: string; kind: string; file: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        for (const m of readFileSync(p, 'utf8').matchAll(/(?:super|new SowError)\(\s*'([A-Z_]+)',\s*'([a-z]+)'/g))
          out.push({ code: m[1]!, kind: m[2]!, file: relative(SRC, p) });
      }
    }
  };
  walk(SRC);
  return out;
}

describe('error codes and exit codes', () => {
  const all = refusals();

  it('finds the refusals', () => {
    expect(all.length).toBeGreaterThan(50);
    for (const r of all) expect(Object.keys(EXIT_CODES), `${r.code} in ${r.file}`).toContain(r.kind);
  });

  it('gives each error code one exit code', () => {
    const kinds = new Map<string, Set<string>>();
    for (const r of all) kinds.set(r.code, (kinds.get(r.code) ?? new Set()).add(`${r.kind} (${r.file})`));
    const split = [...kinds]
      .filter(([, k]) => new Set([...k].map((x) => x.split(' ')[0])).size > 1)
      .map(([code, k]) => `${code}: ${[...k].join(', ')}`);
    expect(split).toEqual([]);
  });

  it(
    'a value on the command line outside its list is 2, a field value the field does not take is 1, a phase not in ' +
      'progress is 3',
    () => {
      expect(exitCodeFor(notOneOf('project type', 'standrd', ['standard', 'design']).kind)).toBe(2);
      expect(exitCodeFor(new UsageError('x').kind)).toBe(2);
      expect(exitCodeFor(new InvalidValueError('status', 'done', 'one of pending, completed').kind)).toBe(1);
      expect(
        exitCodeFor(new PhaseNotActiveError('adding a task needs the implementation phase in progress', 'x').kind),
      ).toBe(3);
    },
  );
});

describe('refusals of a word outside a fixed list', () => {
  it('name the near miss and the values', () => {
    const err = notOneOf('graph format', 'mermid', ['text', 'mermaid', 'dot']);
    expect(err.message).toBe("unknown graph format 'mermid'; did you mean 'mermaid'?");
    expect(err.hint).toBe('graph formats: text, mermaid, dot');
    expect(notOneOf('shell', 'tcsh', ['bash', 'zsh', 'fish']).message).toBe("unknown shell 'tcsh'");
  });

  it(
    'a value a field does not take: the message names it (and its near miss), ' + 'the hint says what the field takes',
    () => {
      const err = new InvalidValueError('status', 'complete', 'one of pending, completed', undefined, 'completed');
      expect(err.message).toBe("invalid value 'complete' for 'status'; did you mean 'completed'?");
      expect(err.hint).toBe("'status' takes one of pending, completed");
      // With a next step of its own, the message says what was expected and the hint gives the step.
      const moved = new InvalidValueError(
        'branch',
        'x',
        "'feat/a', the branch that is checked out",
        "run 'git checkout <branch>' first",
      );
      expect(moved.message).toBe("invalid value 'x' for 'branch': expected 'feat/a', the branch that is checked out");
      expect(moved.hint).toBe("run 'git checkout <branch>' first");
    },
  );
});
