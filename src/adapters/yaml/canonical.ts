/** A fast reader for the YAML sow's emitter writes (decisions 0003, 0044): it returns exactly what `yaml` would or
 * undefined, and what it reads writes back byte for byte (canonical.test.ts checks both). */
import { RESERVED_NAMES } from '../../domain/fields.js';
import { isPlainString, quoteString } from './emit.js';

/** Deeper than this is not a state file; both readers refuse it (document.ts says so). */
export const MAX_DEPTH = 100;

/** Sentinel for "not in the subset". */
const NO = Symbol('not canonical');
type Maybe<T> = T | typeof NO;

const plainString = (s: string): Maybe<string> => (isPlainString(s) ? s : NO);

/** The end of the double-quoted string token that starts at `from` in `s`, or -1 when it is not closed. Found with
 * indexOf (a backslash skips the character after it): a loop over each character costs a cold read more. */
function quotedEnd(s: string, from: number): number {
  for (let i = from + 1; ;) {
    const quote = s.indexOf('"', i);
    if (quote < 0) return -1;
    const backslash = s.indexOf('\\', i);
    if (backslash < 0 || backslash > quote) return quote + 1;
    i = backslash + 2;
  }
}

/** Characters the emitter escapes inside quotes (NON_PRINTABLE, lone surrogates): raw, a person wrote them. */
const ESCAPED_RAW = new RegExp(
  [
    /[\u0000-\u001f\u007f-\u0084\u0086-\u009f\ufeff\ufffe\uffff]/.source,
    /[\ud800-\udbff](?![\udc00-\udfff])/.source,
    /(?<![\ud800-\udbff])[\udc00-\udfff]/.source,
  ].join('|'),
);

/** A quick first look for ESCAPED_RAW (a lone surrogate is rare, a pair is an emoji): most tokens have none. */
const SUSPECT = /[\u0000-\u001f\u007f-\u009f\ud800-\udfff\ufeff\ufffe\uffff]/;

function quotedString(token: string): Maybe<string> {
  let value: string;
  if (!token.includes('\\', 1)) {
    // Without escapes the value is what stands between the quotes (most quoted values: ids, times).
    if (SUSPECT.test(token) && ESCAPED_RAW.test(token)) return NO;
    value = token.slice(1, -1);
  } else {
    try {
      const parsed: unknown = JSON.parse(token);
      if (typeof parsed !== 'string') return NO;
      value = parsed;
    } catch {
      return NO; // a YAML escape JSON lacks (\x41, \e, \N …), a raw tab or control character
    }
    if (quoteString(value) !== token) return NO; // another spelling of it (`\u0041` for `A`)
  }
  return isPlainString(value) ? NO : value; // the emitter would write it bare
}

/** A number spelt as the emitter (and JavaScript) spells it, which YAML reads as that number; NO for other text that
 * begins like a number (`1e3`, `010`, `-x`: YAML may read a number the emitter writes otherwise, and no string the
 * emitter writes bare begins so). An integer beyond 2^53 goes to the yaml package, which reads it exactly. */
function number(s: string): Maybe<number> {
  const n = Number(s);
  if (String(n) !== s || !Number.isFinite(n)) return NO;
  // An integer (no exponent: `1e+21` is a float to YAML) that a number cannot hold exactly.
  return Number.isSafeInteger(n) || !Number.isInteger(n) || s.includes('e') ? n : NO;
}

function scalar(s: string): Maybe<unknown> {
  switch (s) {
    case 'null':
      return null;
    case 'true':
      return true;
    case 'false':
      return false;
    case '{}':
      return {};
    case '[]':
      return [];
    case '.nan':
      return NaN;
    case '.inf':
      return Infinity;
    case '-.inf':
      return -Infinity;
  }
  if (s[0] === '"') return quotedEnd(s, 0) === s.length ? quotedString(s) : NO;
  const first = s.charCodeAt(0);
  if (first === 45 || (first >= 48 && first <= 57)) return number(s); // '-' or a digit
  return plainString(s);
}

/** Reads lines by offset (`at[i]`: where line i's content starts), so nothing is copied per line. */
class Reader {
  private i = 0;
  /** Set by key(): the key of the current line and where the text after its colon starts. */
  private k = '';
  private after = 0;

  constructor(
    private readonly lines: string[],
    private readonly at: Int32Array,
  ) {}

  done(): boolean {
    return this.i >= this.lines.length;
  }

  /** The block whose first line is the current one, which must start at `indent`. */
  block(indent: number): Maybe<unknown> {
    // Each level of nesting indents by two, so the indentation bounds the depth.
    if (this.i >= this.lines.length || this.at[this.i] !== indent || indent >= 2 * MAX_DEPTH) return NO;
    const line = this.lines[this.i]!;
    return line.charCodeAt(indent) === 45 && (line.length === indent + 1 || line.charCodeAt(indent + 1) === 32)
      ? this.list(indent)
      : this.map(indent);
  }

  /** `key:` at `from` in `line`: sets k and after, or says it is not one. */
  private key(line: string, from: number): boolean {
    let key: Maybe<string>;
    let colon: number;
    if (line.charCodeAt(from) === 34) {
      colon = quotedEnd(line, from);
      if (colon < 0) return false;
      key = quotedString(line.slice(from, colon));
    } else {
      colon = line.indexOf(':', from);
      if (colon <= from) return false;
      key = plainString(line.slice(from, colon));
    }
    // Names of object internals go to the yaml package, and from there to the reserved-name check.
    if (key === NO || line.charCodeAt(colon) !== 58 || RESERVED_NAMES.has(key)) return false;
    this.k = key;
    this.after = colon + 1;
    return true;
  }

  /** The value after `key:` (`after` in `line`): on the same line after one space, or a block two spaces in. */
  private value(line: string, after: number, indent: number): Maybe<unknown> {
    if (after === line.length) return this.block(indent + 2);
    return line.charCodeAt(after) === 32 ? scalar(line.slice(after + 1)) : NO;
  }

  private map(indent: number): Maybe<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    while (this.i < this.lines.length && this.at[this.i] === indent) {
      const line = this.lines[this.i]!;
      if (!this.key(line, indent) || Object.hasOwn(out, this.k)) return NO;
      const key = this.k;
      this.i++;
      const value = this.value(line, this.after, indent);
      if (value === NO) return NO;
      out[key] = value;
    }
    return out;
  }

  private list(indent: number): Maybe<unknown[]> {
    const out: unknown[] = [];
    while (this.i < this.lines.length && this.at[this.i] === indent) {
      const line = this.lines[this.i]!;
      if (line.charCodeAt(indent) !== 45) return NO; // '-'
      let value: Maybe<unknown>;
      if (line.length === indent + 1) {
        this.i++;
        // A bare `-` starts a list in a list; the emitter writes a map in a list as `- key: value`.
        if (this.lines[this.i]?.charCodeAt(indent + 2) !== 45) return NO;
        value = this.block(indent + 2);
      } else if (line.charCodeAt(indent + 1) !== 32) {
        return NO;
      } else if (this.key(line, indent + 2)) {
        // `- key: value`: a map whose keys line up two spaces in, the first one on this line.
        this.at[this.i] = indent + 2;
        value = this.map(indent + 2);
      } else {
        value = scalar(line.slice(indent + 2));
        this.i++;
      }
      if (value === NO) return NO;
      out.push(value);
    }
    return out;
  }
}

/** What `yaml` would parse from `text`, or undefined when the text is not in the subset described above. */
export function parseCanonicalYaml(text: string): unknown {
  if (text === '{}\n') return {};
  if (text === '[]\n') return [];
  if (!text.endsWith('\n')) return undefined; // the emitter ends every file with one
  // Tabs, carriage returns and the like match nothing above, so such text is declined line by line.
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const at = new Int32Array(lines.length);
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!;
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent++;
    at[k] = indent;
  }
  const reader = new Reader(lines, at);
  const value = reader.block(0);
  // A line left over (indented more than its siblings, or blank) means the text is not in the subset.
  return value === NO || !reader.done() ? undefined : value;
}
