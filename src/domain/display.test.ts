import { describe, expect, it } from 'vitest';
import { forTerminal, shown } from './display.js';

describe('shown: a value from a file on one line', () => {
  it('leaves ordinary text alone, non-ASCII letters and emoji included', () => {
    for (const s of ['First task', 'über → 🚀 日本', 'a\\nb (a backslash and n)', '']) expect(shown(s)).toBe(s);
  });

  it('escapes line breaks, escape sequences, bells, C1 controls and bidi overrides visibly', () => {
    expect(shown('x\n010  completed  forged')).toBe('x\\n010  completed  forged');
    expect(shown('a\r\tb')).toBe('a\\r\\tb');
    expect(shown('\u001b]52;c;ZXZpbA==\u0007')).toBe('\\x1b]52;c;ZXZpbA==\\x07');
    expect(shown('\u001b]8;;https://evil\u001b\\\\link\u001b]8;;\u001b\\\\')).toBe(
      '\\x1b]8;;https://evil\\x1b\\\\link\\x1b]8;;\\x1b\\\\',
    );
    expect(shown('\u009b31m\u0085\u007f')).toBe('\\x9b31m\\x85\\x7f');
    expect(shown('abc\u202edef\u2066\u2028\ufeff')).toBe('abc\\u202edef\\u2066\\u2028\\ufeff');
  });
});

describe('forTerminal: text on its way to a terminal', () => {
  it('keeps line breaks, escapes every other control character', () => {
    expect(forTerminal('one\ntwo\u001b[2J\u0007\r')).toBe('one\ntwo\\x1b[2J\\x07\\r');
    expect(forTerminal('plain\ntext')).toBe('plain\ntext');
  });

  it('spares only the sequences it is told to keep', () => {
    const keep = /\x1b\[(?:32|39)m/g;
    expect(forTerminal('\u001b[32mok\u001b[39m \u001b[31mred\u001b[39m\u001b]0;title\u0007', keep)).toBe(
      '\u001b[32mok\u001b[39m \\x1b[31mred\u001b[39m\\x1b]0;title\\x07',
    );
  });
});
