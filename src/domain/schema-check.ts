/** How sow's valibot schemas are made (when first used) and checked (into the first issue, with its field path). */
import * as v from 'valibot';
import { quoted, shown } from './display.js';
import { nearMiss } from './suggest.js';

// A schema made on first use, through a proxy: making every schema at load cost each command millions of instructions.
export function builtWhenUsed<T extends object>(make: () => T): T {
  let made: T | undefined;
  const real = (): T => (made ??= make());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(real(), key);
      return found && { ...found, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

const digit = (s: string, i: number, max = 57): boolean => {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= max;
};
/** Two digits at `i` from 00 to `max` (a number below 100). */
const twoDigits = (s: string, i: number, min: number, max: number): boolean => {
  if (!digit(s, i) || !digit(s, i + 1)) return false;
  const n = (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;
  return n >= min && n <= max;
};

// Exactly valibot's isoTimestamp() (schemas.test.ts checks) without its regular expression, which V8 compiles afresh in
// every process (~2 M instructions); plain conditions, since a table read by a closure cost a read ~3 M more.
export function isIsoTimestamp(s: string): boolean {
  const n = s.length;
  if (
    n < 20 ||
    !digit(s, 0) ||
    !digit(s, 1) ||
    !digit(s, 2) ||
    !digit(s, 3) ||
    s[4] !== '-' ||
    !twoDigits(s, 5, 1, 12) ||
    s[7] !== '-' ||
    !twoDigits(s, 8, 1, 31)
  )
    return false;
  if (
    (s[10] !== 'T' && s[10] !== ' ') ||
    !twoDigits(s, 11, 0, 23) ||
    s[13] !== ':' ||
    !twoDigits(s, 14, 0, 59) ||
    s[16] !== ':' ||
    !twoDigits(s, 17, 0, 59)
  )
    return false;
  let i = 19;
  if (s[i] === '.') {
    let k = i + 1;
    while (k < n && k - i <= 9 && digit(s, k)) k++;
    if (k === i + 1) return false;
    i = k;
  }
  if (s[i] === 'Z') return i + 1 === n;
  if (s[i] === ' ') i++;
  if ((s[i] !== '+' && s[i] !== '-') || !twoDigits(s, i + 1, 0, 23)) return false;
  i += 3;
  if (i === n) return true;
  if (s[i] === ':') i++;
  return i + 2 === n && twoDigits(s, i, 0, 59);
}

export type SchemaIssue = { path: string; message: string };

/** Validates and returns either the value or the first issue with a dotted field path. */
export function check<T extends v.GenericSchema>(
  schema: T,
  value: unknown,
): { ok: true; value: v.InferOutput<T> } | { ok: false; issue: SchemaIssue } {
  let result = v.safeParse(schema, value);
  if (!result.success && bigintsToNumbers(result.issues)) result = v.safeParse(schema, value);
  // The input, not valibot's output (rebuilt in schema key order): the key order a person wrote must survive.
  if (result.success) return { ok: true, value: value as v.InferOutput<T> };
  const issue = result.issues[0];
  // valibot says "Invalid key: Expected "run" but received undefined" for a key that is missing.
  const missing = issue.message.startsWith('Invalid key') && issue.received === 'undefined';
  // valibot's messages quote the value they received, which comes from a file: on one line, escaped.
  const message = missing ? 'required, but missing' : shown(picklistMessage(issue) ?? issue.message);
  return { ok: false, issue: { path: shown(v.getDotPath(issue) || '(root)'), message } };
}

/** A value outside a fixed list, said with its near miss (valibot states the list as `("a" | "b")`). */
function picklistMessage(issue: v.BaseIssue<unknown>): string | undefined {
  if (issue.type !== 'picklist' || typeof issue.input !== 'string') return undefined;
  const values = [...(issue.expected?.matchAll(/"((?:[^"\\]|\\.)*)"/g) ?? [])].map((m) => m[1]!);
  if (values.length === 0) return undefined;
  const near = nearMiss(issue.input, values);
  const hint = near === undefined ? '' : `; did you mean ${quoted(near)}?`;
  return `${quoted(issue.input)} is not one of ${values.join(', ')}${hint}`;
}

// Where a schema wants a number, a bigint (beyond 2^53) becomes the nearest number in place (the file keeps its text);
// says whether it changed anything.
function bigintsToNumbers(issues: readonly v.BaseIssue<unknown>[]): boolean {
  let changed = false;
  for (const issue of issues) {
    // A `number` issue is the number() schema's own; its last path item is the map or list that holds the value.
    const at = issue.path?.at(-1) as { input: Record<string, unknown>; key: string } | undefined;
    if (issue.type !== 'number' || typeof issue.input !== 'bigint' || !at) continue;
    at.input[at.key] = Number(issue.input);
    changed = true;
  }
  return changed;
}
