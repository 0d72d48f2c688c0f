import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { emitYaml, isPlainString } from './emit.js';

const roundTrip = (value: Record<string, unknown>) => expect(parse(emitYaml(value))).toEqual(value);

describe('emitYaml', () => {
  it('writes block YAML that parses back to the same value', () => {
    roundTrip({
      name: 'add-auth',
      id: '010',
      count: 3,
      negative: -2,
      ratio: 1.5,
      yes: true,
      no: false,
      nothing: null,
      created_at: '2026-01-01T00:00:00.000Z',
      empty_list: [],
      empty_map: {},
      nested: { a: { b: [1, 'two', { three: 3, four: [] }] } },
      list_of_maps: [
        { type: 'context', path: 'a.md', metadata: { status: 'pending' } },
        { type: 'x', path: 'b' },
      ],
      list_of_lists: [[1, 2], [], [[3]]],
    });
  });

  it('quotes every string that would otherwise change type or meaning', () => {
    const tricky = [
      'true',
      'False',
      'null',
      '~',
      'yes',
      'NO',
      'on',
      'y',
      '010',
      '1e3',
      '0x1F',
      '.inf',
      '-.5',
      '',
      ' lead',
      'trail ',
      'a: b',
      'a #b',
      '#x',
      '- item',
      '[x]',
      '{x}',
      '"q"',
      "'s'",
      'multi\nline',
      'tab\there',
      '@at',
      '`tick',
      '%pct',
      '!tag',
      '&anchor',
      '*alias',
      '|',
      '>',
      '?',
      'Fix issue #12',
      "it's",
      'emoji 🚀',
      'ctrl \u0001 \u007f \u0085 \u009f',
      'zero\u0000byte',
      '\ufeffbom',
      'a\u2028b',
      '---',
      '...',
      'C:\\path',
      'key:',
      'http://x.y/z?q=1',
    ];
    const value = Object.fromEntries(tricky.map((s, i) => [`k${i}`, s]));
    roundTrip(value);
    roundTrip({ list: tricky });
    roundTrip(Object.fromEntries(tricky.filter(Boolean).map((s) => [s, s])));
  });

  it('keeps key order and omits undefined values', () => {
    const text = emitYaml({ z: 1, a: 2, m: undefined, b: { d: 1, c: 2 } });
    expect(text).toBe('z: 1\na: 2\nb:\n  d: 1\n  c: 2\n');
  });

  it('looks like hand-written YAML', () => {
    expect(emitYaml({ tasks: [{ id: '010', name: 'Implement JWT signing', dependencies: [] }] })).toBe(
      'tasks:\n  - id: "010"\n    name: Implement JWT signing\n    dependencies: []\n',
    );
  });
});

describe('isPlainString', () => {
  it('is exactly the rule it replaces: /^[A-Za-z_/][\\w ./+()-]*$/, no trailing space, no reserved word', () => {
    const rule = (s: string) =>
      /^[A-Za-z_/][\w ./+()-]*$/.test(s) && !s.endsWith(' ') && !/^(?:true|false|null|yes|no|on|off|y|n|~)$/i.test(s);
    const alphabet = 'aZ09_/ .+()-:#"\'\\é\t~yYnN';
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const samples = [
      '',
      'a',
      'Yes',
      'no',
      'n',
      'off',
      'nulls',
      'true',
      'True ',
      '/x',
      '9a',
      'a b',
      'a ',
      'é',
      'implementation',
      'src/a.ts',
      'x(1)+y-z',
    ];
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor(next() * 8);
      let s = '';
      for (let k = 0; k < n; k++) s += alphabet[Math.floor(next() * alphabet.length)];
      samples.push(s);
    }
    for (const s of samples) expect(isPlainString(s), JSON.stringify(s)).toBe(rule(s));
  });
});
