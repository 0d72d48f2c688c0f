/**
 * `sow ui`'s board answers a reviewer's questions: each card says whether its task can start or
 * what it waits for, whether nobody works on it, its pending feedback, iteration and cost — the
 * same as `sow task board --json`; search and filters; empty columns folded; a worker started on a
 * ready card; a card dragged (or moved with the keyboard) to another column is `task set … status`,
 * its refusal shown on the card with the state files unchanged. Also measured (reported, never
 * asserted): how long the project page with 1,000 tasks takes to draw in Chromium.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ok, taskFile, toExecuting, useRepos } from './harness.js';
import { cleanEnv, makeWorld, runSow, show, until } from './agent-world.js';
import { CHROMIUM, inspectView, launch, serve, servers } from './ui-browser.js';

afterEach(() => {
  for (const s of servers.splice(0)) s.kill('SIGINT');
});
const fresh = useRepos();

interface Card {
  id: string;
  ready: boolean;
  blocked_by: { id: string }[];
  feedback_pending: number;
  iteration: number;
  status: string;
  worker?: { state: string };
}

describe.skipIf(!CHROMIUM)('sow ui: the board', () => {
  it(
    'cards say what task board says; search, filters, folded columns; start a worker; drag and move, a refusal ' +
      'on the card',
    async () => {
      const repo = fresh();
      const world = makeWorld({ prefix: 'sow-ui-board-' });
      const browser = await launch();
      try {
        toExecuting(repo, ['First', 'Second', 'Third', 'Fourth']);
        const cli = (args: string[]) => {
          const r = runSow(repo.dir, world, [...args, '--json']);
          expect(r.code, show(r)).toBe(0);
          return r.json!.data;
        };
        cli(['task', 'set', '--id', '020', 'dependencies', '010']);
        cli(['task', 'set', '--id', '030', 'status', 'in_progress']);
        cli(['task', 'feedback', '--id', '040', 'Mind the edge case.']);
        cli(['task', 'set', '--id', '040', 'iteration', '2']);
        const s = await serve(
          repo.dir,
          cleanEnv({
            ...world.env,
            FAKE_AGENT_SCRIPT: JSON.stringify([['agent', 'report', '--status', 'paused', 'a question']]),
          }),
        );
        const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
        await page.goto(`${s.url}#/p/.`);
        await page.waitForSelector('#board .card[data-task="040"]');

        /** Each card as the page shows it, and as task board says it. */
        const shown = () =>
          page.evaluate(() =>
            [...document.querySelectorAll('#board .card')]
              .map((c) => ({
                id: c.getAttribute('data-task'),
                status: c.closest('.col')?.getAttribute('data-status'),
                ready: c.querySelector('[data-ready]') !== null,
                blocked: c.querySelector('[data-blocked-by]')?.getAttribute('data-blocked-by') ?? '',
                nobody:
                  c.querySelector('[data-nobody]') !== null ||
                  /nobody is working on it/.test(c.querySelector('[data-ready]')?.textContent ?? ''),
                feedback: Number(c.querySelector('[data-feedback]')?.getAttribute('data-feedback') ?? 0),
                iteration: Number(c.querySelector('[data-iteration]')?.getAttribute('data-iteration') ?? 1),
              }))
              .sort((a, b) => String(a.id).localeCompare(String(b.id))),
          );
        const said = () =>
          (cli(['task', 'board']).cards as Card[]).map((c) => ({
            id: c.id,
            status: c.status,
            ready: c.ready,
            blocked:
              ['pending', 'in_progress'].includes(c.status) && !c.ready ? c.blocked_by.map((b) => b.id).join(',') : '',
            nobody: c.status === 'in_progress' && c.worker?.state !== 'live',
            feedback: c.feedback_pending,
            iteration: c.iteration,
          }));
        const agrees = async () => {
          const want = said();
          await page
            .waitForFunction(
              (w) =>
                JSON.stringify(
                  [...document.querySelectorAll('#board .card')]
                    .map((c) => [c.getAttribute('data-task'), c.closest('.col')?.getAttribute('data-status')])
                    .sort(),
                ) === JSON.stringify(w.map((c) => [c.id, c.status])),
              want,
            )
            .catch(() => undefined);
          expect(await shown()).toEqual(want);
        };
        await agrees();
        expect(await shown()).toMatchObject([
          { id: '010', ready: true },
          { id: '020', blocked: '010' },
          { id: '030', nobody: true },
          { id: '040', ready: true, feedback: 1, iteration: 2 },
        ]);
        // Empty columns are folded into one line.
        expect(
          await page.locator('#board .col').evaluateAll((cs) => cs.map((c) => c.getAttribute('data-status'))),
        ).toEqual(['pending', 'in_progress']);
        expect(
          await page.locator('#folded .col').evaluateAll((cs) => cs.map((c) => c.getAttribute('data-status'))),
        ).toEqual(['needs_review', 'paused', 'failed', 'completed', 'abandoned']);
        await inspectView(page, 'project-board');

        // Search by id or words; filters by status, agent, ready.
        const ids = () => page.locator('#board .card').evaluateAll((cs) => cs.map((c) => c.getAttribute('data-task')));
        await page.fill('#board-search', '20');
        await page.waitForFunction(() => document.querySelectorAll('#board .card').length === 1);
        expect(await ids()).toEqual(['020']);
        await page.fill('#board-search', 'THIRD');
        await page.waitForFunction(() => document.querySelector('#board .card')?.getAttribute('data-task') === '030');
        expect(await page.textContent('#board-count')).toBe('1 of 4 tasks');
        await page.fill('#board-search', '');
        await page.check('#board-ready');
        await page.waitForFunction(() => document.querySelectorAll('#board .card').length === 2);
        expect(await ids()).toEqual((cli(['task', 'board']).cards as Card[]).filter((c) => c.ready).map((c) => c.id));
        await page.uncheck('#board-ready');
        await page.selectOption('#board-status', 'in_progress');
        await page.waitForFunction(() => document.querySelectorAll('#board .card').length === 1);
        expect(await ids()).toEqual(['030']);
        await page.selectOption('#board-status', '');
        await page.selectOption('#board-agent', 'implementer');
        await page.waitForFunction(() => document.querySelectorAll('#board .card').length === 4);

        // Dragged where it may not go: refused on the card, nothing written.
        const before = repo.snapshot();
        await page.dragAndDrop('#board .card[data-task="020"]', '#board .col[data-status="in_progress"]');
        await page.waitForSelector('#board .card[data-task="020"] .refused');
        expect(await page.textContent('#board .card[data-task="020"] .refused')).toMatch(
          /^task 020 cannot start: it depends on 010 \(pending\)/,
        );
        expect(repo.snapshot()).toEqual(before);
        // Dragged where it may: the same change as sow task set.
        await page.dragAndDrop('#board .card[data-task="010"]', '#board .col[data-status="in_progress"]');
        await page.waitForSelector('#board .col[data-status="in_progress"] .card[data-task="010"]');
        expect(cli(['task', 'get', '--id', '010']).status).toBe('in_progress');
        // Moved with the keyboard, to a folded column.
        await page.click('#board .card[data-task="030"] button.move');
        await page.waitForFunction(() => document.activeElement?.id === 'move-to-030');
        await page.selectOption('#move-to-030', 'paused');
        await page.click('#board .card[data-task="030"] button.move-go');
        await page.waitForSelector('#board .col[data-status="paused"] .card[data-task="030"]');
        expect(cli(['task', 'get', '--id', '030']).status).toBe('paused');

        // A worker started on a ready card: the spawn runs, the card follows it.
        await page.click('#board .card[data-task="040"] button.start');
        await until(() => cli(['task', 'get', '--id', '040']).status === 'paused', 'the worker to report');
        await page.waitForSelector('#board .col[data-status="paused"] .card[data-task="040"]');
        await agrees();
        expect(await page.textContent('#notice')).toBe('A worker (implementer) was started on task 040.');
      } finally {
        await browser.close();
        world.cleanup();
      }
    },
  );

  it('the project page with 1,000 tasks (drawing time reported)', async () => {
    const repo = fresh();
    const browser = await launch();
    try {
      toExecuting(repo, ['First']);
      const template = repo.read(taskFile('010'));
      const statuses = [
        'completed',
        'completed',
        'completed',
        'in_progress',
        'pending',
        'pending',
        'needs_review',
        'paused',
        'failed',
        'abandoned',
      ];
      for (let i = 2; i <= 1000; i++) {
        const id = String(i * 10).padStart(3, '0');
        repo.write(
          taskFile(id),
          template
            .replace('id: "010"', `id: "${id}"`)
            .replace(/^name: .*$/m, `name: Task number ${i} of the thousand`)
            .replace(/^status: .*$/m, `status: ${statuses[i % 10]}`)
            .replace(
              'dependencies: []',
              i % 4 === 1 ? `dependencies: ["${String((i - 1) * 10).padStart(3, '0')}"]` : 'dependencies: []',
            ),
        );
      }
      expect((JSON.parse(ok(repo, ['task', 'list', '--json']).stdout).data as unknown[]).length).toBe(1000);
      const s = await serve(repo.dir);
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      await page.goto(`${s.url}#/p/.`);
      await page.waitForFunction(() => document.querySelectorAll('#board .card').length === 1000, undefined, {
        timeout: 120_000,
      });
      const first = Number(await page.getAttribute('body', 'data-draw-ms'));
      // A redraw after a change: the page patched, not rebuilt.
      const drawn = Number(await page.getAttribute('body', 'data-drawn'));
      ok(repo, ['task', 'set', '--id', '010', 'metadata.note', 'x']);
      await page.waitForFunction((n) => Number(document.body.dataset.drawn) > n, drawn);
      const again = Number(await page.getAttribute('body', 'data-draw-ms'));
      console.log(
        `sow ui, 1,000 tasks: the project page drawn in ${first} ms, patched after a change in ${again} ms ` +
          `(Chromium, this machine as loaded as it is)`,
      );
    } finally {
      await browser.close();
    }
  });
});
