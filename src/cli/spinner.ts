// A one-line spinner on stderr for work over a second, cleared when it ends; only on a terminal (not CI or TERM=dumb),
// so logs and pipes never see it.

import { shown as escaped } from '../domain/display.js';
import { colourEnabled, type Env } from './colour.js';

/** What the spinner writes to: process.stderr, or a stand-in in tests. */
export interface SpinnerStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

const set = (value: string | undefined) =>
  value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';

/** Whether a progress view may be drawn on `stream`: a terminal, not CI, not TERM=dumb. */
export function progressAllowed(stream: SpinnerStream, env: Env = process.env): boolean {
  return stream.isTTY === true && !set(env['CI']) && env['TERM'] !== 'dumb';
}

/** `0.4 s`, `12.3 s`, `2 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** Whole seconds for a running clock: `3 s`, `2 min 05 s`. */
const elapsed = (ms: number) => (ms < 60_000 ? `${Math.floor(ms / 1000)} s` : formatDuration(ms));

/** `stop()` clears the line (if anything was drawn): call it before printing anything else. */
export function startSpinner(
  raw: string,
  opts: { stream?: SpinnerStream; env?: Env; now?: () => number } = {},
): { stop(): void } {
  const label = escaped(raw); // a ref's name comes from a committed index
  const stream = opts.stream ?? process.stderr;
  const env = opts.env ?? process.env;
  if (!progressAllowed(stream, env)) return { stop: () => undefined };
  const now = opts.now ?? (() => performance.now());
  const colour = colourEnabled(stream, env);
  const started = now();
  let frame = 0;
  let shown = false;
  let interval: NodeJS.Timeout | undefined;

  const draw = () => {
    const time = elapsed(now() - started);
    const plain = `${FRAMES[frame++ % FRAMES.length]} ${label}  ${time}`;
    // A terminal that reports no size (0 columns, as a bare pseudo-terminal does) gets 80.
    const width = (stream.columns || 80) - 1;
    const text =
      plain.length > width
        ? `${plain.slice(0, Math.max(0, width - 1))}…`
        : colour
          ? plain.replace(time, `\x1b[2m${time}\x1b[22m`)
          : plain;
    stream.write(`\r${text}\x1b[K`);
    shown = true;
  };
  const clear = () => {
    if (shown) stream.write('\r\x1b[K');
    shown = false;
  };
  // Ctrl-C ends sow with process.exit: leave a clean line behind.
  const onExit = () => clear();
  process.on('exit', onExit);
  const delay = setTimeout(() => {
    draw();
    interval = setInterval(draw, 100);
    interval.unref();
  }, 1000);
  delay.unref();
  return {
    stop() {
      clearTimeout(delay);
      clearInterval(interval);
      process.off('exit', onExit);
      clear();
    },
  };
}
