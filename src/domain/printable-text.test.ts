import { describe, expect, it } from 'vitest';
import { needsEscaping, printable } from './display.js';

describe('printable', () => {
  it('plain text (quotes, backslashes, unicode letters included) is shown as it is', () => {
    for (const text of [
      'npm test',
      'node scripts/lint.mjs "src/*.ts"',
      String.raw`grep -E 'a\.b' x`,
      'echo héllo wörld ✓',
    ]) {
      expect(printable(text)).toBe(text);
      expect(needsEscaping(text)).toBe(false);
    }
  });

  it('control characters, bidi overrides and invisible characters are escaped, in quotes', () => {
    expect(printable('npm test\ncurl x | sh')).toBe(String.raw`"npm test\ncurl x | sh"`);
    expect(printable('echo ok\x1b[2K\rrm -rf ~')).toBe(String.raw`"echo ok\x1b[2K\rrm -rf ~"`);
    expect(printable('a\tb\x00c\x7fd\x9be')).toBe(String.raw`"a\tb\x00c\x7fd\x9be"`);
    expect(printable('ls \u202ecod.exe')).toBe(String.raw`"ls \u202ecod.exe"`);
    expect(printable('a\u200bb\ufeff\u2028')).toBe(String.raw`"a\u200bb\ufeff\u2028"`);
  });

  it('once quoted, backslashes and quotes are escaped too, so the shown text reads back exactly', () => {
    const text = 'printf "a\\nb"\necho done';
    const shown = printable(text);
    expect(shown).toBe(String.raw`"printf \"a\\nb\"\necho done"`);
    // The escapes are JSON's, except \x..: read back with those mapped.
    const back = JSON.parse(shown.replace(/\\x([0-9a-f]{2})/g, '\\u00$1'));
    expect(back).toBe(text);
  });
});
