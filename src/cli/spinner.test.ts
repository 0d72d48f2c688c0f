import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { colourEnabled } from './colour.js';
import { formatDuration, progressAllowed, startSpinner, type SpinnerStream } from './spinner.js';

function stream(isTTY: boolean, columns = 80): SpinnerStream & { out: string } {
  const s = { isTTY, columns, out: '', write: (text: string) => (s.out += text) };
  return s;
}

describe('startSpinner', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    vi.useFakeTimers();
    clock = 0;
  });
  afterEach(() => vi.useRealTimers());
  const tick = (ms: number) => {
    clock += ms;
    vi.advanceTimersByTime(ms);
  };

  it('on a terminal: nothing for the first second, then the label and the time so far; stop clears the line', () => {
    const s = stream(true);
    const spinner = startSpinner('unit', { stream: s, env: {}, now });
    tick(900);
    expect(s.out).toBe('');
    tick(150);
    expect(s.out).toMatch(/^\r. unit {2}\x1b\[2m1 s\x1b\[22m\x1b\[K$/);
    tick(2000);
    expect(s.out).toContain('unit  \x1b[2m3 s');
    spinner.stop();
    expect(s.out.endsWith('\r\x1b[K')).toBe(true);
    const after = s.out;
    tick(5000);
    expect(s.out).toBe(after);
  });

  it('work under a second draws nothing, and stop writes nothing', () => {
    const s = stream(true);
    const spinner = startSpinner('unit', { stream: s, env: {}, now });
    tick(500);
    spinner.stop();
    tick(5000);
    expect(s.out).toBe('');
  });

  it('never without a terminal, under CI or with TERM=dumb', () => {
    for (const [isTTY, env] of [
      [false, {}],
      [true, { CI: 'true' }],
      [true, { CI: '1' }],
      [true, { TERM: 'dumb' }],
    ] as const) {
      const s = stream(isTTY);
      const spinner = startSpinner('unit', { stream: s, env, now });
      tick(5000);
      spinner.stop();
      expect(s.out, JSON.stringify({ isTTY, env })).toBe('');
    }
  });

  it('NO_COLOR: the same line without colour', () => {
    const s = stream(true);
    const spinner = startSpinner('unit', { stream: s, env: { NO_COLOR: '1' }, now });
    tick(1050);
    spinner.stop();
    expect(s.out).toMatch(/^\r. unit {2}1 s\x1b\[K\r\x1b\[K$/);
  });

  it('fits the terminal width', () => {
    const s = stream(true, 12);
    const spinner = startSpinner('a-rather-long-check-name', { stream: s, env: {}, now });
    tick(1050);
    spinner.stop();
    const line = s.out.split('\r')[1]!.replace('\x1b[K', '');
    expect(line.length).toBeLessThanOrEqual(11);
    expect(line.endsWith('…')).toBe(true);
  });
});

describe('a terminal without a size', () => {
  it('draws at 80 columns', () => {
    vi.useFakeTimers();
    try {
      const s = stream(true, 0);
      const spinner = startSpinner('unit', { stream: s, env: { NO_COLOR: '1' }, now: () => Date.now() });
      vi.advanceTimersByTime(1050);
      spinner.stop();
      expect(s.out).toContain('unit  1 s');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the rules', () => {
  it('progress and colour follow the terminal and the environment', () => {
    expect(progressAllowed({ isTTY: true, write: () => 0 }, { CI: '' })).toBe(true);
    expect(progressAllowed({ isTTY: true, write: () => 0 }, { CI: 'false' })).toBe(true);
    expect(progressAllowed({ write: () => 0 }, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
  });
  it('formats durations', () => {
    expect(formatDuration(400)).toBe('0.4 s');
    expect(formatDuration(2345)).toBe('2.3 s');
    expect(formatDuration(125_000)).toBe('2 min 05 s');
  });
});
