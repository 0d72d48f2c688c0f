/**
 * Text from a repository shown to a person who must judge it (a command sow is asked to run): a
 * control character could move the cursor, erase a line or recolour what follows, and a bidi
 * override could show the letters in another order than the shell reads them. Such text is shown
 * quoted with every such character escaped; plain text is shown as it is.
 */

/** C0 controls, DEL, C1 controls; zero-width and bidi formatting; line and paragraph separators; BOM. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u2069\ufeff]/u;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'gu');

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\u001b': '\\e' };

function escapeOne(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** Whether `text` would reach a terminal as something other than the characters it holds. */
export const needsEscaping = (text: string): boolean => UNSAFE.test(text);

/**
 * `text` as it is when it holds nothing unsafe; else in double quotes, with `\` and `"` escaped
 * too, so that what is shown reads back to exactly the text (`"make\ncurl x | sh"`).
 */
export function printable(text: string): string {
  if (!needsEscaping(text)) return text;
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(UNSAFE_ALL, escapeOne)}"`;
}
