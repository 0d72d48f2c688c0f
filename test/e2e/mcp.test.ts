/**
 * `sow mcp`: the built server, spawned in a temp repository and driven by the official SDK's
 * client over stdio, as an agent's host would. Each tool's result is compared with what the CLI
 * prints under `data` with --json for the same operation on the same repository; refusals with
 * the CLI's error envelope, and with the state left byte-identical. Raw stdio checks that stdout
 * carries only the protocol and that the server ends when its input does.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectEnvelope,
  inPlanning,
  ok,
  PROJECT,
  SOW,
  taskFile,
  TEST_ENV,
  toExecuting,
  useRepos,
  type Repo,
} from './harness.js';
import { stringify } from 'yaml';

const fresh = useRepos();

const TOOL_NAMES = [
  'advance',
  'agent_ps',
  'agent_wait',
  'artifact',
  'check',
  'continue',
  'cost',
  'log',
  'status',
  'task',
  'task_next',
  'task_update',
];

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
});

const testEnv = (extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  // A worker's or an owner's identity from the test's own environment must not leak in.
  for (const k of ['SOW_AGENT_ID', 'SOW_SESSION_ID', 'SOW_OWNER', 'SOW_TASK_ID']) delete env[k];
  return { ...env, ...TEST_ENV, ...extra };
};

/** The SDK client, connected to `sow mcp` started in the repository (or in `cwd`, with `args`). */
async function connect(
  repo: Repo,
  opts: { args?: string[]; cwd?: string; env?: Record<string, string> } = {},
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SOW, 'mcp', ...(opts.args ?? [])],
    cwd: opts.cwd ?? repo.dir,
    env: testEnv(opts.env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'sow-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

interface ToolOutcome {
  isError: boolean;
  json: any;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as { type: string; text: string }[];
  expect(content, `${name}: one text content`).toHaveLength(1);
  expect(content[0]!.type).toBe('text');
  return { isError: r.isError === true, json: JSON.parse(content[0]!.text) };
}

/** A call that must succeed: its data. */
async function data(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(client, name, args);
  expect(r.isError, `${name} ${JSON.stringify(args)} failed: ${JSON.stringify(r.json)}`).toBe(false);
  return r.json;
}

/** What the CLI prints under `data` with --json. */
function cliData(repo: Repo, args: string[], env?: Record<string, string>): any {
  const doc = expectEnvelope(ok(repo, [...args, '--json'], env ? { env } : undefined));
  expect(doc.ok).toBe(true);
  return doc.data;
}

/** The CLI's whole --json document for a refusal. */
function cliRefusal(repo: Repo, args: string[]): any {
  const r = repo.sow([...args, '--json']);
  expect(r.code, r.stdout + r.stderr).not.toBe(0);
  return expectEnvelope(r);
}

/** What changes from run to run in a check run: times, durations, log names. */
function steady(value: any): any {
  return JSON.parse(JSON.stringify(value), (key, v) =>
    (['started_at', 'created_at', 'updated_at', 'duration_ms', 'log', 'path'].includes(key) && typeof v === 'string') ||
    key === 'duration_ms'
      ? '<varies>'
      : v,
  );
}

/** Starts `sow mcp` by hand, to speak raw JSON-RPC lines to it and see its raw stdout and how it ends. */
function spawnServer(repo: Repo, args: string[] = [], cwd = repo.dir) {
  const child = spawn(process.execPath, [SOW, 'mcp', ...args], {
    cwd,
    env: testEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (d) => {
    stdout += d;
    for (const listener of [...listeners]) listener();
  });
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  /** Writes a message: an object as JSON, a string exactly as given (it may be anything); a newline after it. */
  const send = (message: object | string) =>
    child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  const lines = () => stdout.split('\n').filter(Boolean);
  /** The line answering the request whose id the client wrote as `id` (the text, exactly), once it comes. */
  const answer = (id: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const find = () => lines().find((l) => l.startsWith(`{"jsonrpc":"2.0","id":${id},`));
      const check = () => {
        const line = find();
        if (line === undefined) return;
        listeners.delete(check);
        clearTimeout(limit);
        resolve(line);
      };
      // Generous: only a server that never answers hits it.
      const limit = setTimeout(() => {
        listeners.delete(check);
        reject(
          new Error(
            `no answer for id ${id}; stdout so far:\n${lines()
              .map((l) => l.slice(0, 300))
              .join('\n')}\nstderr:\n${stderr}`,
          ),
        );
      }, 180_000);
      listeners.add(check);
      check();
    });
  return { child, send, exited, answer, lines, out: () => stdout, err: () => stderr };
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

describe('sow mcp: the tools', () => {
  it(
    'lists exactly the tools of the registry, ' + 'each with a short description and every argument described',
    async () => {
      const repo = fresh();
      const { client } = await connect(repo);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
      for (const tool of tools) {
        expect(tool.description, tool.name).toMatch(/\S/);
        expect(tool.description!.length, `${tool.name}: descriptions cost every user context`).toBeLessThanOrEqual(200);
        const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
        for (const [name, schema] of Object.entries(properties))
          expect(schema.description, `${tool.name}.${name}`).toMatch(/\S/);
        // Nothing that says nothing: no `type` beside an enum of strings, no `propertyNames` that are strings.
        expect(JSON.stringify(tool.inputSchema), tool.name).not.toMatch(
          /"propertyNames"|"type":"string","enum"|"enum":\[[^\]]*\],"type":"string"/,
        );
      }
      // The enums and the maps are still there, and the server still refuses what they do not allow.
      const artifact = tools.find((t) => t.name === 'artifact')!.inputSchema.properties as Record<
        string,
        Record<string, unknown>
      >;
      expect(artifact['action']).toMatchObject({ enum: expect.arrayContaining(['input add', 'output list']) });
      expect(artifact['metadata']).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
      const wrong = await call(client, 'artifact', { action: 'sideways list' });
      expect(wrong.isError).toBe(true);
      expect(client.getServerVersion()).toMatchObject({ name: 'sow', version: cliData(repo, ['--version']).version });
    },
  );

  it(
    'task: an agent on MCP alone can plan — list, get and add tasks, as sow task list / get / add; a mistake is ' +
      'refused with the way on',
    async () => {
      const repo = fresh();
      toExecuting(repo);
      const { client } = await connect(repo);
      const call = (args: Record<string, unknown>) => client.callTool({ name: 'task', arguments: args });
      const added = await call({
        action: 'add',
        name: 'Write the docs',
        description: 'The README section',
        parallel: true,
        depends_on: '010',
      });
      expect(added.isError).toBeFalsy();
      expect(added.structuredContent).toMatchObject({
        id: '030',
        name: 'Write the docs',
        parallel: true,
        dependencies: ['010'],
      });
      expect(repo.read('.sow/project/phases/implementation/tasks/030/description.md')).toContain('The README section');
      const list = await call({ action: 'list' });
      expect((list.structuredContent as { tasks: unknown[] }).tasks).toEqual(cliData(repo, ['task', 'list']));
      expect((await call({ action: 'list', status: 'pending' })).structuredContent).toEqual({
        tasks: cliData(repo, ['task', 'list', '--status', 'pending']),
      });
      expect((await call({ action: 'get', id: '30' })).structuredContent).toEqual(
        cliData(repo, ['task', 'get', '--id', '030']),
      );
      const before = repo.snapshot();
      for (const [args, code] of [
        [{ action: 'add' }, 'USAGE'],
        [{ action: 'get', id: '999' }, 'TASK_NOT_FOUND'],
        [{ action: 'list', status: 'done' }, 'USAGE'],
        [{ action: 'list', name: 'x' }, 'USAGE'],
        [{ action: 'add', name: 'y', depends_on: '999' }, undefined],
      ] as const) {
        const r = await call(args);
        expect(r.isError, JSON.stringify(args)).toBe(true);
        const error = JSON.parse((r.content as { text: string }[])[0]!.text).error;
        if (code) expect(error.code, JSON.stringify(args)).toBe(code);
        expect(error.hint, JSON.stringify(args)).toMatch(/\S/);
      }
      expect(repo.snapshot()).toEqual(before);
    },
  );

  it('status and continue: the data of sow project status / continue --json', async () => {
    const repo = fresh();
    toExecuting(repo);
    const { client } = await connect(repo);
    expect(await data(client, 'status')).toEqual(cliData(repo, ['project', 'status']));
    expect(await data(client, 'continue')).toEqual(cliData(repo, ['project', 'continue']));
    expect(await data(client, 'continue', { full: true })).toEqual(cliData(repo, ['project', 'continue', '--full']));
    // The state changes under the server: it reads the files every call, like the CLI.
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    const status = await data(client, 'status');
    expect(status.tasks.by_status).toEqual({ in_progress: 1, pending: 1 });
    expect(status).toEqual(cliData(repo, ['project', 'status']));
  });

  it('continue without a project, and status outside a sow repository: as the CLI', async () => {
    const repo = fresh();
    const { client } = await connect(repo);
    expect(await data(client, 'continue')).toEqual(cliData(repo, ['project', 'continue']));
    const bare = fresh({ init: false });
    const { client: other } = await connect(bare);
    const refused = await call(other, 'status');
    expect(refused.isError).toBe(true);
    expect(refused.json).toEqual(cliRefusal(bare, ['project', 'status']));
    expect(refused.json.error.code).toBe('NOT_INITIALIZED');
  });

  it('cost and agent_ps: the data of sow cost / sow agent ps', async () => {
    const repo = fresh();
    toExecuting(repo);
    const project = repo.yaml(PROJECT);
    // A ledger as workers leave it: two runs on 010, one of the project's own.
    project.usage = [
      {
        at: '2026-11-26T10:00:00.000Z',
        agent_id: 'implementer-1',
        agent: 'implementer',
        executor: 'claude-code',
        task: '010',
        run: 'spawn',
        input_tokens: 100,
        output_tokens: 10,
        cost_usd: 0.5,
      },
      {
        at: '2026-11-26T10:05:00.000Z',
        agent_id: 'implementer-1',
        agent: 'implementer',
        executor: 'claude-code',
        task: '010',
        run: 'resume',
        input_tokens: 50,
        output_tokens: 5,
        cost_usd: 0.25,
      },
      { at: '2026-11-26T10:06:00.000Z', agent_id: 'planner-1', agent: 'planner', executor: 'codex', run: 'spawn' },
    ];
    repo.write(PROJECT, stringify(project));
    const { client } = await connect(repo);
    const byTask = await data(client, 'cost');
    expect(byTask).toEqual(cliData(repo, ['cost']));
    expect(byTask.total).toEqual({ runs: 3, unreported: 1, input_tokens: 150, output_tokens: 15, cost_usd: 0.75 });
    expect(await data(client, 'cost', { by: 'role' })).toEqual(cliData(repo, ['cost', '--by', 'role']));
    expect(await data(client, 'agent_ps')).toEqual(cliData(repo, ['agent', 'ps']));
    const bad = await call(client, 'cost', { by: 'tasks' });
    expect(bad.isError).toBe(true);
  });

  it('task_next lists the first 10 ready tasks (task next --limit 10); the command line, all', async () => {
    const repo = fresh();
    toExecuting(
      repo,
      Array.from({ length: 12 }, (_, i) => `Task ${i + 1}`),
    );
    const { client } = await connect(repo);
    const listed = await data(client, 'task_next');
    expect(listed).toEqual(cliData(repo, ['task', 'next', '--limit', '10']));
    expect(listed.map((t: { id: string }) => t.id)).toEqual([
      '010',
      '020',
      '030',
      '040',
      '050',
      '060',
      '070',
      '080',
      '090',
      '100',
    ]);
    expect(cliData(repo, ['task', 'next'])).toHaveLength(12);
  });

  it('task_next and task_update: the data of sow task next / task set', async () => {
    const repo = fresh();
    toExecuting(repo, ['First task', 'Second task', 'Third task']);
    const { client } = await connect(repo);
    expect(await data(client, 'task_next')).toEqual(cliData(repo, ['task', 'next']));

    const claimed = await data(client, 'task_next', { claim: true, owner: 'ada', agent: 'implementer', lease: '2h' });
    expect(claimed).toMatchObject({
      id: '010',
      task: { id: '010', status: 'in_progress' },
      owner: { kind: 'claim', by: 'ada', lease_seconds: 7200 },
    });
    // What the CLI says the task now is, and how it answers the next claim: the same shape.
    expect(claimed.task).toEqual(cliData(repo, ['task', 'get', '--id', '010']));
    const cliClaim = cliData(repo, [
      'task',
      'next',
      '--claim',
      '--owner',
      'bob',
      '--agent',
      'implementer',
      '--lease',
      '2h',
    ]);
    expect(Object.keys(cliClaim)).toEqual(Object.keys(claimed));
    expect(cliClaim.id).toBe('020');
    // remote goes with claim, and names a remote of the repository (this one has none): refused, nothing claimed.
    expect((await call(client, 'task_next', { remote: 'origin' })).isError).toBe(true);
    const noRemote = await call(client, 'task_next', { claim: true, owner: 'cy', remote: 'origin' });
    expect(noRemote).toMatchObject({ isError: true, json: { error: { code: 'REMOTE_NOT_FOUND' } } });
    expect(repo.yaml(taskFile('030')).status).toBe('pending');

    const renamed = await data(client, 'task_update', { id: '30', field: 'name', value: 'Third, renamed' });
    expect(renamed).toEqual({ id: '030', field: 'name', value: 'Third, renamed' });
    expect(renamed).toEqual(cliData(repo, ['task', 'set', '--id', '030', 'name', 'Third, renamed']));
    expect(await data(client, 'task_update', { id: '030', field: 'iteration', value: 2 })).toEqual(
      cliData(repo, ['task', 'set', '--id', '030', 'iteration', '2']),
    );
    expect(await data(client, 'task_update', { id: '030', field: 'note', value: 'see the RFC' })).toEqual({
      id: '030',
      field: 'metadata.note',
      value: 'see the RFC',
    });
    expect(repo.yaml(taskFile('030'))).toMatchObject({
      name: 'Third, renamed',
      iteration: 2,
      metadata: { note: 'see the RFC' },
    });

    // Completing: the path with the task_complete checks, its data with what they did.
    repo.write('.sow/config.yaml', 'checks:\n  - name: unit\n    run: "true"\n    when: [task_complete]\n');
    ok(repo, ['check', 'allow', '--yes']);
    const completed = await data(client, 'task_update', {
      id: '010',
      field: 'status',
      value: 'completed',
      owner: 'ada',
    });
    expect(completed).toMatchObject({
      id: '010',
      field: 'status',
      value: 'completed',
      checks: [{ name: 'unit', passed: true, exit_code: 0 }],
    });
    const cliCompleted = cliData(repo, ['task', 'set', '--id', '020', 'status', 'completed', '--owner', 'bob']);
    expect(steady(cliCompleted)).toEqual(steady({ ...completed, id: '020' }));
    expect(repo.yaml(taskFile('010')).outputs).toEqual([
      expect.objectContaining({ type: 'evidence', metadata: expect.objectContaining({ check: 'unit', exit_code: 0 }) }),
    ]);
  });

  it('artifact: add, set and list phase and task artifacts as sow input/output and task input/output do', async () => {
    const repo = inPlanning(fresh);
    const { client } = await connect(repo);
    repo.write('.sow/project/planning/tasks.md', '# Tasks\n');
    const added = await data(client, 'artifact', {
      action: 'output add',
      type: 'task_list',
      path: 'planning/tasks.md',
    });
    expect(added).toMatchObject({
      index: 0,
      artifact: { type: 'task_list', path: 'planning/tasks.md', approved: false },
    });
    const listed = await data(client, 'artifact', { action: 'output list' });
    expect(listed).toEqual(cliData(repo, ['output', 'list']));
    expect(listed).toEqual([{ index: 0, ...added.artifact }]);

    const approved = await data(client, 'artifact', {
      action: 'output set',
      index: 0,
      field: 'approved',
      value: true,
    });
    expect(approved.artifact.approved).toBe(true);
    expect(approved).toEqual(cliData(repo, ['output', 'set', '--index', '0', 'approved', 'true']));

    // Metadata as the command line's extra flags; an input with a phase named.
    repo.write('.sow/project/discovery/notes.md', 'notes\n');
    const input = await data(client, 'artifact', {
      action: 'input add',
      phase: 'planning',
      type: 'context',
      path: 'discovery/notes.md',
      approved: true,
      metadata: { source: 'human', pages: 3 },
    });
    expect(input.artifact).toMatchObject({ type: 'context', approved: true, metadata: { source: 'human', pages: 3 } });
    expect(await data(client, 'artifact', { action: 'input list', phase: 'planning' })).toEqual(
      cliData(repo, ['input', 'list', '--phase', 'planning']),
    );

    // A task's artifacts.
    ok(repo, ['advance']);
    ok(repo, ['task', 'add', 'Only task']);
    repo.write('src/a.ts', 'export {}\n');
    const out = await data(client, 'artifact', {
      action: 'output add',
      id: '10',
      type: 'modified',
      path: 'src/a.ts',
    });
    expect(out).toMatchObject({ index: 0, artifact: { type: 'modified', path: 'src/a.ts' } });
    expect(await data(client, 'artifact', { action: 'output list', id: '010' })).toEqual(
      cliData(repo, ['task', 'output', 'list', '--id', '010']),
    );
  });

  it('artifact: arguments that do not fit the action are refused as usage errors, changing nothing', async () => {
    const repo = inPlanning(fresh);
    const { client } = await connect(repo);
    const before = repo.snapshot();
    for (const [args, says] of [
      [{ action: 'output add', type: 'task_list' }, 'artifact output add needs path'],
      [{ action: 'output list', index: 0 }, 'artifact output list does not take index'],
      [{ action: 'output list', id: '010', phase: 'planning' }, 'artifact output list does not take id'],
      [{ action: 'output remove' }, "invalid arguments for artifact: 'action'"],
    ] as const) {
      const r = await call(client, 'artifact', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.json).toMatchObject({
        ok: false,
        error: { code: 'USAGE', message: expect.stringContaining(says), hint: expect.stringMatching(/\S/) },
      });
    }
    expect(repo.snapshot()).toEqual(before);
  });

  it('advance: dry_run and the real thing, as sow advance --dry-run / advance', async () => {
    const repo = inPlanning(fresh);
    repo.write('.sow/project/planning/tasks.md', '# Tasks\n');
    ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true']);
    const { client } = await connect(repo);
    const before = repo.read(PROJECT);
    const dry = await data(client, 'advance', { dry_run: true });
    expect(dry).toEqual({
      from: 'PlanningActive',
      to: 'ImplementationPlanning',
      event: 'complete_planning',
      dryRun: true,
      projectRemoved: false,
    });
    expect(dry).toEqual(cliData(repo, ['advance', '--dry-run']));
    expect(repo.read(PROJECT)).toBe(before);
    const moved = await data(client, 'advance');
    expect(moved).toEqual({ ...dry, dryRun: false });
    expect(cliData(repo, ['project', 'status']).state).toBe('ImplementationPlanning');
  });

  it('log: the data of sow log; files become the task outputs', async () => {
    const repo = fresh();
    toExecuting(repo, ['Only task']);
    repo.write('src/a.ts', 'export {}\n');
    const { client } = await connect(repo);
    const logged = await data(client, 'log', {
      action: 'modified_file',
      result: 'success',
      task: '010',
      file: ['src/a.ts'],
      notes: 'Wrote a',
      agent: 'implementer-1',
    });
    expect(logged).toMatchObject({ task: '010', agent: 'implementer-1', files: ['src/a.ts'], tracked: ['src/a.ts'] });
    // The CLI's entry for the same file: the same data, but the output is already tracked.
    const cli = cliData(repo, [
      'log',
      '--action',
      'modified_file',
      '--result',
      'success',
      '--task',
      '010',
      '--file',
      'src/a.ts',
      '--agent',
      'implementer-1',
      'Wrote a',
    ]);
    expect(cli).toEqual({ ...logged, tracked: [] });
    expect(repo.read('.sow/project/phases/implementation/tasks/010/log.md')).toContain('Wrote a');
    expect(
      await data(client, 'log', { action: 'research', result: 'success', project: true, notes: 'project note' }),
    ).toEqual(cliData(repo, ['log', '--action', 'research', '--result', 'success', '--project', 'project note']));
    // Without action and result: a note that went well, as `sow agent log` writes one; a wrong action is refused with
    // the list.
    await data(client, 'log', { task: '010', notes: 'just a note' });
    expect(repo.read('.sow/project/phases/implementation/tasks/010/log.md')).toMatch(
      /action: note\nresult: success\n---\n\njust a note\n+$/,
    );
    const wrong = await call(client, 'log', { task: '010', action: 'noted' });
    expect(wrong.isError).toBe(true);
    expect(JSON.stringify(wrong.json)).toContain('started_task');
  });

  it('check: runs the declared checks, records evidence as check run does; a failed one is CHECKS_FAILED', async () => {
    const repo = fresh();
    toExecuting(repo, ['Only task']);
    repo.write(
      '.sow/config.yaml',
      'checks:\n  - name: unit\n    run: "echo unit-ran"\n  - name: lint\n    run: "exit 3"\n',
    );
    ok(repo, ['check', 'allow', '--yes']);
    const { client } = await connect(repo);
    const mcp = await data(client, 'check', { action: 'run', names: ['unit'], task: '010' });
    expect(mcp).toMatchObject({
      runs: [{ name: 'unit', passed: true, exit_code: 0 }],
      recorded: { owner: 'task 010', task: '010' },
    });
    const cli = cliData(repo, ['check', 'run', 'unit', '--task', '010']);
    expect(steady(cli)).toEqual(
      steady({
        ...mcp,
        recorded: { ...mcp.recorded, outputs: mcp.recorded.outputs.map((o: any) => ({ ...o, index: o.index + 1 })) },
      }),
    );
    expect(readFileSync(join(repo.dir, '.sow/project', mcp.runs[0].log), 'utf8')).toContain('unit-ran');

    // A client that asks for progress hears of each check as it ends, before the answer. Read from
    // the server's own lines: the SDK's client hands notifications to their handler a microtask
    // late but drops a request's progress handler at once when the answer comes, so a last
    // notification that reaches it in the same read as the answer is lost on the client's side.
    const server = spawnServer(repo);
    server.send(INIT);
    await server.answer('1');
    server.send(INITIALIZED);
    server.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'check', arguments: { action: 'run', names: ['unit', 'lint'] }, _meta: { progressToken: 'p' } },
    });
    const answer = await server.answer('2');
    const after = server.lines().map((l) => JSON.parse(l));
    const answerAt = server.lines().indexOf(answer);
    const progress = after.filter((m, i) => i < answerAt && m.method === 'notifications/progress').map((m) => m.params);
    expect(progress).toEqual([
      { progressToken: 'p', progress: 1, total: 2, message: 'unit passed' },
      { progressToken: 'p', progress: 2, total: 2, message: 'lint failed' },
    ]);
    expect(after.filter((m) => m.method === 'notifications/progress')).toHaveLength(2);
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);

    const failed = await call(client, 'check', { action: 'run', names: ['lint'] });
    expect(failed.isError).toBe(true);
    expect(failed.json).toMatchObject({
      ok: false,
      error: {
        code: 'CHECKS_FAILED',
        hint: expect.stringContaining('sow check run lint'),
        details: { runs: [{ name: 'lint', exit_code: 3 }] },
      },
    });
    const cliFailed = cliRefusal(repo, ['check', 'run', 'lint']);
    expect(steady(cliFailed.error.details.runs)).toEqual(steady(failed.json.error.details.runs));
  });
});

describe('sow mcp: prompts and resources', () => {
  it(
    "prompts: continue is sow project continue's prompt; every embedded prompt is listed and filled as sow prompt " +
      'fills it; an unknown one is refused',
    async () => {
      const repo = fresh();
      toExecuting(repo);
      const { client } = await connect(repo);
      const { prompts } = await client.listPrompts();
      const names = prompts.map((p) => p.name);
      expect(names[0]).toBe('continue');
      const listed = expectEnvelope(ok(repo, ['prompt', '--list', '--json'])).data as string[];
      expect(names.slice(1)).toEqual(listed);
      const cont = await client.getPrompt({ name: 'continue' });
      // The prompt a person picks is the state's whole prompt, not the card.
      expect(cont.messages).toEqual([
        { role: 'user', content: { type: 'text', text: cliData(repo, ['project', 'continue', '--full']).prompt } },
      ]);
      const one = names.find((n) => n.startsWith('orchestrator/standard/'))!;
      const viaCli = expectEnvelope(ok(repo, ['prompt', one, '--json'])).data;
      expect((await client.getPrompt({ name: one })).messages[0]!.content).toEqual({ type: 'text', text: viaCli.text });
      const before = repo.snapshot();
      await expect(client.getPrompt({ name: 'guidance/nobody' })).rejects.toThrow(/no prompt 'guidance\/nobody'/);
      expect(repo.snapshot()).toEqual(before);
    },
  );

  it(
    'resources: the files under .sow/project/, read byte for byte; a link, a path out of it or an unknown file ' +
      'is refused',
    async () => {
      const repo = fresh();
      toExecuting(repo);
      // A link a cloned repository could carry, to a file outside .sow/project/: never listed, never read.
      symlinkSync('../config.yaml', join(repo.dir, '.sow/project/leak.yaml'));
      const { client } = await connect(repo);
      const { resources } = await client.listResources();
      const uris = resources.map((r) => r.uri);
      expect(uris).toContain('sow://project/state.yaml');
      expect(uris).toContain('sow://project/log.md');
      expect(uris).toContain('sow://project/phases/implementation/tasks/010/state.yaml');
      expect(uris).not.toContain('sow://project/leak.yaml');
      expect(resources.find((r) => r.uri === 'sow://project/state.yaml')).toMatchObject({
        name: '.sow/project/state.yaml',
        mimeType: 'application/yaml',
      });
      const read = await client.readResource({ uri: 'sow://project/phases/implementation/tasks/010/state.yaml' });
      expect(read.contents).toEqual([
        {
          uri: 'sow://project/phases/implementation/tasks/010/state.yaml',
          mimeType: 'application/yaml',
          text: repo.read(taskFile('010')),
        },
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['sow://project/{+path}']);
      for (const uri of [
        'sow://project/../config.yaml',
        'sow://project/phases/../../config.yaml',
        'sow://project/%2e%2e/config.yaml',
        'file:///etc/passwd',
        'sow://project/nothing.md',
      ]) {
        await expect(client.readResource({ uri }), uri).rejects.toThrow(/no resource/);
      }
      await expect(client.readResource({ uri: 'sow://project/leak.yaml' })).rejects.toThrow(
        /no resource 'sow:\/\/project\/leak.yaml': it is a link or a folder/,
      );
      await expect(client.readResource({ uri: 'sow://project/phases' })).rejects.toThrow(/it is a link or a folder/);
    },
  );

  it('resources outside a project: an empty list', async () => {
    const repo = fresh();
    const { client } = await connect(repo);
    expect((await client.listResources()).resources).toEqual([]);
  });
});

describe('sow mcp: refusals', () => {
  it(
    'an unknown task id: TASK_NOT_FOUND with its hint, ' + 'the envelope of the CLI, the state byte-identical',
    async () => {
      const repo = fresh();
      toExecuting(repo);
      const { client } = await connect(repo);
      const before = repo.snapshot();
      const stateBefore = readFileSync(join(repo.dir, PROJECT));
      const r = await call(client, 'task_update', { id: '999', field: 'status', value: 'in_progress' });
      expect(r.isError).toBe(true);
      expect(r.json).toEqual({
        ok: false,
        error: {
          code: 'TASK_NOT_FOUND',
          message: "no task with id '999'",
          hint: "run 'sow task list' to see task ids",
        },
      });
      expect(r.json).toEqual(cliRefusal(repo, ['task', 'set', '--id', '999', 'status', 'in_progress']));
      expect(readFileSync(join(repo.dir, PROJECT)).equals(stateBefore)).toBe(true);
      expect(repo.snapshot()).toEqual(before);
      // The server is still there for the next call.
      expect((await data(client, 'status')).state).toBe('ImplementationExecuting');
    },
  );

  it("a blocked advance: TRANSITION_BLOCKED with the guard's hint, as the CLI says it, nothing written", async () => {
    const repo = inPlanning(fresh);
    const { client } = await connect(repo);
    const before = repo.snapshot();
    const stateBefore = readFileSync(join(repo.dir, PROJECT));
    for (const args of [{}, { dry_run: true }]) {
      const r = await call(client, 'advance', args);
      expect(r.isError).toBe(true);
      expect(r.json.error.code).toBe('TRANSITION_BLOCKED');
      expect(r.json.error.hint).toContain('sow output add --type task_list');
      expect(r.json).toEqual(cliRefusal(repo, ['advance', ...('dry_run' in args ? ['--dry-run'] : [])]));
    }
    expect(readFileSync(join(repo.dir, PROJECT)).equals(stateBefore)).toBe(true);
    expect(repo.snapshot()).toEqual(before);
  });

  it('arguments the schema refuses: a usage error in the same envelope (did you mean…), never a crash', async () => {
    const repo = inPlanning(fresh);
    const { client } = await connect(repo);
    const before = repo.snapshot();
    const typo = await call(client, 'advance', { dryrun: true });
    expect(typo).toEqual({
      isError: true,
      json: {
        ok: false,
        error: {
          code: 'USAGE',
          message: "invalid arguments for advance: unknown argument 'dryrun'; did you mean 'dry_run'?",
          hint: expect.stringContaining('event, dry_run'),
        },
      },
    });
    const wrongType = await call(client, 'task_next', { claim: 'yes' });
    expect(wrongType.json).toMatchObject({
      ok: false,
      error: { code: 'USAGE', message: expect.stringContaining("'claim'") },
    });
    const missing = await call(client, 'task_update', { id: '010' });
    expect(missing.json).toMatchObject({
      ok: false,
      error: { code: 'USAGE', message: expect.stringMatching(/'field'.*'value'/) },
    });
    const unknown = await call(client, 'project_new');
    expect(unknown.json).toMatchObject({
      ok: false,
      error: { code: 'USAGE', message: "unknown tool 'project_new'", hint: expect.stringContaining('task_update') },
    });
    expect(repo.snapshot()).toEqual(before);
  });
});

describe('sow mcp: one lock with the CLI', () => {
  it('concurrent claims, from one server and from two, under the lock: each gets a different task', async () => {
    const repo = fresh();
    toExecuting(repo, ['A', 'B', 'C', 'D', 'E', 'F']);
    const one = await connect(repo);
    const two = await connect(repo);
    const claims = await Promise.all([
      ...['w1', 'w2', 'w3'].map((owner) => call(one.client, 'task_next', { claim: true, owner })),
      ...['w4', 'w5', 'w6'].map((owner) => call(two.client, 'task_next', { claim: true, owner })),
    ]);
    for (const c of claims) expect(c.isError, JSON.stringify(c.json)).toBe(false);
    const ids = claims.map((c) => c.json.id);
    expect(new Set(ids).size).toBe(6);
    expect([...ids].sort()).toEqual(['010', '020', '030', '040', '050', '060']);
    // Each task's file names the owner that claimed it.
    for (const c of claims) expect(repo.yaml(taskFile(c.json.id)).owner.by).toBe(c.json.owner.by);
    const none = await call(one.client, 'task_next', { claim: true, owner: 'w7' });
    expect(none.json).toEqual(cliRefusal(repo, ['task', 'next', '--claim', '--owner', 'w7']));
    expect(none.json.error.code).toBe('NO_READY_TASK');
  });
});

describe('sow mcp: the process', () => {
  it(
    'stdout carries only the protocol (warnings go to stderr); it answers the calls in flight, then exits 0 when ' +
      'its input ends',
    async () => {
      const repo = inPlanning(fresh);
      const server = spawnServer(repo);
      server.send(INIT);
      server.send(INITIALIZED);
      // A file that does not exist yet: the CLI warns about it on stderr.
      server.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'artifact',
          arguments: { action: 'output add', type: 'task_list', path: 'planning/tasks.md' },
        },
      });
      server.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'status', arguments: {} } });
      server.child.stdin.end();
      const exit = await Promise.race([
        server.exited,
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000)),
      ]);
      expect(exit, `stderr: ${server.err()}`).toEqual({ code: 0, signal: null });
      const lines = server.out().split('\n').filter(Boolean);
      const messages = lines.map((line) => JSON.parse(line));
      for (const m of messages) expect(m.jsonrpc).toBe('2.0');
      expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3]);
      // Both calls were in flight at once: status may have read before or after the add (no order is promised).
      const status = JSON.parse(messages.find((m) => m.id === 3).result.content[0].text);
      expect([0, 1]).toContain(status.phases.find((p: any) => p.name === 'planning').outputs);
      expect(server.err()).toContain('warning: .sow/project/planning/tasks.md does not exist yet');
      expect(repo.yaml(PROJECT).phases.planning.outputs).toHaveLength(1);
    },
  );

  it('a long-running server survives its runtime folder being removed under it (rm -r .git/sow)', async () => {
    const repo = fresh();
    toExecuting(repo);
    const { client } = await connect(repo);
    await data(client, 'task_update', { id: '010', field: 'status', value: 'in_progress' });
    rmSync(join(repo.dir, '.git/sow'), { recursive: true, force: true });
    expect(await data(client, 'task_update', { id: '020', field: 'status', value: 'in_progress' })).toEqual({
      id: '020',
      field: 'status',
      value: 'in_progress',
    });
    expect(repo.exists('.git/sow')).toBe(true);
  });

  it('exits when the SDK client closes it', async () => {
    const repo = fresh();
    const { client } = await connect(repo);
    const transport = (client as unknown as { transport: StdioClientTransport }).transport;
    const pid = transport.pid!;
    expect(pid).toBeGreaterThan(0);
    await client.close();
    const gone = async () => {
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return true;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    };
    expect(await gone()).toBe(true);
  });

  it(
    '--cwd names the repository to serve; a folder that does not exist is refused (exit 1) before the ' +
      'protocol starts',
    async () => {
      const repo = fresh();
      toExecuting(repo);
      const { client } = await connect(repo, { args: ['--cwd', repo.dir], cwd: tmpdir() });
      expect(await data(client, 'status')).toEqual(cliData(repo, ['project', 'status']));
      const bad = repo.sow(['mcp', '--cwd', join(repo.dir, 'no-such-folder')]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toContain("--cwd '");
      expect(bad.stderr).toContain('is not a folder');
    },
  );

  it('the SDK is a file of its own, which only sow mcp loads: core.cjs holds none of it', () => {
    const dist = dirname(SOW);
    const core = readFileSync(join(dist, 'core.cjs'), 'utf8');
    expect(existsSync(join(dist, 'mcp-sdk.cjs'))).toBe(true);
    expect(readFileSync(join(dist, 'mcp-sdk.cjs'), 'utf8')).toContain('notifications/initialized');
    expect(core).not.toContain('notifications/initialized');
    expect(core).toContain('require("./mcp-sdk.cjs")');
  });
});

describe('sow mcp: hostile or careless messages', () => {
  /** The documented limit of one message: 10 MiB, newline not counted. */
  const LIMIT = 10 * 1024 * 1024;

  /** A request of exactly `bytes` bytes: `line`, padded with spaces before its last brace. */
  const sized = (line: string, bytes: number): string =>
    `${line.slice(0, -1)}${' '.repeat(bytes - Buffer.byteLength(line))}}`;

  const status = (id: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"status","arguments":{}}}`;

  /** A started server in a repository with tasks, and the repository's state before anything hostile. */
  async function started() {
    const repo = fresh();
    toExecuting(repo);
    const server = spawnServer(repo);
    server.send(INIT);
    server.send(INITIALIZED);
    await server.answer('1');
    return { repo, server, before: repo.snapshot(), stateBefore: readFileSync(join(repo.dir, PROJECT)) };
  }

  /**
   * The server is still there, answers a call as before, changed nothing, and ends as it should when its input
   * does.
   */
  async function stillServing(ctx: Awaited<ReturnType<typeof started>>) {
    const { repo, server } = ctx;
    expect(server.child.exitCode, server.err()).toBeNull();
    server.send(status('"still-there"'));
    const answer = JSON.parse(await server.answer('"still-there"'));
    expect(JSON.parse(answer.result.content[0].text)).toEqual(cliData(repo, ['project', 'status']));
    expect(readFileSync(join(repo.dir, PROJECT)).equals(ctx.stateBefore)).toBe(true);
    expect(repo.snapshot()).toEqual(ctx.before);
    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  }

  it('answers a request whatever number or string its id is, with the id exactly as the client wrote it', async () => {
    const ctx = await started();
    const ids = [
      '1.5',
      '1e308',
      '1E+308',
      '-0.25',
      '-1.5e-3',
      '1e400',
      '9007199254740993',
      '0',
      '-0',
      '"caf\\u00e9 ☕ 𝄞 日本"',
      '"with \\"quotes\\" and \\\\"',
      '""',
    ];
    for (const id of ids) ctx.server.send(status(id));
    const expected = cliData(ctx.repo, ['project', 'status']);
    for (const id of ids) {
      const answer = JSON.parse(await ctx.server.answer(id));
      expect(answer.error, id).toBeUndefined();
      expect(JSON.parse(answer.result.content[0].text), id).toEqual(expected);
    }
    // The SDK's own requests (ping) too.
    ctx.server.send('{"jsonrpc":"2.0","id":2.50,"method":"ping"}');
    expect(await ctx.server.answer('2.50')).toBe('{"jsonrpc":"2.0","id":2.50,"result":{}}');
    await stillServing(ctx);
  });

  it(
    'answers what is not a valid request with the JSON-RPC error for it, and reads the next line; a notification ' +
      'gets nothing',
    async () => {
      const ctx = await started();
      const { server } = ctx;
      const lines: [string, string | undefined][] = [
        // What the line is, and what the error answering it starts with (undefined: no answer at all).
        ['this is not JSON', '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,'],
        [
          '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status"},"unknown":true}',
          '{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"invalid request: unknown member \'unknown\'',
        ],
        [
          '{"jsonrpc":"2.0","id":{"n":3},"method":"ping"}',
          '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: an id is a string or a ' +
            'number, not an object"',
        ],
        [
          '{"jsonrpc":"2.0","id":null,"method":"ping"}',
          '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: an id is a string or a ' +
            'number, not null"',
        ],
        ['{"jsonrpc":"1.0","id":4,"method":"ping"}', '{"jsonrpc":"2.0","id":4,"error":{"code":-32600,'],
        [
          '[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"advance"}},' +
            '{"jsonrpc":"2.0","method":"notifications/initialized"},7]',
          '[{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid request: batches are not supported',
        ],
        ['[]', '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: an empty batch"'],
        [
          '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}}',
          '{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"invalid params for tools/call: params.name: ',
        ],
        [
          '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":["status"]}',
          '{"jsonrpc":"2.0","id":7,"error":{"code":-32602,',
        ],
        [
          '{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":5}}',
          '{"jsonrpc":"2.0","id":8,"error":{"code":-32602,',
        ],
        ['{"jsonrpc":"2.0","id":9,"method":"no/such/method"}', '{"jsonrpc":"2.0","id":9,"error":{"code":-32601,'],
        ['{"jsonrpc":"2.0","method":"notifications/initialized","unknown":1}', undefined],
        ['{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never-sent"}}', undefined],
        ['{"jsonrpc":"2.0","method":"no/such/notification"}', undefined],
        ['{"jsonrpc":"2.0","id":10,"result":{}}', undefined],
      ];
      for (const [line] of lines) server.send(line);
      server.send(status('"next"'));
      await server.answer('"next"');
      const answers = server.lines().slice(1);
      const expected = lines.flatMap(([, answer]) => (answer === undefined ? [] : [answer]));
      expect(answers, server.err()).toHaveLength(expected.length + 1);
      expected.forEach((start, i) =>
        expect(answers[i]!.startsWith(start), `${answers[i]} starts with ${start}`).toBe(true),
      );
      expect(answers[expected.length]!.startsWith('{"jsonrpc":"2.0","id":"next","result":')).toBe(true);
      // Nothing in the batch ran: the project did not advance (stillServing compares the state).
      await stillServing(ctx);
    },
  );

  it(
    'refuses a message over 10 MiB under the id it names, without exiting, and answers the next; a message of ' +
      'exactly 10 MiB is read',
    async () => {
      const ctx = await started();
      const { server } = ctx;
      server.send(sized('{"jsonrpc":"2.0","id":"at-the-limit","method":"ping"}', LIMIT));
      // A log entry that would change the state, were it read.
      server.send(
        sized(
          `{"jsonrpc":"2.0","id":"over","method":"tools/call","params":{"name":"log",` +
            `"arguments":{"action":"research","result":"success","project":true,"notes":"${'x'.repeat(100)}"}}}`,
          LIMIT + 1,
        ),
      );
      server.send(status('"after"'));
      expect(await server.answer('"at-the-limit"')).toBe('{"jsonrpc":"2.0","id":"at-the-limit","result":{}}');
      expect(JSON.parse(await server.answer('"over"'))).toEqual({
        jsonrpc: '2.0',
        id: 'over',
        error: {
          code: -32600,
          message:
            `message too large: a message may have at most ${LIMIT} bytes (10 MiB) on one line; this one ` +
            `was not read`,
        },
      });
      expect(JSON.parse(await server.answer('"after"')).result).toBeDefined();
      await stillServing(ctx);
    },
  );

  it(
    'reads past a line of 256 MiB without holding it: the server grows by less than half of it (about ' +
      '40 MiB here)',
    async () => {
      const ctx = await started();
      const { server } = ctx;
      const peak = () =>
        Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))![1]) * 1024;
      const before = peak();
      const chunk = 'x'.repeat(1024 * 1024);
      const write = (text: string) =>
        new Promise<void>((resolve) =>
          server.child.stdin.write(text) ? resolve() : server.child.stdin.once('drain', resolve),
        );
      // The id comes last, after the 256 MiB: it is still found, as the line goes by.
      await write('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"log","arguments":{"notes":"');
      for (let i = 0; i < 256; i++) await write(chunk);
      await write('"}},"id":-7.5e-1}\n');
      server.send(status('"after"'));
      expect(JSON.parse(await server.answer('-7.5e-1')).error.code).toBe(-32600);
      await server.answer('"after"');
      expect(peak() - before, 'bytes the server grew by, reading 256 MiB').toBeLessThan(128 * 1024 * 1024);
      await stillServing(ctx);
    },
  );

  it(
    'a cancellation names the call by its id as the client wrote it: the check stops, the call is not answered, the ' +
      'server ends',
    async () => {
      const repo = fresh();
      toExecuting(repo);
      repo.write('.sow/config.yaml', 'checks:\n  - name: slow\n    run: "echo $$ > check.pid; exec sleep 300"\n');
      ok(repo, ['check', 'allow', '--yes']);
      const server = spawnServer(repo);
      server.send(INIT);
      await server.answer('1');
      server.send(
        '{"jsonrpc":"2.0","id":1.5,"method":"tools/call",' +
          '"params":{"name":"check","arguments":{"action":"run","names":["slow"]}}}',
      );
      const pidFile = join(repo.dir, 'check.pid');
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      /** Waits, in short steps up to a generous limit, for `condition`. */
      const until = async (condition: () => boolean, what: string) => {
        for (let i = 0; i < 400 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
        expect(condition(), `${what}; stderr: ${server.err()}`).toBe(true);
      };
      await until(() => existsSync(pidFile) && /^\d+\n$/.test(readFileSync(pidFile, 'utf8')), 'the check started');
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(alive(pid)).toBe(true);
      // The same value, written differently.
      server.send(
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":15e-1,"reason":"the user ' +
          'pressed stop"}}',
      );
      await until(() => !alive(pid), 'the check was stopped');
      server.send('{"jsonrpc":"2.0","id":2,"method":"ping"}');
      await server.answer('2');
      server.child.stdin.end();
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(server.lines().map((l) => JSON.parse(l).id)).toEqual([1, 2]);
    },
  );

  it(
    "refuses __proto__ as the command line does: in metadata with the CLI's error, in a tool's arguments as " +
      'unknown, elsewhere as invalid params',
    async () => {
      const repo = inPlanning(fresh);
      ok(repo, ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']);
      const server = spawnServer(repo);
      server.send(INIT);
      await server.answer('1');
      const before = repo.snapshot();
      const tool = (id: number, name: string, args: string) =>
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;
      const envelope = async (id: number) => {
        const answer = JSON.parse(await server.answer(String(id)));
        expect(answer.result.isError, JSON.stringify(answer)).toBe(true);
        return JSON.parse(answer.result.content[0].text);
      };
      const add = (metadata: string) =>
        `{"action":"input add","phase":"planning","type":"context","path":"notes.md","metadata":${metadata}}`;
      const cliAdd = ['input', 'add', '--phase', 'planning', '--type', 'context', '--path', 'notes.md'];

      server.send(tool(2, 'artifact', add('{"__proto__":"x"}')));
      expect(await envelope(2)).toEqual(cliRefusal(repo, [...cliAdd, '--__proto__', 'x']));
      expect((await envelope(2)).error.code).toBe('INVALID_VALUE');
      server.send(tool(3, 'artifact', add('{"source":"human","__proto__":{"polluted":true}}')));
      expect(await envelope(3)).toEqual(cliRefusal(repo, [...cliAdd, '--__proto__', 'x']));
      server.send(tool(4, 'artifact', add('{"constructor":"x"}')));
      expect(await envelope(4)).toEqual(cliRefusal(repo, [...cliAdd, '--constructor', 'x']));
      server.send(tool(5, 'artifact', add('{"a.prototype":"x"}')));
      expect(await envelope(5)).toEqual(cliRefusal(repo, [...cliAdd, '--a.prototype', 'x']));
      server.send(
        tool(
          6,
          'artifact',
          '{"action":"output set","phase":"planning","index":0,"field":"metadata.__proto__","value":"x"}',
        ),
      );
      const cliSet = cliRefusal(repo, [
        'output',
        'set',
        '--phase',
        'planning',
        '--index',
        '0',
        'metadata.__proto__',
        'x',
      ]);
      expect(await envelope(6)).toEqual(cliSet);
      expect(cliSet.error.code).toBe('INVALID_VALUE');
      // At the top of a tool's arguments: an unknown argument, like any other.
      server.send(tool(7, 'status', '{"__proto__":{}}'));
      expect(await envelope(7)).toMatchObject({
        ok: false,
        error: { code: 'USAGE', message: "invalid arguments for status: unknown argument '__proto__'" },
      });
      // Anywhere else in the params: invalid params.
      server.send(
        '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"status","__proto__":{"name":"advance"}}}',
      );
      expect(JSON.parse(await server.answer('8')).error).toEqual({
        code: -32602,
        message:
          "invalid params: 'params.__proto__': a member may not be called '__proto__' (it names a part of every " +
          'JavaScript object, so sow cannot read it faithfully); rename or remove it',
      });

      expect(repo.snapshot()).toEqual(before);
      expect(server.child.exitCode).toBeNull();
      server.child.stdin.end();
      expect(await server.exited).toEqual({ code: 0, signal: null });
    },
  );
});
