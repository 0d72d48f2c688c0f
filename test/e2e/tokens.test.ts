/**
 * `npm run tokens` measures what sow puts in an agent's context (a real tokenizer, on a 40-task
 * project walked through the whole lifecycle). It measures and judges nothing here: the test
 * proves that it runs against the built CLI and reports every row, each a positive count.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SOW } from './harness.js';

const TOKENS = fileURLToPath(new URL('../../scripts/tokens.mjs', import.meta.url));

interface Row {
  row: string;
  tokens: number;
  budget: number | null;
  verdict: string;
  calls?: number;
}

describe('npm run tokens', () => {
  it('--json reports every row of the budget table, each a positive count', () => {
    const r = spawnSync(process.execPath, [TOKENS, '--json'], {
      encoding: 'utf8',
      env: { ...process.env, SOW_TOKENS_BIN: SOW },
      timeout: 240_000,
    });
    expect(r.status, r.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(r.stdout) as {
      tokenizer: string;
      project: { tasks: number; done: number };
      rows: Row[];
      over_budget: number;
    };
    expect(report.tokenizer).toBe('o200k_base');
    expect(report.project).toEqual({ tasks: 40, done: 15 });
    const names = report.rows.map((x) => x.row);
    for (const prefix of [
      'always loaded in Claude Code',
      'loop: task next --claim',
      'worker prompt + guidance',
      // Every other role's prompt, with what it is told to read.
      ...['architect', 'reviewer', 'planner', 'researcher', 'decomposer'].map((r) => `${r} prompt + guidance`),
      'MCP tool definitions (',
      '`task list`, 40 tasks',
    ]) {
      expect(
        names.some((n) => n.startsWith(prefix)),
        `${prefix} in ${names.join(' | ')}`,
      ).toBe(true);
    }
    // The hook in every state of the standard lifecycle, with no project before and after.
    for (const state of [
      'NoProject',
      'PlanningActive',
      'ImplementationPlanning',
      'ImplementationExecuting',
      'ReviewActive',
      'FinalizeDocumentation',
      'FinalizeChecks',
      'FinalizeDelete',
    ]) {
      expect(names).toContain(`SessionStart hook, ${state}`);
    }
    for (const row of report.rows) {
      expect(row.tokens, row.row).toBeGreaterThan(0);
      expect(['ok', 'OVER', 'info'], row.row).toContain(row.verdict);
    }
    expect(report.rows.find((x) => x.row.startsWith('loop: task next --claim'))?.calls).toBe(3);
    // Each role's row is judged against the worker's budget.
    for (const r of report.rows.filter((x) => / prompt \+ guidance/.test(x.row))) expect(r.budget, r.row).toBe(1500);
    expect(report.over_budget).toBe(report.rows.filter((x) => x.verdict === 'OVER').length);
  });
});
