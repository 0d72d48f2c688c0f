/**
 * A cloned repository is untrusted input: links and paths it carries never make sow read, write
 * or remove anything outside the repository's own folders. Each attack is built as an attacker
 * would (committed with `git add -f`), cloned, and met with the commands a user runs.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok, toExecuting, type Repo } from './harness.js';
import { useHostile, type Hostile } from './hostile.js';

const hostile = useHostile();

/** The commands that run on their own when a person opens a repository, or that workers run all day. */
const READS: string[][] = [['status'], ['project', 'continue'], ['task', 'list'], ['project', 'status', '--json']];

/** Refused with this exit code, the message matching `pattern` (with --json: in the error envelope), no stack trace. */
function expectRefused(repo: Repo, args: string[], pattern: RegExp, code = 4): string {
  const r = repo.sow(args);
  expect(r.code, `sow ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(code);
  const text = args.includes('--json') ? `${r.json?.error?.message}\n${r.json?.error?.hint}` : r.stderr;
  expect(text, `sow ${args.join(' ')}`).toMatch(pattern);
  expect(r.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
  return text;
}

/** A hostile repository with a project in ImplementationExecuting (tasks 010, 020) on feat/demo. */
function withProject(): Hostile {
  const h = hostile();
  toExecuting(h.origin);
  return h;
}

describe('runtime folders that are links are refused, never emptied', () => {
  for (const rel of ['.sow/.runtime/tmp', '.sow/.runtime/trash', '.sow/.runtime']) {
    it(`${rel} -> a folder outside: every read refuses it (exit 4, naming the link) and empties nothing`, () => {
      const h = withProject();
      h.link(rel, h.sentinel);
      h.commit();
      const clone = h.clone();
      for (const args of READS) expectRefused(clone, args, new RegExp(`${rel.replaceAll('.', '\\.')} is a link \\(to '${h.sentinel}'\\)`));
      expectRefused(clone, ['task', 'set', '--id', '010', 'status', 'in_progress'], /is a link/);
      h.untouched();
    });
  }

  it('.sow/.runtime/tmp -> ../../src (the repository\'s own source): refused, the source kept', () => {
    const h = withProject();
    h.write('src/main.c', 'int main() {}\n');
    h.link('.sow/.runtime/tmp', '../../src');
    h.commit();
    const clone = h.clone();
    for (const args of READS) expectRefused(clone, args, /\.sow\/\.runtime\/tmp is a link/);
    expect(clone.read('src/main.c')).toBe('int main() {}\n');
    h.untouched();
  });
});

describe('writes never go through a linked folder', () => {
  const cases: [string, string[][]][] = [
    ['.sow/project/phases/implementation/tasks/010', [['task', 'set', '--id', '010', 'metadata.x', '1'], ['task', 'get', '--id', '010']]],
    ['.sow/project/phases/implementation/tasks', [['task', 'add', 'New task'], ['task', 'list']]],
    ['.sow/project', [['status'], ['task', 'list'], ['log', '--action', 'research', '--result', 'success', '--project', 'hello']]],
    ['.sow/knowledge', [['init']]],
  ];
  for (const [rel, commands] of cases) {
    it(`${rel} -> a folder outside: ${commands.map((c) => c.join(' ')).join('; ')} refuse it`, () => {
      const h = withProject();
      // The linked folder holds a copy of what was there, so reads would find valid state through it.
      h.link(rel, h.sentinel);
      h.commit();
      const clone = h.clone();
      for (const args of commands) expectRefused(clone, args, /is a link|outside/);
      h.untouched();
    });
  }

  it('.sow -> a folder outside: refused by every command, sow init included', () => {
    const h = hostile();
    h.link('.sow', h.sentinel);
    h.commit();
    const clone = h.clone();
    for (const args of [['init'], ['status'], ['project', 'new', 'x', '--description', 'y']]) expectRefused(clone, args, /\.sow'? is a link/);
    h.untouched();
  });

  it('.sow that is a file: exit 4 with a hint, never 70', () => {
    const h = hostile();
    h.commit();
    const clone = h.clone();
    rmSync(join(clone.dir, '.sow'), { recursive: true, force: true });
    writeFileSync(join(clone.dir, '.sow'), 'not a folder\n');
    for (const args of [['init'], ['status']]) expectRefused(clone, args, /\.sow is a file, not a folder/);
    h.untouched();
  });
});

