// Text from files shown to a person: an untrusted value may forge a line, recolour the terminal, write the clipboard
// (OSC 52) or reverse text, so human output escapes control characters; `--json` keeps the value (decision 0028).

/** Characters shown escaped: C0, DEL, C1, zero-width and bidi formatting, line and paragraph separators, the BOM. */
const CONTROL =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
/** The same, except the line break (for text whose lines are sow's own). */
const CONTROL_BUT_NEWLINE =
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A value from a file as one line of human output, every control character escaped (tested first: most values need
 * nothing, and the regular expression costs its compile in every process). */
export function shown(value: string): string {
  return needsEscaping(value) ? value.replace(CONTROL, escape) : value;
}

/** Whether `text` would reach a terminal as something other than the characters it holds. */
export function needsEscaping(text: string): boolean {
  CONTROL.lastIndex = 0;
  return CONTROL.test(text);
}

/** Text a person must judge exactly: as is when safe, else double-quoted and escaped so it reads back exactly. */
export function printable(text: string): string {
  if (!needsEscaping(text)) return text;
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(CONTROL, escape)}"`;
}

/** A value from a file quoted in a message: `'name'`, on one line (errors.ts q(), and messages built elsewhere). */
export const quoted = (value: string): string => `'${shown(value)}'`;

/** Text on its way to a terminal: control characters but line breaks escaped; `keep` spares sow's own colours. */
export function forTerminal(text: string, keep?: RegExp): string {
  CONTROL_BUT_NEWLINE.lastIndex = 0;
  if (!CONTROL_BUT_NEWLINE.test(text)) return text;
  if (!keep) return text.replace(CONTROL_BUT_NEWLINE, escape);
  // Escape what lies between the sequences sow keeps (`keep` has no group, so split leaves them out).
  const kept = text.match(keep) ?? [];
  return text
    .split(keep)
    .map((part, i) => part.replace(CONTROL_BUT_NEWLINE, escape) + (kept[i] ?? ''))
    .join('');
}
