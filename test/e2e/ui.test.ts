/**
 * `sow ui`, end to end: the built sow serving a repository, asked as a browser and as an attacker
 * would ask it. Security: no token, a wrong token, a foreign Host or Origin, a POST without the
 * token header or without JSON, and path traversal in every route are all refused, the state
 * unchanged. With Chromium: who holds each task, on the board. The walk of a whole project through
 * the page is test/e2e/ui-walk.test.ts.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, TEST_ENV, toExecuting } from './harness.js';
import { CHROMIUM, launch, serve, servers } from './ui-browser.js';

afterEach(() => {
  for (const s of servers.splice(0)) s.kill('SIGINT');
});

/** A raw request, with exactly the headers given (fetch would add an Origin of its own on POST). */
function request(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    import('node:http').then(({ request: req }) => {
      const r = req(
        {
          host: '127.0.0.1',
          port,
          path,
          method: opts.method ?? 'GET',
          headers: { host: `127.0.0.1:${port}`, ...opts.headers },
        },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      r.on('error', reject);
      r.end(opts.body);
    }, reject);
  });
}

describe('sow ui: safe by default', () => {
  it(
    'refuses, with 403 and nothing else, every request without this server’s token, Host and Origin; traversal goes ' +
      'nowhere; the state is unchanged',
    async () => {
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
          [
            `/api/action`,
            { method: 'POST', headers: { 'content-type': 'application/json', 'x-sow-token': 'nope' }, body: action },
          ],
          [
            `/api/action`,
            { method: 'POST', headers: { 'content-type': 'text/plain', 'x-sow-token': t }, body: action },
          ],
          [
            `/api/action`,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-sow-token': t, origin: 'http://evil.example' },
              body: action,
            },
          ],
          ['/../../../etc/passwd', {}],
        ];
        for (const [path, opts] of refused) {
          const r = await request(s.port, path, opts);
          expect([path, opts?.headers, r.status, r.body]).toEqual([path, opts?.headers, 403, '']);
        }
        // With the token: traversal in each route reaches no file.
        for (const path of [
          `/../../../etc/passwd?token=${t}`,
          `/%2e%2e/%2e%2e/etc/passwd?token=${t}`,
          `/api/../../etc/passwd?token=${t}`,
          `/api/view?name=../../etc/passwd&token=${t}`,
        ]) {
          const r = await request(s.port, path);
          expect([path, r.status]).toEqual([path, 404]);
          expect(r.body).not.toMatch(/root:/);
        }
        const outside = await request(
          s.port,
          `/api/view?name=project&checkout=${encodeURIComponent('../../..')}&token=${t}`,
        );
        expect(JSON.parse(outside.body)).toMatchObject({ ok: false, error: { code: 'NO_SUCH_CHECKOUT' } });
        const task = await request(
          s.port,
          `/api/view?name=task&id=${encodeURIComponent('../../../etc/passwd')}&token=${t}`,
        );
        expect(task.body).not.toMatch(/root:/);
        expect(JSON.parse(task.body).data['task get']).toMatchObject({ ok: false });
        expect(repo.snapshot()).toEqual(before);
        // And the right request does what the command does.
        const ok = await request(s.port, '/api/action', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-sow-token': t, origin: s.base },
          body: action,
        });
        expect(JSON.parse(ok.body)).toMatchObject({ ok: true });
      } finally {
        repo.cleanup();
      }
    },
  );

  it(
    'an action or view named after anything of Object.prototype is refused (400, 404) and runs nothing: not `check ' +
      'allow`, not `project delete`',
    async () => {
      const repo = makeRepo();
      const state = mkdtempSync(join(tmpdir(), 'sow-ui-state-'));
      try {
        repo.sow(['project', 'new', 'p', '--description', 'd', '--no-planning']);
        repo.sow(['task', 'add', 'First']);
        const marker = join(state, 'ran');
        repo.write('.sow/config.yaml', `checks:\n  - name: pwn\n    run: ${JSON.stringify(`touch ${marker}`)}\n`);
        const s = await serve(repo.dir, { ...process.env, ...TEST_ENV, XDG_STATE_HOME: state });
        const before = repo.snapshot();
        const post = (body: unknown) =>
          request(s.port, '/api/action', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-sow-token': s.token },
            body: JSON.stringify(body),
          });
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
              body:
                `{"action":${JSON.stringify(name)},"name":${JSON.stringify(payload.name)},` +
                `"args":[],"opts":${JSON.stringify(payload.opts)}}`,
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
          expect(JSON.parse(r.body), JSON.stringify(body)).toMatchObject({
            ok: false,
            error: { code: 'UI_BAD_ACTION' },
          });
        }
        expect(repo.snapshot()).toEqual(before);
        expect(existsSync(marker), 'no check ran').toBe(false);
        expect(existsSync(join(state, 'sow')), 'no check was allowed').toBe(false);
        // The actions the page sends still work.
        expect(JSON.parse((await post({ action: 'feedback', task: '010', text: 'more tests' })).body)).toMatchObject({
          ok: true,
        });
        expect(JSON.parse((await post({ action: 'approve_tasks', checkout: '.' })).body)).toMatchObject({ ok: true });
      } finally {
        rmSync(state, { recursive: true, force: true });
        repo.cleanup();
      }
    },
  );

  it(
    'a request body over 64 KiB gets 413 with a JSON error, at once, never kept whole; the server goes ' +
      'on answering',
    async () => {
      const repo = makeRepo();
      try {
        repo.sow(['project', 'new', 'p', '--description', 'd', '--no-planning']);
        repo.sow(['task', 'add', 'First']);
        const s = await serve(repo.dir);
        const before = repo.snapshot();
        /**
         * POSTs 64 MiB of 'a' (a 1 MiB buffer written again and again), chunked or with its length declared; the
         * answer once it comes.
         */
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
                  headers: {
                    host: `127.0.0.1:${s.port}`,
                    'content-type': 'application/json',
                    'x-sow-token': s.token,
                    ...(declared ? { 'content-length': String(total) } : {}),
                  },
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
          expect(JSON.parse(r.body)).toEqual({
            ok: false,
            error: { code: 'UI_BODY_TOO_LARGE', message: 'the body is larger than 64 KiB' },
          });
        }
        expect(repo.snapshot()).toEqual(before);
        const ok = await request(s.port, '/api/action', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-sow-token': s.token },
          body: JSON.stringify({ action: 'approve_tasks' }),
        });
        expect(JSON.parse(ok.body)).toMatchObject({ ok: true });
      } finally {
        repo.cleanup();
      }
    },
  );

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

  it('a hand edit between two views shows in the next: a parse is kept only while its file is unchanged', async () => {
    const repo = makeRepo();
    try {
      repo.sow(['project', 'new', 'p', '--description', 'd', '--no-planning']);
      repo.sow(['task', 'add', 'First']);
      repo.sow(['task', 'add', 'Second']);
      // Whole seconds, so that the time put back after the edit below is the very same.
      const file = join(repo.dir, '.sow/project/phases/implementation/tasks/010/state.yaml');
      const t = new Date('2026-01-01T00:00:00Z');
      utimesSync(file, t, t);
      // Files younger than two seconds (by their change time) are never kept; wait until these have settled, so the
      // later views are ones that could answer from memory.
      await new Promise((r) => setTimeout(r, 2_500));
      const s = await serve(repo.dir);
      const names = async () => {
        const view = JSON.parse((await request(s.port, `/api/view?name=project&token=${s.token}`)).body).data;
        return (view['task board'].data.cards as { id: string; name: string }[]).map((c) => `${c.id} ${c.name}`);
      };
      expect(await names()).toEqual(['010 First', '020 Second']);
      expect(await names()).toEqual(['010 First', '020 Second']);
      // In place, the same size, the modification time put back: only the file's change time tells.
      const size = statSync(file).size;
      writeFileSync(file, readFileSync(file, 'utf8').replace('name: First', 'name: Fjrst'));
      utimesSync(file, t, t);
      expect(statSync(file)).toMatchObject({ size, mtimeMs: t.getTime() });
      expect(await names()).toEqual(['010 Fjrst', '020 Second']);
      const board = JSON.parse(repo.sow(['task', 'board', '--json']).stdout).data;
      expect(board.cards.map((c: { name: string }) => c.name)).toEqual(['Fjrst', 'Second']);
    } finally {
      repo.cleanup();
    }
  });

  it(
    'the Stop action signals only what sow started: a worker the state names but sow never started is refused, and ' +
      'the process is still alive',
    async () => {
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
    },
  );
});

describe.skipIf(!CHROMIUM)(
  `sow ui in a browser${CHROMIUM ? '' : ' (skipped: no Chromium at /usr/bin/chromium; apt-get install chromium)'}`,
  () => {
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
        expect(await page.textContent('#board .card[data-task="010"] .remote-claim')).toMatch(
          /^claimed on origin by ann on \S+$/,
        );
        expect(await page.locator('#board .card[data-task="020"] .remote-claim').count()).toBe(0);
      } finally {
        await browser.close();
        repo.cleanup();
        remote.cleanup();
      }
    });
  },
);
