import { describe, expect, it } from 'vitest';
import { cacheDir, commandKey, staleCaches } from './compile-cache.js';

describe('cacheDir', () => {
  it('follows XDG on Linux and macOS, LOCALAPPDATA on Windows', () => {
    expect(cacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' }, 'linux')).toBe('/x/cache/sow');
    expect(cacheDir({ HOME: '/home/u' }, 'linux')).toBe('/home/u/.cache/sow');
    expect(cacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/Users/u' }, 'darwin')).toBe('/Users/u/.cache/sow');
    expect(cacheDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32')).toBe(
      'C:\\Users\\u\\AppData\\Local\\sow\\cache',
    );
    expect(cacheDir({ USERPROFILE: 'C:\\Users\\u' }, 'win32')).toBe('C:\\Users\\u\\AppData\\Local\\sow\\cache');
  });
});

describe('commandKey', () => {
  it('is the first two command words, skipping options and stopping at values', () => {
    expect(commandKey(['task', 'list'])).toBe('task list');
    expect(commandKey(['--json', 'task', 'input', 'add', '--id', '010'])).toBe('task input');
    expect(commandKey(['task', 'set', '--id', '010', 'iteration', '2'])).toBe('task set');
    expect(commandKey(['advance'])).toBe('advance');
    expect(commandKey(['prompt', 'guidance/x.md'])).toBe('prompt');
    expect(commandKey(['project', 'new', 'my-feature'])).toBe('project new');
    expect(commandKey(['--version'])).toBe('');
    expect(commandKey(['010', 'task'])).toBe('');
  });
});

describe('staleCaches', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const now = 100 * DAY;
  const build =
    (id: string, node = 'v20.20.2') =>
    (group: string) =>
      `${id}-${node}-x64-${group}.bin`;

  it('keeps the caches of the four builds written to last (this one among them), and drops the rest', () => {
    // Six builds of sow on one machine, a day apart; b6 is being written now.
    const files = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'].flatMap((b, i) =>
      ['task', 'agent', 'merge-driver'].map((g) => ({
        name: build(`0000000${i + 1}`)(g),
        mtimeMs: now - (6 - i) * DAY,
      })),
    );
    const stale = staleCaches(files, build('00000006')('task'), now);
    expect(stale.sort()).toEqual(
      [
        ...['task', 'agent', 'merge-driver'].map(build('00000001')),
        ...['task', 'agent', 'merge-driver'].map(build('00000002')),
      ].sort(),
    );
  });

  it('keeps a build being written even when others were written later, and counts each Node version as a build', () => {
    const files = [
      { name: build('aaaaaaaa')('task'), mtimeMs: now - 50 * DAY + 1 },
      { name: build('bbbbbbbb')('task'), mtimeMs: now - 3 * DAY },
      { name: build('bbbbbbbb', 'v22.23.3')('task'), mtimeMs: now - 2 * DAY },
      { name: build('bbbbbbbb', 'v24.21.0')('task'), mtimeMs: now - 1 * DAY },
      { name: build('cccccccc')('status'), mtimeMs: now - 4 * DAY },
    ];
    // aaaaaaaa is written now (an old install run again): it stays, and so do the three newest others.
    expect(staleCaches(files, build('aaaaaaaa')('agent'), now)).toEqual([build('cccccccc')('status')]);
  });

  it(
    'drops anything older than 30 days, a leftover temporary file too, and leaves what it does not know ' +
      'by age alone',
    () => {
      const files = [
        { name: build('aaaaaaaa')('task'), mtimeMs: now - 31 * DAY },
        { name: `${build('bbbbbbbb')('task')}.1234.tmp`, mtimeMs: now - 31 * DAY },
        { name: `${build('bbbbbbbb')('task')}.5678.tmp`, mtimeMs: now - DAY },
        { name: 'notes.txt', mtimeMs: now - DAY },
        { name: build('bbbbbbbb')('task'), mtimeMs: now },
      ];
      expect(staleCaches(files, build('bbbbbbbb')('task'), now).sort()).toEqual(
        [build('aaaaaaaa')('task'), `${build('bbbbbbbb')('task')}.1234.tmp`].sort(),
      );
    },
  );
});
