import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TaskSummary } from '../domain/schemas.js';
import { forgetTaskIndex, keepTaskIndex, listFolder, listingsKept, listNames, TaskIndex } from './task-index.js';

const DIR = '.sow/project/phases/implementation/tasks';
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sow-index-'));
  mkdirSync(join(root, DIR, '010'), { recursive: true });
  mkdirSync(join(root, '.git'));
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
    rmSync(join(root, '.git/sow/tasks.json'));
    expect(await list(LATER())).toEqual({ names: ['first'], read: [] });
    writeFileSync(join(root, DIR, '010', 'state.yaml'), 'second, longer\n');
    expect(await list(LATER())).toEqual({ names: ['second, longer'], read: ['010'] });
  });

  it('hands out the same frozen list while no task file changed, and a new one after an in-place edit', async () => {
    keepTaskIndex();
    mkdirSync(join(root, DIR, '020'));
    const past = new Date(Date.now() - 60_000);
    for (const id of ['010', '020']) {
      writeFileSync(join(root, DIR, id, 'state.yaml'), `task ${id}\n`);
      utimesSync(join(root, DIR, id, 'state.yaml'), past, past);
    }
    const read: string[] = [];
    const summaries = async () => {
      const index = TaskIndex.open(root);
      const out = await index.summaries(
        DIR,
        ['010', '020'],
        async (id, _rel, text) => {
          read.push(id);
          return { id, name: text!.trim(), status: 'pending', parallel: false, dependencies: [] } satisfies TaskSummary;
        },
        LATER(),
      );
      index.save();
      return out;
    };
    const first = await summaries();
    // The next list is made from the kept entries: the same summaries from then on, the very list.
    const second = await summaries();
    expect(await summaries()).toBe(second);
    expect(second).toEqual(first);
    expect(read).toEqual(['010', '020']);
    expect(Object.isFrozen(second) && Object.isFrozen(second[0]) && Object.isFrozen(second[0]!.dependencies)).toBe(
      true,
    );
    // Same size, same inode: only the file's times tell.
    writeFileSync(join(root, DIR, '020', 'state.yaml'), 'task 02O\n');
    const third = await summaries();
    expect(third).not.toBe(second);
    expect(third.map((s) => s.name)).toEqual(['task 010', 'task 02O']);
    expect(third[0], 'an unchanged task keeps its summary').toBe(second[0]);
    expect(read).toEqual(['010', '020', '020']);
  });

  it('a one-shot command reads the index file each time', async () => {
    writeFileSync(join(root, DIR, '010', 'state.yaml'), 'first\n');
    expect((await list(LATER())).read).toEqual(['010']);
    expect((await list(LATER())).read).toEqual([]);
    rmSync(join(root, '.git/sow/tasks.json'));
    expect((await list(LATER())).read).toEqual(['010']);
  });

  it('the index file is written again only when the set of tasks or a task changed', async () => {
    const ids = ['010', '020', '030'];
    for (const id of ids) {
      mkdirSync(join(root, DIR, id), { recursive: true });
      writeFileSync(join(root, DIR, id, 'state.yaml'), `${id}\n`);
    }
    const read = async (these: string[]) => {
      const index = TaskIndex.open(root);
      const names = (await index.summaries(DIR, these, async (id) => ({ ...summary, id }), LATER())).map((s) => s.id);
      index.save();
      return names;
    };
    const summary: TaskSummary = { id: '', name: 'A', status: 'pending', parallel: false, dependencies: [] };
    const file = join(root, '.git/sow/tasks.json');
    const entries = () => (JSON.parse(readFileSync(file, 'utf8')) as { entries: unknown[][] }).entries.map((e) => e[0]);
    expect(await read(ids)).toEqual(ids);
    expect(entries()).toEqual(ids);
    // Unchanged: not written (a marker put in the file stays).
    writeFileSync(file, readFileSync(file, 'utf8').replace('{', '{"marker":1,'));
    expect(await read(ids)).toEqual(ids);
    expect(readFileSync(file, 'utf8')).toContain('"marker"');
    // A task gone from the middle, then from the end: written without it.
    expect(await read(['010', '030'])).toEqual(['010', '030']);
    expect(entries()).toEqual(['010', '030']);
    expect(await read(['010'])).toEqual(['010']);
    expect(entries()).toEqual(['010']);
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

// Moved from test/e2e/one-truth.test.ts (which slept until the files settled): here `now` is moved on.
describe('the index is only a shortcut, never believed over the task file', () => {
  const INDEX = '.git/sow/tasks.json';
  const file = () => join(root, DIR, '010', 'state.yaml');
  const readIndex = () => JSON.parse(readFileSync(join(root, INDEX), 'utf8')) as { entries: unknown[][] };
  const writeIndex = (data: unknown) =>
    writeFileSync(join(root, INDEX), typeof data === 'string' ? data : JSON.stringify(data));
  /** The task file, written with an mtime a minute back, so that any later write changes it. */
  const settledFile = (text: string) => {
    writeFileSync(file(), text);
    const past = new Date(Date.now() - 60_000);
    utimesSync(file(), past, past);
  };

  it('an in-place edit that keeps the size (same inode, only mtime and ctime change) is read again', async () => {
    settledFile('paused\n');
    expect(await list(LATER())).toEqual({ names: ['paused'], read: ['010'] });
    expect(
      readIndex().entries.map((e) => e[0]),
      'the index learnt the task',
    ).toEqual(['010']);
    expect((await list(LATER())).read).toEqual([]);
    writeFileSync(file(), 'failed\n');
    expect(await list(LATER())).toEqual({ names: ['failed'], read: ['010'] });
  });

  it(
    'a damaged index, or an entry whose stat does not match its file, or whose summary has the wrong shape, is not ' +
      'believed; one that matches is, until the file changes',
    async () => {
      settledFile('Two\n');
      await list(LATER());
      writeIndex('{"format":1,"entries":');
      expect(await list(LATER())).toEqual({ names: ['Two'], read: ['010'] });
      // Entries: [id, ino, size, mtime s, mtime ns, ctime s, ctime ns, name, status, parallel, agent, …].
      const forged = readIndex();
      forged.entries[0]![1] = 1;
      forged.entries[0]![7] = 'Forged';
      forged.entries[0]![8] = 'completed';
      writeIndex(forged);
      expect(await list(LATER())).toEqual({ names: ['Two'], read: ['010'] });
      const wrongShape = readIndex();
      wrongShape.entries[0]![8] = 'nonsense';
      writeIndex(wrongShape);
      expect(await list(LATER())).toEqual({ names: ['Two'], read: ['010'] });
      // The right shape and a matching stat: believed, the index being a cache of the file keyed by its stat.
      const other = readIndex();
      other.entries[0]![7] = 'Believed while the file is unchanged';
      writeIndex(other);
      expect(await list(LATER())).toEqual({ names: ['Believed while the file is unchanged'], read: [] });
      writeFileSync(file(), 'Tw0\n');
      expect(await list(LATER())).toEqual({ names: ['Tw0'], read: ['010'] });
    },
  );
});

describe('the ids of the task folders, listed again only when the folder changed', () => {
  const folder = () => join(root, DIR);
  /** The folder's mtime a minute back, so that any later change of its entries changes it. */
  const settle = () => {
    const past = new Date(Date.now() - 60_000);
    utimesSync(folder(), past, past);
  };
  /** What `ids` answers, and whether it listed the folder to answer. */
  function ids(now = LATER()): { ids: readonly string[]; listed: boolean } {
    let listed = false;
    const index = TaskIndex.open(root);
    const out = index.ids(
      DIR,
      () => {
        listed = true;
        const { names, folders } = listFolder(root, DIR);
        return { ids: names.sort(), folders };
      },
      now,
    );
    index.save();
    return { ids: out, listed };
  }

  it('a fresh process takes them from the index until a folder is added, renamed or removed', () => {
    mkdirSync(join(folder(), '020'));
    settle();
    expect(ids()).toEqual({ ids: ['010', '020'], listed: true });
    expect(ids()).toEqual({ ids: ['010', '020'], listed: false });
    mkdirSync(join(folder(), '030'));
    expect(ids()).toEqual({ ids: ['010', '020', '030'], listed: true });
    settle();
    expect(ids().listed).toBe(true);
    expect(ids().listed).toBe(false);
    renameSync(join(folder(), '030'), join(folder(), '040'));
    expect(ids()).toEqual({ ids: ['010', '020', '040'], listed: true });
    settle();
    ids();
    rmSync(join(folder(), '010'), { recursive: true });
    expect(ids()).toEqual({ ids: ['020', '040'], listed: true });
  });

  it('a folder that has not settled, or holds a link or a file, is listed every time', () => {
    expect(ids(Date.now()).listed).toBe(true);
    expect(ids(Date.now()).listed).toBe(true);
    symlinkSync('010', join(folder(), '020'));
    settle();
    expect(ids()).toEqual({ ids: ['010', '020'], listed: true });
    expect(ids().listed).toBe(true);
    rmSync(join(folder(), '020'));
    writeFileSync(join(folder(), 'README'), 'notes\n');
    settle();
    expect(ids().listed).toBe(true);
    expect(ids().listed).toBe(true);
  });

  it('a listing that is not task ids is not believed: paths are made of them', () => {
    settle();
    ids();
    const path = join(root, '.git/sow/tasks.json');
    const data = JSON.parse(readFileSync(path, 'utf8')) as { listing: unknown[] };
    expect(data.listing[5]).toBe('010');
    for (const forged of ['010/../../../outside', '010/', 'x']) {
      data.listing[5] = forged;
      writeFileSync(path, JSON.stringify(data));
      expect(ids()).toEqual({ ids: ['010'], listed: true });
    }
  });

  it('a long-lived process hands out the same frozen ids while the folder is unchanged', () => {
    keepTaskIndex();
    settle();
    const first = ids();
    const second = ids();
    expect(second).toEqual({ ids: ['010'], listed: false });
    expect(second.ids).toBe(first.ids);
    expect(Object.isFrozen(second.ids)).toBe(true);
  });
});
