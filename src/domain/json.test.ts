import { describe, expect, it } from 'vitest';
import { toJson } from './json.js';

describe('toJson', () => {
  it('is JSON.stringify for data without bigints or non-finite numbers', () => {
    const data = { a: [1, 'x', null, true, { b: 1.5 }], c: 'd' };
    expect(toJson(data)).toBe(JSON.stringify(data));
    expect(toJson(data, 2)).toBe(JSON.stringify(data, null, 2));
  });

  it('writes .inf, -.inf and .nan as those strings, not null', () => {
    expect(toJson({ a: Infinity, b: -Infinity, c: NaN, d: [NaN] })).toBe(
      '{"a":".inf","b":"-.inf","c":".nan","d":[".nan"]}',
    );
  });

  it('writes an integer beyond 2^53 as a JSON number with its exact digits', () => {
    expect(toJson({ a: 12345678901234567890n, b: [-99999999999999999999n], c: 1 }, 2)).toBe(
      '{\n  "a": 12345678901234567890,\n  "b": [\n    -99999999999999999999\n  ],\n  "c": 1\n}',
    );
    expect(toJson(9999999999999999n)).toBe('9999999999999999');
  });

  it('lets no string pass for a bigint', () => {
    const forged = { s: '\u0000abc:123', t: `\u0000${'x'.repeat(10)}:5`, n: 1n };
    const text = toJson(forged);
    expect(JSON.parse(text.replace(/:1(?=})/, ':"1"'))).toEqual({ s: forged.s, t: forged.t, n: '1' });
  });

  it('escapes what JSON.stringify leaves raw but a terminal acts on; the value is the same', () => {
    const value = { name: 'a\u202eb\u0085c\u2028d\u007f\u001b' };
    const text = toJson(value);
    expect(text).toBe('{"name":"a\\u202eb\\u0085c\\u2028d\\u007f\\u001b"}');
    expect(JSON.parse(text)).toEqual(value);
  });
});
