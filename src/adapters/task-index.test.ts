import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TaskSummary } from '../domain/schemas.js';
import { forgetTaskIndex, keepTaskIndex, listingsKept, listNames, TaskIndex } from './task-index.js';

const DIR = '.sow/project/phases/implementation/tasks';
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-index-'));
  mkdirSync(join(root, DIR, '010'), { recursive: true });
});
afterEach(() => {
  forgetTaskIndex();
  rmSync(root, { recursive: true, force: true });
});

/** Reads every task with a loader that counts the files it had to read. */
async function list(now: number): Promise<{ names: string[]; read: string[] }> {
  const read: string[] = [];
  const index = TaskIndex.open(root);
  const summaries = await index.summaries(
    DIR,
    ['010'],
    async (id, _rel, text) => {
      read.push(id);
      return { id, name: text!.trim(), status: 'pending', parallel: false, dependencies: [] } satisfies TaskSummary;
    },
    now,
  );
  index.save();
  return { names: summaries.map((s) => s.name), read };
}

const LATER = () => Date.now() + 60_000;

describe('the task index kept in memory by a long-lived process', () => {
  it('needs no index file, and still reads a task file that changed since', async () => {
    keepTaskIndex();
    writeFileSync(join(root, DIR, '010', 'state.yaml'), 'first\n');
    expect(await list(LATER())).toEqual({ names: ['first'], read: ['010'] });
    // The file on disk is gone: the entry kept in memory answers, checked against the task file's stat.
    rmSync(join(root, '.sow/.runtime/tasks.json'));
    expect(await list(LATER())).toEqual({ names: ['first'], read: [] });
    writeFileSync(join(root, DIR, '010', 'state.yaml'), 'second, longer\n');
    expect(await list(LATER())).toEqual({ names: ['second, longer'], read: ['010'] });
  });

  it('a one-shot command reads the index file each time', async () => {
    writeFileSync(join(root, DIR, '010', 'state.yaml'), 'first\n');
    expect((await list(LATER())).read).toEqual(['010']);
    expect((await list(LATER())).read).toEqual([]);
    rmSync(join(root, '.sow/.runtime/tasks.json'));
    expect((await list(LATER())).read).toEqual(['010']);
  });

  it('a file that has not settled is not kept, in memory or on disk', async () => {
    keepTaskIndex();
    writeFileSync(join(root, DIR, '010', 'state.yaml'), 'first\n');
    expect((await list(Date.now())).read).toEqual(['010']);
    expect((await list(Date.now())).read).toEqual(['010']);
  });
});

describe('folder listings kept by a long-lived process', () => {
  it('a folder is listed again when an entry is added or removed; a copy is handed out', () => {
    keepTaskIndex();
    // Dated back, so that the change below cannot fall in the same tick of the clock.
    const past = () => utimesSync(join(root, DIR), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    past();
    const first = listNames(root, DIR, LATER());
    expect(first).toEqual(['010']);
    expect(listingsKept()).toBe(1);
    first.push('999');
    expect(listNames(root, DIR, LATER())).toEqual(['010']);
    mkdirSync(join(root, DIR, '020'));
    expect(listNames(root, DIR, LATER()).sort()).toEqual(['010', '020']);
    past();
    expect(listNames(root, DIR, LATER()).sort()).toEqual(['010', '020']);
    rmSync(join(root, DIR, '010'), { recursive: true });
    expect(listNames(root, DIR, LATER())).toEqual(['020']);
  });

  it('a folder that has not settled is not kept; a one-shot command keeps none', () => {
    expect(listNames(root, DIR, LATER())).toEqual(['010']);
    expect(listingsKept()).toBe(0);
    keepTaskIndex();
    expect(listNames(root, DIR, Date.now())).toEqual(['010']);
    expect(listingsKept()).toBe(0);
  });
});
