import { describe, expect, it } from 'vitest';
import { versionOnly } from './version-only.js';

describe('versionOnly', () => {
  it('is true for the version flag with other flags only', () => {
    for (const words of [['--version'], ['-V'], ['--json', '--version'], ['-V', '--no-color'], ['--nope', '--version']])
      expect(versionOnly(words), words.join(' ')).toBe(true);
  });

  it('is false when a command, help or `--` is on the line, or no version flag', () => {
    for (const words of [
      [],
      ['--json'],
      ['task', '--version'],
      ['--version', 'task'],
      ['--version', '--help'],
      ['-h', '-V'],
      ['--', '--version'],
      ['-V', '--'],
      ['--version=1'],
    ])
      expect(versionOnly(words), words.join(' ')).toBe(false);
  });
});
