/**
 * `sow ui` in Chromium: a standard project walked through the page alone, as a person reviews and
 * steers agents' work — the task list approved as it reads, rendered beside its button; two
 * workers (fake agent CLIs) watched; one task's diff reviewed, a line commented and changes
 * requested (its worker resumed with the feedback); the other accepted; the review approved as it
 * reads, with its assessment; the checks' evidence fresh, stale, fresh, its log opened; to
 * FinalizeDelete. At each step what the page shows is compared with the commands' --json. Every
 * view is checked at 390 px, in dark, and by axe-core; screenshots go to test-artifacts/ui/.
 */
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, TASK_LIST } from './harness.js';
import { cleanEnv, makeWorld, runSow, show, until } from './agent-world.js';
import { CHROMIUM, inspectView, launch, serve, servers, SHOTS } from './ui-browser.js';

afterEach(() => {
  for (const s of servers.splice(0)) s.kill('SIGINT');
});

describe.skipIf(!CHROMIUM)(
  `sow ui: a project reviewed and steered through the ` +
    `page${CHROMIUM ? '' : ' (skipped: no Chromium at /usr/bin/chromium; apt-get install chromium)'}`,
  () => {
    it(
      'approve the rendered task list, watch two workers, request changes on a diff line, accept, approve the ' +
        'rendered review, finish; the page agrees with --json throughout',
      async () => {
        const repo = makeRepo();
        const world = makeWorld({ prefix: 'sow-ui-walk-' });
        const root = realpathSync(repo.dir);
        const mark = (name: string) => join(world.root, name);
        const env = { SOW_ALLOW_CHECKS: '1' };
        const cli = (args: string[], extra: Record<string, string> = {}) => {
          const r = runSow(root, world, [...args, '--json'], { ...env, ...extra });
          expect(r.code, `sow ${args.join(' ')}\n${show(r)}`).toBe(0);
          return r.json!.data;
        };
        // A worker resumed from the page (by the server) addresses its feedback and goes back to review.
        const resumed = JSON.stringify([
          ['task', 'input', 'set', '--index', '0', 'metadata.status', 'addressed'],
          { append: 'greet.js', text: '// greets a person by name\n' },
          ['agent', 'report', '--status', 'needs_review', 'Said whom it greets'],
        ]);
        const browser = await launch();
        const timings: string[] = [];
        try {
          cli(['project', 'new', 'walk', '--description', 'A walk through the page']);
          repo.write(
            TASK_LIST,
            '# Tasks\n\n- **First**: greet people, see [the guide](https://example.com/guide)\n- Second: write the ' +
              'notes\n\n<script>document.title = "pwned"</script>\n\n[run me](javascript:alert(1))\n',
          );
          cli(['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
          const s = await serve(root, cleanEnv({ ...world.env, ...env, FAKE_AGENT_SCRIPT: resumed }));
          const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
          const errors: string[] = [];
          page.on('pageerror', (e) => errors.push(e.message));

          /**
           * What the project page shows: state, the graph's current state and transitions, the board, each
           * phase's check evidence.
           */
          const shown = () =>
            page.evaluate(() => ({
              state: document.querySelector('#state')?.textContent,
              current: document.querySelector('#lifecycle .node.current')?.getAttribute('data-state'),
              next: [...document.querySelectorAll('#lifecycle .node.current li')].map((li) => [
                li.getAttribute('data-event'),
                li.getAttribute('data-to'),
                li.className,
              ]),
              board: [...document.querySelectorAll('#board .card')]
                .map((c) => [
                  c.getAttribute('data-task'),
                  c.closest('.col')?.getAttribute('data-status'),
                  c.getAttribute('data-owner'),
                ])
                .sort(),
              evidence: Object.fromEntries(
                [...document.querySelectorAll('#phases tr[data-phase]')].map((tr) => [
                  tr.getAttribute('data-phase'),
                  [...tr.querySelectorAll('[data-check]')].map((e) => [
                    e.getAttribute('data-check'),
                    e.getAttribute('data-state'),
                  ]),
                ]),
              ),
              outputs: [...document.querySelectorAll('#outputs article')].map((a) => [
                a.getAttribute('data-type'),
                a.querySelector('.approve') ? 'waits' : 'approved or recorded',
              ]),
            }));
          /** What sow's commands say, in the page's terms. */
          const said = () => {
            const st = cli(['status']);
            const checks = cli(['check', 'list']) as { name: string; evidence?: { phase: string; state: string }[] }[];
            return {
              state: st.state,
              current: st.state,
              next: (st.next as { event: string; to: string; blocked: boolean }[]).map((n) => [
                n.event,
                n.to,
                n.blocked ? 'blocked' : 'met',
              ]),
              board: (cli(['task', 'list']) as { id: string; status: string; worker?: { by: string } }[])
                .map((t) => [t.id, t.status, t.worker?.by ?? ''])
                .sort(),
              evidence: Object.fromEntries(
                (st.phases as { name: string }[]).map((p) => [
                  p.name,
                  checks.flatMap((c) =>
                    (c.evidence ?? []).filter((e) => e.phase === p.name).map((e) => [c.name, e.state]),
                  ),
                ]),
              ),
              outputs: (cli(['output', 'list']) as { type: string; approved: boolean }[]).map((o) => [
                o.type,
                o.approved || o.type === 'evidence' ? 'approved or recorded' : 'waits',
              ]),
            };
          };
          /** The project page and the commands agree (the page follows changes live: waited for, then compared). */
          const agrees = async () => {
            const want = said();
            await page
              .waitForFunction((w) => {
                const cards = [...document.querySelectorAll('#board .card')]
                  .map((c) => [
                    c.getAttribute('data-task'),
                    c.closest('.col')?.getAttribute('data-status'),
                    c.getAttribute('data-owner'),
                  ])
                  .sort();
                return (
                  document.querySelector('#state')?.textContent === w.state &&
                  JSON.stringify(cards) === JSON.stringify(w.board)
                );
              }, want)
              .catch(() => undefined);
            expect(await shown()).toEqual(want);
            return want;
          };
          const advanceBlocked = async (guard: string) => {
            const before = repo.snapshot();
            await page.click('#advance');
            await page.waitForFunction((g) => (document.querySelector('#error')?.textContent ?? '').includes(g), guard);
            expect(await page.textContent('#res-advance')).toContain(guard);
            expect(repo.snapshot()).toEqual(before);
          };
          const advanceTo = async (state: string) => {
            await page.click('#advance');
            await page.waitForFunction((st) => document.querySelector('#state')?.textContent === st, state);
            expect((await agrees()).state).toBe(state);
            expect(await page.textContent('#error')).toBe('');
          };
          const toTask = async (id: string) => {
            await page.click(`#board .card[data-task="${id}"] a.title`);
            await page.waitForFunction((i) => document.querySelector('h1')?.textContent?.startsWith(i + ' '), id);
          };
          const toProject = async () => {
            await page.click('text=← the project');
            await page.waitForSelector('#state');
          };
          /** The task page and the commands agree: its status, iteration, and the files its work changed. */
          const taskAgrees = async (id: string) => {
            const t = cli(['task', 'get', '--id', id]);
            const changes = cli(['task', 'changes', '--id', id]) as { files: { path: string }[] };
            const card = (cli(['task', 'board', '--id', id]) as { cards: { feedback_pending: number }[] }).cards[0]!;
            const want = {
              status: t.status,
              iteration: t.iteration,
              files: changes.files.map((f) => f.path),
              pending: card.feedback_pending ? `${card.feedback_pending} pending feedback` : null,
            };
            const got = () =>
              page.evaluate(() => ({
                status: document.querySelector('#task-status')?.textContent,
                iteration: Number(
                  /iteration (\d+)/.exec(document.querySelector('#task-status')?.parentElement?.textContent ?? '')?.[1],
                ),
                files: [...document.querySelectorAll('#changes details.file')].map((f) => f.getAttribute('data-file')),
                pending: document.querySelector('#pending-feedback')?.textContent ?? null,
              }));
            await page
              .waitForFunction((w) => document.querySelector('#task-status')?.textContent === w.status, want)
              .catch(() => undefined);
            expect(await got()).toEqual(want);
            return changes;
          };

          // All projects, as sow status --all says.
          await page.goto(s.url);
          await page.waitForSelector('#projects td.project-state');
          expect(await page.textContent('#projects td.project-state')).toBe(cli(['status', '--all'])[0].project.state);
          expect(await page.title()).toBe('All projects — sow');
          await inspectView(page, 'projects');

          // Planning: the task list is read where it is approved, rendered — its link shown, its HTML as text, a
          // javascript: link not a link.
          await page.click('#projects a');
          await page.waitForSelector('#lifecycle svg path[data-edge]');
          await agrees();
          const list = '#outputs article[data-type="task_list"]';
          expect(await page.locator(`${list} .doc li`).allTextContents()).toEqual([
            'First: greet people, see the guide (example.com)',
            'Second: write the notes',
          ]);
          expect(
            await page.locator(`${list} .doc a`).evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
          ).toEqual(['https://example.com/guide']);
          expect(await page.locator(`${list} .doc`).textContent()).toContain(
            '<script>document.title = "pwned"</script>',
          );
          expect(await page.locator(`${list} .doc`).textContent()).toContain('run me (javascript:alert(1))');
          expect(await page.locator('#view script').count()).toBe(0);
          expect(await page.title()).toBe('walk (PlanningActive) — sow');
          await inspectView(page, 'project-planning');
          await advanceBlocked('a task_list output of planning is approved');
          await page.click(`${list} .approve`);
          await page.waitForSelector(`${list} .badge.ok`);
          await advanceTo('ImplementationPlanning');

          // Tasks added in the terminal appear (how long that takes is measured); approved and advanced from the page.
          cli(['task', 'add', 'First', '--agent', 'implementer']);
          let t0 = Date.now();
          await page.waitForSelector('#board .card[data-task="010"]');
          timings.push(`a task added in the terminal reached the page in ${Date.now() - t0} ms`);
          cli(['task', 'add', 'Second', '--agent', 'implementer']);
          await agrees();
          await advanceBlocked('tasks_approved is true');
          await page.click('#approve-tasks');
          await advanceTo('ImplementationExecuting');

          // Two workers: 010 in a checkout of its own, 020 in the project checkout; each waits for its go.
          const worker = (id: string, steps: unknown[]) =>
            JSON.stringify([
              { touch: mark(`started-${id}`) },
              ...steps,
              { wait: mark(`go-${id}`) },
              ['agent', 'report', '--status', 'needs_review', `task ${id} done`],
            ]);
          cli(['agent', 'spawn', 'implementer', '010', '--worktree', '--detach'], {
            FAKE_AGENT_SCRIPT: worker('010', [
              { append: 'greet.js', text: 'export const greet = (name) => "hello " + name;\n' },
            ]),
          });
          cli(['agent', 'spawn', 'implementer', '020', '--detach'], {
            FAKE_AGENT_SCRIPT: worker('020', [
              { append: 'notes.md', text: '# Notes\n' },
              ['log', '--action', 'modified_file', '--result', 'success', '--file', 'notes.md', 'Wrote the notes'],
            ]),
          });
          await until(
            () => existsSync(mark('started-010')) && existsSync(mark('started-020')),
            'both workers to start',
          );
          await page.waitForFunction(() => document.querySelectorAll('#workers tr[data-key]').length === 2);
          await agrees();
          expect((await page.locator('#workers td.worktree').allTextContents()).sort()).toEqual(
            (cli(['agent', 'ps']) as { worktree?: string }[])
              .map((w) => (w.worktree && w.worktree !== '.' ? w.worktree : 'project checkout'))
              .sort(),
          );
          await inspectView(page, 'project-workers');

          // 010: its worker's events live; what it changed in its own checkout, though it recorded nothing.
          await toTask('010');
          await page.waitForFunction(() =>
            /session .* started/.test(document.querySelector('#events')?.textContent ?? ''),
          );
          let changes = await taskAgrees('010');
          expect(changes).toMatchObject({
            source: 'worker-checkout',
            files: [{ path: 'greet.js', status: 'added', untracked: true }],
          });
          expect(await page.textContent('#changes-source')).toContain('in its own checkout');
          expect(await page.locator('#description').textContent()).toContain('First');
          writeFileSync(mark('go-010'), '');
          await page.waitForSelector('#review #accept');
          changes = await taskAgrees('010');
          expect(await page.locator('#changes tr.add td.t').allTextContents()).toEqual([
            'export const greet = (name) => "hello " + name;',
          ]);
          expect(await page.locator('#changes tr.add .tk-k').first().textContent()).toBe('export');
          await inspectView(page, 'task-review');

          // Request changes: a comment on line 1 of greet.js and a word in general — one feedback, the worker resumed
          // with it.
          await page.click('#changes button.line-comment[data-file="greet.js"][data-line="1"]');
          await page.fill('#line-comment-text', 'Say whom it greets.');
          await page.click('#line-comment-add');
          await page.waitForSelector('#review-comments li');
          await page.fill('#changes-text', 'Nearly there.');
          await page.click('#request-changes');
          await page.waitForFunction(() =>
            /written, and its worker resumed/.test(document.querySelector('#notice')?.textContent ?? ''),
          );
          const feedback =
            'Nearly there.\n\ngreet.js, line 1:\n> export const greet = (name) => "hello " + name;\nSay whom ' +
            'it greets.\n';
          expect(repo.read('.sow/project/phases/implementation/tasks/010/feedback/001.md')).toBe(feedback);
          await until(
            () =>
              cli(['task', 'get', '--id', '010']).iteration === 2 &&
              cli(['task', 'get', '--id', '010']).status === 'needs_review',
            'the resumed worker to report',
          );
          expect(world.calls().at(-1)!.prompt).toContain(
            `Changes were requested on task 010 (also recorded as its newest pending feedback):\n\n${feedback.trim()}`,
          );
          await page.waitForFunction(() =>
            /iteration 2/.test(document.querySelector('#task-status')?.parentElement?.textContent ?? ''),
          );
          changes = await taskAgrees('010');
          expect(await page.locator('#changes tr.add td.t').allTextContents()).toEqual([
            'export const greet = (name) => "hello " + name;',
            '// greets a person by name',
          ]);
          expect(await page.inputValue('#changes-text')).toBe('');
          expect(await page.locator('#review-comments').count()).toBe(0);

          // 020: what it recorded, reviewed and accepted.
          await toProject();
          await toTask('020');
          writeFileSync(mark('go-020'), '');
          await page.waitForSelector('#review #accept');
          changes = await taskAgrees('020');
          expect(changes).toMatchObject({ source: 'recorded', files: [{ path: 'notes.md' }] });
          await page.click('#accept');
          await page.waitForFunction(() =>
            /Task 020 is completed/.test(document.querySelector('#notice')?.textContent ?? ''),
          );
          await page.waitForFunction(() => document.querySelector('#task-status')?.textContent === 'completed');
          expect(cli(['task', 'get', '--id', '020']).status).toBe('completed');

          // 010, changed as asked: accepted.
          await toProject();
          await toTask('010');
          await page.click('#accept');
          await page.waitForFunction(() => document.querySelector('#task-status')?.textContent === 'completed');
          await taskAgrees('010');
          await toProject();
          await agrees();
          await advanceTo('ReviewActive');

          // Review: the report read where it is approved, with its assessment.
          repo.write('.sow/project/review/report.md', '# Review\n\n**Pass**: both tasks do what they say.\n');
          cli(['output', 'add', '--type', 'review', '--path', 'review/report.md', '--assessment', 'pass']);
          const review = '#outputs article[data-type="review"]';
          await page.waitForSelector(`${review} .approve`);
          expect(await page.locator(`${review} .doc strong`).first().textContent()).toBe('Pass');
          expect(await page.getAttribute(`${review} [data-assessment]`, 'data-assessment')).toBe(
            (cli(['output', 'list']) as { metadata?: { assessment?: string } }[])[0]!.metadata?.assessment,
          );
          await agrees();
          await inspectView(page, 'project-review');
          await advanceBlocked("the latest approved review of this round has assessment 'pass'");
          await page.click(`${review} .approve`);
          await page.waitForSelector(`${review} .badge.ok`);
          await advanceTo('FinalizeDocumentation');
          await advanceTo('FinalizeChecks');

          // The checks: never run, fresh, its log opened; stale once the code changes; fresh again.
          repo.write('src/app.js', 'console.log("app")\n');
          repo.write(
            '.sow/config.yaml',
            'checks:\n  - name: unit\n    run: grep -q app src/app.js\n    when: [finalize]\n',
          );
          await advanceBlocked('unit: never run');
          cli(['check', 'run']);
          const unit = '#phases tr[data-phase="finalize"] [data-check="unit"]';
          await page.waitForSelector(`${unit}[data-state="fresh-pass"]`);
          expect((await agrees()).evidence).toEqual({
            planning: [],
            implementation: [],
            review: [],
            finalize: [['unit', 'fresh-pass']],
          });
          expect(await page.locator('#outputs article[data-type="evidence"] .approve').count()).toBe(0);
          await page.click('#phases tr[data-phase="finalize"] details.lazy summary');
          const evidence = (cli(['output', 'list']) as { index: number; type: string }[]).find(
            (o) => o.type === 'evidence',
          )!;
          const log = cli(['output', 'show', '--index', String(evidence.index)]) as { text: string };
          await page.waitForFunction(
            () => document.querySelector('#phases tr[data-phase="finalize"] details.lazy pre') !== null,
          );
          expect(await page.textContent('#phases tr[data-phase="finalize"] details.lazy pre')).toBe(log.text);
          repo.write('src/app.js', 'console.log("changed")\n');
          await page.reload(); // a change of the code outside .sow/ is not a change sow's feed tells
          await page.waitForSelector(`${unit}[data-state="stale"]`);
          expect((await agrees()).evidence['finalize']).toEqual([['unit', 'stale']]);
          await advanceBlocked('unit: stale');
          repo.write('src/app.js', 'console.log("app")\n');
          await page.reload();
          await page.waitForSelector(`${unit}[data-state="fresh-pass"]`);
          await inspectView(page, 'project-finalize');
          await advanceTo('FinalizeDelete');
          expect(errors).toEqual([]);
          console.log(`sow ui walk: screenshots in ${SHOTS}\n${timings.join('\n')}`);
        } finally {
          for (const id of ['010', '020']) writeFileSync(mark(`go-${id}`), '');
          await browser.close();
          repo.cleanup();
          world.cleanup();
        }
      },
    );
  },
);
