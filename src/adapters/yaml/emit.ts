/**
 * A small block-style YAML emitter for the plain data sow writes (maps, lists, strings, numbers,
 * booleans, null). It exists for speed: the `yaml` package needs ≈140 ms to stringify a
 * 1,000-task project on a cold start, this needs a few. It is only used for files without
 * comments; a file a person commented goes through yaml's Document API, which keeps them.
 * Every output is checked against the `yaml` parser in emit.test.ts.
 */

const RESERVED = /^(?:true|false|null|yes|no|on|off|y|n|~)$/i;
const PLAIN = /^[A-Za-z_/][\w ./+()-]*$/;
// Characters YAML does not allow unescaped inside a double-quoted scalar (JSON leaves them).
const NON_PRINTABLE = /[\u007f-\u0084\u0086-\u009f\ufeff\ufffe\uffff]/g;

/** Whether `s` is written bare: YAML's core schema reads such a word back as this very string. */
export function isPlainString(s: string): boolean {
  return PLAIN.test(s) && !s.endsWith(' ') && !RESERVED.test(s);
}

export function emitString(s: string): string {
  if (isPlainString(s)) return s;
  return JSON.stringify(s).replace(NON_PRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function scalar(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return emitString(value);
    case 'number':
      if (!Number.isFinite(value)) return Number.isNaN(value) ? '.nan' : value > 0 ? '.inf' : '-.inf';
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      throw new TypeError(`cannot write a ${typeof value} to YAML`);
  }
}

const isMap = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function emitNode(value: unknown, indent: string, out: string[]): void {
  if (isMap(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      emitEntry(`${indent}${emitString(key)}:`, child, indent, out);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) emitEntry(`${indent}-`, item, indent, out, true);
  }
}

function emitEntry(head: string, child: unknown, indent: string, out: string[], inSeq = false): void {
  if (isMap(child) && Object.values(child).some((v) => v !== undefined)) {
    if (inSeq) {
      // "- key: value" with the rest of the map aligned under the first key.
      const sub: string[] = [];
      emitNode(child, `${indent}  `, sub);
      out.push(`${head} ${sub[0]!.slice(indent.length + 2)}`, ...sub.slice(1));
    } else {
      out.push(head);
      emitNode(child, `${indent}  `, out);
    }
  } else if (Array.isArray(child) && child.length > 0) {
    out.push(head);
    emitNode(child, `${indent}  `, out);
  } else if (isMap(child)) {
    out.push(`${head} {}`);
  } else if (Array.isArray(child)) {
    out.push(`${head} []`);
  } else {
    out.push(`${head} ${scalar(child)}`);
  }
}

/** `indent` places the output as a fragment inside a larger document (the bench uses it). */
export function emitYaml(value: Record<string, unknown> | unknown[], indent = ''): string {
  const out: string[] = [];
  emitNode(value, indent, out);
  return out.length ? `${out.join('\n')}\n` : '{}\n';
}
