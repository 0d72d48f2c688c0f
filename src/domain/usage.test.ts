import { describe, expect, it } from 'vitest';
import { addFigure, costOf } from './usage.js';

const entry = (task: string, usage: { input_tokens?: number; output_tokens?: number; cost_usd?: number }) => ({
  at: '2026-11-27T00:00:00.000Z',
  agent: 'implementer',
  agent_id: `implementer-${task}`,
  executor: 'claude-code',
  run: 'spawn' as const,
  task,
  ...usage,
});

describe('costOf', () => {
  it('sums tokens exactly and dollars to the billionth, without the noise of binary fractions', () => {
    const r = costOf(
      [
        entry('010', { input_tokens: 10, output_tokens: 1, cost_usd: 0.1 }),
        entry('020', { input_tokens: 5, cost_usd: 0.2 }),
        entry('010', { cost_usd: 0.3 }),
      ],
      'task',
    );
    expect(r.total).toEqual({ runs: 3, unreported: 0, input_tokens: 15, output_tokens: 1, cost_usd: 0.6 });
    expect(r.rows.map((row) => [row.key, row.cost_usd])).toEqual([
      ['010', 0.4],
      ['020', 0.2],
    ]);
  });

  it('counts a run that reported nothing as unreported, and leaves out a figure nobody reported', () => {
    const r = costOf([entry('010', {}), entry('020', { input_tokens: 7 })], 'task');
    expect(r.total).toEqual({ runs: 2, unreported: 1, input_tokens: 7 });
  });

  it('adds a missing figure as nothing', () => {
    expect([
      addFigure('cost_usd', undefined, 0.1),
      addFigure('input_tokens', 3, undefined),
      addFigure('output_tokens', undefined, undefined),
    ]).toEqual([0.1, 3, undefined]);
  });
});
