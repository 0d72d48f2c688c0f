/**
 * `sow ui`, end to end: the built sow serving a repository, asked as a browser and as an attacker
 * would ask it. Security: no token, a wrong token, a foreign Host or Origin, a POST without the
 * token header or without JSON, and path traversal in every route are all refused, the state
 * unchanged. With Chromium (the Debian package, driven by playwright-core), a person's walk of a
 * whole project to FinalizeDelete: outputs and tasks approved and the project advanced from the
 * page (each guard shown while it blocks), a worker's events appearing live, the worker stopped,
 * feedback added, the checks' evidence fresh then stale; what the page shows (state, the graph's
 * current state and guards, the board, the evidence) compared with the commands' --json at each
 * step. Screenshots go to test-artifacts/ui/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, SOW, TASK_LIST, TEST_ENV, toExecuting } from './harness.js';
import { cleanEnv, makeWorld, runSow, show } from './agent-world.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const SHOTS = fileURLToPath(new URL('../../test-artifacts/ui/', import.meta.url));

const servers: ChildProcess[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.kill('SIGINT');
});

/** Starts `sow ui --json --no-open` in `dir`; resolves with its url, token and port once it serves. */
async function serve(dir: string, env: NodeJS.ProcessEnv = { ...process.env, ...TEST_ENV }) {
  const child = spawn(process.execPath, [SOW, 'ui', '--json', '--no-open'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const first = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`sow ui exited ${code}: ${err}`)));
  });
  const { url, token, port } = JSON.parse(first).data as { url: string; token: string; port: number };
  return { url, token, port, base: `http://127.0.0.1:${port}`, child };
}

/** A raw request, with exactly the headers given (fetch would add an Origin of its own on POST). */
function request(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    import('node:http').then(({ request: req }) => {
      const r = req({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...opts.headers } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      r.on('error', reject);
      r.end(opts.body);
    }, reject);
  });
}

describe('sow ui: safe by default', () => {
  it('refuses, with 403 and nothing else, every request without this server’s token, Host and Origin; traversal goes nowhere; the state is unchanged', async () => {
    const repo = makeRepo();
    try {
      repo.sow(['project', 'new', 'p', '--description', 'd', '--no-planning']);
      repo.sow(['task', 'add', 'First']);
      const s = await serve(repo.dir);
      expect(s.url).toBe(`http://127.0.0.1:${s.port}/?token=${s.token}`);
      expect(s.token).toMatch(/^[0-9a-f]{64}$/);
      const before = repo.snapshot();
      const t = s.token;
      const action = JSON.stringify({ action: 'approve_tasks' });
      const refused: [string, Parameters<typeof request>[2]][] = [
        ['/', {}],
        ['/?token=', {}],
        [`/?token=${'0'.repeat(64)}`, {}],
        [`/?token=${t.slice(0, 63)}`, {}],
        [`/?token=${t}`, { headers: { host: `evil.example:${s.port}` } }],
        [`/?token=${t}`, { headers: { host: `127.0.0.1:${s.port + 1}` } }],
        [`/?token=${t}`, { headers: { origin: 'http://evil.example' } }],
        [`/api/view?name=project&token=${t}`, { headers: { origin: `http://127.0.0.1:${s.port + 1}` } }],
        [`/api/changes`, {}],
        [`/api/action?token=${t}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: action }],
        [`/api/action`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-sow-token': 'nope' }, body: action }],
        [`/api/action`, { method: 'POST', headers: { 'content-type': 'text/plain', 'x-sow-token': t }, body: action }],
        [`/api/action`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-sow-token': t, origin: 'http://evil.example' }, body: action }],
        ['/../../../etc/passwd', {}],
      ];
      for (const [path, opts] of refused) {
        const r = await request(s.port, path, opts);
        expect([path, opts?.headers, r.status, r.body]).toEqual([path, opts?.headers, 403, '']);
      }
      // With the token: traversal in each route reaches no file.
      for (const path of [`/../../../etc/passwd?token=${t}`, `/%2e%2e/%2e%2e/etc/passwd?token=${t}`, `/api/../../etc/passwd?token=${t}`, `/api/view?name=../../etc/passwd&token=${t}`]) {
        const r = await request(s.port, path);
        expect([path, r.status]).toEqual([path, 404]);
        expect(r.body).not.toMatch(/root:/);
      }
      const outside = await request(s.port, `/api/view?name=project&checkout=${encodeURIComponent('../../..')}&token=${t}`);
      expect(JSON.parse(outside.body)).toMatchObject({ ok: false, error: { code: 'NO_SUCH_CHECKOUT' } });
      const task = await request(s.port, `/api/view?name=task&id=${encodeURIComponent('../../../etc/passwd')}&token=${t}`);
      expect(task.body).not.toMatch(/root:/);
      expect(JSON.parse(task.body).data['task get']).toMatchObject({ ok: false });
      expect(repo.snapshot()).toEqual(before);
      // And the right request does what the command does.
      const ok = await request(s.port, '/api/action', { method: 'POST', headers: { 'content-type': 'application/json', 'x-sow-token': t, origin: s.base }, body: action });
      expect(JSON.parse(ok.body)).toMatchObject({ ok: true });
    } finally {
      repo.cleanup();
    }
  });

  it('an action or view named after anything of Object.prototype is refused (400, 404) and runs nothing: not `check allow`, not `project delete`', async () => {
    const repo = makeRepo();
    const state = mkdtempSync(join(tmpdir(), 'sow-ui-state-'));
    try {
      repo.sow(['project', 'new', 'p', '--description', 'd', '--no-planning']);
      repo.sow(['task', 'add', 'First']);
      const marker = join(state, 'ran');
      repo.write('.sow/config.yaml', `checks:\n  - name: pwn\n    run: ${JSON.stringify(`touch ${marker}`)}\n`);
      const s = await serve(repo.dir, { ...process.env, ...TEST_ENV, XDG_STATE_HOME: state });
      const before = repo.snapshot();
      const post = (body: unknown) => request(s.port, '/api/action', { method: 'POST', headers: { 'content-type': 'application/json', 'x-sow-token': s.token }, body: JSON.stringify(body) });
      // What each name would have been made to run through the prototype chain (`Object(body)` is the body itself).
      const payloads = [
        { name: 'check allow', args: [], opts: { yes: true } },
        { name: 'check run', args: [], opts: {} },
        { name: 'project delete', args: [], opts: { yes: true, force: true } },
      ];
      const names = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'];
      expect(names).toContain('constructor');
      for (const name of names) {
        for (const payload of payloads) {
          // JSON.parse makes `__proto__` an own key, as a hostile page would send it.
          const r = await request(s.port, '/api/action', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-sow-token': s.token },
            body: `{"action":${JSON.stringify(name)},"name":${JSON.stringify(payload.name)},"args":[],"opts":${JSON.stringify(payload.opts)}}`,
          });
          expect([name, payload.name, r.status]).toEqual([name, payload.name, 400]);
          expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { code: 'UI_NO_SUCH_ACTION' } });
        }
        const v = await request(s.port, `/api/view?name=${encodeURIComponent(name)}&token=${s.token}`);
        expect([name, v.status]).toEqual([name, 404]);
        expect(JSON.parse(v.body)).toMatchObject({ ok: false, error: { code: 'NO_SUCH_VIEW' } });
      }
      // A known action with values of the wrong shape: 400, nothing run.
      for (const body of [
        { action: 'approve_output', index: '0; rm -rf /' },
        { action: 'approve_output', index: -1 },
        { action: 'approve_output', index: 1.5 },
        { action: 'approve_output', index: [0] },
        { action: 'approve_output' },
        { action: 'stop', task: '../../etc/passwd' },
        { action: 'stop', task: 10 },
        { action: 'feedback', task: '010', text: { toString: 'x' } },
        { action: 'feedback', task: '010', text: 'x'.repeat(20_000) },
        { action: 'resume', task: '010', prompt: ['--yolo'] },
        { action: 'advance', name: 'project delete', opts: { yes: true } },
        { action: 'approve_tasks', checkout: 7 },
        [{ action: 'advance' }],
        'advance',
        null,
      ]) {
        const r = await post(body);
        expect([body, r.status]).toEqual([body, 400]);
        expect(JSON.parse(r.body), JSON.stringify(body)).toMatchObject({ ok: false, error: { code: 'UI_BAD_ACTION' } });
      }
      expect(repo.snapshot()).toEqual(before);
      expect(existsSync(marker), 'no check ran').toBe(false);
      expect(existsSync(join(state, 'sow')), 'no check was allowed').toBe(false);
      // The actions the page sends still work.
      expect(JSON.parse((await post({ action: 'feedback', task: '010', text: 'more tests' })).body)).toMatchObject({ ok: true });
      expect(JSON.parse((await post({ action: 'approve_tasks', checkout: '.' })).body)).toMatchObject({ ok: true });
    } finally {
      rmSync(state, { recursive: true, force: true });
      repo.cleanup();
    }
  });

  it('a request body over 64 KiB gets 413 with a JSON error, at once, never kept whole; the server goes on answering', async () => {
    const repo = makeRepo();
    try {
      repo.sow(['project', 'new', 'p', '--description', 'd', '--no-planning']);
      repo.sow(['task', 'add', 'First']);
      const s = await serve(repo.dir);
      const before = repo.snapshot();
      /** POSTs 64 MiB of 'a' (a 1 MiB buffer written again and again), chunked or with its length declared; the answer once it comes. */
      const flood = (declared: boolean) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const total = 64 * 1024 * 1024;
          const chunk = Buffer.alloc(1024 * 1024, 'a');
          import('node:http').then(({ request: req }) => {
            const r = req(
              {
                host: '127.0.0.1',
                port: s.port,
                path: '/api/action',
                method: 'POST',
                headers: { host: `127.0.0.1:${s.port}`, 'content-type': 'application/json', 'x-sow-token': s.token, ...(declared ? { 'content-length': String(total) } : {}) },
              },
              (res) => {
                let body = '';
                res.on('data', (d) => (body += d));
                res.on('end', () => {
                  resolve({ status: res.statusCode ?? 0, body });
                  r.destroy();
                });
              },
            );
            r.on('error', reject);
            let sent = 0;
            const write = () => {
              while (sent < total && !r.destroyed) {
                sent += chunk.length;
                if (!r.write(chunk)) return void r.once('drain', write);
              }
              if (!r.destroyed) r.end();
            };
            write();
          }, reject);
        });
      for (const declared of [false, true]) {
        const r = await flood(declared);
        expect([declared, r.status]).toEqual([declared, 413]);
        expect(JSON.parse(r.body)).toEqual({ ok: false, error: { code: 'UI_BODY_TOO_LARGE', message: 'the body is larger than 64 KiB' } });
      }
      expect(repo.snapshot()).toEqual(before);
      const ok = await request(s.port, '/api/action', { method: 'POST', headers: { 'content-type': 'application/json', 'x-sow-token': s.token }, body: JSON.stringify({ action: 'approve_tasks' }) });
      expect(JSON.parse(ok.body)).toMatchObject({ ok: true });
    } finally {
      repo.cleanup();
    }
  });

  it('a view is the commands’ own --json data', async () => {
    const repo = makeRepo();
    try {
      repo.sow(['project', 'new', 'p', '--description', 'd', '--no-planning']);
      repo.sow(['task', 'add', 'First']);
      const s = await serve(repo.dir);
      const view = JSON.parse((await request(s.port, `/api/view?name=project&token=${s.token}`)).body).data;
      const cli = (args: string[]) => JSON.parse(repo.sow([...args, '--json']).stdout).data;
      expect(view['status'].data).toEqual(cli(['status']));
      expect(view['task list'].data).toEqual(cli(['task', 'list']));
      expect(view['project history'].data).toEqual(cli(['project', 'history']));
      expect(view['graph lifecycle'].data).toEqual(cli(['graph', 'lifecycle']));
      expect(view['check list'].data).toEqual(cli(['check', 'list']));
    } finally {
      repo.cleanup();
    }
  });

  it('the Stop action signals only what sow started: a worker the state names but sow never started is refused, and the process is still alive', async () => {
    const repo = makeRepo();
    // An unrelated process of the user's, leading a process group of its own, that the state names as the worker.
    const bystander = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
    bystander.unref();
    const pid = bystander.pid!;
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      toExecuting(repo, ['First task']);
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const owner = {
        kind: 'worker',
        by: 'implementer-7',
        pid,
        host: hostname(),
        boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
        pstart: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]),
        pidns: readlinkSync('/proc/self/ns/pid'),
        since: '2026-11-26T00:00:00.000Z',
      };
      const file = '.sow/project/phases/implementation/tasks/010/state.yaml';
      const yaml = Object.entries(owner).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`);
      repo.write(
        file,
        repo
          .read(file)
          .replace('metadata: {}', `metadata: {}\nowner:\n${yaml.join('\n')}`)
          .replace(/^status: \w+$/m, 'status: in_progress'),
      );
      const s = await serve(repo.dir);
      const before = repo.snapshot();
      const r = await request(s.port, '/api/action', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sow-token': s.token, origin: s.base },
        body: JSON.stringify({ action: 'stop', task: '010' }),
      });
      const body = JSON.parse(r.body);
      expect(body).toMatchObject({ ok: false, error: { code: 'NOT_SOWS_PROCESS' } });
      expect(body.error.message).toContain(`task 010 names implementer-7 (pid ${pid} on `);
      expect(alive(), 'the process the state named was not signalled').toBe(true);
      expect(repo.snapshot()).toEqual(before);
    } finally {
      if (alive()) process.kill(pid, 'SIGKILL');
      repo.cleanup();
    }
  });
});

describe.skipIf(!CHROMIUM)(`sow ui in a browser${CHROMIUM ? '' : ' (skipped: no Chromium at /usr/bin/chromium; apt-get install chromium)'}`, () => {
  const launch = async () => {
    const { chromium } = await import('playwright-core');
    return chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu'] });
  };

  it('a whole project walked to FinalizeDelete through the page: approve, advance (the guard shown), a worker’s events live, stopped, feedback; the page agrees with sow status --json throughout', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const repo = makeRepo();
    const world = makeWorld({ prefix: 'sow-ui-walk-' });
    const root = realpathSync(repo.dir);
    const go = join(world.root, 'go');
    const script = JSON.stringify([{ touch: join(world.root, 'started') }, { wait: go }, ['agent', 'report', '--status', 'needs_review', 'done']]);
    const env = { FAKE_AGENT_SCRIPT: script, SOW_ALLOW_CHECKS: '1' };
    const cli = (args: string[]) => {
      const r = runSow(root, world, [...args, '--json'], env);
      expect(r.code, `sow ${args.join(' ')}\n${show(r)}`).toBe(0);
      return r.json!.data;
    };
    const browser = await launch();
    try {
      cli(['project', 'new', 'walk', '--description', 'A walk through the page']);
      repo.write(TASK_LIST, '# Tasks\n\n- First\n- Second\n');
      cli(['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
      const s = await serve(root, cleanEnv({ ...world.env, ...env }));
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });

      /** What the page shows: the state, the graph's current state and its transitions (met or blocked), the board, and each phase's check evidence. */
      const shown = () =>
        page.evaluate(() => ({
          state: document.querySelector('#state')?.textContent,
          graph: document.querySelector('#lifecycle')?.getAttribute('data-current'),
          current: document.querySelector('#lifecycle .node.current')?.getAttribute('data-state'),
          next: [...document.querySelectorAll('#lifecycle .node.current li')].map((li) => [li.getAttribute('data-event'), li.getAttribute('data-to'), li.className]),
          board: [...document.querySelectorAll('#board .card')].map((c) => [c.getAttribute('data-task'), c.closest('.col')?.getAttribute('data-status'), c.getAttribute('data-owner')]).sort(),
          evidence: Object.fromEntries(
            [...document.querySelectorAll('#phases tr[data-phase]')].map((tr) => [
              tr.getAttribute('data-phase'),
              [...tr.querySelectorAll('[data-check]')].map((e) => [e.getAttribute('data-check'), e.getAttribute('data-state')]),
            ]),
          ),
        }));
      /** What sow's commands say, in the page's terms. */
      const said = () => {
        const st = cli(['status']);
        const checks = cli(['check', 'list']) as { name: string; evidence?: { phase: string; state: string }[] }[];
        return {
          state: st.state,
          graph: st.state,
          current: st.state,
          next: (st.next as { event: string; to: string; blocked: boolean }[]).map((n) => [n.event, n.to, n.blocked ? 'blocked' : 'met']),
          board: (cli(['task', 'list']) as { id: string; status: string; worker?: { by: string } }[]).map((t) => [t.id, t.status, t.worker?.by ?? '']).sort(),
          evidence: Object.fromEntries(
            (st.phases as { name: string }[]).map((p) => [p.name, checks.flatMap((c) => (c.evidence ?? []).filter((e) => e.phase === p.name).map((e) => [c.name, e.state]))]),
          ),
        };
      };
      /** The page and the commands agree (the page follows changes live: waited for, then compared). */
      const agrees = async () => {
        const want = said();
        await page
          .waitForFunction((w) => {
            const cur = document.querySelector('#lifecycle .node.current');
            const cards = [...document.querySelectorAll('#board .card')].map((c) => [c.getAttribute('data-task'), c.closest('.col')?.getAttribute('data-status'), c.getAttribute('data-owner')]).sort();
            return document.querySelector('#state')?.textContent === w.state && cur?.getAttribute('data-state') === w.state && JSON.stringify(cards) === JSON.stringify(w.board);
          }, want)
          .catch(() => undefined);
        expect(await shown()).toEqual(want);
        return want;
      };
      const advanceBlocked = async (guard: string) => {
        const before = repo.snapshot();
        // A file just changed redraws the page: a click that lands while it redraws reaches no
        // button (CI saw it once). A refused advance changes nothing, so it is clicked again.
        for (let attempt = 1; ; attempt++) {
          await page.click('#advance');
          const shown = await page
            .waitForFunction((g) => (document.querySelector('#error')?.textContent ?? '').includes(g), guard, { timeout: 10_000 })
            .then(
              () => true,
              () => false,
            );
          if (shown) break;
          if (attempt === 5) throw new Error(`the page never showed the guard '${guard}'; it shows: ${await page.textContent('#error')}`);
        }
        expect(repo.snapshot()).toEqual(before);
      };
      const advanceTo = async (state: string) => {
        await page.click('#advance');
        await page.waitForFunction((st) => document.querySelector('#state')?.textContent === st, state);
        expect((await agrees()).state).toBe(state);
        expect(await page.textContent('#error')).toBe('');
      };

      // All projects, as sow status --all says.
      await page.goto(s.url);
      await page.waitForSelector('#projects td.project-state');
      expect(await page.textContent('#projects td.project-state')).toBe(cli(['status', '--all'])[0].project.state);
      await page.screenshot({ path: join(SHOTS, 'projects.png') });

      // Planning: advancing is refused with its guard until the page approves the task list.
      await page.click('#projects a');
      await page.waitForSelector('#lifecycle svg path[data-edge]');
      await agrees();
      expect(await page.locator('#lifecycle li[data-edge]').count()).toBe(await page.locator('#lifecycle svg path[data-edge]').count());
      await advanceBlocked('a task_list output of planning is approved');
      expect(await page.textContent('#next')).toContain('a task_list output of planning is approved');
      await page.click('#outputs .approve');
      await page.waitForFunction(() => document.querySelector('#outputs')?.textContent?.includes('approved'));
      await advanceTo('ImplementationPlanning');

      // Tasks added in the terminal appear; approved and advanced from the page.
      cli(['task', 'add', 'First', '--agent', 'implementer']);
      cli(['task', 'add', 'Second', '--agent', 'implementer', '--depends-on', '010']);
      await agrees();
      await advanceBlocked('tasks_approved is true');
      await page.click('#approve-tasks');
      await advanceTo('ImplementationExecuting');

      // A worker on 010: its events appear live on the task's page, which stops it and adds feedback.
      cli(['agent', 'spawn', 'implementer', '010', '--detach']);
      await page.waitForSelector('#workers');
      await agrees();
      await page.screenshot({ path: join(SHOTS, 'project.png'), fullPage: true });
      await page.click('#board .card[data-task="010"] a');
      await page.waitForFunction(() => /session .* started/.test(document.querySelector('#events')?.textContent ?? ''));
      await page.waitForSelector('#stop');
      expect(await page.textContent('#description')).toContain('First');
      await page.screenshot({ path: join(SHOTS, 'task.png'), fullPage: true });
      await page.click('#stop');
      await page.waitForFunction(() => document.querySelector('#task-status')?.textContent === 'paused');
      expect(cli(['task', 'get', '--id', '010']).status).toBe('paused');
      await page.fill('#feedback-text', 'Say which task this is.');
      // A change while the person types redraws the page, and keeps what they typed.
      const drawn = Number(await page.getAttribute('body', 'data-drawn'));
      cli(['task', 'set', '--id', '010', 'metadata.note', 'typed over']);
      await page.waitForFunction((n) => Number(document.body.dataset.drawn) > n, drawn);
      expect(await page.inputValue('#feedback-text')).toBe('Say which task this is.');
      await page.click('#feedback');
      await page.waitForFunction(() => /feedback: .*feedback\/001\.md \(pending\)/.test(document.querySelector('#inputs')?.textContent ?? ''));
      expect(repo.read('.sow/project/phases/implementation/tasks/010/feedback/001.md')).toBe('Say which task this is.\n');
      // Cleared once the action has answered and the page is drawn again (a change may redraw it first).
      await page.waitForFunction(() => (document.querySelector('#feedback-text') as HTMLTextAreaElement | null)?.value === '');

      // The work itself, as a worker does it in the terminal: feedback addressed, both tasks completed.
      const feedback = (cli(['task', 'input', 'list', '--id', '010']) as { type: string; index: number }[]).find((a) => a.type === 'feedback')!;
      cli(['task', 'input', 'set', '--id', '010', '--index', String(feedback.index), 'metadata.status', 'addressed']);
      for (const id of ['010', '020']) {
        cli(['task', 'set', '--id', id, 'status', 'in_progress']);
        cli(['task', 'set', '--id', id, 'status', 'completed']);
      }
      await page.click('text=← the project');
      await agrees();
      await advanceTo('ReviewActive');

      // Review: the report recorded in the terminal, approved from the page.
      repo.write('.sow/project/review/report.md', '# Review\n\nPass.\n');
      cli(['output', 'add', '--type', 'review', '--path', 'review/report.md', '--assessment', 'pass']);
      await page.waitForSelector('#outputs .approve');
      await advanceBlocked("the latest approved review of this round has assessment 'pass'");
      await page.click('#outputs .approve');
      await page.waitForFunction(() => !document.querySelector('#outputs .approve'));
      await advanceTo('FinalizeDocumentation');
      await advanceTo('FinalizeChecks');

      // The checks: never run, then fresh, stale once the code changes, fresh again as it was.
      repo.write('src/app.js', 'console.log("app")\n');
      repo.write('.sow/config.yaml', 'checks:\n  - name: unit\n    run: grep -q app src/app.js\n    when: [finalize]\n');
      await advanceBlocked('unit: never run');
      cli(['check', 'run']);
      await page.waitForSelector('#phases tr[data-phase="finalize"] [data-check="unit"][data-state="fresh-pass"]');
      expect((await agrees()).evidence).toEqual({ planning: [], implementation: [], review: [], finalize: [['unit', 'fresh-pass']] });
      // Evidence is sow's record of a run: nobody approves it (sow refuses to change it by hand).
      expect(await page.textContent('#outputs')).toContain('recorded by sow check run');
      expect(await page.locator('#outputs .approve').count()).toBe(0);
      repo.write('src/app.js', 'console.log("changed")\n');
      await page.reload(); // a change of the code outside .sow/ is not a change sow's feed tells
      await page.waitForSelector('#phases tr[data-phase="finalize"] [data-check="unit"][data-state="stale"]');
      expect((await agrees()).evidence['finalize']).toEqual([['unit', 'stale']]);
      expect(await page.textContent('#lifecycle .node.current li.blocked')).toContain('unit: stale (the code changed since it passed)');
      await advanceBlocked('unit: stale');
      repo.write('src/app.js', 'console.log("app")\n');
      await page.reload();
      await page.waitForSelector('#phases tr[data-phase="finalize"] [data-check="unit"][data-state="fresh-pass"]');
      await page.screenshot({ path: join(SHOTS, 'project-finalize.png'), fullPage: true });
      await advanceTo('FinalizeDelete');
      expect(cli(['status']).next).toEqual([expect.objectContaining({ event: 'project_delete', to: 'NoProject', blocked: true })]);
    } finally {
      writeFileSync(go, '');
      await browser.close();
      repo.cleanup();
      world.cleanup();
    }
  });

  it('the board shows who holds each task: a claim here and its claim on the remote (claims.remote)', async () => {
    const repo = makeRepo();
    const remote = makeRepo();
    const browser = await launch();
    try {
      toExecuting(repo);
      remote.git(['init', '--bare', '-q', 'origin.git']);
      repo.git(['remote', 'add', 'origin', join(remote.dir, 'origin.git')]);
      repo.write('.sow/config.yaml', 'claims:\n  remote: origin\n');
      expect(repo.sow(['task', 'next', '--claim', '--owner', 'ann']).code).toBe(0);
      const s = await serve(repo.dir);
      const page = await browser.newPage();
      await page.goto(s.url + '#/p/.');
      await page.waitForSelector('#board .card[data-task="010"] .remote-claim');
      expect(await page.getAttribute('#board .card[data-task="010"]', 'data-owner')).toBe('ann');
      expect(await page.textContent('#board .card[data-task="010"] .owner')).toBe('claimed by ann (live)');
      expect(await page.textContent('#board .card[data-task="010"] .remote-claim')).toMatch(/^claimed on origin by ann on \S+$/);
      expect(await page.locator('#board .card[data-task="020"] .remote-claim').count()).toBe(0);
    } finally {
      await browser.close();
      repo.cleanup();
      remote.cleanup();
    }
  });
});
