// Reading agent CLI settings files for what widens a safe worker, pure over text. A repository may write one to mislead
// sow, so what cannot be read is a finding.
import { isRecord } from '../../domain/json.js';

/** A JSON value at a dotted path of own keys (never the prototype chain); undefined when absent. */
function at(value: unknown, path: readonly string[]): unknown {
  let here = value;
  for (const key of path) {
    if (!isRecord(here) || !Object.hasOwn(here, key)) return undefined;
    here = here[key];
  }
  return here;
}

/** Whether a setting's value does something: not absent, null, false, empty or a blank string. */
function present(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  if (typeof value === 'string') return value.trim() !== '';
  return true;
}

/** A value on one short line, for a message. */
const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
};

/** JSONC (as Gemini CLI, Copilot and Cursor read settings): comments and trailing commas outside strings removed. */
export function parseJsonc(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      out += ' ';
    } else out += c;
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

/** Each dotted key of `keys` a JSON(C) file sets to something, as `key: value`; not JSON is a finding. */
export function jsonWidening(text: string, keys: readonly string[]): string[] {
  let value: unknown;
  try {
    value = text.trim() ? parseJsonc(text) : {};
  } catch (err) {
    return [`(sow cannot read it as JSON: ${(err as Error).message.slice(0, 80)})`];
  }
  return keys.flatMap((key) => {
    const v = at(value, key.split('.'));
    return present(v) ? [`${key}: ${shown(v)}`] : [];
  });
}

// Every key path a TOML document names (headers, dotted assignments, inline tables), unevaluated; `unreadable` says
// where the scan gave up (an escaped quoted key could spell any name).
export function tomlKeyPaths(text: string): { paths: string[][]; unreadable?: string } {
  const paths: string[][] = [];
  let table: string[] = [];
  /** Open arrays and inline tables of the value being read. */
  const stack: ('[' | '{')[] = [];
  let expectKey = true;
  let i = 0;
  const fail = (why: string) => ({ paths, unreadable: `${why} (at character ${i})` });
  const skipSpace = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  /** A string at i (basic, literal, or their multi-line forms); its text, and whether it held an escape. */
  const readString = (): { text: string; escaped: boolean } | undefined => {
    const q = text[i]!;
    const triple = text.startsWith(q.repeat(3), i);
    const close = triple ? q.repeat(3) : q;
    let j = i + close.length;
    let escaped = false;
    let value = '';
    while (j < text.length && !text.startsWith(close, j)) {
      if (!triple && text[j] === '\n') return undefined;
      if (q === '"' && text[j] === '\\') {
        escaped = true;
        j += 2;
        continue;
      }
      value += text[j];
      j++;
    }
    if (j >= text.length) return undefined;
    i = j + close.length;
    // A multi-line string may end with up to two more quotes of its kind.
    while (triple && text[i] === q) i++;
    return { text: value, escaped };
  };
  /** A dotted key at i: bare words and quoted parts. */
  const readKey = (): string[] | string => {
    const parts: string[] = [];
    for (;;) {
      skipSpace();
      const c = text[i];
      if (c === '"' || c === "'") {
        const s = readString();
        if (!s) return 'an unterminated quoted key';
        if (s.escaped) return `a quoted key with an escape ("${s.text.slice(0, 40)}…")`;
        parts.push(s.text);
      } else {
        const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
        if (!m) return `'${text.slice(i, i + 20)}' where a key was expected`;
        parts.push(m[0]);
        i += m[0].length;
      }
      skipSpace();
      if (text[i] !== '.') return parts;
      i++;
    }
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '\n') {
      i++;
      // A new line ends a value, unless an array or inline table is still open.
      if (!stack.length) expectKey = true;
    } else if (expectKey && !stack.length && c === '[') {
      const array = text[i + 1] === '[';
      i += array ? 2 : 1;
      const key = readKey();
      if (typeof key === 'string') return fail(key);
      skipSpace();
      if (!text.startsWith(array ? ']]' : ']', i)) return fail('a table header without its closing bracket');
      i += array ? 2 : 1;
      table = key;
      paths.push(key);
    } else if (expectKey) {
      const key = readKey();
      if (typeof key === 'string') return fail(key);
      skipSpace();
      if (text[i] !== '=') return fail(`a key without '=' (${key.join('.')})`);
      i++;
      // Inside an inline table the path below its key is not tracked; every part is still named.
      paths.push(stack.length ? key : [...table, ...key]);
      expectKey = false;
    } else if (c === '"' || c === "'") {
      if (!readString()) return fail('an unterminated string');
    } else if (c === '[' || c === '{') {
      stack.push(c);
      i++;
      if (c === '{') expectKey = true;
    } else if (c === ']' || c === '}') {
      if (stack.pop() !== (c === ']' ? '[' : '{')) return fail(`an unmatched '${c}'`);
      i++;
    } else if (c === ',') {
      i++;
      if (stack.at(-1) === '{') expectKey = true;
    } else {
      i++;
    }
    // Inside an inline table a key may follow '{' or ',' after spaces; a '}' right away closes it.
    if (expectKey && stack.at(-1) === '{') {
      skipSpace();
      if (text[i] === '}') expectKey = false;
    }
  }
  if (stack.length) return fail('an array or inline table that is never closed');
  return { paths };
}

/** Every key path of a TOML file with a part in `names`, at any depth, each once; an unreadable file is a finding. */
export function tomlWidening(text: string, names: readonly string[]): string[] {
  const { paths, unreadable } = tomlKeyPaths(text);
  if (unreadable) return [`(sow cannot read it as TOML: ${unreadable})`];
  const found = new Set<string>();
  for (const path of paths) if (path.some((part) => names.includes(part))) found.add(path.join('.'));
  return [...found];
}

/** The variables of a `.env` file whose names match, as `NAME=…` (values may be secrets). */
export function envWidening(text: string, matches: (name: string) => boolean): string[] {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line);
    if (m && matches(m[1]!)) names.add(`${m[1]}=…`);
  }
  return [...names];
}
