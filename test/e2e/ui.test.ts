/**
 * `sow ui`, end to end: the built sow serving a repository, asked as a browser and as an attacker
 * would ask it. Security: no token, a wrong token, a foreign Host or Origin, a POST without the
 * token header or without JSON, and path traversal in every route are all refused, the state
 * unchanged. With Chromium (the Debian package, driven by playwright-core), a person's walk: the
 * project listed as `sow status` says, the tasks approved and the project advanced from the page,
 * a worker's events appearing live, the worker stopped. Screenshots go to test-artifacts/ui/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, SOW, TEST_ENV } from './harness.js';
import { agentFixtures, cleanEnv } from './agent-world.js';

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
    } finally {
      repo.cleanup();
    }
  });
});

const agents = agentFixtures({ tasks: ['First task'] });

describe.skipIf(!CHROMIUM)(`sow ui in a browser${CHROMIUM ? '' : ' (skipped: no Chromium at /usr/bin/chromium; apt-get install chromium)'}`, () => {
  const launch = async () => {
    const { chromium } = await import('playwright-core');
    return chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu'] });
  };

  it('a person’s walk: the project as sow status says; tasks approved and advanced from the page; a worker’s events live; the worker stopped', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const repo = makeRepo();
    const browser = await launch();
    try {
      repo.sow(['project', 'new', 'walk', '--description', 'A walk', '--no-planning']);
      repo.sow(['task', 'add', 'First']);
      const s = await serve(repo.dir);
      const page = await browser.newPage();
      await page.goto(s.url);
      await page.waitForSelector('#projects td.project-state');
      expect(await page.textContent('#projects td.project-state')).toBe(JSON.parse(repo.sow(['status', '--json']).stdout).data.state);
      await page.screenshot({ path: join(SHOTS, 'projects.png') });
      await page.click('#projects a');
      await page.waitForSelector('#state');
      expect(await page.textContent('#state')).toBe('ImplementationPlanning');
      await page.click('#approve-tasks');
      await page.click('#advance');
      await page.waitForFunction(() => document.querySelector('#state')?.textContent === 'ImplementationExecuting');
      expect(JSON.parse(repo.sow(['status', '--json']).stdout).data.state).toBe('ImplementationExecuting');
      // A change made in the terminal appears without a reload.
      repo.sow(['task', 'set', '--id', '010', 'status', 'in_progress']);
      await page.waitForSelector('.col[data-status="in_progress"] .card[data-task="010"]');
      await page.screenshot({ path: join(SHOTS, 'project.png'), fullPage: true });
    } finally {
      await browser.close();
      repo.cleanup();
    }
  });

  it('a worker’s events appear live on its task, and the page stops it', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const f = agents();
    const browser = await launch();
    try {
      const go = join(f.world.root, 'go');
      const script = JSON.stringify([{ touch: join(f.world.root, 'started') }, { wait: go }, ['agent', 'report', '--status', 'needs_review', 'done']]);
      const env = cleanEnv({ ...f.world.env, FAKE_AGENT_SCRIPT: script });
      const s = await serve(f.root, env);
      const page = await browser.newPage();
      await page.goto(`${s.url}#/t/./010`);
      await page.waitForSelector('#task-status');
      f.ok(['agent', 'spawn', 'implementer', '010', '--detach'], { FAKE_AGENT_SCRIPT: script });
      await page.waitForFunction(() => /session .* started/.test(document.querySelector('#events')?.textContent ?? ''));
      await page.waitForSelector('#stop');
      await page.screenshot({ path: join(SHOTS, 'task.png'), fullPage: true });
      await page.click('#stop');
      await page.waitForFunction(() => document.querySelector('#task-status')?.textContent === 'paused');
      expect(f.task().status).toBe('paused');
      // Feedback from the page: written and registered as sow task feedback does it.
      await page.fill('#feedback-text', 'Say which task this is.');
      await page.click('#feedback');
      await page.waitForFunction(() => /feedback: .*feedback\/001\.md \(pending\)/.test(document.querySelector('#inputs')?.textContent ?? ''));
      expect(f.repo.read('.sow/project/phases/implementation/tasks/010/feedback/001.md')).toBe('Say which task this is.\n');
      expect(await page.textContent('#description')).toContain('First task');
      writeFileSync(go, '');
    } finally {
      await browser.close();
    }
  });
});
