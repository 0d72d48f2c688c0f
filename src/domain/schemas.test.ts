import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { check, isIsoTimestamp } from './schema-check.js';

describe('check', () => {
  const Schema = v.looseObject({
    iteration: v.pipe(v.number(), v.integer()),
    name: v.string(),
    metadata: v.record(v.string(), v.unknown()),
  });

  it('takes an integer beyond 2^53 where a number is wanted as the nearest number, as it always read', () => {
    const data = { iteration: 12345678901234567890n, name: 'a', metadata: { big: 12345678901234567890n } };
    const r = check(Schema, data);
    expect(r.ok).toBe(true);
    // The typed field holds a number; free-form metadata keeps the exact integer.
    expect(data).toEqual({ iteration: 12345678901234567000, name: 'a', metadata: { big: 12345678901234567890n } });
  });

  it('still refuses a bigint where something else is wanted', () => {
    expect(check(Schema, { iteration: 1, name: 12345678901234567890n, metadata: {} })).toMatchObject({
      ok: false,
      issue: { path: 'name' },
    });
  });
});

describe('check: messages about a value from a file stay on one line', () => {
  it('escapes a line break or an escape sequence valibot quotes from the value', () => {
    const bad = check(v.object({ when: v.array(v.picklist(['task_complete', 'finalize'])) }), {
      when: ['x\nFORGED line\u001b[2J'],
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.issue.message).not.toMatch(/[\n\u001b]/);
    expect(bad.issue.message).toContain('x\\nFORGED line\\x1b[2J');
  });
});

describe('isIsoTimestamp', () => {
  it("accepts exactly what valibot's isoTimestamp() accepts", () => {
    const valid = [
      '2026-11-26T10:00:00Z',
      '2026-11-26T10:00:00.123Z',
      '1999-12-31 23:59:59.123456789+05:30',
      '2026-01-01T00:00:00 -0800',
      '2026-02-29T12:00:00+23',
      '0000-01-31T00:00:59-00:00',
    ];
    const alphabet = [
      '0',
      '1',
      '2',
      '3',
      '5',
      '6',
      '9',
      '-',
      ':',
      '.',
      'T',
      't',
      'Z',
      'z',
      ' ',
      '+',
      'x',
      '\u0660',
      '\ud83c',
      '',
    ];
    const samples = new Set<string>(valid);
    // Every one-character change of the valid ones (a substitution, an insertion, a deletion), and some of two.
    for (const s of valid) {
      for (let i = 0; i <= s.length; i++) {
        for (const c of alphabet) {
          const changed = s.slice(0, i) + c + s.slice(i + 1);
          samples.add(changed);
          samples.add(s.slice(0, i) + c + s.slice(i));
          for (let j = i + 2; j < s.length; j += 5)
            samples.add(changed.slice(0, j) + alphabet[(i * 7 + j) % alphabet.length] + changed.slice(j + 1));
        }
      }
    }
    for (const extra of [
      '',
      'Z',
      '2026-11-26T10:00:00',
      '2026-11-26T10:00:00.Z',
      '2026-11-26T10:00:00.1234567890Z',
      '2026-11-26T10:00:00+05:3',
      '2026-11-26T10:00:00+05:',
      '2026-11-26T10:00:00  +05',
    ])
      samples.add(extra);
    const ValibotTimestamp = v.pipe(v.string(), v.isoTimestamp());
    const disagree = [...samples].filter((s) => isIsoTimestamp(s) !== v.is(ValibotTimestamp, s));
    expect(disagree).toEqual([]);
    expect(samples.size).toBeGreaterThan(5000);
    expect(valid.every(isIsoTimestamp)).toBe(true);
  });
});
