/** A small block-style YAML emitter for sow's plain data (the `yaml` package needs ≈140 ms for 1,000 tasks); commented
 * files go through yaml's Document API. emit.test.ts checks it against `yaml`. */

// Words YAML reads as something else in any case (`/^(?:true|…|~)$/i`); a set, not a regular expression that V8 would
// compile in every process that reads a file.
const RESERVED = new Set(['true', 'false', 'null', 'yes', 'no', 'on', 'off', 'y', 'n', '~']);
// Characters YAML does not allow unescaped inside a double-quoted scalar (JSON leaves them).
const NON_PRINTABLE = /[\u007f-\u0084\u0086-\u009f\ufeff\ufffe\uffff]/g;

/** What may stand bare: a letter, `_` or `/` first, then those, digits and ` .+()-`. One native test: in a fresh
 * process a loop over each character costs a read far more than compiling this. */
const PLAIN = /^[A-Za-z_/][\w/ .+()-]*$/;

/** Whether `s` is written bare (YAML reads it back as this string): PLAIN, no final space, no reserved word. */
export function isPlainString(s: string): boolean {
  const n = s.length;
  return PLAIN.test(s) && s.charCodeAt(n - 1) !== 32 && (n > 5 || !RESERVED.has(s.toLowerCase()));
}

export function emitString(s: string): string {
  return isPlainString(s) ? s : quoteString(s);
}

/** `s` in double quotes, JSON's escapes plus those YAML needs: valid YAML on one line, anywhere. */
export function quoteString(s: string): string {
  return JSON.stringify(s).replace(NON_PRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A scalar as the emitter writes it; valid inside flow collections too. */
export function emitScalar(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return emitString(value);
    case 'number':
      if (!Number.isFinite(value)) return Number.isNaN(value) ? '.nan' : value > 0 ? '.inf' : '-.inf';
      return String(value);
    case 'bigint':
      return String(value); // an integer beyond 2^53, digit for digit
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      // A `!!timestamp` a person wrote, if sow ever has to write it again: the text sow writes for times.
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      throw new TypeError('cannot write this object to YAML');
    default:
      throw new TypeError(`cannot write a ${typeof value} to YAML`);
  }
}

export const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Date);

/** A list or map with something to write in it (a map's undefined values are not written). */
export const hasEntries = (x: unknown): boolean =>
  Array.isArray(x) ? x.length > 0 : isRecord(x) && Object.values(x).some((v) => v !== undefined);

function emitNode(value: unknown, indent: string, out: string[]): void {
  if (isRecord(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      emitEntry(`${indent}${emitString(key)}:`, child, indent, out);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) emitEntry(`${indent}-`, item, indent, out, true);
  }
}

function emitEntry(head: string, child: unknown, indent: string, out: string[], inSeq = false): void {
  if (inSeq && isRecord(child) && hasEntries(child)) {
    // "- key: value" with the rest of the map aligned under the first key.
    const sub: string[] = [];
    emitNode(child, `${indent}  `, sub);
    out.push(`${head} ${sub[0]!.slice(indent.length + 2)}`, ...sub.slice(1));
  } else if (hasEntries(child)) {
    out.push(head);
    emitNode(child, `${indent}  `, out);
  } else if (isRecord(child)) {
    out.push(`${head} {}`);
  } else if (Array.isArray(child)) {
    out.push(`${head} []`);
  } else {
    out.push(`${head} ${emitScalar(child)}`);
  }
}

/** `indent` places the output as a fragment inside a larger document (the bench uses it). */
export function emitYaml(value: Record<string, unknown> | unknown[], indent = ''): string {
  const out: string[] = [];
  emitNode(value, indent, out);
  return out.length ? `${out.join('\n')}\n` : '{}\n';
}
