/** Warnings and progress for the person while a command runs: to stderr at once, so stdout holds only the result. */
import { forTerminal, shown } from '../domain/display.js';

/** Control characters in a message (a value from a file in it) are shown escaped. */
export const inform = (line: string): void => void process.stderr.write(`${forTerminal(line)}\n`);
const said = new Set<string>();

export function warn(text: string): void {
  if (said.has(text)) return;
  said.add(text);
  // A warning is one line: a line break in it came from a value and must not forge another.
  inform(`warning: ${shown(text)}`);
}
