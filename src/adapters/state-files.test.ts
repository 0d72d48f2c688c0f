import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { readStateFile, renderStateFile } from './state-files.js';
import { StateFileError } from '../domain/errors.js';

const Schema = v.looseObject({ name: v.string(), count: v.number(), items: v.array(v.looseObject({ id: v.string() })) });
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
    await expect(readStateFile(root, REL, Schema)).rejects.toMatchObject({ code: 'STATE_FILE_INVALID', kind: 'state', message: expect.stringMatching(/^\.sow\/state\.yaml: count: /) });
    write('name: a\ncount: 1\nitems:\n  - id: 5\n');
    await expect(readStateFile(root, REL, Schema)).rejects.toThrow(/items\.0\.id/);
  });

  it('reports YAML syntax errors with the line and column', async () => {
    write('name: a\ncount: [1\n');
    await expect(readStateFile(root, REL, Schema)).rejects.toThrow(/not valid YAML at line \d+, column \d+/);
    write('name: a\n  bad: indent\ncount: 1\n');
    await expect(readStateFile(root, REL, Schema)).rejects.toThrow(/^\.sow\/state\.yaml: not valid YAML at line 1, column 7: Nested mappings/);
    write('name: a\nname: b\ncount: 1\nitems: []\n');
    await expect(readStateFile(root, REL, Schema)).rejects.toThrow(StateFileError);
  });
});

describe('renderStateFile', () => {
  it('keeps comments, key order and unknown keys of a file a person edited', async () => {
    write('# my notes\ncount: 1 # how many\nname: a\nextra: kept\nitems:\n  # the list\n  - id: x\n');
    const file = await readStateFile(root, REL, Schema);
    expect(file.handWritten).toBe(true);
    const text = await renderStateFile(file, REL, Schema, { ...file.data, count: 2, items: [...file.data.items, { id: 'z' }] });
    expect(text).toBe('# my notes\ncount: 2 # how many\nname: a\nextra: kept\nitems:\n  # the list\n  - id: x\n  - id: z\n');
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
    await expect(renderStateFile(undefined, REL, Schema, { name: 'a', count: 'x' } as never)).rejects.toThrow(/refusing to write/);
  });
});
