/**
 * One truth per fact, as the built CLI meets it: a task's fields live in its own file, and the task
 * index (.git/sow/tasks.json, which a one-shot command reads and writes) is checked against
 * each file's stat and never believed over it, so a hand edit is seen at once, and a forged index
 * changes nothing. Hand edits seen by every use case and the guards, tasks added and removed by
 * hand, files laid out by other tools and comments kept: in-process (src/app/one-truth.test.ts);
 * the index's rules (damaged, forged, wrong-shaped entries): src/adapters/task-index.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok, taskFile, toExecuting, useRepos, type Repo } from './harness.js';

const fresh = useRepos();
const INDEX = '.git/sow/tasks.json';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Replaces `from` by `to` in a file, in place (same inode), as an editor that writes over the file does. */
function editInPlace(repo: Repo, rel: string, from: string, to: string): void {
  const text = readFileSync(join(repo.dir, rel), 'utf8');
  expect(text).toContain(from);
  writeFileSync(join(repo.dir, rel), text.replace(from, to));
}

const listed = (repo: Repo) =>
  ok(repo, ['task', 'list', '--json']).json!.data as { id: string; status: string; name: string }[];

describe('the task index is only a shortcut', () => {
  it(
    'learnt once the files settle; ' + 'a forged entry and an in-place edit that keeps the size are both seen through',
    async () => {
      const repo = fresh();
      toExecuting(repo, ['One', 'Two']);
      ok(repo, ['task', 'set', '--id', '010', 'status', 'paused']);
      // The index keeps a task only once its file's timestamps are settled (2 s), so wait, then list.
      await sleep(2_100);
      const truth = listed(repo);
      expect(truth.map((t) => `${t.id}:${t.status}`)).toEqual(['010:paused', '020:pending']);
      const index = JSON.parse(repo.read(INDEX));
      expect(
        index.entries.map((e: unknown[]) => e[0]),
        'the index learnt both tasks',
      ).toEqual(['010', '020']);
      // An entry whose stat does not match its file is not believed, whatever it says.
      // Entries: [id, ino, size, mtime µs, ctime µs, name, status, parallel, agent, …dependencies].
      index.entries[1][1] = 1;
      index.entries[1][5] = 'Forged';
      index.entries[1][6] = 'completed';
      repo.write(INDEX, JSON.stringify(index));
      expect(listed(repo)).toEqual(truth);
      // paused → failed: same length, same inode; only mtime and ctime change.
      editInPlace(repo, taskFile('010'), 'status: paused', 'status: failed');
      expect(listed(repo)[0]!.status).toBe('failed');
      expect(ok(repo, ['project', 'status', '--json']).json!.data.tasks.by_status).toEqual({ failed: 1, pending: 1 });
      // And the runtime folder is never in git.
      expect(repo.git(['status', '--porcelain', '--', '.git/sow'])).toBe('');
    },
  );
});
