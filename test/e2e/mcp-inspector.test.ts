/**
 * `sow mcp` as the official MCP Inspector's CLI sees it (`npx @modelcontextprotocol/inspector
 * --cli` runs the same code, from @modelcontextprotocol/inspector-cli): tools/list gives every
 * tool an input schema (no output schema: the spec makes it optional, and the data is the
 * command's, as --json prints it), and tools/call answers with `structuredContent` beside the
 * text, as the current MCP spec asks. Then the SDK's client calls each tool through a lifecycle.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ok, SOW, TASK_LIST, TEST_ENV, toExecuting, useRepos, type Repo } from './harness.js';

const fresh = useRepos();
const INSPECTOR = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')),
  'build',
  'index.js',
);

const env = (): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  for (const k of ['SOW_AGENT_ID', 'SOW_SESSION_ID', 'SOW_OWNER', 'SOW_TASK_ID']) delete out[k];
  return { ...out, ...TEST_ENV };
};

/** The Inspector's CLI against `sow mcp` started in the repository; its answer, parsed. */
function inspector(repo: Repo, args: string[]): any {
  const r = spawnSync(process.execPath, [INSPECTOR, process.execPath, SOW, 'mcp', ...args], {
    cwd: repo.dir,
    env: env(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.status, `inspector ${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

const cliData = (repo: Repo, args: string[]) => ok(repo, [...args, '--json']).json!.data;

describe('sow mcp, through the MCP Inspector CLI', () => {
  it('tools/list: each tool with its input schema (an object, as the spec asks)', () => {
    const repo = fresh();
    const { tools } = inspector(repo, ['--method', 'tools/list']);
    expect(tools.map((t: any) => t.name).sort()).toEqual([
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
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object', properties: expect.any(Object) });
      expect(tool.outputSchema, tool.name).toBeUndefined();
      expect(tool.description.length, tool.name).toBeGreaterThan(20);
    }
    expect(tools.find((t: any) => t.name === 'status').annotations).toEqual({ readOnlyHint: true });
  });

  it('tools/call: the data as text and as structuredContent; a list under its member', () => {
    const repo = fresh();
    toExecuting(repo);
    const status = inspector(repo, ['--method', 'tools/call', '--tool-name', 'status']);
    expect(status.isError).toBeFalsy();
    expect(JSON.parse(status.content[0].text)).toEqual(cliData(repo, ['status']));
    expect(status.structuredContent).toEqual(JSON.parse(status.content[0].text));

    const next = inspector(repo, ['--method', 'tools/call', '--tool-name', 'task_next']);
    expect(JSON.parse(next.content[0].text)).toEqual(cliData(repo, ['task', 'next']));
    expect(next.structuredContent).toEqual({ tasks: cliData(repo, ['task', 'next']) });

    const renamed = inspector(repo, [
      '--method',
      'tools/call',
      '--tool-name',
      'task_update',
      '--tool-arg',
      'id=010',
      'field=name',
      'value=Renamed',
    ]);
    expect(renamed.structuredContent).toEqual({ id: '010', field: 'name', value: 'Renamed' });
    expect(cliData(repo, ['task', 'get', 'name', '--id', '010'])).toMatchObject({ value: 'Renamed' });
  });

  it('a refusal: isError, the envelope as text, no structuredContent', () => {
    const repo = fresh();
    const r = inspector(repo, [
      '--method',
      'tools/call',
      '--tool-name',
      'task_update',
      '--tool-arg',
      'id=010',
      'field=name',
      'value=x',
    ]);
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(JSON.parse(r.content[0].text)).toMatchObject({ ok: false, error: { code: 'NO_PROJECT' } });
  });
});

describe('every call answers with structuredContent (the SDK client reads it)', () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  });

  it('through a lifecycle: status, continue, artifact, advance, task_next, task_update, log, check', async () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo']);
    const client = new Client({ name: 'sow-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SOW, 'mcp'],
        cwd: repo.dir,
        env: env(),
        stderr: 'pipe',
      }),
    );
    await client.listTools();
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy();
      expect(r.structuredContent, name).toBeDefined();
      return r.structuredContent as any;
    };
    expect(await call('status')).toMatchObject({ state: 'PlanningActive' });
    expect(await call('continue')).toMatchObject({ state: 'PlanningActive', prompt: expect.any(String) });
    repo.write(TASK_LIST, '# Tasks\n');
    expect(
      await call('artifact', {
        action: 'output add',
        type: 'task_list',
        path: 'planning/tasks.md',
        approved: true,
      }),
    ).toMatchObject({ index: 0 });
    expect(await call('artifact', { action: 'output list' })).toMatchObject({
      artifacts: [{ index: 0, type: 'task_list' }],
    });
    expect(await call('artifact', { action: 'output set', index: 0, field: 'approved', value: true })).toMatchObject({
      index: 0,
    });
    expect(await call('advance', { dry_run: true })).toMatchObject({ to: 'ImplementationPlanning', dryRun: true });
    expect(await call('advance')).toMatchObject({ from: 'PlanningActive', to: 'ImplementationPlanning' });
    ok(repo, ['task', 'add', 'First task', '--agent', 'implementer']);
    ok(repo, ['phase', 'set', 'tasks_approved', 'true']);
    await call('advance');
    expect(await call('task_next')).toMatchObject({ tasks: [{ id: '010' }] });
    expect(await call('task_next', { claim: true, owner: 'worker-1' })).toMatchObject({
      id: '010',
      owner: { by: 'worker-1' },
    });
    expect(await call('log', { action: 'started_task', result: 'success', task: '010', notes: 'begun' })).toMatchObject(
      { task: '010' },
    );
    expect(await call('task_update', { id: '010', field: 'name', value: 'Renamed', owner: 'worker-1' })).toMatchObject({
      id: '010',
      value: 'Renamed',
    });
    expect(await call('check', { action: 'run' })).toMatchObject({ runs: [], recorded: null });
  });
});
