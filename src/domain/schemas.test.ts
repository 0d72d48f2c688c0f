import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { check } from './schemas.js';

describe('check', () => {
  const Schema = v.looseObject({ iteration: v.pipe(v.number(), v.integer()), name: v.string(), metadata: v.record(v.string(), v.unknown()) });

  it('takes an integer beyond 2^53 where a number is wanted as the nearest number, as it always read', () => {
    const data = { iteration: 12345678901234567890n, name: 'a', metadata: { big: 12345678901234567890n } };
    const r = check(Schema, data);
    expect(r.ok).toBe(true);
    // The typed field holds a number; free-form metadata keeps the exact integer.
    expect(data).toEqual({ iteration: 12345678901234567000, name: 'a', metadata: { big: 12345678901234567890n } });
  });

  it('still refuses a bigint where something else is wanted', () => {
    expect(check(Schema, { iteration: 1, name: 12345678901234567890n, metadata: {} })).toMatchObject({ ok: false, issue: { path: 'name' } });
  });
});

describe('check: messages about a value from a file stay on one line', () => {
  it('escapes a line break or an escape sequence valibot quotes from the value', () => {
    const bad = check(v.object({ when: v.array(v.picklist(['task_complete', 'finalize'])) }), { when: ['x\nFORGED line\u001b[2J'] });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.issue.message).not.toMatch(/[\n\u001b]/);
    expect(bad.issue.message).toContain('x\\nFORGED line\\x1b[2J');
  });
});
