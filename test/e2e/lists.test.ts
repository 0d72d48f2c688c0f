/**
 * What an agent reads when it lists or picks tasks, end to end (no terminal, as an agent runs sow):
 * `task list` under one heading per status, blocked tasks marked, finished ones as ids, without
 * padding or the default role on every line, and nothing --json has that it leaves out;
 * `--ready`, `--limit`, `--fields`
 * for the text and `--json`, JSON without empty fields; `continue` points to `task next`; `task next
 * --claim` gives the claimed task whole — its description, its dependencies' outcomes, its pending
 * feedback — in one call; `task get` includes the description and leaves out what is empty.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expectFails, ok, SOW, TEST_ENV, toExecuting, useRepos, type Repo } from './harness.js';

const fresh = useRepos();

/**
 * Five tasks: 010 claimed by someone, 020 (implementer), 030 (architect, parallel), 040 after 020,
 * 050 with feedback pending.
 */
function fiveTasks(): Repo {
  const repo = fresh();
  toExecuting(repo, ['Held elsewhere', 'Build the parser', 'Design the API', 'Wire the parser in', 'Polish the docs']);
  ok(repo, ['task', 'next', '--claim', '--owner', 'someone']);
  ok(repo, ['task', 'set', '--id', '030', 'assigned_agent', 'architect']);
  ok(repo, ['task', 'set', '--id', '030', 'parallel', 'true']);
  ok(repo, ['task', 'set', '--id', '040', 'dependencies', '020']);
  ok(repo, ['task', 'feedback', '--id', '050', 'Say which version the docs cover.']);
  return repo;
}

describe('task list for an agent', () => {
  it('off a terminal: a heading per status, no padding, no default role, blocked marked; JSON without empties', () => {
    const repo = fiveTasks();
    const r = ok(repo, ['task', 'list']);
    expect(r.stdout).toBe(
      [
        'pending (4):',
        '020 Build the parser',
        '030 Design the API (agent: architect, parallel)',
        '040 Wire the parser in (after 020, blocked)',
        '050 Polish the docs',
        'in_progress (1):',
        '010 Held elsewhere',
        '',
      ].join('\n'),
    );
    const rows = ok(repo, ['task', 'list', '--json']).json!.data;
    expect(rows[1]).toEqual({
      id: '020',
      name: 'Build the parser',
      status: 'pending',
      parallel: false,
      assigned_agent: 'implementer',
    });
    expect(rows[3]).toMatchObject({ id: '040', dependencies: ['020'] });
    expect(rows[0]).toMatchObject({ id: '010', worker: { state: 'live', kind: 'claim', by: 'someone' } });
    for (const row of rows)
      for (const v of Object.values(row)) expect(v === null || (Array.isArray(v) && v.length === 0)).toBe(false);
  });

  it(
    '--ready: only what can start now (not waiting on a dependency, not sent back with feedback, not held ' +
      'by anyone)',
    () => {
      const repo = fiveTasks();
      expect(ok(repo, ['task', 'list', '--ready']).stdout).toBe(
        'pending (2):\n020 Build the parser\n030 Design the API (agent: architect, parallel)\n',
      );
      expect(ok(repo, ['task', 'list', '--ready', '--json']).json!.data.map((t: any) => t.id)).toEqual(['020', '030']);
      expectFails(repo, ['task', 'list', '--ready', '--status', 'pending'], 2, 'USAGE');
      ok(repo, ['task', 'set', '--id', '020', 'status', 'completed', '--force']);
      expect(ok(repo, ['task', 'list', '--ready', '--fields', 'id']).stdout).toBe('[030]\n[040]\n');
    },
  );

  it(
    '--limit N and --fields a,b: for the text and for --json, in the order asked; a field that is empty ' +
      'is left out',
    () => {
      const repo = fiveTasks();
      const limited = ok(repo, ['task', 'list', '--limit', '2']);
      expect(limited.stdout).toBe('pending (1):\n020 Build the parser\nin_progress (1):\n010 Held elsewhere\n');
      expect(limited.stderr).toContain('3 more not shown (--limit 2)');
      expect(ok(repo, ['task', 'list', '--limit', '2', '--json']).json!.data).toHaveLength(2);
      expect(ok(repo, ['task', 'list', '--fields', 'id,name', '--limit', '3']).stdout).toBe(
        '[010] Held elsewhere\n[020] Build the parser\n[030] Design the API\n',
      );
      expect(
        ok(repo, ['task', 'list', '--fields', 'status,id,dependencies,agent', '--json']).json!.data.slice(2, 4),
      ).toEqual([
        { status: 'pending', id: '030', assigned_agent: 'architect' },
        { status: 'pending', id: '040', dependencies: ['020'], assigned_agent: 'implementer' },
      ]);
      expect(expectFails(repo, ['task', 'list', '--fields', 'id,nmae'], 2, 'USAGE', { human: true })).toContain(
        "did you mean 'name'",
      );
      expectFails(repo, ['task', 'list', '--limit', '0'], 2, 'USAGE');
      expectFails(repo, ['task', 'list', '--limit', 'many'], 2, 'USAGE');
    },
  );

  it('finished tasks are their ids alone (--status names them); a dependency finished lifts blocked', () => {
    const repo = fiveTasks();
    ok(repo, ['task', 'set', '--id', '020', 'status', 'completed', '--force']);
    ok(repo, ['task', 'abandon', '--id', '050']);
    expect(ok(repo, ['task', 'list']).stdout).toBe(
      [
        'pending (2):',
        '030 Design the API (agent: architect, parallel)',
        '040 Wire the parser in (after 020)',
        'in_progress (1):',
        '010 Held elsewhere',
        'completed (1): 020',
        'abandoned (1): 050',
        '',
      ].join('\n'),
    );
    expect(ok(repo, ['task', 'list', '--status', 'completed']).stdout).toBe('completed (1):\n020 Build the parser\n');
    // --status shows one status, yet blocked is judged on every task: 040 waits for 030 here.
    ok(repo, ['task', 'set', '--id', '040', 'dependencies', '030']);
    expect(ok(repo, ['task', 'list', '--status', 'pending']).stdout).toContain(
      '\n040 Wire the parser in (after 030, blocked)\n',
    );
  });

  it('the compact list leaves out nothing of --json but the names of finished tasks', () => {
    const repo = fiveTasks();
    ok(repo, ['task', 'set', '--id', '020', 'status', 'completed', '--force']);
    ok(repo, ['task', 'set', '--id', '050', 'dependencies', '030,040']);
    const text = ok(repo, ['task', 'list']).stdout;
    const rows = ok(repo, ['task', 'list', '--json']).json!.data as Record<string, any>[];
    const lines = text.split('\n');
    for (const t of rows) {
      const heading = lines.find((l) => l.startsWith(`${t.status} (`));
      expect(heading, `${t.id}: a heading for ${t.status}`).toBeDefined();
      if (t.status === 'completed') {
        expect(heading!.split(': ')[1]!.split(' '), t.id).toContain(t.id);
        continue;
      }
      const line = lines.find((l) => l.startsWith(`${t.id} `));
      expect(line, t.id).toBeDefined();
      // Under its status's heading: the nearest heading above it.
      const above = lines.slice(0, lines.indexOf(line!)).reverse();
      expect(
        above.find((l) => /^[a-z_]+ \(\d+\):/.test(l)),
        t.id,
      ).toBe(heading);
      expect(line!.startsWith(`${t.id} ${t.name}`), t.id).toBe(true);
      if (t.assigned_agent !== 'implementer') expect(line, t.id).toContain(`agent: ${t.assigned_agent}`);
      if (t.parallel) expect(line, t.id).toContain('parallel');
      if (t.dependencies) expect(line, t.id).toContain(`after ${t.dependencies.join(',')}`);
      const blocked = (t.dependencies ?? []).some((d: string) => rows.find((x) => x.id === d)?.status !== 'completed');
      expect(line!.includes('blocked'), t.id).toBe(blocked);
    }
    expect(lines.filter((l) => /^\d{3} /.test(l))).toHaveLength(rows.filter((t) => t.status !== 'completed').length);
  });

  it('task next --limit lists the first ready tasks and says how many more there are', () => {
    const repo = fresh();
    toExecuting(repo, ['One', 'Two', 'Three']);
    const r = ok(repo, ['task', 'next', '--limit', '2']);
    expect(r.stdout).toBe('pending (2):\n010 One\n020 Two\n');
    expect(r.stderr).toContain('1 more not shown (--limit 2)');
    expect(ok(repo, ['task', 'next', '--limit', '2', '--json']).json!.data).toHaveLength(2);
    expectFails(repo, ['task', 'next', '--limit', '0'], 2, 'USAGE');
  });

  it("continue in ImplementationExecuting points to 'sow task next', not the whole list", () => {
    const repo = fresh();
    toExecuting(repo, ['A']);
    const text = ok(repo, ['project', 'continue', '--full']).stdout;
    expect(text).toContain('sow task next');
    expect(text).not.toContain('sow task list --status pending');
  });
});

/** 010 done with a file it made; 020 after it, with a description and feedback pending. */
function withDependency(): Repo {
  const repo = fresh();
  toExecuting(repo, ['Design the API', 'Build it']);
  ok(repo, ['task', 'set', '--id', '020', 'dependencies', '010']);
  ok(repo, [
    'task',
    'set',
    '--id',
    '020',
    'description',
    'Implement the API in src/api.ts.\n\nAcceptance: the tests pass.',
  ]);
  repo.write('docs/api.md', '# API\n');
  ok(repo, ['task', 'output', 'add', '--id', '010', '--type', 'modified', '--path', 'docs/api.md']);
  ok(repo, ['task', 'set', '--id', '010', 'status', 'completed', '--force']);
  ok(repo, ['task', 'feedback', '--id', '020', 'Use snake_case for the fields.']);
  return repo;
}

const FOLDER = '.sow/project/phases/implementation/tasks';

describe('one call per step of the loop', () => {
  it(
    "task next --claim gives the task whole: its id first, its description, its dependencies' outcomes and where " +
      'their outputs are, its pending feedback',
    () => {
      const repo = withDependency();
      const r = ok(repo, ['task', 'next', '--claim', '--owner', 'w1']);
      expect(r.stdout).toBe(
        [
          '020',
          '',
          'Implement the API in src/api.ts.',
          '',
          'Acceptance: the tests pass.',
          '',
          `After 010 Design the API (completed): its outputs docs/api.md; its folder ${FOLDER}/010/`,
          '',
          `Feedback to address (input 0, pending): ${FOLDER}/020/feedback/001.md`,
          'Use snake_case for the fields.',
          '',
        ].join('\n'),
      );
      // The acknowledgement stays one line.
      expect(r.stderr).toMatch(/^Claimed task 020 'Build it' for w1 \(lease until \S+\)\n$/);
    },
  );

  it(
    'its --json: the same, with the task without empty fields; a task without a description claims as ' +
      'its id alone',
    () => {
      const repo = withDependency();
      const data = ok(repo, ['task', 'next', '--claim', '--owner', 'w1', '--json']).json!.data;
      expect(data).toMatchObject({
        id: '020',
        task: {
          id: '020',
          name: 'Build it',
          description: 'Implement the API in src/api.ts.\n\nAcceptance: the tests pass.',
          status: 'in_progress',
          dependencies: ['010'],
        },
        owner: { kind: 'claim', by: 'w1' },
        needs: {
          dependencies: [
            {
              id: '010',
              name: 'Design the API',
              status: 'completed',
              outputs: ['docs/api.md'],
              folder: `${FOLDER}/010/`,
            },
          ],
          feedback: [{ index: 0, path: `${FOLDER}/020/feedback/001.md`, text: 'Use snake_case for the fields.' }],
        },
      });
      expect(data.task).not.toHaveProperty('outputs');
      expect(data.task).not.toHaveProperty('metadata');
      const bare = fresh();
      toExecuting(bare, ['Plain']);
      const claimed = ok(bare, ['task', 'next', '--claim', '--owner', 'w1']);
      expect(claimed.stdout).toBe('010\n');
      expect(ok(bare, ['task', 'get', '--id', '010', '--json']).json!.data).not.toHaveProperty('description');
    },
  );

  it(
    'task get includes the description and leaves out what is empty; the text leaves out the bookkeeping ' +
      'timestamps, --json keeps them',
    () => {
      const repo = withDependency();
      const text = ok(repo, ['task', 'get', '--id', '020']).stdout;
      expect(text).toContain('description: |\n  Implement the API in src/api.ts.\n\n  Acceptance: the tests pass.\n');
      for (const empty of ['outputs: []', 'metadata: {}', '\ncreated_at:', '\nupdated_at:'])
        expect(text).not.toContain(empty);
      const data = ok(repo, ['task', 'get', '--id', '020', '--json']).json!.data;
      expect(data).toMatchObject({
        id: '020',
        name: 'Build it',
        description: 'Implement the API in src/api.ts.\n\nAcceptance: the tests pass.',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      for (const v of Object.values(data))
        expect(
          v === null ||
            (Array.isArray(v) && v.length === 0) ||
            (typeof v === 'object' && Object.keys(v as object).length === 0),
        ).toBe(false);
      // One field, bare, as before.
      expect(ok(repo, ['task', 'get', '--id', '020', 'status']).stdout).toBe('pending\n');
    },
  );

  it(
    'over MCP, task_next with claim gives what the command line gives: ' + 'the description and what the task needs',
    async () => {
      const repo = withDependency();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [SOW, 'mcp'],
        cwd: repo.dir,
        env: { ...process.env, ...TEST_ENV } as Record<string, string>,
      });
      const client = new Client({ name: 'sow-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const r = await client.callTool({ name: 'task_next', arguments: { claim: true, owner: 'w1' } });
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        expect(r.structuredContent).toMatchObject({
          id: '020',
          task: { description: 'Implement the API in src/api.ts.\n\nAcceptance: the tests pass.' },
          needs: {
            dependencies: [{ id: '010', status: 'completed' }],
            feedback: [{ text: 'Use snake_case for the fields.' }],
          },
        });
        const got = await client.callTool({ name: 'task', arguments: { action: 'get', id: '020' } });
        expect(got.structuredContent).toMatchObject({
          id: '020',
          description: 'Implement the API in src/api.ts.\n\nAcceptance: the tests pass.',
        });
      } finally {
        await client.close();
      }
    },
  );
});
