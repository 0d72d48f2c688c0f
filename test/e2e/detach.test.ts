/**
 * Workers in the background, end to end: `agent spawn --detach` returns once the session is
 * recorded, and the worker — under its supervisor, in its own session — outlives the command,
 * reports back through sow and is let go when it stops; `agent wait` waits for it (all, --any,
 * --timeout with exit 124). The fake claude's script waits on files the test creates, so what
 * runs at once is shown by files, never by a clock.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SOW } from './harness.js';
import { agentFixtures, cleanEnv, until } from './agent-world.js';

const base = agentFixtures({ tasks: ['First task', 'Second task', 'Third task'] });

/** A worker that says it started, waits for `go`, then reports `status` on its task. */
const script = (dir: string, name: string, status = 'needs_review') =>
  JSON.stringify([
    { touch: join(dir, `${name}.started`) },
    { wait: join(dir, 'go') },
    ['agent', 'report', '--status', status, `${name} done`],
  ]);

/** The processes of a process group, from /proc (Linux). */
const groupMembers = (pgid: number): number[] =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[2]) === pgid && fields[0] !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('agent spawn --detach', () => {
  it(
    'returns at once with the worker, its pid and its files; the worker outlives the command, reports, ' +
      'and is let go',
    async () => {
      const f = base();
      const dir = f.world.root;
      const r = f.ok(['agent', 'spawn', 'implementer', '010', '--detach', '--json'], {
        FAKE_AGENT_SCRIPT: script(dir, 'a'),
      });
      const started = r.json!.data;
      expect(started).toMatchObject({
        detached: true,
        agent: 'implementer',
        agent_id: 'implementer-1',
        task: '010',
        session_id: expect.any(String),
      });
      expect(started.log).toContain('/.git/sow/supervisors/');
      // The command has exited; its supervisor owns the task and the worker runs.
      expect(alive(started.pid)).toBe(true);
      await until(() => existsSync(join(dir, 'a.started')), 'the worker started');
      const owner = f.task().owner;
      expect(owner).toMatchObject({ kind: 'worker', by: 'implementer-1', pid: started.pid });
      expect(f.ok(['task', 'list']).stdout).toMatch(/^in_progress \(1\):\n010 /m);
      writeFileSync(join(dir, 'go'), '');
      const waited = f.ok(['agent', 'wait', '010', '--json']).json!.data;
      expect(waited).toMatchObject({
        stopped: [{ task: '010', status: 'needs_review', unreported: false }],
        running: [],
        timedOut: false,
      });
      expect(f.task().owner).toBeUndefined();
      // The supervisor did what a waiting spawn does: the ledger has the run.
      expect(f.repo.yaml('.sow/project/state.yaml').usage).toEqual([
        expect.objectContaining({ agent_id: 'implementer-1', task: '010', run: 'spawn' }),
      ]);
      await until(() => !alive(started.pid), 'the supervisor exited');
      expect(JSON.parse(readFileSync(join(started.log, '..', 'result.json'), 'utf8'))).toMatchObject({
        ok: true,
        data: { task: '010', status: 'needs_review' },
      });
      // The record that proved the supervisor the owner (for agent stop) went with it.
      expect(readdirSync(join(started.log, '..', '..', '..', 'owners'))).toEqual([]);
    },
  );

  it(
    "outlives its caller's whole process group killed (as an agent CLI ends its tool calls), and " +
      'finishes its work',
    async () => {
      const f = base();
      const dir = f.world.root;
      // The caller: a shell in a process group of its own that spawns the worker and then lingers, as a tool call
      // would.
      const caller = spawn(
        'sh',
        [
          '-c',
          `"${process.execPath}" "${SOW}" agent spawn implementer 010 --detach --json > ` +
            `"${join(dir, 'spawned.json')}"; touch "${join(dir, 'returned')}"; exec sleep 600`,
        ],
        {
          cwd: f.root,
          env: cleanEnv({ ...f.world.env, FAKE_AGENT_SCRIPT: script(dir, 'a') }),
          detached: true,
          stdio: 'ignore',
        },
      );
      await until(
        () => existsSync(join(dir, 'returned')) && existsSync(join(dir, 'a.started')),
        'the spawn returned and the worker started',
      );
      process.kill(-caller.pid!, 'SIGKILL');
      await until(() => groupMembers(caller.pid!).length === 0, "the caller's group is gone");
      const supervisor = JSON.parse(readFileSync(join(dir, 'spawned.json'), 'utf8')).data.pid as number;
      expect(alive(supervisor)).toBe(true);
      writeFileSync(join(dir, 'go'), '');
      expect(f.ok(['agent', 'wait', '010']).stdout).toBe('010  needs_review\n');
    },
  );

  it(
    'three parallel workers run at once: each has started before any is told to finish; wait returns when ' +
      'all stopped',
    async () => {
      const f = base();
      const dir = f.world.root;
      for (const [id, name] of [
        ['010', 'a'],
        ['020', 'b'],
        ['030', 'c'],
      ] as const) {
        f.ok(['agent', 'spawn', 'implementer', id, '--detach'], { FAKE_AGENT_SCRIPT: script(dir, name) });
      }
      await until(
        () => ['a', 'b', 'c'].every((n) => existsSync(join(dir, `${n}.started`))),
        'all three workers started before any finished',
      );
      const still = f.sow(['agent', 'wait', '--timeout', '1s']);
      expect(still.code).toBe(124);
      expect(still.stderr).toMatch(
        new RegExp(
          /^error: after 1 s 3 workers still run: 010 \(implementer-1, pid \d+\), 020 \(implementer-2, pid \d+\), /
            .source +
            /030 \(implementer-3, pid \d+\)\nhint: wait again: sow agent wait 010 020 030 --timeout 1s\n$/.source,
        ),
      );
      writeFileSync(join(dir, 'go'), '');
      const done = f.ok(['agent', 'wait']);
      expect(done.stdout).toBe('010  needs_review\n020  needs_review\n030  needs_review\n');
    },
  );

  it(
    '--any returns when the first has stopped, naming who still runs; a worker that exits without reporting ' +
      'is said so',
    async () => {
      const f = base();
      const dir = f.world.root;
      f.ok(['agent', 'spawn', 'implementer', '010', '--detach'], { FAKE_AGENT_SCRIPT: '[]' });
      f.ok(['agent', 'spawn', 'implementer', '020', '--detach'], { FAKE_AGENT_SCRIPT: script(dir, 'b') });
      const first = f.ok(['agent', 'wait', '010', '020', '--any']);
      expect(first.stdout).toMatch(
        /^010  in_progress: its worker exited without reporting\n020  still running \(implementer-2, pid \d+\)\n$/,
      );
      writeFileSync(join(dir, 'go'), '');
      expect(f.ok(['agent', 'wait', '020']).stdout).toBe('020  needs_review\n');
      expect(f.ok(['agent', 'wait']).stdout).toBe('No worker is running.\n');
    },
  );

  it(
    'agent stop ends the worker and its whole process group, pauses the task with a note, and counts the run; ' +
      'stopping again is refused',
    async () => {
      const f = base();
      const dir = f.world.root;
      const started = f.ok(['agent', 'spawn', 'implementer', '010', '--detach', '--json'], {
        FAKE_AGENT_SCRIPT: script(dir, 'a'),
        FAKE_AGENT_USAGE: JSON.stringify({ input: 10, output: 2, cost: 0.01 }),
      }).json!.data;
      await until(() => existsSync(join(dir, 'a.started')), 'the worker started');
      const pgid = started.pid as number;
      expect(groupMembers(pgid).length, 'the supervisor, the agent CLI and its sleep').toBeGreaterThanOrEqual(2);
      const r = f.ok(['agent', 'stop', '010']);
      expect(r.stdout).toMatch(
        new RegExp(
          /^Stopped implementer-1 \(pid \d+ and its process group\); task 010 is paused\.\n/.source +
            /Resume it with: sow agent resume 010 "<prompt>"\n$/.source,
        ),
      );
      expect(groupMembers(pgid)).toEqual([]);
      const t = f.task();
      expect(t.status).toBe('paused');
      expect(t.owner).toBeUndefined();
      // The supervisor passed the TERM on to its worker and settled the task itself: one note, from it.
      const log = f.repo.read('.sow/project/phases/implementation/tasks/010/log.md');
      expect(log).toMatch(
        /Stopped: SIGTERM reached sow \(pid \d+\) while its worker implementer-1 ran, and ended the worker\./,
      );
      expect(log.match(/Stopped/g)).toHaveLength(1);
      expect(f.repo.yaml('.sow/project/state.yaml').usage).toEqual([
        expect.objectContaining({ agent_id: 'implementer-1', task: '010', run: 'spawn' }),
      ]);
      const again = f.sow(['agent', 'stop', '010']);
      expect([again.code, again.stderr.split('\n')[0]]).toEqual([1, 'error: no worker runs on task 010']);
      // A reported stop is not reported again by a wait.
      expect(f.ok(['agent', 'wait']).stdout).toBe('No worker is running.\n');
    },
  );

  it(
    'agent stop ends a waiting spawn too: the record it wrote proves it; it leads no process group, so TERM reaches ' +
      'it alone, and it passes it on',
    async () => {
      const f = base();
      const dir = f.world.root;
      // Started as a script or an agent's tool call starts it: in its caller's process group (here, the test runner's).
      const child = spawn(process.execPath, [SOW, 'agent', 'spawn', 'implementer', '010', '--quiet'], {
        cwd: f.root,
        env: cleanEnv({ ...f.world.env, FAKE_AGENT_SCRIPT: script(dir, 'a') }),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
      await until(() => existsSync(join(dir, 'a.started')), 'the worker started');
      expect(f.task().owner).toMatchObject({ kind: 'worker', by: 'implementer-1', pid: child.pid });
      const r = f.ok(['agent', 'stop', '010']);
      expect(r.stdout).toBe(
        `Stopped implementer-1 (pid ${child.pid}); task 010 is paused.\nResume it with: sow agent resume 010 ` +
          `"<prompt>"\n`,
      );
      expect(await exited).toBe(143);
      expect(stderr).toContain('error: the worker on task 010 was stopped: sow received SIGTERM and passed it on');
      const t = f.task();
      expect([t.status, t.owner]).toEqual(['paused', undefined]);
      expect(
        f.world
          .calls()
          .map((c) => c.pid)
          .filter(alive),
        'its worker ended too',
      ).toEqual([]);
    },
  );

  it(
    'a supervisor sent TERM from elsewhere (a shutdown, a kill of its pid) ends its worker, pauses the task with a ' +
      'note and counts the run',
    async () => {
      const f = base();
      const dir = f.world.root;
      const started = f.ok(['agent', 'spawn', 'implementer', '010', '--detach', '--json'], {
        FAKE_AGENT_SCRIPT: script(dir, 'a'),
        FAKE_AGENT_USAGE: JSON.stringify({ input: 10, output: 2, cost: 0.01 }),
      }).json!.data;
      await until(() => existsSync(join(dir, 'a.started')), 'the worker started');
      const pgid = started.pid as number;
      process.kill(pgid, 'SIGTERM'); // the supervisor alone, not its group
      await until(() => groupMembers(pgid).length === 0, 'the supervisor and its worker are gone');
      const t = f.task();
      expect([t.status, t.owner]).toEqual(['paused', undefined]);
      expect(f.repo.read('.sow/project/phases/implementation/tasks/010/log.md')).toMatch(
        /Stopped: SIGTERM reached sow \(pid \d+\) while its worker implementer-1 ran/,
      );
      expect(f.repo.yaml('.sow/project/state.yaml').usage).toEqual([
        expect.objectContaining({ agent_id: 'implementer-1', task: '010', run: 'spawn' }),
      ]);
      expect(JSON.parse(readFileSync(join(started.log, '..', 'result.json'), 'utf8'))).toMatchObject({
        ok: false,
        error: { code: 'WORKER_STOPPED' },
      });
      expect(f.ok(['agent', 'wait', '010']).stdout).toBe('010  paused\n');
    },
  );

  it(
    'a waiting spawn interrupted (Ctrl-C) passes it on, pauses the task with a note and exits 130; the session is ' +
      'kept for a resume',
    async () => {
      const f = base();
      const dir = f.world.root;
      const child = spawn(process.execPath, [SOW, 'agent', 'spawn', 'implementer', '010', '--quiet'], {
        cwd: f.root,
        env: cleanEnv({ ...f.world.env, FAKE_AGENT_SCRIPT: script(dir, 'a') }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
      await until(() => existsSync(join(dir, 'a.started')), 'the worker started');
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain('error: the worker on task 010 was stopped: sow received SIGINT and passed it on');
      const t = f.task();
      expect([t.status, t.owner, typeof t.session_id]).toEqual(['paused', undefined, 'string']);
      expect(f.repo.read('.sow/project/phases/implementation/tasks/010/log.md')).toContain(
        'Stopped: SIGINT reached sow',
      );
      const workers = f.world.calls().map((c) => c.pid);
      expect(workers.filter(alive)).toEqual([]);
    },
  );

  it(
    'agent resume --detach continues the same session in the background; wait returns when it reports, and the ' +
      'ledger counts the resume',
    async () => {
      const f = base();
      const dir = f.world.root;
      const first = f.ok(['agent', 'spawn', 'implementer', '010', '--detach', '--json'], {
        FAKE_AGENT_SCRIPT: script(dir, 'a'),
      }).json!.data;
      writeFileSync(join(dir, 'go'), '');
      expect(f.ok(['agent', 'wait', '010']).stdout).toBe('010  needs_review\n');
      rmSync(join(dir, 'go'));
      // The wait reported the first run. Had it done so over a week ago, the next detached start
      // removes that run's folder (every agent ps and wait reads each one there is).
      const firstRun = dirname(first.log);
      const weekAgo = Date.now() / 1000 - 8 * 24 * 60 * 60;
      utimesSync(join(firstRun, 'waited'), weekAgo, weekAgo);
      const r = f.ok(['agent', 'resume', '010', '--detach', '--json', '--', '-x: a prompt with a dash'], {
        FAKE_AGENT_SCRIPT: script(dir, 'b'),
      });
      const resumed = r.json!.data;
      expect(existsSync(firstRun)).toBe(false);
      expect(existsSync(dirname(resumed.log))).toBe(true);
      expect(resumed).toMatchObject({
        detached: true,
        agent: 'implementer',
        agent_id: 'implementer-1',
        task: '010',
        session_id: first.session_id,
      });
      expect(resumed.pid).not.toBe(first.pid);
      await until(() => existsSync(join(dir, 'b.started')), 'the resumed worker started');
      const t = f.task();
      expect([t.status, t.iteration, t.owner?.pid]).toEqual(['in_progress', 2, resumed.pid]);
      const call = f.world.calls().at(-1)!;
      expect([call.resuming, call.session, call.prompt]).toEqual([true, first.session_id, '-x: a prompt with a dash']);
      const text = f.sow(['agent', 'resume', '010', 'again', '--detach']);
      expect([text.code, text.stderr.split('\n')[0]]).toEqual([
        1,
        expect.stringMatching(/^error: task 010 is being worked on by implementer-1/),
      ]);
      writeFileSync(join(dir, 'go'), '');
      expect(f.ok(['agent', 'wait']).stdout).toBe('010  needs_review\n');
      expect(f.repo.yaml('.sow/project/state.yaml').usage.map((e: { run: string }) => e.run)).toEqual([
        'spawn',
        'resume',
      ]);
    },
  );

  it(
    'agent ps: every worker running now, with its pid, what it did last and what it used so far; none once ' +
      'they stopped',
    async () => {
      const f = base();
      const dir = f.world.root;
      const a = f.ok(['agent', 'spawn', 'implementer', '010', '--detach', '--json'], {
        FAKE_AGENT_SCRIPT: script(dir, 'a'),
      }).json!.data;
      const b = f.ok(['agent', 'spawn', 'implementer', '020', '--detach', '--json'], {
        FAKE_AGENT_SCRIPT: script(dir, 'b'),
      }).json!.data;
      await until(
        () => existsSync(join(dir, 'a.started')) && existsSync(join(dir, 'b.started')),
        'both workers started',
      );
      const rows = f.ok(['agent', 'ps', '--json']).json!.data as any[];
      expect(rows).toEqual([
        expect.objectContaining({
          checkout: '.',
          task: '010',
          agent_id: 'implementer-1',
          role: 'implementer',
          executor: 'claude-code',
          pid: a.pid,
          detached: true,
          running_seconds: expect.any(Number),
        }),
        expect.objectContaining({ task: '020', agent_id: 'implementer-2', pid: b.pid, detached: true }),
      ]);
      const text = f.ok(['agent', 'ps']).stdout.split('\n');
      expect(text[0]).toMatch(/^task +worker +cli +pid +running +last +tokens +cost +doing$/);
      expect(text[1]).toMatch(new RegExp(`^010 +implementer-1 +claude-code +${a.pid} +\\d+s +`));
      writeFileSync(join(dir, 'go'), '');
      f.ok(['agent', 'wait']);
      expect(f.ok(['agent', 'ps']).stdout).toBe('No worker is running.\n');
      expect(f.ok(['agent', 'ps', '--all']).stdout).toBe('No worker is running in any checkout.\n');
    },
  );

  it(
    'a supervisor killed with its worker (SIGKILL to the group) leaves a task every view calls orphaned, with ' +
      'the way on',
    async () => {
      const f = base();
      const dir = f.world.root;
      const started = f.ok(['agent', 'spawn', 'implementer', '010', '--detach', '--json'], {
        FAKE_AGENT_SCRIPT: script(dir, 'a'),
      }).json!.data;
      await until(() => existsSync(join(dir, 'a.started')), 'the worker started');
      process.kill(-started.pid, 'SIGKILL');
      await until(() => groupMembers(started.pid).length === 0, 'the group is gone');
      const says =
        /Nobody works on task 010 any more: .*To go on, resume its session \('sow agent resume 010 "<prompt>"'\)/;
      const list = f.ok(['task', 'list']);
      expect(list.stdout).toMatch(/^in_progress \(1\):\n010 First task — nobody works on it$/m);
      expect(list.stdout + list.stderr).toMatch(says);
      expect(f.ok(['status']).stdout).toMatch(says);
      expect(f.ok(['project', 'continue']).stdout).toMatch(says);
      const ps = f.ok(['agent', 'ps']);
      expect(ps.stdout).toMatch(/^No worker is running\.\n! Nobody works on task 010 any more/);
      expect(f.ok(['agent', 'ps', '--json']).json!.data).toEqual([
        expect.objectContaining({ state: 'gone', task: '010', pid: started.pid, advice: expect.stringMatching(says) }),
      ]);
      // Waiting for it returns at once: it has stopped, without reporting.
      expect(f.ok(['agent', 'wait', '010']).stdout).toBe('010  in_progress: its worker exited without reporting\n');
    },
  );

  it(
    "agent events: the worker's messages, tool calls, usage and exit in one form; --follow prints them as they come " +
      'and ends when the worker stops',
    async () => {
      const f = base();
      const dir = f.world.root;
      f.ok(['agent', 'spawn', 'implementer', '010', '--detach'], {
        FAKE_AGENT_SCRIPT: script(dir, 'a'),
        FAKE_AGENT_USAGE: JSON.stringify({ input: 1200, output: 300, cost: 0.05 }),
      });
      await until(() => existsSync(join(dir, 'a.started')), 'the worker started');
      const follower = spawn(process.execPath, [SOW, 'agent', 'events', '010', '--follow'], {
        cwd: f.root,
        env: cleanEnv(f.world.env),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      follower.stdout!.on('data', (d) => (out += d));
      const ended = new Promise<number | null>((res) => follower.on('exit', (code) => res(code)));
      await until(() => /◦ session .* started/.test(out), 'the follower printed the start of the run');
      writeFileSync(join(dir, 'go'), '');
      expect(await ended).toBe(0);
      const lines = out.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d ◦ session [0-9a-f-]+ started/);
      expect(lines).toContainEqual(expect.stringMatching(/● Bash: sow agent report --status needs_review a done$/));
      expect(lines).toContainEqual(expect.stringMatching(/\$ 1200 in, 300 out, \$0.05$/));
      expect(lines.at(-1)).toMatch(/■ exited with code 0$/);
      // The same, at once and as data; the raw stream is the CLI's own.
      const json = f.ok(['agent', 'events', '010', '--json']).json!.data;
      expect(json.events.map((e: { kind: string }) => e.kind)).toEqual(
        expect.arrayContaining(['session', 'tool_call', 'usage', 'exit']),
      );
      expect(json.live).toBe(false);
      expect(JSON.parse(f.ok(['agent', 'events', '010', '--raw']).stdout.split('\n')[0]!)).toMatchObject({
        type: 'system',
        subtype: 'init',
      });
      const both = f.sow(['agent', 'events', '010', '--follow', '--json']);
      expect(both.code).toBe(2);
      expect(f.ok(['agent', 'events', '020']).stdout).toBe('No events of a worker on task 020 yet.\n');
    },
  );

  it("over MCP, agent_wait waits in slices: WAIT_TIMEOUT, with who still runs; then each task's status", async () => {
    const f = base();
    const dir = f.world.root;
    f.ok(['agent', 'spawn', 'implementer', '010', '--detach'], { FAKE_AGENT_SCRIPT: script(dir, 'a') });
    await until(() => existsSync(join(dir, 'a.started')), 'the worker started');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SOW, 'mcp'],
      cwd: f.root,
      env: cleanEnv(f.world.env) as Record<string, string>,
    });
    const client = new Client({ name: 'sow-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      // The time running out: the command line's refusal (exit 124 there), with who still runs.
      const slice = await client.callTool({ name: 'agent_wait', arguments: { task_id: ['010'], timeout: '1' } });
      expect(slice.isError).toBe(true);
      expect(JSON.parse((slice.content as { text: string }[])[0]!.text).error).toMatchObject({
        code: 'WAIT_TIMEOUT',
        details: { stopped: [], running: [{ task: '010', by: 'implementer-1' }] },
      });
      writeFileSync(join(dir, 'go'), '');
      const done = await client.callTool({ name: 'agent_wait', arguments: { task_id: ['010'] } });
      expect(done.structuredContent).toMatchObject({
        stopped: [{ task: '010', status: 'needs_review', unreported: false }],
        running: [],
        timedOut: false,
      });
    } finally {
      await client.close();
    }
  });

  it(
    'a supervisors folder that came with the repository is not followed out of it: links are skipped, nothing ' +
      'outside is written',
    () => {
      const f = base();
      const outside = join(f.world.root, 'outside');
      mkdirSync(outside);
      writeFileSync(join(outside, 'precious.txt'), 'keep me\n');
      writeFileSync(join(outside, 'ready.json'), JSON.stringify({ agent_id: 'implementer-9', pid: 1, task: '020' }));
      const runs = join(f.root, '.git/sow/supervisors');
      mkdirSync(join(runs, '2020-01-01-evil'), { recursive: true });
      writeFileSync(
        join(runs, '2020-01-01-evil/ready.json'),
        JSON.stringify({ agent_id: 'implementer-8', pid: 1, task: '010' }),
      );
      symlinkSync(join(outside, 'precious.txt'), join(runs, '2020-01-01-evil/waited'));
      symlinkSync(outside, join(runs, '2020-01-02-linked'));
      symlinkSync(join(outside, 'ready.json'), join(runs, '2020-01-01-evil/result.json'));
      // The evil run counts as reported already (its `waited` is there); the linked folder is no run at all.
      expect(f.ok(['agent', 'wait']).stdout).toBe('No worker is running.\n');
      expect(readFileSync(join(outside, 'precious.txt'), 'utf8')).toBe('keep me\n');
      expect(readdirSync(outside).sort()).toEqual(['precious.txt', 'ready.json']);
      // A ready file that is a link is not read.
      rmSync(join(runs, '2020-01-01-evil/waited'));
      rmSync(join(runs, '2020-01-01-evil/ready.json'));
      symlinkSync(join(outside, 'ready.json'), join(runs, '2020-01-01-evil/ready.json'));
      expect(f.ok(['agent', 'wait']).stdout).toBe('No worker is running.\n');
      expect(readdirSync(outside).sort()).toEqual(['precious.txt', 'ready.json']);
    },
  );

  it(
    'refusals come back with their own code and exit: before anything starts (no task), and from the supervisor (no ' +
      'agent CLI on PATH)',
    () => {
      const f = base();
      const before = f.repo.snapshot();
      const missing = f.sow(['agent', 'spawn', 'implementer', '990', '--detach']);
      expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([1, "error: no task with id '990'"]);
      expect(f.repo.snapshot()).toEqual(before);
      const none = base(undefined, { omit: ['claude'] });
      const gone = none.sow(['agent', 'spawn', 'implementer', '010', '--detach']);
      expect(gone.code).toBe(5);
      expect(gone.stderr).toMatch(/^error: .*claude.*\nhint: /);
      expect(none.task().session).toBeUndefined();
      const bad = f.sow(['agent', 'wait', '--timeout', 'soon']);
      expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([
        2,
        "error: invalid --timeout 'soon': expected a duration such as 90s, 5m or 1h",
      ]);
    },
  );
});

describe('a detached worker whose project branch was switched away while it ran', () => {
  /**
   * Starts a worker on 010 that waits for `go`, then tries to report; commits the project and checks out `away`
   * (made with `make`).
   */
  async function switchedAway(make: 'new' | 'main') {
    const f = base();
    const dir = f.world.root;
    const steps = [
      { touch: join(dir, 'a.started') },
      { wait: join(dir, 'go') },
      { try: ['task', 'set', 'status', 'needs_review'], out: join(dir, 'report.json') },
    ];
    const started = f.ok(['agent', 'spawn', 'implementer', '010', '--detach', '--json'], {
      FAKE_AGENT_SCRIPT: JSON.stringify(steps),
      FAKE_AGENT_USAGE: JSON.stringify({ input: 100, output: 10, cost: 0.5 }),
    }).json!.data;
    await until(() => existsSync(join(dir, 'a.started')), 'the worker started');
    const branch = f.repo.git(['branch', '--show-current']);
    f.repo.git(['add', '-A']);
    f.repo.git(['commit', '-qm', 'the project so far']);
    // 'new': a branch of its own with a copy of the project (its state names the project's branch); 'main': no sow
    // there.
    if (make === 'new') f.repo.git(['checkout', '-qb', 'copy']);
    else f.repo.git(['checkout', '-q', 'main']);
    const away = f.repo.snapshot();
    writeFileSync(join(dir, 'go'), '');
    await until(() => !alive(started.pid), 'the supervisor exited');
    return { f, dir, branch, started, away };
  }

  for (const make of ['main', 'new'] as const) {
    it(
      `${make === 'main' ? 'to a branch without sow' : 'to a branch with a copy of the project'}: nothing is ` +
        `written there; back on the project's branch the run is counted and the task says why it stopped`,
      async () => {
        const { f, branch, started, away } = await switchedAway(make);
        // Nothing was written on the branch checked out (not the ledger of a copy, not its task).
        expect(f.repo.snapshot()).toEqual(away);
        const result = JSON.parse(readFileSync(join(started.log, '..', 'result.json'), 'utf8'));
        expect(result).toMatchObject({
          ok: false,
          error: {
            code: 'RUN_NOT_RECORDED',
            message:
              `the worker implementer-1 on task 010 ended while '${make === 'main' ? 'main' : 'copy'}' was ` +
              `checked out, not the project's branch '${branch}'; its run is kept, and recorded when '${branch}' is ` +
              `checked out again`,
            hint: `run 'git checkout ${branch}'`,
          },
        });
        f.repo.git(['checkout', '-q', branch]);
        // The first command on the project's branch records it: a read too.
        const list = f.ok(['task', 'list']);
        expect(list.stdout).toMatch(/^paused \(1\):\n010 First task$/m);
        const t = f.task();
        expect([t.status, t.owner]).toEqual(['paused', undefined]);
        expect(f.repo.read('.sow/project/phases/implementation/tasks/010/log.md')).toContain(
          `Stopped unrecorded: its worker implementer-1 ended while '${make === 'main' ? 'main' : 'copy'}' was ` +
            `checked out, not this project's branch '${branch}', so sow could not record its end then (it is counted ` +
            `now). Resume it with 'sow agent resume 010 "<prompt>"'.`,
        );
        expect(f.repo.yaml('.sow/project/state.yaml').usage).toEqual([
          expect.objectContaining({
            agent_id: 'implementer-1',
            task: '010',
            run: 'spawn',
            input_tokens: 100,
            output_tokens: 10,
            cost_usd: 0.5,
          }),
        ]);
        // Once: the record is gone, and the next command finds nothing left to record.
        expect(readdirSync(join(f.root, '.git', 'sow', 'deferred-runs'))).toEqual([]);
        f.ok(['status']);
        expect(f.repo.yaml('.sow/project/state.yaml').usage).toHaveLength(1);
        expect(f.ok(['cost', '--json']).json!.data.total).toMatchObject({ runs: 1, cost_usd: 0.5 });
      },
    );
  }
});
