import { describe, expect, it } from 'vitest';
import { cacheDir, commandKey } from './compile-cache.js';

describe('cacheDir', () => {
  it('follows XDG on Linux and macOS, LOCALAPPDATA on Windows', () => {
    expect(cacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' }, 'linux')).toBe('/x/cache/sow');
    expect(cacheDir({ HOME: '/home/u' }, 'linux')).toBe('/home/u/.cache/sow');
    expect(cacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/Users/u' }, 'darwin')).toBe('/Users/u/.cache/sow');
    expect(cacheDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32')).toBe('C:\\Users\\u\\AppData\\Local\\sow\\cache');
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
