// Colour on a terminal only (not piped, NO_COLOR, TERM=dumb or --no-color), chosen by the word it paints; the word is
// always printed, so output reads the same in monochrome.

import { stdout } from './stdio.js';

export type Env = Readonly<Record<string, string | undefined>>;

export function colourEnabled(
  stream: { isTTY?: boolean },
  env: Env = process.env,
  argv: readonly string[] = process.argv,
): boolean {
  return stream.isTTY === true && !env['NO_COLOR'] && env['TERM'] !== 'dumb' && !argv.includes('--no-color');
}

/** SGR codes: each colour with the code that ends it (so painted text nests in other text), and the words it paints. */
const SGR = [
  ['32', '39', 'completed met ready done'], // green
  ['31', '39', 'blocked failed'], // red
  ['33', '39', 'in_progress paused'], // yellow
  ['35', '39', 'needs_review'], // magenta
  ['36', '39', 'hint'], // cyan
  ['2', '22', 'abandoned disabled skipped'], // dim
  ['1;31', '22;39', 'error'], // bold red
  ['1;36', '22;39', 'current'], // bold cyan
] as const;
const BY_WORD = new Map(SGR.flatMap(([on, off, words]) => words.split(' ').map((w) => [w, [on, off]] as const)));

/** sow's own escape sequences (its colours), and only those: any other control character is shown escaped. */
export const OWN_SEQUENCES = new RegExp(
  `\\x1b\\[(?:${[...new Set(SGR.flatMap(([on, off]) => [on, off]))].join('|')})m`,
  'g',
);

/** Paints `text` (default: the word itself) in the colour of `word`; text of an unknown word is left as it is. */
export type Paint = (word: string, text?: string) => string;

export const plain: Paint = (word, text) => text ?? word;

const coloured: Paint = (word, text = word) => {
  const sgr = BY_WORD.get(word);
  return sgr ? `\x1b[${sgr[0]}m${text}\x1b[${sgr[1]}m` : text;
};

export const painter = (enabled: boolean): Paint => (enabled ? coloured : plain);

/** The painter for stdout (default) or stderr, as this process's terminal, environment and flags allow. */
export const paintFor = (stream: { readonly isTTY?: boolean } = stdout): Paint => painter(colourEnabled(stream));
