/**
 * One truth per fact: a task's fields live in its own file. Lists, status and guards read the task
 * files (through the task index, which is checked against each file's stat and never believed over
 * it), so a hand edit is seen at once. Also: files laid out by other tools, and comments a person
 * wrote, are read and kept.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ok, PROJECT, taskFile, toExecuting, useRepos, type Repo } from './harness.js';

const fresh = useRepos();
const INDEX = '.sow/.runtime/tasks.json';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Replaces `from` by `to` in a file, in place (same inode), as an editor that writes over the file does. */
function editInPlace(repo: Repo, rel: string, from: string, to: string): void {
  const text = readFileSync(join(repo.dir, rel), 'utf8');
  expect(text).toContain(from);
  writeFileSync(join(repo.dir, rel), text.replace(from, to));
}

const listed = (repo: Repo) => ok(repo, ['task', 'list', '--json']).json!.data as { id: string; status: string; name: string }[];

describe('a hand edit of a task file is seen everywhere, at once', () => {
  it('status pending → completed by hand: task list, task get, project status and the guards all see it', () => {
    const repo = fresh();
    toExecuting(repo, ['One', 'Two']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed']);
    expect(repo.sow(['advance']).code, 'blocked while 020 is pending').toBe(3);

    editInPlace(repo, taskFile('020'), 'status: pending', 'status: completed');
    expect(listed(repo).map((t) => `${t.id}:${t.status}`)).toEqual(['010:completed', '020:completed']);
    expect(ok(repo, ['task', 'get', '--id', '020', 'status']).stdout.trim()).toBe('completed');
    expect(ok(repo, ['project', 'status', '--json']).json!.data.tasks).toEqual({ total: 2, by_status: { completed: 2 } });
    expect(ok(repo, ['advance', '--dry-run']).stdout.trim()).toBe('ReviewActive');
    expect(ok(repo, ['advance']).stdout.trim()).toBe('ReviewActive');
    // The project file never held a copy that could disagree, and no parse cache kept one either.
    expect(repo.read(PROJECT)).not.toContain('One');
    expect(repo.exists('.sow/.cache'), 'no parse cache').toBe(false);
  });

  it('an in-place edit that keeps the size, after the index has learnt the file, is still seen', async () => {
    const repo = fresh();
    toExecuting(repo, ['One', 'Two']);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'paused']);
    // The index keeps a task only once its file's timestamps are settled (2 s), so wait, then list.
    await sleep(2_100);
    expect(listed(repo)[0]!.status).toBe('paused');
    const index = JSON.parse(repo.read(INDEX));
    expect(
      index.entries.map((e: unknown[]) => e[0]),
      'the index learnt both tasks',
    ).toEqual(['010', '020']);
    // paused → failed: same length, same inode; only mtime and ctime change.
    editInPlace(repo, taskFile('010'), 'status: paused', 'status: failed');
    expect(listed(repo)[0]!.status).toBe('failed');
    expect(ok(repo, ['project', 'status', '--json']).json!.data.tasks.by_status).toEqual({ failed: 1, pending: 1 });
  });

  it('a task added by hand (a new folder) is listed; one removed by hand is gone', () => {
    const repo = fresh();
    toExecuting(repo, ['One']);
    const copy = repo.read(taskFile('010')).replace('id: "010"', 'id: "020"').replace('name: One', 'name: Copied by hand');
    repo.write(taskFile('020'), copy);
    expect(listed(repo).map((t) => `${t.id} ${t.name}`)).toEqual(['010 One', '020 Copied by hand']);
    ok(repo, ['task', 'set', '--id', '020', 'status', 'in_progress']);
    rmSync(join(repo.dir, '.sow/project/phases/implementation/tasks/020'), { recursive: true });
    expect(listed(repo).map((t) => t.id)).toEqual(['010']);
  });

  it('the index is only a shortcut: a damaged or forged one changes nothing', async () => {
    const repo = fresh();
    toExecuting(repo, ['One', 'Two']);
    await sleep(2_100);
    const truth = listed(repo);
    repo.write(INDEX, '{"format":1,"entries":');
    expect(listed(repo)).toEqual(truth);
    // An entry whose stat does not match its file is not believed, whatever it says.
    // Entries: [id, ino, size, mtime µs, ctime µs, name, status, parallel, agent, …dependencies].
    const index = JSON.parse(repo.read(INDEX));
    expect(index.entries[0][0]).toBe('010');
    index.entries[0][1] = 1;
    index.entries[0][5] = 'Forged';
    index.entries[0][6] = 'completed';
    repo.write(INDEX, JSON.stringify(index));
    expect(listed(repo)).toEqual(truth);
    // A matching stat with a summary of the wrong shape is read from the file instead.
    const again = JSON.parse(repo.read(INDEX));
    again.entries[1][6] = 'nonsense';
    repo.write(INDEX, JSON.stringify(again));
    expect(listed(repo)).toEqual(truth);
    // And one with the right shape but another name is believed only while the stat matches:
    const third = JSON.parse(repo.read(INDEX));
    third.entries[1][5] = 'Believed while the file is unchanged';
    repo.write(INDEX, JSON.stringify(third));
    expect(listed(repo)[1]!.name, 'the index is a cache of the file, keyed by its stat').toBe('Believed while the file is unchanged');
    editInPlace(repo, taskFile('020'), 'name: Two', 'name: Tw0');
    expect(listed(repo)[1]!.name).toBe('Tw0');
    // And the runtime folder is never in git.
    expect(repo.git(['status', '--porcelain', '--', '.sow/.runtime'])).toBe('');
  });
});

describe('files sow did not write', () => {
  it('reads a file laid out by another tool (the yaml package takes what the canonical reader declines) and writes it back', () => {
    const repo = fresh();
    toExecuting(repo, ['One']);
    const data = repo.yaml(taskFile('010'));
    // Four-space indentation, single quotes and a flow list: valid YAML, not the form sow writes.
    const text = stringify({ ...data, name: 'Renamed by hand', dependencies: [] }, { indent: 4, defaultStringType: 'QUOTE_SINGLE', flowCollectionPadding: true });
    expect(text).toContain("'name': 'Renamed by hand'");
    writeFileSync(join(repo.dir, taskFile('010')), text);
    expect(ok(repo, ['task', 'get', '--id', '010', 'name']).stdout).toBe('Renamed by hand\n');
    expect(listed(repo)[0]!.name).toBe('Renamed by hand');
    ok(repo, ['task', 'set', '--id', '010', 'iteration', '2']);
    expect(repo.yaml(taskFile('010'))).toMatchObject({ name: 'Renamed by hand', iteration: 2 });
  });

  it('keeps comments a person wrote through a write by the built CLI', () => {
    const repo = fresh();
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
