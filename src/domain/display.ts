/**
 * Text from files shown to a person: a repository is untrusted, and a name, a path or an agent id
 * may carry control characters — a line break that forges a line of `task list`, an escape
 * sequence that recolours the terminal, sets its title, writes the clipboard (OSC 52) or hides a
 * link (OSC 8), a right-to-left override that reverses what follows. Human output shows every
 * such character as a visible escape; `--json` keeps the exact value (json.ts escapes them the
 * JSON way). See docs/decisions/0028-values-as-written.md.
 *
 * The escapes: `\n`, `\r`, `\t`; `\xHH` for the other C0 controls, DEL and the C1 controls
 * (`\x1b`, `\x07`, `\x9b`); `\uHHHH` for the invisible formatting characters that reorder or
 * break text (bidi controls such as `\u202e`, line and paragraph separators, the BOM).
 */

/**
 * Characters shown escaped: C0 controls, DEL, C1 controls, the zero-width and bidi formatting
 * characters (which hide text or show it in another order than a shell reads it), line and
 * paragraph separators, the BOM.
 */
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

/**
 * A value from a file as one line of human output: every control character, line breaks
 * included, escaped. Use it where a value is written into a line of sow's own (a list, a
 * message, a quote in an error).
 */
export function shown(value: string): string {
  CONTROL.lastIndex = 0;
  return CONTROL.test(value) ? value.replace(CONTROL, escape) : value;
}

/** Whether `text` would reach a terminal as something other than the characters it holds. */
export function needsEscaping(text: string): boolean {
  CONTROL.lastIndex = 0;
  return CONTROL.test(text);
}

/**
 * Text a person must judge exactly (a command sow is asked to run, a path a record names): as it
 * is when it holds nothing unsafe; else in double quotes with `\` and `"` escaped too, so that
 * what is shown reads back to exactly the text (`"make\ncurl x | sh"`).
 */
export function printable(text: string): string {
  if (!needsEscaping(text)) return text;
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(CONTROL, escape)}"`;
}

/** A value from a file quoted in a message: `'name'`, on one line (errors.ts q(), and messages built elsewhere). */
export const quoted = (value: string): string => `'${shown(value)}'`;

/**
 * Text on its way to a terminal: every control character but the line break escaped. Line
 * breaks are sow's own (values in one-line places went through shown()); `keep` spares escape
 * sequences sow wrote itself (its colours).
 */
export function forTerminal(text: string, keep?: RegExp): string {
  CONTROL_BUT_NEWLINE.lastIndex = 0;
  if (!CONTROL_BUT_NEWLINE.test(text)) return text;
  if (!keep) return text.replace(CONTROL_BUT_NEWLINE, escape);
  // Escape what lies between the sequences sow keeps.
  let out = '';
  let at = 0;
  for (const m of text.matchAll(keep)) {
    out += text.slice(at, m.index).replace(CONTROL_BUT_NEWLINE, escape) + m[0];
    at = m.index + m[0].length;
  }
  return out + text.slice(at).replace(CONTROL_BUT_NEWLINE, escape);
}
