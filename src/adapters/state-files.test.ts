import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import {
  forgetParsedStateFiles,
  keepParsedStateFiles,
  parsedStateFilesKept,
  readStateFile,
  rememberedStateFile,
  renderStateFile,
} from './state-files.js';
import { StateFileError } from '../domain/errors.js';

const Schema = v.looseObject({
  name: v.string(),
  count: v.number(),
  items: v.array(v.looseObject({ id: v.string() })),
});
let root: string;
const REL = '.sow/state.yaml';

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-state-'));
  mkdirSync(join(root, '.sow'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (text: string) => writeFileSync(join(root, REL), text);

describe('readStateFile', () => {
  it('parses and validates every read, and writes nothing beside the file', async () => {
    write('name: a\ncount: 1\nitems: []\n');
    const first = await readStateFile(root, REL, Schema);
    expect(first.data).toEqual({ name: 'a', count: 1, items: [] });
    expect(first.handWritten).toBe(false);
    // A change by anyone else (same length, different text) is seen at once.
    write('name: b\ncount: 1\nitems: []\n');
    expect((await readStateFile(root, REL, Schema)).data.name).toBe('b');
    const stricter = v.looseObject({ name: v.literal('z') });
    await expect(readStateFile(root, REL, stricter)).rejects.toThrow(StateFileError);
    expect(readdirSync(root)).toEqual(['.sow']);
    expect(readdirSync(join(root, '.sow'))).toEqual(['state.yaml']);
  });

  it('names the file and the field path of an invalid value', async () => {
    write('name: a\ncount: many\nitems: []\n');
    await expect(readStateFile(root, REL, Schema)).rejects.toMatchObject({
      code: 'STATE_FILE_INVALID',
      kind: 'state',
      message: expect.stringMatching(/^\.sow\/state\.yaml: count: /),
    });
    write('name: a\ncount: 1\nitems:\n  - id: 5\n');
    await expect(readStateFile(root, REL, Schema)).rejects.toThrow(/items\.0\.id/);
  });

  it('reports YAML syntax errors with the line and column', async () => {
    write('name: a\ncount: [1\n');
    await expect(readStateFile(root, REL, Schema)).rejects.toThrow(/not valid YAML at line \d+, column \d+/);
    write('name: a\n  bad: indent\ncount: 1\n');
    await expect(readStateFile(root, REL, Schema)).rejects.toThrow(
      /^\.sow\/state\.yaml: not valid YAML at line 1, column 7: Nested mappings/,
    );
    write('name: a\nname: b\ncount: 1\nitems: []\n');
    await expect(readStateFile(root, REL, Schema)).rejects.toThrow(StateFileError);
  });
});

describe('renderStateFile', () => {
  it('keeps comments, key order and unknown keys of a file a person edited', async () => {
    write('# my notes\ncount: 1 # how many\nname: a\nextra: kept\nitems:\n  # the list\n  - id: x\n');
    const file = await readStateFile(root, REL, Schema);
    expect(file.handWritten).toBe(true);
    const text = await renderStateFile(file, REL, Schema, {
      ...file.data,
      count: 2,
      items: [...file.data.items, { id: 'z' }],
    });
    expect(text).toBe(
      '# my notes\ncount: 2 # how many\nname: a\nextra: kept\nitems:\n  # the list\n  - id: x\n  - id: z\n',
    );
  });

  it('keeps the spelling of every value a write did not change, in a file that looks like sow wrote it', async () => {
    // No comment, two-space blocks: only `"a"`, `1e0` and the long integer are not the emitter's spellings.
    write('name: "a"\ncount: 1e0\nbig: 12345678901234567890\nitems:\n  - id: x\n');
    const file = await readStateFile(root, REL, Schema);
    expect(file.handWritten).toBe(true);
    const text = await renderStateFile(file, REL, Schema, { ...file.data, items: [{ id: 'w' }] });
    expect(text).toBe('name: "a"\ncount: 1e0\nbig: 12345678901234567890\nitems:\n  - id: w\n');
  });

  it('keeps an integer beyond 2^53 as written where the schema wants a number', async () => {
    write('name: a # x\ncount: 12345678901234567890\nitems: []\n');
    const file = await readStateFile(root, REL, Schema);
    expect(file.data.count).toBe(12345678901234567000);
    const text = await renderStateFile(file, REL, Schema, { ...file.data, name: 'b' });
    expect(text).toBe('name: b # x\ncount: 12345678901234567890\nitems: []\n');
  });

  it('writes comment-free files with the fast emitter, keeping key order', async () => {
    write('count: 1\nname: a\nitems: []\n');
    const file = await readStateFile(root, REL, Schema);
    const text = await renderStateFile(file, REL, Schema, { ...file.data, name: 'true' });
    expect(text).toBe('count: 1\nname: "true"\nitems: []\n');
  });

  it('refuses to render data its schema rejects', async () => {
    await expect(renderStateFile(undefined, REL, Schema, { name: 'a', count: 'x' } as never)).rejects.toThrow(
      /refusing to write/,
    );
  });
});

describe('a long-lived process keeps what it parsed, checked against the stat', () => {
  afterEach(() => forgetParsedStateFiles());
  const text = (name: string) => `name: ${name}\ncount: 1\nitems: []\n`;

  it(
    'a file changed since it was parsed is read again; ' + 'an unchanged one comes from memory, validated again',
    async () => {
      keepParsedStateFiles({ settleMs: -Infinity });
      write(text('a'));
      expect((await readStateFile(root, REL, Schema)).data.name).toBe('a');
      expect(parsedStateFilesKept()).toBe(1);
      write(text('bb'));
      expect((await readStateFile(root, REL, Schema)).data.name).toBe('bb');
      expect(rememberedStateFile(root, REL, Schema)?.data.name).toBe('bb');
      // A schema the kept parse does not meet is still refused: the data is validated on every use.
      await expect(readStateFile(root, REL, v.looseObject({ name: v.literal('z') }))).rejects.toThrow(StateFileError);
    },
  );

  it('each read gets its own copy: changing what one read returned changes nothing for the next', async () => {
    keepParsedStateFiles({ settleMs: -Infinity });
    write('name: a\ncount: 1\nitems:\n  - id: x\n');
    const first = await readStateFile(root, REL, Schema);
    first.data.items.push({ id: 'y' });
    first.data.name = 'changed';
    expect((await readStateFile(root, REL, Schema)).data).toEqual({ name: 'a', count: 1, items: [{ id: 'x' }] });
  });

  it(
    'a file whose timestamps have not settled is not kept (an edit within their granularity could hide behind the ' +
      'same stat)',
    async () => {
      let clock = Date.now();
      keepParsedStateFiles({ settleMs: 2_000, now: () => clock });
      write(text('a'));
      await readStateFile(root, REL, Schema);
      expect(parsedStateFilesKept()).toBe(0);
      expect(rememberedStateFile(root, REL, Schema)).toBeUndefined();
      clock += 60_000;
      await readStateFile(root, REL, Schema);
      expect(parsedStateFilesKept()).toBe(1);
      expect(rememberedStateFile(root, REL, Schema)?.data.name).toBe('a');
    },
  );

  it('a file replaced by a link out of .sow/ is refused, never answered from memory', async () => {
    keepParsedStateFiles({ settleMs: -Infinity });
    write(text('a'));
    await readStateFile(root, REL, Schema);
    const outside = mkdtempSync(join(tmpdir(), 'sow-outside-'));
    try {
      writeFileSync(join(outside, 'state.yaml'), text('a'));
      rmSync(join(root, REL));
      symlinkSync(join(outside, 'state.yaml'), join(root, REL));
      expect(rememberedStateFile(root, REL, Schema)).toBeUndefined();
      await expect(readStateFile(root, REL, Schema)).rejects.toMatchObject({ code: 'PATH_ESCAPES' });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a file that is gone is not answered from memory', async () => {
    keepParsedStateFiles({ settleMs: -Infinity });
    write(text('a'));
    await readStateFile(root, REL, Schema);
    rmSync(join(root, REL));
    expect(rememberedStateFile(root, REL, Schema)).toBeUndefined();
    await expect(readStateFile(root, REL, Schema)).rejects.toThrow(/missing/);
  });

  it('a one-shot command keeps nothing', async () => {
    write(text('a'));
    await readStateFile(root, REL, Schema);
    expect(parsedStateFilesKept()).toBe(0);
    expect(rememberedStateFile(root, REL, Schema)).toBeUndefined();
  });
});

describe('what a long-lived process keeps: only the form sow writes', () => {
  afterEach(() => forgetParsedStateFiles());
  it('a hand-written file (a comment) is read again every time', async () => {
    keepParsedStateFiles({ settleMs: -Infinity });
    write('# mine\nname: a\ncount: 1\nitems: []\n');
    const first = await readStateFile(root, REL, Schema);
    expect(first.handWritten).toBe(true);
    expect(parsedStateFilesKept()).toBe(0);
    expect((await readStateFile(root, REL, Schema)).handWritten).toBe(true);
  });
});
