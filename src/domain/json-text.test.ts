import { describe, expect, it } from 'vitest';
import { appendEntry, jsonDepth, memberOf, removeEntry, scanJson } from './json-text.js';

describe('jsonDepth', () => {
  it('counts nesting outside strings, and stops counting past the limit', () => {
    expect(jsonDepth('{"a": [1, {"b": "[[[{{{"}]}')).toBe(3);
    expect(jsonDepth('"\\"[" ')).toBe(0);
    expect(jsonDepth('['.repeat(200_000), 64)).toBe(65);
  });
});

describe('scanJson', () => {
  it('finds each member and item, the last of duplicate keys', () => {
    const text = ' {"a": [1, "x,]"], "b": {}, "a": null} ';
    const root = scanJson(text);
    expect(root.type).toBe('object');
    const a = memberOf(root, 'a')!;
    expect(text.slice(a.start, a.end)).toBe('"a": null');
    const first = root.type === 'object' ? root.members[0]! : undefined;
    expect(first?.value.type === 'array' && first.value.items.map((i) => text.slice(i.start, i.end))).toEqual([
      '1',
      '"x,]"',
    ]);
  });
});

describe('appendEntry and removeEntry', () => {
  for (const text of ['[]', '[ ]', '[\n]', '[1]', '[1, 2]', '[\n  1,\n  2\n]', '[\n\t1\n]']) {
    it(`undo each other exactly: ${JSON.stringify(text)}`, () => {
      const added = appendEntry(text, scanJson(text), { a: [1] });
      const arr = scanJson(added);
      expect(JSON.parse(added)).toEqual([...JSON.parse(text), { a: [1] }]);
      expect(removeEntry(added, arr, arr.type === 'array' ? arr.items.length - 1 : 0)).toBe(text);
    });
  }

  it('removes a first entry with the comma after it', () => {
    const text = '{"a": 1, "b": 2}';
    expect(removeEntry(text, scanJson(text), 0)).toBe('{"b": 2}');
  });
});
