import { describe, expect, it } from 'vitest';
import { normalRelative, relativeInside, storedPathInside } from './paths.js';

describe('paths as text', () => {
  it('normalRelative keeps what stays inside and refuses the rest', () => {
    expect(normalRelative('a/./b/../c/')).toBe('a/c');
    for (const bad of ['', '.', '..', '../x', 'a/../../x', '/etc/passwd', 'C:/x', 'C:\\x', 'a\0b'])
      expect(normalRelative(bad), bad).toBeUndefined();
  });

  it('relativeInside: a path relative to a folder that stays in it', () => {
    expect(relativeInside('.sow/project', 'outputs/./r1.md')).toBe('outputs/r1.md');
    expect(relativeInside('.sow/project', '../knowledge/x.md')).toBeUndefined();
    expect(relativeInside('.sow/project', '../../../../etc/x')).toBeUndefined();
  });

  it('storedPathInside: artifact paths from either root, never out of the repository', () => {
    for (const good of ['planning/tasks.md', '../../src/a.ts', 'src/a.ts'])
      expect(storedPathInside(good), good).toBe(true);
    for (const bad of ['../../../etc/x', '../../../../etc/passwd', '/etc/passwd', 'a\0b', 'C:/x'])
      expect(storedPathInside(bad), bad).toBe(false);
  });
});
