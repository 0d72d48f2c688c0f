import { afterEach, describe, expect, it } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { makeRepo, ok, PROJECT, taskFile, toExecuting, type Repo } from './harness.js';

let repo: Repo;
afterEach(() => repo?.cleanup());

describe('the parse cache (.sow/.cache) never changes what sow reads', () => {
  it('a clone without the cache reads and writes the state (sow\'s own reader, src/adapters/yaml-fast.ts)', () => {
    repo = makeRepo();
    toExecuting(repo, ['One']);
    rmSync(join(repo.dir, '.sow/.cache'), { recursive: true, force: true });
    expect(ok(repo, ['task', 'list']).stdout).toContain('[010] pending');
    rmSync(join(repo.dir, '.sow/.cache'), { recursive: true, force: true });
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    expect(ok(repo, ['task', 'get', '--id', '010', 'status']).stdout.trim()).toBe('in_progress');
  });

  it('reads a file laid out by another tool without the cache (the yaml package takes what the fast reader declines)', () => {
    repo = makeRepo();
    toExecuting(repo, ['One']);
    const data = repo.yaml(taskFile('010'));
    // Four-space indentation, single quotes and a flow list: valid YAML, not the form sow writes.
    const text = stringify({ ...data, name: 'Renamed by hand', dependencies: [] }, { indent: 4, defaultStringType: 'QUOTE_SINGLE', flowCollectionPadding: true });
    expect(text).toContain("'name': 'Renamed by hand'");
    writeFileSync(join(repo.dir, taskFile('010')), text);
    rmSync(join(repo.dir, '.sow/.cache'), { recursive: true, force: true });
    expect(ok(repo, ['task', 'get', '--id', '010', 'name']).stdout).toBe('Renamed by hand\n');
    ok(repo, ['task', 'set', '--id', '010', 'iteration', '2']);
    expect(repo.yaml(taskFile('010'))).toMatchObject({ name: 'Renamed by hand', iteration: 2 });
  });

  it('sees a hand edit at once, even one that keeps the file size', () => {
    repo = makeRepo();
    toExecuting(repo, ['One']);
    ok(repo, ['task', 'list']); // warm the cache
    const text = repo.read(taskFile('010')).replace('name: One', 'name: Two');
    writeFileSync(join(repo.dir, taskFile('010')), text);
    expect(ok(repo, ['task', 'get', '--id', '010', 'name']).stdout.trim()).toBe('Two');
  });

  it('keeps comments a person wrote through a write by the built CLI', () => {
    repo = makeRepo();
    toExecuting(repo, ['One']);
    const text = `# Reviewed by Ada on Monday\n${repo.read(PROJECT).replace('description: A demo project', 'description: A demo project # keep this short')}`;
    writeFileSync(join(repo.dir, PROJECT), text);
    ok(repo, ['input', 'add', '--type', 'context', '--path', 'notes.md']);
    ok(repo, ['project', 'set', 'description', 'Changed']);
    const after = repo.read(PROJECT);
    expect(after.startsWith('# Reviewed by Ada on Monday\n')).toBe(true);
    expect(after).toContain('description: Changed # keep this short');
    expect(repo.yaml(PROJECT).phases.implementation.inputs.at(-1).path).toBe('notes.md');
  });
});
