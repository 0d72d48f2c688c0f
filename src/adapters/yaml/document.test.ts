import { Parser } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { setAtPath } from '../../domain/fields.js';
import { editYaml, parseYaml, YamlRefusedError } from './document.js';

type Data = Record<string, any>;

/** Parses `text` as sow does, changes the data the way sow's commands do (copy on write), and writes it back. */
async function edit(text: string, change: (data: Data) => Data): Promise<string> {
  const { data } = await parseYaml(text);
  const next = change(data as Data);
  const out = await editYaml(text, next);
  // Whatever the text, it holds exactly the new data.
  expect((await parseYaml(out)).data).toEqual(next);
  return out;
}

const set = (path: string, value: unknown) => (data: Data) => setAtPath(data, path.split('.'), value);
const without = (path: string) => (data: Data) => {
  const keys = path.split('.');
  const last = keys.pop()!;
  const parent = keys.reduce((d, k) => d[k], data);
  const { [last]: _gone, ...rest } = parent;
  return keys.length ? setAtPath(data, keys, rest) : rest;
};

/** `text` with line `n` (1-based) replaced by `lines` (none: removed). */
function withLines(text: string, n: number, ...lines: string[]): string {
  const all = text.split('\n');
  all.splice(n - 1, 1, ...lines);
  return all.join('\n');
}

/** A task file as a person might leave it: every kind of value sow meets in free-form metadata. */
const TASK = `# Task notes, by hand
id: "010"
name: First task   # what we agreed
phase: implementation
status: pending
iteration: 1
parallel: false
dependencies: []
created_at: "2026-11-26T16:18:51.638Z"
updated_at: '2026-11-26T16:18:51.638Z'
inputs: []
outputs:
  - type: review
    path: review/one.md
    created_at: "2026-11-26T16:18:51.638Z"

  # the second one is older
  - type: reference
    path: ref.md
    created_at: "2026-11-26T16:18:51.638Z"
metadata:
  big: 9999999999999999
  bigger: 12345678901234567890
  negative: -99999999999999999999
  oct: 007
  octal: 0o17
  hex: 0x1F
  exp: 1e3
  float: 3.14159265358979323846
  inf: .inf
  ninf: -.inf
  nan: .nan
  tilde: ~
  null_word: null
  empty:
  yes_string: yes
  no_string: no
  set: !!set {a, b}
  omap: !!omap [a: 1, b: 2]
  binary: !!binary aGVsbG8=
  custom: !mytag foo
  anchor: &A {x: 1, y: [1, 2]}
  alias: *A
  flow: {a: 1, b: "two"}   # comment after a flow map
  seq: [1, 2, 3]
  literal: |
    line one
    line two
  folded: >-
    folded
    text
  keep: |+
    kept

  quoted: "tab\\there \\u00e9 \\x41"
  single: 'it''s'
  multi: "a
    b"
# a comment at the end
`;

describe('parseYaml: what a person wrote, read exactly', () => {
  it('reads integers beyond 2^53 exactly, and the YAML-only kinds as plain data', async () => {
    const { data, handWritten } = await parseYaml(TASK);
    expect(handWritten).toBe(true);
    expect((data as Data)['metadata']).toEqual({
      big: 9999999999999999n,
      bigger: 12345678901234567890n,
      negative: -99999999999999999999n,
      oct: 7,
      octal: 15,
      hex: 31,
      exp: 1000,
      float: 3.141592653589793,
      inf: Infinity,
      ninf: -Infinity,
      nan: NaN,
      tilde: null,
      null_word: null,
      empty: null,
      yes_string: 'yes',
      no_string: 'no',
      set: ['a', 'b'],
      omap: { a: 1, b: 2 },
      binary: 'aGVsbG8=',
      custom: 'foo',
      anchor: { x: 1, y: [1, 2] },
      alias: { x: 1, y: [1, 2] },
      flow: { a: 1, b: 'two' },
      seq: [1, 2, 3],
      literal: 'line one\nline two\n',
      folded: 'folded text',
      keep: 'kept\n\n',
      quoted: 'tab\there é A',
      single: "it's",
      multi: 'a b',
    });
    expect((data as Data)['iteration']).toBe(1); // a number, as the schemas want
  });

  it('refuses an alias bomb at once, without expanding it', async () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 30; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    await expect(parseYaml(`${lines.join('\n')}\n`)).rejects.toThrow(YamlRefusedError);
    await expect(parseYaml(`${lines.join('\n')}\n`)).rejects.toThrow(/aliases \(\*name\) that would repeat/);
  });

  it('reads a few aliases', async () => {
    const text = `base: &b {x: 1}\n${Array.from({ length: 20 }, (_, i) => `k${i}: *b`).join('\n')}\n`;
    expect(((await parseYaml(text)).data as Data)['k19']).toEqual({ x: 1 });
  });

  it('refuses an alias inside its own anchor (a value that contains itself)', async () => {
    await expect(parseYaml('a: &x [1, *x]\n')).rejects.toThrow(YamlRefusedError);
    await expect(parseYaml('a: &x [1, *x]\n')).rejects.toThrow(
      /alias \*x \(line 1, column 11\) inside the value its anchor names/,
    );
    await expect(parseYaml('a: &x {b: {c: *x}}\n')).rejects.toThrow(/contains itself/);
    // An alias after its anchor, and the same name anchored again later, are fine.
    expect((await parseYaml('a: &x [1]\nb: [*x]\nc: &x [2]\nd: *x\n')).data).toEqual({
      a: [1],
      b: [[1]],
      c: [2],
      d: [2],
    });
  });

  it('refuses nesting deeper than 100 levels, without overflowing the stack', async () => {
    const flow = `a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    await expect(parseYaml(flow)).rejects.toThrow(YamlRefusedError);
    await expect(parseYaml(flow)).rejects.toThrow(/more than 100 levels deep \(line 1, column 103\)/);
    const seq = `${'- '.repeat(20_000)}x\n`;
    await expect(parseYaml(seq)).rejects.toThrow(/more than 100 levels deep/);
    const ok = `a: ${'['.repeat(99)}${']'.repeat(99)}\n`;
    expect((await parseYaml(ok)).handWritten).toBe(true);
    const block = `${Array.from({ length: 101 }, (_, i) => `${'  '.repeat(i)}k:`).join('\n')} 1\n`;
    await expect(parseYaml(block)).rejects.toThrow(/more than 100 levels deep/);
  });

  it('refuses a file of more than 100,000 values (lines and commas) before parsing it', async () => {
    await expect(parseYaml(`a: [${'1,'.repeat(100_000)}1]\n`)).rejects.toThrow(
      /holds more than 100,000 values \(lines and commas\)/,
    );
  });

  it('refuses too deep a nesting as soon as the parser reaches it, not after parsing the whole file', async () => {
    // Each lexical token goes through Parser.next: refused at the 101st level, a few hundred of
    // them; read to the end, 200,000 (and half a second).
    const next = vi.spyOn(Parser.prototype, 'next');
    try {
      await expect(parseYaml(`a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`)).rejects.toThrow(
        /more than 100 levels deep \(line 1, column 103\)/,
      );
      expect(next.mock.calls.length).toBeLessThan(500);
      next.mockClear();
      await expect(parseYaml(`${'- '.repeat(20_000)}x\n`)).rejects.toThrow(
        /more than 100 levels deep \(line 1, column 201\)/,
      );
      expect(next.mock.calls.length).toBeLessThan(500);
    } finally {
      next.mockRestore();
    }
  });

  it('refuses a second document', async () => {
    await expect(parseYaml('a: 1\n---\nb: 2\n')).rejects.toThrow(/more than one document/);
  });

  it('says where a syntax error is', async () => {
    await expect(parseYaml('a: 1\nb: [1\n')).rejects.toThrow(YamlRefusedError);
    await expect(parseYaml('a: 1\nb: [1\n')).rejects.toThrow(/^not valid YAML at line 3, column \d+: /);
  });
});

describe('editYaml: a write changes only what changed', () => {
  it(
    'leaves every other byte as written: number spellings, tags, anchors, aliases, flow style, block scalars, ' +
      'quotes, comments',
    async () => {
      const out = await edit(TASK, set('status', 'in_progress'));
      expect(out).toBe(withLines(TASK, 5, 'status: in_progress'));
    },
  );

  it("adds a key after the last one of its map, in the map's indentation", async () => {
    const out = await edit(TASK, set('metadata.reviewer', 'alice'));
    expect(out).toBe(TASK.replace('# a comment at the end', '  reviewer: alice\n# a comment at the end'));
  });

  it('rewrites a changed scalar in the quoting it had, where that quoting can hold it', async () => {
    expect(await edit(TASK, set('updated_at', '2027-01-01T00:00:00.000Z'))).toBe(
      withLines(TASK, 10, "updated_at: '2027-01-01T00:00:00.000Z'"),
    );
    expect(await edit(TASK, set('metadata.quoted', 'new'))).toBe(TASK.replace('"tab\\there \\u00e9 \\x41"', '"new"'));
    expect(await edit(TASK, set('metadata.single', 'a\nb'))).toBe(TASK.replace("'it''s'", '"a\\nb"'));
    expect(await edit(TASK, set('name', 'Second: task'))).toBe(
      withLines(TASK, 3, 'name: "Second: task"   # what we agreed'),
    );
    expect(await edit(TASK, set('metadata.hex', 32))).toBe(TASK.replace('0x1F', '32'));
  });

  it('keeps a value sow cannot hold exactly as written, and writes one it holds exactly', async () => {
    const out = await edit(TASK, set('metadata.bigger', 98765432109876543210n));
    expect(out).toBe(TASK.replace('12345678901234567890', '98765432109876543210'));
    expect(await edit(TASK, set('metadata.float', 2.5))).toBe(TASK.replace('3.14159265358979323846', '2.5'));
  });

  it('writes .inf, -.inf and .nan, and reads them back', async () => {
    const out = await edit(TASK, (d) => set('metadata.exp', NaN)(set('metadata.tilde', -Infinity)(d)));
    expect(out).toBe(TASK.replace('exp: 1e3', 'exp: .nan').replace('tilde: ~', 'tilde: -.inf'));
  });

  it('gives a value a person left empty', async () => {
    expect(await edit(TASK, set('metadata.empty', 'now'))).toBe(TASK.replace('  empty:\n', '  empty: now\n'));
  });

  it('keeps a custom tag on a changed value; a YAML tag goes with the kind it named', async () => {
    expect(await edit(TASK, set('metadata.custom', 'bar'))).toBe(TASK.replace('!mytag foo', '!mytag bar'));
    expect(await edit(TASK, set('metadata.set', ['a', 'b', 'c']))).toBe(TASK.replace('!!set {a, b}', '[a, b, c]'));
    expect(await edit(TASK, set('metadata.binary', 'plain'))).toBe(TASK.replace('!!binary aGVsbG8=', 'plain'));
  });

  it('keeps block scalars block scalars', async () => {
    expect(await edit(TASK, set('metadata.literal', 'one\ntwo\nthree\n'))).toBe(
      TASK.replace('    line one\n    line two\n', '    one\n    two\n    three\n'),
    );
    expect(await edit(TASK, set('metadata.literal', 'one line'))).toBe(
      TASK.replace('|\n    line one\n    line two\n', 'one line\n'),
    );
  });

  it('adds to and takes from flow collections item by item', async () => {
    expect(await edit(TASK, set('metadata.seq', [1, 2, 3, 4]))).toBe(TASK.replace('[1, 2, 3]', '[1, 2, 3, 4]'));
    expect(await edit(TASK, set('metadata.seq', [1, 3]))).toBe(TASK.replace('[1, 2, 3]', '[1, 3]'));
    expect(await edit(TASK, set('metadata.seq', [0, 1, 2, 3]))).toBe(TASK.replace('[1, 2, 3]', '[0, 1, 2, 3]'));
    expect(await edit(TASK, set('metadata.seq', [2, 3]))).toBe(TASK.replace('[1, 2, 3]', '[2, 3]'));
    expect(await edit(TASK, set('metadata.flow.c', 'x y'))).toBe(
      TASK.replace('{a: 1, b: "two"}', '{a: 1, b: "two", c: x y}'),
    );
    expect(await edit(TASK, without('metadata.flow.a'))).toBe(TASK.replace('{a: 1, b: "two"}', '{b: "two"}'));
    expect(await edit(TASK, set('metadata.flow', {}))).toBe(TASK.replace('{a: 1, b: "two"}', '{}'));
  });

  it('adds to and takes from block lists item by item, comments between items kept', async () => {
    const added = { type: 'feedback', path: 'fb.md', created_at: '2026-11-27T00:00:00.000Z' };
    const out = await edit(TASK, (d) => ({ ...d, outputs: [...d['outputs'], added] }));
    expect(out).toBe(
      TASK.replace(
        '    path: ref.md\n    created_at: "2026-11-26T16:18:51.638Z"\n',
        '    path: ref.md\n    created_at: "2026-11-26T16:18:51.638Z"\n  - type: feedback\n    path: fb.md\n    ' +
          'created_at: "2026-11-27T00:00:00.000Z"\n',
      ),
    );
    const first = await edit(TASK, (d) => ({ ...d, outputs: d['outputs'].slice(1) }));
    expect(first).toBe(
      TASK.replace('  - type: review\n    path: review/one.md\n    created_at: "2026-11-26T16:18:51.638Z"\n', ''),
    );
    const second = await edit(TASK, (d) => ({ ...d, outputs: d['outputs'].slice(0, 1) }));
    expect(second).toBe(
      TASK.replace('  - type: reference\n    path: ref.md\n    created_at: "2026-11-26T16:18:51.638Z"\n', ''),
    );
    const inside = await edit(
      TASK,
      set('outputs', [
        { type: 'review', path: 'review/one.md', created_at: '2026-11-26T16:18:51.638Z', approved: true },
        ((await parseYaml(TASK)) as any).data.outputs[1],
      ]),
    );
    expect(inside).toBe(
      TASK.replace(
        '    path: review/one.md\n    created_at: "2026-11-26T16:18:51.638Z"\n',
        '    path: review/one.md\n    created_at: "2026-11-26T16:18:51.638Z"\n    approved: true\n',
      ),
    );
  });

  it('fills an empty `[]` or `{}` in the block form sow writes', async () => {
    const input = { type: 'context', path: 'c.md', created_at: '2026-11-27T00:00:00.000Z' };
    expect(await edit(TASK, set('inputs', [input]))).toBe(
      withLines(
        TASK,
        11,
        'inputs:',
        '  - type: context',
        '    path: c.md',
        '    created_at: "2026-11-27T00:00:00.000Z"',
      ),
    );
  });

  it("removes a key's lines and nothing else", async () => {
    expect(await edit(TASK, without('metadata.hex'))).toBe(TASK.replace('  hex: 0x1F\n', ''));
    expect(await edit(TASK, without('name'))).toBe(withLines(TASK, 3));
    expect(await edit(TASK, without('metadata.literal'))).toBe(
      TASK.replace('  literal: |\n    line one\n    line two\n', ''),
    );
  });

  it("writes a value that changed kind in sow's form, keeping the comment after it", async () => {
    expect(await edit(TASK, set('name', { first: 'a', second: 'b' }))).toBe(
      withLines(TASK, 3, 'name: # what we agreed', '  first: a', '  second: b'),
    );
    expect(await edit(TASK, set('metadata.tilde', { a: 1 }))).toBe(
      TASK.replace('  tilde: ~\n', '  tilde:\n    a: 1\n'),
    );
    expect(await edit(TASK, set('metadata.literal', ['x']))).toBe(
      TASK.replace('  literal: |\n    line one\n    line two\n', '  literal:\n    - x\n'),
    );
  });

  describe('anchors and aliases', () => {
    it('an alias whose value changed is written out; its anchor keeps its value', async () => {
      expect(await edit(TASK, set('metadata.alias.x', 5))).toBe(
        TASK.replace('alias: *A', 'alias: {x: 5, "y": [1, 2]}'),
      );
    });

    it('an anchor whose value changed changes; an alias that keeps the old value is written out', async () => {
      expect(await edit(TASK, set('metadata.anchor.x', 5))).toBe(
        TASK.replace('&A {x: 1, y: [1, 2]}', '&A {x: 5, y: [1, 2]}').replace('alias: *A', 'alias: {x: 1, "y": [1, 2]}'),
      );
    });

    it('an alias that changed with its anchor stays an alias', async () => {
      const both = await edit(TASK, (d) => set('metadata.alias', { x: 5, y: [1, 2] })(set('metadata.anchor.x', 5)(d)));
      expect(both).toBe(TASK.replace('&A {x: 1, y: [1, 2]}', '&A {x: 5, y: [1, 2]}'));
    });

    it('an alias whose anchor is removed is written out', async () => {
      expect(await edit(TASK, without('metadata.anchor'))).toBe(
        TASK.replace('  anchor: &A {x: 1, y: [1, 2]}\n', '').replace('alias: *A', 'alias: {x: 1, "y": [1, 2]}'),
      );
    });

    it('a scalar alias in a list, its anchor changed', async () => {
      const text = 'a: &who alice\nlist:\n  - *who\n  - bob\n';
      expect(await edit(text, set('a', 'carol'))).toBe('a: &who carol\nlist:\n  - alice\n  - bob\n');
      expect(await edit(text, set('list', ['alice', 'bob', 'dan']))).toBe(
        'a: &who alice\nlist:\n  - *who\n  - bob\n  - dan\n',
      );
    });
  });

  it('splices a map whose keys are collections, aliases, or carry props', async () => {
    const text = '? [a, b]\n: 1 # c\nstatus: pending\n';
    expect(await edit(text, set('status', 'done'))).toBe('? [a, b]\n: 1 # c\nstatus: done\n');
    expect(await edit(text, without('[ a, b ]'))).toBe('status: pending\n');
    // An alias as a key keeps the key it named when its anchor changes.
    expect(await edit('k: &a x\n*a : 1\n', set('k', 'z'))).toBe('k: &a z\nx : 1\n');
    expect(await edit('&k first: 1\nb: 2\n', set('c', 3))).toBe('&k first: 1\nb: 2\nc: 3\n');
    expect(await edit('!!str first: 1\nb: 2\n', set('c', { d: 1 }))).toBe('!!str first: 1\nb: 2\nc:\n  d: 1\n');
  });

  it('keeps the line endings and the missing final newline of the file', async () => {
    const crlf = 'a: 1 # one\r\nb:\r\n  - x\r\n';
    expect(await edit(crlf, (d) => ({ ...set('a', 2)(d), c: { d: 1 } }))).toBe(
      'a: 2 # one\r\nb:\r\n  - x\r\nc:\r\n  d: 1\r\n',
    );
    expect(await edit(crlf, set('b', ['x', 'z']))).toBe('a: 1 # one\r\nb:\r\n  - x\r\n  - z\r\n');
    const bare = '# no newline at the end\na: 1\nb: 2';
    expect(await edit(bare, set('c', 3))).toBe('# no newline at the end\na: 1\nb: 2\nc: 3');
    expect(await edit(bare, set('b', 'two'))).toBe('# no newline at the end\na: 1\nb: two');
  });

  it("removes the first key of a map that starts on its list item's line", async () => {
    const text = 'list:\n  - a: 1\n    b: 2 # two\n';
    expect(await edit(text, set('list', [{ b: 2 }]))).toBe('list:\n  - b: 2 # two\n');
    expect(await edit(text, set('list', [{ a: 1, b: 3 }]))).toBe('list:\n  - a: 1\n    b: 3 # two\n');
    expect(await edit(text, set('list', [{ a: 1, b: 2 }, 'new']))).toBe('list:\n  - a: 1\n    b: 2 # two\n  - new\n');
  });

  it('writes a list item that became a map as `- key: value`', async () => {
    expect(await edit('list:\n  - one\n  - two\n', set('list', ['one', { k: 'v', w: 1 }]))).toBe(
      'list:\n  - one\n  - k: v\n    w: 1\n',
    );
  });

  it('still holds the new value when a shape defeats the splice', async () => {
    // A list of lists written compactly: inserting before its first item is not spliced.
    const text = '# kept\nlist:\n- - a\n  - b\n';
    const out = await edit(text, set('list', [['z', 'a', 'b']]));
    expect(out).toContain('# kept');
  });
});
