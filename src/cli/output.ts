import { forTerminal } from '../domain/display.js';
import { colourEnabled, OWN_SEQUENCES } from './colour.js';

export const cwd = (): string => process.cwd();

/**
 * Writes human output (a line or lines) to stdout or stderr: the one way text reaches a person.
 * Control characters from files are shown escaped; sow's line breaks, and its colours where the
 * stream gets colour, pass. `--json` output is written as it is (JSON escapes them itself).
 */
export function writeText(stream: { readonly isTTY?: boolean; write(text: string): unknown }, text: string): void {
  const safe = forTerminal(text, colourEnabled(stream) ? OWN_SEQUENCES : undefined);
  stream.write(safe.endsWith('\n') ? safe : `${safe}\n`);
}
