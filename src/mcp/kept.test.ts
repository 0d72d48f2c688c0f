/**
 * What `sow mcp` keeps between calls (the parsed state files, the task index, the last task list) is only a
 * shortcut: a task file edited by hand, or written by another process, between two calls is seen by the second.
 * In-process, with the server's keeping switched on; the clock is moved a minute on so that every file has
 * settled (a file younger than two seconds is never kept) and the shortcut is really taken.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { taskFile, toExecuting, worlds, type World } from '../../test/inproc.js';
import { forgetParsedStateFiles, keepParsedStateFiles } from '../adapters/state-files.js';
import { forgetTaskIndex, keepTaskIndex } from '../adapters/task-index.js';
import { Reader } from '../app/workspace.js';
import { allCommands } from '../commands/index.js';
import { callTool } from './server.js';
import { loadTools, type Tool } from './tools.js';

const world = worlds({ two: (w) => toExecuting(w, ['One', 'Two']) });

let tools: readonly Tool[];
beforeEach(async () => {
  tools ??= await loadTools(allCommands);
  keepParsedStateFiles();
  keepTaskIndex();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 60_000);
});
afterEach(() => {
  vi.useRealTimers();
  forgetTaskIndex();
  forgetParsedStateFiles();
});

async function call(w: World, name: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const r = await callTool(tools, name, args, { cwd: w.dir, progress: () => undefined });
  const text = (r.content as { text: string }[])[0]!.text;
  expect(r.isError, text).toBeFalsy();
  return JSON.parse(text);
}
const ready = async (w: World) => ((await call(w, 'task_next')) as { id: string; name: string }[]).map((t) => t.name);
const byStatus = async (w: World) => ((await call(w, 'status')) as { tasks: { by_status: object } }).tasks.by_status;

describe('sow mcp between calls', () => {
  it('answers from the list it kept while nothing changed, and sees an edit by hand at the next call', async () => {
    const w = await world('two');
    expect(await ready(w)).toEqual(['One', 'Two']);
    const tasks = () => Reader.read(w.ctx(), (r) => r.tasks());
    expect(await tasks(), 'the shortcut is taken: the list kept').toBe(await tasks());

    // In place, the same size: only the file's times change.
    const file = join(w.dir, taskFile('010'));
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: One', 'name: Uno'));
    expect(await ready(w)).toEqual(['Uno', 'Two']);
    writeFileSync(file, readFileSync(file, 'utf8').replace('status: pending', 'status: completed'));
    expect(await byStatus(w)).toEqual({ completed: 1, pending: 1 });
    expect(await ready(w)).toEqual(['Two']);
  });

  it('sees a task file another process replaced (a new file renamed over it, as sow writes)', async () => {
    const w = await world('two');
    expect(await byStatus(w)).toEqual({ pending: 2 });
    const file = join(w.dir, taskFile('020'));
    const text = readFileSync(file, 'utf8').replace('status: pending', 'status: completed');
    execFileSync(process.execPath, [
      '-e',
      'const fs = require("node:fs"); fs.writeFileSync(process.argv[1] + ".new", process.argv[2]); ' +
        'fs.renameSync(process.argv[1] + ".new", process.argv[1]);',
      file,
      text,
    ]);
    expect(await byStatus(w)).toEqual({ completed: 1, pending: 1 });
    expect(await ready(w)).toEqual(['One']);
  });

  it('sees a task folder added by hand', async () => {
    const w = await world('two');
    expect(await ready(w)).toEqual(['One', 'Two']);
    w.write(
      taskFile('030'),
      w.read(taskFile('020')).replace('id: "020"', 'id: "030"').replace('name: Two', 'name: Three'),
    );
    expect(await ready(w)).toEqual(['One', 'Two', 'Three']);
    expect(await byStatus(w)).toEqual({ pending: 3 });
  });
});
