/**
 * `sow cost` and the budget on the command line: a real worker (the fake claude on PATH, calling
 * sow back) reports usage in Claude Code's own `result` fields; the table, --json, `sow status`'s
 * line, a --by that is no grouping (exit 2), and the budget refusing the next spawn (exit 3).
 */
import { describe, expect, it } from 'vitest';
import { agentFixtures } from './agent-world.js';

const base = agentFixtures({ tasks: ['First task', 'Second task'] });
const usage = (input: number, output: number, cost: number) => ({
  FAKE_AGENT_USAGE: JSON.stringify({ input, output, cost }),
});

describe('sow cost', () => {
  it('sums every run by task (and by role), in a table and as --json; status says what was used', () => {
    const f = base();
    expect(f.ok(['cost']).stdout).toBe(
      'No worker has run in this project yet (sow agent spawn); what each run uses is counted when it ' +
        'stops.\nBudget   none set (to set one: budget: {usd: 20} in .sow/config.yaml)\n',
    );
    f.ok(['agent', 'spawn', 'implementer', '010', '--quiet'], usage(12000, 3400, 0.1234));
    f.ok(['agent', 'resume', '010', 'go on', '--quiet'], usage(8000, 600, 0.05));
    f.ok(['agent', 'spawn', 'implementer', '020', '--quiet'], usage(100, 10, 0.002));
    expect(f.ok(['cost']).stdout).toBe(
      [
        'task   runs  input   output  cost',
        '010    2     20,000  4,000   $0.173',
        '020    1     100     10      $0.002',
        'total  3     20,100  4,010   $0.175',
        'Budget   none set (to set one: budget: {usd: 20} in .sow/config.yaml)',
        '',
      ].join('\n'),
    );
    expect(f.ok(['cost', '--by', 'role']).stdout).toContain('implementer  3     20,100  4,010   $0.175');
    const json = JSON.parse(f.ok(['cost', '--json']).stdout);
    expect(json).toEqual({
      ok: true,
      data: {
        by: 'task',
        rows: [
          {
            key: '010',
            runs: 2,
            unreported: 0,
            input_tokens: 20000,
            output_tokens: 4000,
            cost_usd: expect.closeTo(0.1734, 10),
          },
          { key: '020', runs: 1, unreported: 0, input_tokens: 100, output_tokens: 10, cost_usd: 0.002 },
        ],
        total: {
          runs: 3,
          unreported: 0,
          input_tokens: 20100,
          output_tokens: 4010,
          cost_usd: expect.closeTo(0.1754, 10),
        },
        budget: { in_force: false },
      },
    });
    expect(f.ok(['status']).stdout).toContain('Used     3 runs · 20,100 in / 4,010 out tokens · $0.175 (sow cost)');
    expect(JSON.parse(f.ok(['status', '--json']).stdout).data.usage).toMatchObject({ runs: 3, input_tokens: 20100 });
  });

  it('--by that is no grouping is exit 2 with did-you-mean', () => {
    const f = base();
    const r = f.sow(['cost', '--by', 'tasks']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: unknown grouping 'tasks'; did you mean 'task'?\nhint: groupings: task, role, session, executor\n",
    );
  });

  it('a budget in .sow/config.yaml stops the next spawn at the limit (exit 3) and leaves the state as it was', () => {
    const f = base();
    f.repo.write('.sow/config.yaml', 'budget:\n  usd: 0.1\n');
    f.ok(['agent', 'spawn', 'implementer', '010', '--quiet'], usage(1000, 100, 0.25));
    const before = f.repo.snapshot();
    const r = f.sow(['agent', 'spawn', 'implementer', '020']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      "error: this project's workers have used $0.25 of the $0.10 its budget allows (most on task 010); no worker " +
        "starts or resumes\nhint: 'sow cost' shows what it went on; to go on, raise budget.usd in " +
        '.sow/config.yaml\n',
    );
    expect(f.repo.snapshot()).toEqual(before);
    f.repo.write('.sow/config.yaml', 'budget:\n  usd: lots\n');
    const invalid = f.sow(['agent', 'spawn', 'implementer', '020']);
    expect(invalid.code).toBe(4);
    expect(invalid.stderr).toContain('.sow/config.yaml: budget.usd');
  });

  it('shows the budget and what is left of it, and says when none is left', () => {
    const f = base();
    f.repo.write('.sow/config.yaml', 'budget:\n  usd: 1\n  tokens: 100000\n');
    f.ok(['agent', 'spawn', 'implementer', '010', '--quiet'], usage(1000, 100, 0.25));
    const r = f.ok(['cost']);
    expect(r.stdout.split('\n').at(-2)).toBe(
      'Budget   $0.250 of $1.00 used, $0.750 left · 1,100 tokens of 100,000 used, 98,900 left',
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(f.ok(['cost', '--json']).stdout).data.budget).toEqual({
      in_force: true,
      usd: { limit: 1, used: 0.25, left: 0.75 },
      tokens: { limit: 100000, used: 1100, left: 98900 },
    });
    f.repo.write('.sow/config.yaml', 'budget:\n  usd: 0.2\n');
    expect(f.ok(['cost']).stdout).toContain(
      '\nBudget   $0.250 of $0.200 used, none left: no worker starts or resumes\n',
    );
  });
});

describe('a configuration that is not valid is never silent', () => {
  const warnings = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('warning: '));

  it(
    'a misspelt or mistyped budget in .sow/config.yaml: every command warns once, naming the key and the fix; sow ' +
      'cost says the budget is not in force',
    () => {
      const f = base();
      f.repo.write('.sow/config.yaml', 'bugdet:\n  usd: 20\n');
      for (const args of [
        ['task', 'list'],
        ['status'],
        ['task', 'get', '--id', '010'],
        ['phase', 'get', 'status'],
        ['advance', '--dry-run'],
        ['log', '--project', '--action', 'note', '--result', 'success'],
      ]) {
        const r = f.sow(args);
        expect(r.code, `sow ${args.join(' ')}: ${r.stderr}`).toBe(args[0] === 'advance' ? 3 : 0);
        expect(warnings(r.stderr), `sow ${args.join(' ')}: ${r.stderr}`).toEqual([
          "warning: .sow/config.yaml: bugdet: unknown key 'bugdet'; did you mean 'budget'?; until it is fixed none " +
            'of its settings is in force (no budget limits the workers) and workers and checks refuse to start; fix ' +
            ".sow/config.yaml (its fields: 'sow schema repo-config')",
        ]);
      }
      const json = f.sow(['task', 'list', '--json']);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout).ok).toBe(true);
      expect(warnings(json.stderr)).toHaveLength(1);
      const cost = f.ok(['cost']);
      expect(cost.stdout).toContain(
        "\nBudget   not in force: .sow/config.yaml is not valid (bugdet: unknown key 'bugdet'; did you mean " +
          "'budget'?)\n",
      );
      expect(warnings(cost.stderr)).toHaveLength(1);
      expect(JSON.parse(f.ok(['cost', '--json']).stdout).data.budget).toEqual({
        in_force: false,
        problem: expect.stringContaining('bugdet'),
      });
      // A budget of the wrong shape is named as such.
      f.repo.write('.sow/config.yaml', 'budget: 20\n');
      expect(warnings(f.ok(['task', 'list']).stderr)).toEqual([
        expect.stringMatching(/^warning: \.sow\/config\.yaml: budget: .*\(no budget limits the workers\)/),
      ]);
      // A command that needs the file refuses with the same words, and is not warned of it again.
      const spawn = f.sow(['agent', 'spawn', 'implementer', '010']);
      expect(spawn.code).toBe(4);
      expect(spawn.stderr).toMatch(/^error: \.sow\/config\.yaml: budget: /);
      expect(warnings(spawn.stderr)).toEqual([]);
      // The commands about the configuration say it their own way.
      expect(warnings(f.sow(['config', 'validate']).stderr)).toEqual([]);
      f.repo.write('.sow/config.yaml', 'budget:\n  usd: 20\n');
      expect(f.ok(['task', 'list']).stderr).toBe('');
    },
  );

  it(
    'a user configuration with a mistake: every command in a workspace warns once, naming the file, the key ' +
      'and the fix',
    () => {
      const f = base('agents:\n  bindngs:\n    implementer: claude-code\n');
      const r = f.ok(['task', 'list']);
      expect(warnings(r.stderr)).toEqual([
        `warning: ${f.world.configPath}: agents.bindngs: unknown key 'bindngs'; did you mean 'bindings'?; until it ` +
          `is fixed workers refuse to start; fix it with 'sow config edit', check it with 'sow config validate'`,
      ]);
      expect(warnings(f.ok(['status', '--json']).stderr)).toHaveLength(1);
    },
  );
});
