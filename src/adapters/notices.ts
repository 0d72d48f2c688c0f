/**
 * Messages for the person at the terminal while a command runs: warnings (a read on the wrong
 * branch, an artifact whose file does not exist yet) and progress (waiting for a lock). They go to
 * stderr at once, with or without --json, so stdout carries only the command's result.
 */
import { forTerminal, shown } from '../domain/display.js';

/** Control characters in a message (a value from a file in it) are shown escaped. */
const sink = (line: string): void => void process.stderr.write(`${forTerminal(line)}\n`);
const said = new Set<string>();

export function warn(text: string): void {
  if (said.has(text)) return;
  said.add(text);
  // A warning is one line: a line break in it came from a value and must not forge another.
  sink(`warning: ${shown(text)}`);
}

export function inform(text: string): void {
  sink(text);
}
