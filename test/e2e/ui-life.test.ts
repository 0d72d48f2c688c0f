/**
 * `sow ui` survives its own life: a worktree and its project added while the page is open appear
 * on it; a restarted `sow ui` takes the same address again (the port and, by their hashes, the
 * tokens it handed out are remembered in git's folder — never a token), so the open page carries
 * on — reconnecting, reloading and acting; when the address is taken, the old page says plainly
 * what to do; a button that cannot reach the server says so on itself.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ok, toExecuting, useRepos } from './harness.js';
import { CHROMIUM, inspectView, launch, serve, servers, stop } from './ui-browser.js';

afterEach(() => {
  for (const s of servers.splice(0)) s.kill('SIGINT');
});
const fresh = useRepos();

describe.skipIf(!CHROMIUM)('sow ui survives its own life', () => {
  it('a worktree and its project, added while the page is open, appear on it', async () => {
    const repo = fresh();
    const browser = await launch();
    try {
      toExecuting(repo, ['First']);
      const s = await serve(repo.dir);
      const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      await page.goto(s.url);
      await page.waitForSelector('#projects tr[data-checkout="."]');
      const rows = () =>
        page.locator('#projects tr[data-checkout]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-checkout')));
      expect(await rows()).toEqual(['.']);
      ok(repo, ['worktree', 'add', 'feat/other']);
      ok(repo, ['project', 'new', 'other', '--description', 'Another line of work'], {
        cwd: '.sow/worktrees/feat/other',
      });
      await page.waitForSelector('#projects tr[data-checkout=".sow/worktrees/feat/other"]');
      const all = (
        JSON.parse(ok(repo, ['status', '--all', '--json']).stdout).data as { rel: string; project: unknown }[]
      )
        .filter((w) => w.project)
        .map((w) => w.rel);
      expect(await rows()).toEqual(all);
      // And it is followed: a change there reaches the page.
      await page.click('#projects a[href="#/p/.sow%2Fworktrees%2Ffeat%2Fother"]');
      await page.waitForSelector('#state');
      ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md'], {
        cwd: '.sow/worktrees/feat/other',
      });
      await page.waitForSelector('#outputs article[data-type="task_list"]');
    } finally {
      await browser.close();
    }
  });

  it(
    'restarted, it takes the same address again and the open page carries on; when the address is taken, the page ' +
      'says what to do',
    async () => {
      const repo = fresh();
      const browser = await launch();
      const blockers: ReturnType<typeof createServer>[] = [];
      try {
        toExecuting(repo, ['First']);
        const first = await serve(repo.dir);
        const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
        await page.goto(`${first.url}#/p/.`);
        await page.waitForFunction(() => document.querySelector('#live')?.textContent === 'live');
        // Remembered in git's folder: the port and the token's hash, never the token.
        const record = readFileSync(join(repo.dir, '.git/sow/ui.json'), 'utf8');
        expect(JSON.parse(record)).toMatchObject({
          port: first.port,
          tokens: [{ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
        });
        expect(record).not.toContain(first.token);

        await stop(first);
        await page.waitForSelector('#lost');
        expect(await page.textContent('#lost')).toContain('start it again in this repository (sow ui)');
        // A button while nobody answers: its failure on it.
        await page.click('#advance');
        await page.waitForFunction(() =>
          /sow ui does not answer/.test(document.querySelector('#res-advance')?.textContent ?? ''),
        );
        const second = await serve(repo.dir);
        expect(second.port).toBe(first.port);
        expect(second.token).not.toBe(first.token);
        await page.waitForFunction(
          () => document.querySelector('#live')?.textContent === 'live' && !document.querySelector('#lost'),
        );
        // The old page acts, and reloads, with its old address.
        ok(repo, ['task', 'add', 'Second']);
        await page.waitForSelector('#board .card[data-task="020"]');
        await page.reload();
        await page.waitForSelector('#board .card[data-task="020"]');
        expect(page.url()).toBe(`${first.url}#/p/.`);
        await page.click('#advance');
        await page.waitForFunction(() => (document.querySelector('#res-advance')?.textContent ?? '') !== '');
        expect(await page.textContent('#res-advance')).not.toMatch(/does not answer/);

        // The address taken by something else: the next sow ui takes another, and the old page says what to do.
        await stop(second);
        // Something else answers there now (not sow ui: it knows no token).
        const blocker = createServer((_req, res) => {
          res.writeHead(404);
          res.end();
        });
        blockers.push(blocker);
        await new Promise<void>((resolve) => blocker.listen(first.port, '127.0.0.1', () => resolve()));
        const third = await serve(repo.dir);
        expect(third.port).not.toBe(first.port);
        await page.waitForSelector('#gone');
        expect(await page.textContent('#gone')).toBe(
          'This page lost its server: sow ui was stopped or started again with a new address. Run sow ui in the ' +
            'repository and open the address it prints.',
        );
        await inspectView(page, 'project-lost', { full: false });
        // The new address works, and the old tokens are not accepted there.
        const other = await browser.newPage();
        await other.goto(`${third.url}#/p/.`);
        await other.waitForSelector('#board .card[data-task="020"]');
        const stale = await fetch(`${third.base}/?token=${first.token}`);
        expect(stale.status).toBe(403);
      } finally {
        for (const b of blockers) b.close();
        await browser.close();
      }
    },
  );
});
