/**
 * What each CLI reports as usage, read from the event streams captured from the pinned CLIs
 * (test/fixtures/agent-help/<cli>__events-sample-success.jsonl, recorded against the scripted
 * loopback model of `npm run test:real-agents`): the sums `sow cost` would record for those runs.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXECUTORS } from './registry.js';
import { usageOfLines } from './shared.js';
import type { Usage } from './types.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/agent-help/', import.meta.url));

const lines = (file: string) => readFileSync(`${FIXTURES}${file}`, 'utf8').split('\n').filter(Boolean);

/** What sow reads from a run's events (the same function the ledger and agent ps use). */
const usageOfFixture = (cli: keyof typeof EXECUTORS, file: string): Usage => usageOfLines(EXECUTORS[cli], lines(file));

describe('usage in the real CLIs’ own events', () => {
  it('Claude Code: the closing result’s usage and total_cost_usd, once (not each assistant message too)', () => {
    expect(usageOfFixture('claude', 'claude__events-sample-success.jsonl')).toEqual({
      input_tokens: 5,
      output_tokens: 3,
      cost_usd: 0.0001,
    });
  });
  it(
    'Claude Code while it runs: the input tokens of each answer so far, once per answer (its output and cost come ' +
      'with the result)',
    () => {
      // A real worker's stream (Claude Code 2.1.197 in the orchestrator run of test:real-agents): three answers, then
      // the result.
      const run = lines('claude__events-worker-orchestra.jsonl');
      const end = run.findIndex((l) => (JSON.parse(l) as { type?: string }).type === 'result');
      expect(end).toBeGreaterThan(0);
      expect(usageOfLines(EXECUTORS.claude, run.slice(0, end))).toEqual({ input_tokens: 108 + 114 + 115 });
      expect(usageOfLines(EXECUTORS.claude, run)).toEqual({ input_tokens: 337, output_tokens: 32, cost_usd: 0.001491 });
    },
  );
  it('Codex: each turn.completed’s usage, tokens only (two model calls of 50 in / 20 out in this run)', () => {
    expect(usageOfFixture('codex', 'codex__events-sample-success.jsonl')).toEqual({
      input_tokens: 100,
      output_tokens: 40,
    });
  });
  it('Gemini CLI: the result’s stats, tokens only', () => {
    expect(usageOfFixture('gemini', 'gemini__events-sample-success.jsonl')).toEqual({
      input_tokens: 1,
      output_tokens: 3,
    });
  });
  it('OpenCode: each step_finish’s tokens and cost', () => {
    expect(usageOfFixture('opencode', 'opencode__events-sample-success.jsonl')).toEqual({
      input_tokens: 5,
      output_tokens: 3,
      cost_usd: 0.00006,
    });
  });
  it('Copilot CLI: its result has premium requests and durations, no tokens: nothing to count', () => {
    expect(usageOfFixture('copilot', 'copilot__events-sample-success.jsonl')).toEqual({});
  });
});
