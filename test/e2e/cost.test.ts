/**
 * `sow cost` and the budget on the command line: a real worker (the fake claude on PATH, calling
 * sow back) reports usage in Claude Code's own `result` fields; the table, --json, `sow status`'s
 * line, a --by that is no grouping (exit 2), and the budget refusing the next spawn (exit 3).
 */
import { describe, expect, it } from 'vitest';
import { agentFixtures } from './agent-world.js';

const base = agentFixtures({ tasks: ['First task', 'Second task'] });
const usage = (input: number, output: number, cost: number) => ({ FAKE_AGENT_USAGE: JSON.stringify({ input, output, cost }) });

describe('sow cost', () => {
  it('sums every run by task (and by role), in a table and as --json; status says what was used', () => {
    const f = base();
    expect(f.ok(['cost']).stdout).toBe('No worker has run in this project yet (sow agent spawn); what each run uses is counted when it stops.\n');
    f.ok(['agent', 'spawn', 'implementer', '010', '--quiet'], usage(12000, 3400, 0.1234));
    f.ok(['agent', 'resume', '010', 'go on', '--quiet'], usage(8000, 600, 0.05));
    f.ok(['agent', 'spawn', 'implementer', '020', '--quiet'], usage(100, 10, 0.002));
    expect(f.ok(['cost']).stdout).toBe(
      ['task   runs  input   output  cost', '010    2     20,000  4,000   $0.173', '020    1     100     10      $0.002', 'total  3     20,100  4,010   $0.175', ''].join('\n'),
    );
    expect(f.ok(['cost', '--by', 'role']).stdout).toContain('implementer  3     20,100  4,010   $0.175');
    const json = JSON.parse(f.ok(['cost', '--json']).stdout);
    expect(json).toEqual({
      ok: true,
      data: {
        by: 'task',
        rows: [
          { key: '010', runs: 2, unreported: 0, input_tokens: 20000, output_tokens: 4000, cost_usd: expect.closeTo(0.1734, 10) },
          { key: '020', runs: 1, unreported: 0, input_tokens: 100, output_tokens: 10, cost_usd: 0.002 },
        ],
        total: { runs: 3, unreported: 0, input_tokens: 20100, output_tokens: 4010, cost_usd: expect.closeTo(0.1754, 10) },
      },
    });
    expect(f.ok(['status']).stdout).toContain('Used     3 runs · 20,100 in / 4,010 out tokens · $0.175 (sow cost)');
    expect(JSON.parse(f.ok(['status', '--json']).stdout).data.usage).toMatchObject({ runs: 3, input_tokens: 20100 });
  });

  it('--by that is no grouping is exit 2 with did-you-mean', () => {
    const f = base();
    const r = f.sow(['cost', '--by', 'tasks']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown grouping 'tasks'; did you mean 'task'?\nhint: groupings: task, role, session, executor\n");
  });

  it('a budget in .sow/config.yaml stops the next spawn at the limit (exit 3) and leaves the state as it was', () => {
    const f = base();
    f.repo.write('.sow/config.yaml', 'budget:\n  usd: 0.1\n');
    f.ok(['agent', 'spawn', 'implementer', '010', '--quiet'], usage(1000, 100, 0.25));
    const before = f.repo.snapshot();
    const r = f.sow(['agent', 'spawn', 'implementer', '020']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      "error: this project's workers have used $0.25 of the $0.10 its budget allows (most on task 010); no worker starts or resumes\nhint: 'sow cost' shows what it went on; to go on, raise budget.usd in .sow/config.yaml\n",
    );
    expect(f.repo.snapshot()).toEqual(before);
    f.repo.write('.sow/config.yaml', 'budget:\n  usd: lots\n');
    const invalid = f.sow(['agent', 'spawn', 'implementer', '020']);
    expect(invalid.code).toBe(4);
    expect(invalid.stderr).toContain('.sow/config.yaml: budget.usd');
  });
});
