/**
 * `sow ui` keeps still while the work goes on: each redraw patches what changed, so what a person
 * reads, selects, types and has open survives a worker's events arriving — the same elements stay
 * (marked before, found after), the window and the events box keep their scroll, the selection
 * its text, the focused field its focus and its words, an opened document stays open. The events
 * box follows new lines only while it is scrolled to the bottom. Also measured here, reported and
 * never asserted: the CPU the server and the page use while nothing happens.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toExecuting, useRepos } from './harness.js';
import { cleanEnv, makeWorld, runSow, show, until } from './agent-world.js';
import { CHROMIUM, launch, serve, servers } from './ui-browser.js';

afterEach(() => {
  for (const s of servers.splice(0)) s.kill('SIGINT');
});
const fresh = useRepos();

describe.skipIf(!CHROMIUM)('sow ui keeps still', () => {
  it(
    'a worker’s events redraw the task page in place: scroll, selection, focus, typed text and an open document ' +
      'survive; the events box follows only from the bottom',
    async () => {
      const repo = fresh();
      const world = makeWorld({ prefix: 'sow-ui-still-' });
      const mark = (name: string) => join(world.root, name);
      const browser = await launch();
      try {
        toExecuting(repo, ['First task']);
        const cli = (args: string[], env: Record<string, string> = {}) => {
          const r = runSow(repo.dir, world, [...args, '--json'], env);
          expect(r.code, show(r)).toBe(0);
          return r.json!.data;
        };
        cli(['task', 'feedback', '--id', '010', 'Mind the **edge** case.']);
        const logs = (n: number, from: number) =>
          Array.from({ length: n }, (_, i) => ['log', '--action', 'note', '--result', 'success', `step ${from + i}`]);
        const script = [
          ...logs(24, 1),
          { touch: mark('first') },
          { wait: mark('go-1') },
          ...logs(6, 25),
          { touch: mark('second') },
          { wait: mark('go-2') },
          ...logs(4, 31),
          ['agent', 'report', '--status', 'paused', 'done for now'],
        ];
        cli(['agent', 'spawn', 'implementer', '010', '--detach'], { FAKE_AGENT_SCRIPT: JSON.stringify(script) });
        const s = await serve(repo.dir, cleanEnv(world.env));
        const page = await browser.newPage({ viewport: { width: 1000, height: 600 } });
        await page.goto(`${s.url}#/t/./010`);
        await until(() => existsSync(mark('first')), 'the first steps');
        const events = () => page.locator('#events .event').count();
        await page.waitForFunction(() => /step 24/.test(document.querySelector('#events')?.textContent ?? ''));
        // It follows while at the bottom.
        const atBottom = () =>
          page.evaluate(() => {
            const e = document.querySelector('#events')!;
            return e.scrollHeight - e.scrollTop - e.clientHeight < 8;
          });
        expect(
          await page.evaluate(
            () => document.querySelector('#events')!.scrollHeight > document.querySelector('#events')!.clientHeight,
          ),
        ).toBe(true);
        expect(await atBottom()).toBe(true);

        // What the person has: the events box scrolled up, the feedback opened, words selected, a field focused with
        // words in it, the window scrolled.
        await page.click('#inputs details.lazy summary');
        await page.waitForSelector('#inputs details.lazy[open] .doc strong');
        await page.fill('#feedback-text', 'Half a thought');
        const before = await page.evaluate(() => {
          const ev = document.querySelector('#events')!;
          ev.scrollTop = 0;
          for (const id of ['events', 'description', 'feedback-text', 'inputs'])
            (document.getElementById(id) as unknown as { kept: boolean }).kept = true;
          const heading = document.querySelector('#description h3')!.firstChild!;
          const range = document.createRange();
          range.setStart(heading, 0);
          range.setEnd(heading, 5);
          getSelection()!.removeAllRanges();
          getSelection()!.addRange(range);
          (document.getElementById('feedback-text') as HTMLTextAreaElement).focus({ preventScroll: true });
          window.scrollTo(0, 200);
          return {
            drawn: Number(document.body.dataset.drawn),
            events: document.querySelectorAll('#events .event').length,
            selected: String(getSelection()),
            y: window.scrollY,
          };
        });
        expect(before.selected).toBe('First');
        writeFileSync(mark('go-1'), '');
        await until(() => existsSync(mark('second')), 'the next steps');
        await page.waitForFunction(() => /step 30/.test(document.querySelector('#events')?.textContent ?? ''));
        const after = await page.evaluate(() => ({
          drawn: Number(document.body.dataset.drawn),
          kept: ['events', 'description', 'feedback-text', 'inputs'].filter(
            (id) => (document.getElementById(id) as unknown as { kept?: boolean })?.kept,
          ),
          eventsTop: document.querySelector('#events')!.scrollTop,
          selected: String(getSelection()),
          focused: document.activeElement?.id,
          typed: (document.getElementById('feedback-text') as HTMLTextAreaElement).value,
          open: document.querySelector('#inputs details.lazy')?.hasAttribute('open'),
          y: window.scrollY,
        }));
        expect(after.drawn).toBeGreaterThan(before.drawn);
        expect(await events()).toBeGreaterThan(before.events);
        expect(after).toEqual({
          drawn: after.drawn,
          kept: ['events', 'description', 'feedback-text', 'inputs'],
          eventsTop: 0,
          selected: 'First',
          focused: 'feedback-text',
          typed: 'Half a thought',
          open: true,
          y: before.y,
        });

        // Back at the bottom, it follows again.
        await page.evaluate(() => {
          const e = document.querySelector('#events')!;
          e.scrollTop = e.scrollHeight;
        });
        writeFileSync(mark('go-2'), '');
        await page.waitForFunction(() => document.querySelector('#task-status')?.textContent === 'paused');
        await page.waitForFunction(() => /step 34/.test(document.querySelector('#events')?.textContent ?? ''));
        expect(await atBottom()).toBe(true);

        // Idle: nothing changes for five seconds; the server's CPU (from /proc) and the page's (Chromium's own count of
        // its tasks).
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('Performance.enable');
        const taskSeconds = async () =>
          (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
        const ticks = () => {
          const f = readFileSync(`/proc/${s.child.pid}/stat`, 'utf8');
          const p = f.slice(f.lastIndexOf(')') + 2).split(' ');
          return Number(p[11]) + Number(p[12]);
        };
        const [t0, p0, w0] = [ticks(), await taskSeconds(), Date.now()];
        await new Promise((r) => setTimeout(r, 5_000));
        const wall = (Date.now() - w0) / 1000;
        const server = ((ticks() - t0) / 100 / wall) * 100;
        const pageCpu = (((await taskSeconds()) - p0) / wall) * 100;
        console.log(
          `sow ui idle, a task page open: server ${server.toFixed(2)} % CPU, page ${pageCpu.toFixed(2)} % CPU ` +
            `(over ${wall.toFixed(1)} s)`,
        );
      } finally {
        for (const f of ['go-1', 'go-2']) writeFileSync(mark(f), '');
        await browser.close();
        world.cleanup();
      }
    },
  );
});
