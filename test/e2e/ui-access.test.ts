/**
 * `sow ui` for everyone: a task reviewed with the keyboard alone (every control and every box that
 * scrolls reached by Tab, a line commented and changes requested with Enter), what an action did
 * spoken (a live region) and shown in its view, a refusal that belongs to its view only; the task
 * views (in review, refused, without changes) at 390 px, in dark and under axe-core.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ok, toExecuting, useRepos } from './harness.js';
import { CHROMIUM, inspectView, launch, serve, servers } from './ui-browser.js';

afterEach(() => {
  for (const s of servers.splice(0)) s.kill('SIGINT');
});
const fresh = useRepos();

describe.skipIf(!CHROMIUM)('sow ui for everyone', () => {
  it(
    'a task reviewed with the keyboard alone; ' + 'what came of it spoken and shown in its view, and only there',
    async () => {
      const repo = fresh();
      const browser = await launch();
      try {
        toExecuting(repo, ['First', 'Second']);
        repo.write('src/a.js', 'export const a = 1;\nexport const b = 2;\n');
        ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'src/a.js']);
        ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
        ok(repo, ['task', 'set', '--id', '010', 'status', 'needs_review']);
        const s = await serve(repo.dir);
        const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
        await page.goto(`${s.url}#/t/./010`);
        await page.waitForSelector('#review #accept');
        expect(await page.title()).toBe('Task 010 First — sow');
        expect(await page.getAttribute('#live', 'role')).toBe('status');
        await inspectView(page, 'task-keyboard');

        // Tab reaches every control and every box that scrolls, in the order of the page.
        const focusable = await page.evaluate(
          () =>
            [
              ...document.querySelectorAll(
                '#view a[href], #view button, #view textarea, #view input, #view select, #view summary, #view ' +
                  '[tabindex="0"]',
              ),
            ].filter((e) => (e as HTMLElement).offsetParent !== null).length,
        );
        const reached = new Set<string>();
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        for (let i = 0; i < focusable + 10; i++) {
          await page.keyboard.press('Tab');
          const id = await page.evaluate(() => {
            const e = document.activeElement as HTMLElement;
            if (!e || !e.closest('#view')) return null;
            (e as unknown as { n?: number }).n ??= Math.random();
            return String((e as unknown as { n: number }).n);
          });
          if (id) reached.add(id);
        }
        expect(reached.size).toBe(focusable);

        // A line commented and changes requested, with Tab and Enter only.
        const tabTo = async (selector: string) => {
          for (let i = 0; i < focusable + 10; i++) {
            if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return;
            await page.keyboard.press('Tab');
          }
          throw new Error(`Tab never reached ${selector}`);
        };
        await tabTo('button.line-comment[data-file="src/a.js"][data-line="2"]');
        await page.keyboard.press('Enter');
        await page.waitForFunction(() => document.activeElement?.id === 'line-comment-text');
        await page.keyboard.type('Call it two.');
        await tabTo('#line-comment-add');
        await page.keyboard.press('Enter');
        await page.waitForSelector('#review-comments li');
        await tabTo('#request-changes');
        await page.keyboard.press('Enter');
        // The feedback is written; no worker ever ran on the task, so there is none to resume: said, with what was
        // done.
        await page.waitForFunction(() => (document.querySelector('#error')?.textContent ?? '') !== '');
        const error = await page.textContent('#error');
        expect(error).toMatch(/^Done: sow task feedback\. Then sow agent resume failed: /);
        expect(await page.getAttribute('#error', 'role')).toBe('alert');
        expect(await page.textContent('#res-request-changes')).toBe(error);
        await page.waitForFunction((e) => document.querySelector('#announce')?.textContent === e, error);
        expect(repo.read('.sow/project/phases/implementation/tasks/010/feedback/001.md')).toBe(
          'src/a.js, line 2:\n> export const b = 2;\nCall it two.\n',
        );
        await inspectView(page, 'task-refused');

        // The refusal belongs to its view: another view does not show it, nor does this one when it is opened again.
        await page.click('text=← the project');
        await page.waitForSelector('#state');
        expect(await page.textContent('#error')).toBe('');
        expect(await page.title()).toBe('demo (ImplementationExecuting) — sow');
        await page.click('#board .card[data-task="020"] a.title');
        // It records no file of its own: what the project checkout changed is shown, and said to be that.
        await page.waitForSelector('#changes-source');
        expect(await page.textContent('#changes-source')).toContain('changes of other tasks there are in it too');
        expect(await page.textContent('#error')).toBe('');
        await inspectView(page, 'task-pending');
        await page.goBack();
        await page.goBack();
        await page.waitForSelector('#review #accept');
        expect(await page.textContent('#error')).toBe('');
        expect(await page.locator('#res-request-changes').count()).toBe(0);
      } finally {
        await browser.close();
      }
    },
  );
});
