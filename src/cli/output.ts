import { forTerminal } from '../domain/display.js';
import { colourEnabled, OWN_SEQUENCES } from './colour.js';

// The one way text reaches a person: control characters from files shown escaped, sow's own line breaks and colours
// kept. `--json` output is written as it is (JSON escapes them).
export function writeText(stream: { readonly isTTY?: boolean; write(text: string): unknown }, text: string): void {
  const safe = forTerminal(text, colourEnabled(stream) ? OWN_SEQUENCES : undefined);
  stream.write(safe.endsWith('\n') ? safe : `${safe}\n`);
}
