/**
 * `--watch`: a view shown again each time what it shows changes (the workspace's change feed), one
 * JSON document per line with --json, until Ctrl-C (exit 130). The waits are on the output.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { makeRepo, SOW, TEST_ENV, toExecuting } from './harness.js';

/** Starts `sow <args>` in the repo and collects its output as it comes. */
function follow(dir: string, args: string[]) {
  const child = spawn(process.execPath, [SOW, ...args], {
    cwd: dir,
    env: { ...process.env, ...TEST_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const until = async (check: (out: string) => boolean, what: string) => {
    for (let i = 0; i < 3000 && !check(out); i++) await new Promise((r) => setTimeout(r, 20));
    if (!check(out)) throw new Error(`timed out waiting for ${what}; output so far:\n${out}\n${err}`);
  };
  return { child, exited, until, out: () => out, err: () => err };
}

describe('--watch', () => {
  it(
    'task list --watch --json: one document now, ' + 'and one for each change, each different; Ctrl-C ends it (130)',
    async () => {
      const repo = makeRepo();
      let started: ReturnType<typeof follow> | undefined;
      try {
        toExecuting(repo, ['First task']);
        const w = (started = follow(repo.dir, ['task', 'list', '--watch', '--json']));
        const docs = () =>
          w
            .out()
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l));
        await w.until((o) => o.split('\n').filter(Boolean).length >= 1, 'the first view');
        expect(docs()[0].data.map((t: { id: string }) => t.id)).toEqual(['010']);
        // Reading does not count as a change (a read takes the lock and may write the task index).
        expect(repo.sow(['status']).code).toBe(0);
        expect(repo.sow(['task', 'add', 'Second task']).code).toBe(0);
        await w.until((o) => o.split('\n').filter(Boolean).length >= 2, 'the view after a task was added');
        expect(docs()[1].data.map((t: { id: string }) => t.id)).toEqual(['010', '020']);
        expect(repo.sow(['task', 'set', '--id', '020', 'status', 'in_progress']).code).toBe(0);
        await w.until((o) => o.split('\n').filter(Boolean).length >= 3, 'the view after a status changed');
        expect(docs()).toHaveLength(3);
        expect(docs()[2].data[1]).toMatchObject({ id: '020', status: 'in_progress' });
        w.child.kill('SIGINT');
        expect(await w.exited).toBe(130);
        expect(w.err()).toBe('');
      } finally {
        started?.child.kill('SIGKILL');
        repo.cleanup();
      }
    },
  );

  it('status --watch (piped): each new view after a blank line; a change of phase shows', async () => {
    const repo = makeRepo();
    let started: ReturnType<typeof follow> | undefined;
    try {
      toExecuting(repo, ['First task']);
      const w = (started = follow(repo.dir, ['status', '--watch']));
      await w.until((o) => /ImplementationExecuting/.test(o), 'the first view');
      expect(repo.sow(['task', 'set', '--id', '010', 'status', 'in_progress']).code).toBe(0);
      const views = () => w.out().split(/\n\n(?=Project  )/);
      await w.until(() => views().length >= 2, 'the second view');
      expect(views()).toHaveLength(2);
      expect(views()[0]).toMatch(/^Project  /);
      expect(views()[0]).not.toMatch(/1 in_progress/);
      expect(views()[1]).toMatch(/1 in_progress/);
      w.child.kill('SIGINT');
      expect(await w.exited).toBe(130);
    } finally {
      started?.child.kill('SIGKILL');
      repo.cleanup();
    }
  });
});
