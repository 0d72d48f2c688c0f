/**
 * Messages for the person at the terminal while a command runs: warnings (a read on the wrong
 * branch, an artifact whose file does not exist yet) and progress (waiting for a lock). They go to
 * stderr at once, with or without --json, so stdout carries only the command's result.
 */
const sink = (line: string): void => void process.stderr.write(`${line}\n`);
const said = new Set<string>();

export function warn(text: string): void {
  if (said.has(text)) return;
  said.add(text);
  sink(`warning: ${text}`);
}

export function inform(text: string): void {
  sink(text);
}
