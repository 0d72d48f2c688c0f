/**
 * A transition names its type's states, guards and actions by their literal names: a misspelt one
 * fails to compile (`npm test` runs tsc over the tests too, and an @ts-expect-error that no longer
 * meets an error fails it), and every type's transitions meet its own names at run time.
 */
import { describe, expect, it } from 'vitest';
import { allProjectTypes } from './index.js';

const PROJECT_TYPES = Object.fromEntries((await allProjectTypes()).map((t) => [t.name, t]));
import type { TransitionDef } from '../project-type.js';

type Names = TransitionDef<'Start' | 'Done', 'ready', 'startPhase'>;

describe('typed names', () => {
  it('a misspelt state, guard or action is a compile error', () => {
    const fine: Names = {
      from: 'Start',
      event: 'go',
      to: 'Done',
      guard: 'ready',
      actions: [{ type: 'startPhase' }],
      automatic: true,
    };
    // @ts-expect-error a guard the type does not have
    const guard: Names = { from: 'Start', event: 'go', to: 'Done', guard: 'redy', automatic: true };
    // @ts-expect-error a state the type does not have
    const state: Names = { from: 'Start', event: 'go', to: 'Dnoe', automatic: true };
    const action: Names = {
      from: 'Start',
      event: 'go',
      to: 'Done',
      // @ts-expect-error an action the type does not have
      actions: [{ type: 'startPahse' }],
      automatic: true,
    };
    expect([fine, guard, state, action].map((t) => t.event)).toEqual(['go', 'go', 'go', 'go']);
  });

  it("every type's transitions name its own states, guards and actions", () => {
    for (const type of Object.values(PROJECT_TYPES)) {
      for (const t of type.transitions) {
        expect(Object.keys(type.states), `${type.name}: ${t.event}`).toContain(t.from);
        expect(Object.keys(type.states), `${type.name}: ${t.event}`).toContain(t.to);
        if (t.guard) expect(Object.keys(type.guards), `${type.name}: ${t.event}`).toContain(t.guard);
        for (const a of t.actions ?? [])
          expect(Object.keys(type.actions), `${type.name}: ${t.event}`).toContain(a.type);
      }
    }
  });
});
