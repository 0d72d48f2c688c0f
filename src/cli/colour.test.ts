import { describe, expect, it } from 'vitest';
import { colourEnabled, OWN_SEQUENCES, painter, plain } from './colour.js';
import { forTerminal } from '../domain/display.js';

const tty = { isTTY: true };
const pipe = { isTTY: false };
const ARGV = ['node', 'sow', 'task', 'list'];

describe('whether to colour', () => {
  it('only on a terminal', () => {
    expect(colourEnabled(tty, {}, ARGV)).toBe(true);
    expect(colourEnabled(pipe, {}, ARGV)).toBe(false);
    expect(colourEnabled({}, {}, ARGV)).toBe(false);
  });

  it('never with NO_COLOR set to anything but empty', () => {
    expect(colourEnabled(tty, { NO_COLOR: '1' }, ARGV)).toBe(false);
    expect(colourEnabled(tty, { NO_COLOR: 'false' }, ARGV)).toBe(false);
    expect(colourEnabled(tty, { NO_COLOR: '' }, ARGV)).toBe(true);
  });

  it('never on TERM=dumb', () => {
    expect(colourEnabled(tty, { TERM: 'dumb' }, ARGV)).toBe(false);
    expect(colourEnabled(tty, { TERM: 'xterm-256color' }, ARGV)).toBe(true);
  });

  it('never with --no-color, wherever it stands on the line', () => {
    expect(colourEnabled(tty, {}, ['node', 'sow', '--no-color', 'task', 'list'])).toBe(false);
    expect(colourEnabled(tty, {}, [...ARGV, '--no-color'])).toBe(false);
  });
});

describe('painting', () => {
  it('colours by the word and keeps the text; unknown words and the plain painter add nothing', () => {
    const paint = painter(true);
    expect(paint('blocked')).toBe('\x1b[31mblocked\x1b[39m');
    expect(paint('completed', 'completed   ')).toBe('\x1b[32mcompleted   \x1b[39m');
    expect(paint('error', 'error:')).toBe('\x1b[1;31merror:\x1b[22;39m');
    expect(paint('whatever', 'text')).toBe('text');
    expect(paint('toString', 'text')).toBe('text');
    expect(painter(false)('blocked')).toBe('blocked');
    expect(plain('met', '✓')).toBe('✓');
    // Whatever the colour, the words are all there: strip the codes and the text is the same.
    for (const word of [
      'completed',
      'in_progress',
      'needs_review',
      'paused',
      'failed',
      'abandoned',
      'pending',
      'met',
      'blocked',
      'ready',
      'current',
      'hint',
    ]) {
      expect(paint(word).replace(/\x1b\[[\d;]*m/g, '')).toBe(word);
    }
  });

  it('writes only the escape sequences a terminal filter keeps as its own; any other passes escaped', () => {
    const paint = painter(true);
    for (const word of [
      'completed',
      'in_progress',
      'needs_review',
      'paused',
      'failed',
      'abandoned',
      'disabled',
      'met',
      'blocked',
      'ready',
      'current',
      'error',
      'hint',
    ]) {
      expect(forTerminal(paint(word), OWN_SEQUENCES)).toBe(paint(word));
    }
    expect(forTerminal('\x1b[8mhidden\x1b]52;c;eA==\x07', OWN_SEQUENCES)).toBe('\\x1b[8mhidden\\x1b]52;c;eA==\\x07');
  });
});
