import { describe, expect, it } from 'vitest';
import { parse, parseDocument, stringify } from 'yaml';
import { emitYaml } from './emit.js';
import { MAX_DEPTH, parseCanonicalYaml } from './canonical.js';
import { plainData } from './data.js';

/** What the `yaml` package makes of `text` the way document.ts asks it, or undefined when it refuses it. */
function reference(text: string): unknown {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, intAsBigInt: true });
  return doc.errors.length ? undefined : plainData(doc.toJS({ maxAliasCount: 100 }));
}

/**
 * The fast reader either gives exactly what yaml gives, and the emitter writes it back byte for byte, or it
 * declines.
 */
function agrees(text: string): boolean {
  const fast = parseCanonicalYaml(text);
  if (fast === undefined) return true;
  expect(fast, `fast reader on:\n${text}`).toEqual(reference(text));
  expect(emitYaml(fast as Record<string, unknown>), `written back:\n${text}`).toBe(text);
  return false;
}

// A small seeded generator, so a failure can be replayed.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const STRINGS = [
  'add-auth',
  'ImplementationExecuting',
  'planning/tasks.md',
  '../knowledge/adr-001.md',
  'Fix the bug (urgent)',
  'a  b',
  'x+y',
  '010',
  '1e3',
  'true',
  'False',
  'null',
  '~',
  'yes',
  'N',
  'on',
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
  "it's",
  'multi\nline',
  'tab\there',
  '@at',
  '`tick',
  '!tag',
  '&a',
  '*a',
  '|',
  '>',
  '---',
  '...',
  'emoji 🚀',
  'ctrl \u0001 \u007f \u0085 \u009f',
  '\ufeffbom',
  'a\u2028b',
  'back\\slash',
  '.inf',
  '-.5',
  '0x1F',
  '2026-11-26T00:00:00.000Z',
  '__proto__x',
  'constructor',
  'ü',
  '/',
];
const KEYS = STRINGS.filter((s) => s !== 'constructor');
const NUMBERS = [
  0,
  1,
  -1,
  10,
  1.5,
  -2.25,
  1e21,
  1e-7,
  123456789012,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  NaN,
  Infinity,
  -Infinity,
];

function value(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 3 || k < 0.45) {
    const pick = r();
    if (pick < 0.55) return STRINGS[Math.floor(r() * STRINGS.length)];
    if (pick < 0.8) return NUMBERS[Math.floor(r() * NUMBERS.length)];
    if (pick < 0.9) return r() < 0.5;
    return null;
  }
  if (k < 0.75) {
    const out: Record<string, unknown> = {};
    const n = Math.floor(r() * 5);
    // Keys never name object internals (`constructor`): state files refuse those (see below).
    for (let i = 0; i < n; i++) out[KEYS[Math.floor(r() * KEYS.length)]!] = value(r, depth + 1);
    return out;
  }
  return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
}

/** Ways a person or another tool changes a file: each must be read right or declined. */
const MANGLERS: ((text: string, r: () => number) => string)[] = [
  (t, r) => insertAt(t, r, ' # a comment'),
  (t, r) => insertAt(t, r, '\n# a comment line'),
  (t, r) => insertAt(t, r, ' '),
  (t, r) => insertAt(t, r, '  '),
  (t, r) => insertAt(t, r, '\t'),
  (t, r) => insertAt(t, r, '\r'),
  (t, r) => insertAt(t, r, '\n'),
  (t, r) => insertAt(t, r, ':'),
  (t, r) => insertAt(t, r, '- '),
  (t, r) => insertAt(t, r, '"'),
  (t, r) => insertAt(t, r, "'"),
  (t, r) => insertAt(t, r, '&x '),
  (t, r) => insertAt(t, r, '\\x41'),
  (t, r) => deleteAt(t, r, 1),
  (t, r) => deleteAt(t, r, 2),
  (t) => t.replace(/\n$/, ''),
  (t) => t.replaceAll('\n', '\r\n'),
  (t) => `---\n${t}`,
  (t) => t.replaceAll('  ', '    '),
  (t, r) => {
    const lines = t.split('\n');
    const i = Math.floor(r() * (lines.length - 1));
    lines.splice(i + 1, 0, lines[i]!); // a duplicated line: often a duplicate key
    return lines.join('\n');
  },
  (t, r) => {
    const lines = t.split('\n');
    const i = Math.floor(r() * (lines.length - 1));
    lines[i] = lines[i]!.replace(/^ {2}/, ''); // one line dedented
    return lines.join('\n');
  },
  (t, r) => {
    const lines = t.split('\n');
    const i = Math.floor(r() * (lines.length - 1));
    lines[i] = `  ${lines[i]}`; // one line indented
    return lines.join('\n');
  },
];

function insertAt(t: string, r: () => number, s: string): string {
  const i = Math.floor(r() * t.length);
  return t.slice(0, i) + s + t.slice(i);
}
function deleteAt(t: string, r: () => number, n: number): string {
  const i = Math.floor(r() * t.length);
  return t.slice(0, i) + t.slice(i + n);
}

describe('parseCanonicalYaml', () => {
  it('reads everything the emitter writes, exactly as yaml does', () => {
    const r = rng(1);
    for (let n = 0; n < 3000; n++) {
      const v = r() < 0.8 ? { root: value(r, 0), list: [value(r, 1), value(r, 1)] } : value(r, 0);
      if (v === null || typeof v !== 'object') continue;
      const text = emitYaml(v as Record<string, unknown>);
      const fast = parseCanonicalYaml(text);
      expect(fast, `declined what the emitter wrote:\n${text}`).not.toBeUndefined();
      expect(fast).toEqual(reference(text));
      expect(emitYaml(fast as Record<string, unknown>)).toBe(text);
      // (An empty list at the top is written as {}, which no state file is.)
      if (!(Array.isArray(v) && v.length === 0)) expect(fast).toEqual(v);
    }
  });

  it('reads a state file as sow writes it', () => {
    const text = [
      'name: add-auth',
      'branch: feat/add-auth',
      'created_at: "2026-11-26T00:46:15.240Z"',
      'statechart:',
      '  current_state: ImplementationExecuting',
      'phases:',
      '  implementation:',
      '    iteration: 2',
      '    metadata: {}',
      '    inputs: []',
      '    tasks:',
      '      - id: "010"',
      '        name: "Write the JWT middleware: tokens"',
      '        parallel: false',
      '        dependencies:',
      '          - "005"',
      '        agent: null',
      '      -',
      '        - 1',
      '        - nested: .inf',
      '',
    ].join('\n');
    const fast = parseCanonicalYaml(text);
    expect(fast).toEqual(parse(text));
    expect(fast).toMatchObject({
      phases: {
        implementation: { tasks: [{ id: '010', dependencies: ['005'], agent: null }, [1, { nested: Infinity }]] },
      },
    });
  });

  it('declines what it does not know, rather than guess', () => {
    const declined = [
      '',
      '\n',
      'a: 1\n\nb: 2\n', // blank line
      'a: 1 # comment\n',
      '# comment\na: 1\n',
      'a:\n- 1\n', // a list not indented under its key
      'a:\n    b: 1\n', // four spaces
      'a: 1\na: 2\n', // duplicate key
      '__proto__: 1\n',
      'constructor: 1\n',
      'a:\n  prototype: x\n',
      'a: yes\n',
      'a: 010\n',
      'a: 1E3\n',
      "a: 'single'\n",
      'a: "\\x41"\n',
      'a: [1, 2]\n',
      'a: {b: 1}\n',
      'a: &x 1\nb: *x\n',
      'a: |\n  text\n',
      'a:\n',
      'a: b\n  c: d\n',
      '---\na: 1\n',
      'a:\tb\n',
      'a: 1\r\n',
      'key with trailing space : 1\n',
      'a: "unterminated\n',
      'a: "carriage\rreturn"\n', // raw control characters in quotes: left to yaml
      'a: "raw\ttab"\n',
      'a: "x" y\n',
      '- - 1\n',
    ];
    for (const text of declined) expect(parseCanonicalYaml(text), JSON.stringify(text)).toBeUndefined();
  });

  it('declines every spelling the emitter would not write, so writing it back changes no byte', () => {
    const declined = [
      'a: 1', // no final newline
      'a: 1e3\n',
      'a: 1.0\n',
      'a: 1.50\n',
      'a: -0\n',
      'a: 0.1e1\n',
      'a: 1e+3\n',
      'a: "word"\n', // quotes the emitter leaves off
      'a: "\\u0041"\n', // an escape for a letter
      'a: "\\/"\n',
      'a: "x\u007fy"\n', // raw characters the emitter escapes
      'a: "x\u0090y"\n',
      'a: "\ufeffx"\n',
      '"a": 1\n',
      '- \n',
      '-\n  a: 1\n', // a map under a bare dash: the emitter writes `- a: 1`
    ];
    for (const text of declined) expect(parseCanonicalYaml(text), JSON.stringify(text)).toBeUndefined();
  });

  it('reads every short spelling of digits, signs, points and exponents as yaml does, or declines it', () => {
    const r = rng(35);
    const alphabet = '0159-+.eE x';
    let read = 0;
    for (let k = 0; k < 20_000; k++) {
      let s = '';
      for (let n = Math.floor(r() * 8); n > 0; n--) s += alphabet[Math.floor(r() * alphabet.length)];
      if (!agrees(`a: ${s}\n`)) read++;
    }
    expect(read, 'numbers and words read, not only declined').toBeGreaterThan(5_000);
  });

  it('leaves integers beyond 2^53 to yaml, which reads them exactly', () => {
    expect(parseCanonicalYaml('a: 9007199254740991\n')).toEqual({ a: 9007199254740991 });
    for (const n of ['9007199254740992', '12345678901234567890', '-99999999999999999999']) {
      const text = `a: ${n}\n`;
      expect(parseCanonicalYaml(text)).toBeUndefined();
      expect(reference(text)).toEqual({ a: BigInt(n) });
    }
  });

  it(`declines nesting deeper than ${MAX_DEPTH} levels (the yaml package path refuses it)`, () => {
    const nest = (depth: number) =>
      Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}a:${i === depth - 1 ? ' 1' : ''}`).join('\n') + '\n';
    expect(parseCanonicalYaml(nest(MAX_DEPTH))).not.toBeUndefined();
    expect(parseCanonicalYaml(nest(MAX_DEPTH + 1))).toBeUndefined();
  });

  it('reads a changed file right or declines it (mangled emitter output, against yaml)', () => {
    const r = rng(7);
    let read = 0;
    let declined = 0;
    for (let n = 0; n < 4000; n++) {
      const v = { root: value(r, 0), tasks: [value(r, 1), { id: '010', name: 'x', deps: ['a', 'b'] }] };
      let text = emitYaml(v);
      const times = 1 + Math.floor(r() * 2);
      for (let m = 0; m < times; m++) text = MANGLERS[Math.floor(r() * MANGLERS.length)]!(text, r);
      if (agrees(text)) declined++;
      else read++;
    }
    // Both outcomes happen, so the comparison above is not empty.
    expect(read).toBeGreaterThan(200);
    expect(declined).toBeGreaterThan(500);
  });

  it(
    'keeps raw characters in double quotes as yaml does (line and paragraph separators, NEL), where the emitter ' +
      'leaves them raw',
    () => {
      for (const c of ['\u2028', '\u2029', '\u0085', 'é', '🚀']) {
        const text = `a: "x${c}y"\n`;
        expect(parseCanonicalYaml(text)).toEqual({ a: `x${c}y` });
        expect(parseCanonicalYaml(text)).toEqual(reference(text));
        expect(emitYaml(parseCanonicalYaml(text) as Record<string, unknown>)).toBe(text);
      }
    },
  );

  it('agrees with yaml on what yaml itself writes for the same data', () => {
    const r = rng(3);
    for (let n = 0; n < 1000; n++) agrees(stringify({ root: value(r, 0), list: [value(r, 1)] }));
  });
});
