// JSON files a person owns, edited as text: sow appends in the file's layout and removes exactly what it added, giving
// back the bytes. Only JSON.parse-accepted text at most MAX_JSON_DEPTH deep is scanned (it recurses).
import { isDeepStrictEqual } from 'node:util';

/** Settings and MCP files nest 4–6 levels; 64 is far beyond any real one, and safe to recurse. */
export const MAX_JSON_DEPTH = 64;

/** How deeply `text` nests its maps and lists, counting at most to `limit + 1` (then it stops reading). */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export type JsonNode =
  | { type: 'object'; start: number; end: number; members: JsonMember[] }
  | { type: 'array'; start: number; end: number; items: JsonNode[] }
  | { type: 'scalar'; start: number; end: number };
/** A member of a map: from its key's opening quote to the end of its value. */
export type JsonMember = { key: string; start: number; end: number; value: JsonNode };

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** Where each value of `text` lies. `text` must be JSON that JSON.parse accepted, at most MAX_JSON_DEPTH deep. */
export function scanJson(text: string): JsonNode {
  let i = 0;
  const skip = () => {
    while (isSpace(text[i])) i++;
  };
  const string = (): number => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return start;
  };
  const value = (): JsonNode => {
    skip();
    const start = i;
    const c = text[i];
    if (c === '{' || c === '[') {
      const object = c === '{';
      const members: JsonMember[] = [];
      const items: JsonNode[] = [];
      i++;
      skip();
      while (text[i] !== (object ? '}' : ']')) {
        if (object) {
          const keyStart = string();
          const key = JSON.parse(text.slice(keyStart, i)) as string;
          skip();
          i++; // ':'
          const v = value();
          members.push({ key, start: keyStart, end: v.end, value: v });
        } else items.push(value());
        skip();
        if (text[i] === ',') i++;
        skip();
      }
      i++;
      return object ? { type: 'object', start, end: i, members } : { type: 'array', start, end: i, items };
    }
    if (c === '"') {
      string();
      return { type: 'scalar', start, end: i };
    }
    while (i < text.length && !isSpace(text[i]) && text[i] !== ',' && text[i] !== ']' && text[i] !== '}') i++;
    return { type: 'scalar', start, end: i };
  };
  return value();
}

/** The member `key` of a map — the last one, as JSON.parse reads duplicates. */
export function memberOf(node: JsonNode, key: string): JsonMember | undefined {
  if (node.type !== 'object') return undefined;
  for (let k = node.members.length - 1; k >= 0; k--) if (node.members[k]!.key === key) return node.members[k];
  return undefined;
}

export const valueOf = (text: string, node: JsonNode): unknown => JSON.parse(text.slice(node.start, node.end));

const lineBreak = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');

/** One level of indentation in the file: that of its first indented line; two spaces if none is. */
function indentUnit(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  return m ? m[1]! : '  ';
}

// A value on one line: `{"a":1}`, or with the spacing of `{"a": 1, "b": 2}` (JSON.stringify's indented form joined:
// a string in JSON holds no raw line break, so every one of them is layout).
function inline(value: unknown, spaced: boolean): string {
  if (!spaced) return JSON.stringify(value);
  return JSON.stringify(value, null, 1)
    .replace(/([[{])\n */g, '$1')
    .replace(/\n *(?=[\]}])/g, '')
    .replace(/\n */g, ' ');
}

/** A value over several lines, its first line placed after `ws` and the rest indented from that line's indent. */
function block(value: unknown, ws: string, unit: string, nl: string): string {
  return JSON.stringify(value, null, unit)
    .split('\n')
    .join(`${nl}${ws.slice(ws.lastIndexOf('\n') + 1)}`);
}

const entriesOf = (node: JsonNode): { start: number; end: number }[] =>
  node.type === 'object' ? node.members : node.type === 'array' ? node.items : [];

/** `text` with an entry appended to `container` after its last, in that entry's layout; removeEntry undoes it. */
export function appendEntry(text: string, container: JsonNode, value: unknown, key?: string): string {
  const entries = entriesOf(container);
  const nl = lineBreak(text);
  const render = (ws: string) => {
    const multiline = ws.includes('\n');
    const spaced = multiline || ws !== '' || /": /.test(text);
    const body = multiline ? block(value, ws, indentUnit(text), nl) : inline(value, spaced);
    return key === undefined ? body : `${JSON.stringify(key)}:${spaced ? ' ' : ''}${body}`;
  };
  const last = entries[entries.length - 1];
  if (last) {
    let p = last.start - 1;
    while (isSpace(text[p])) p--;
    const ws = text.slice(p + 1, last.start);
    return `${text.slice(0, last.end)},${ws}${render(ws)}${text.slice(last.end)}`;
  }
  const inner = text.slice(container.start + 1, container.end - 1);
  // `{⏎}`: the entry on a line of its own, one level in from the closing bracket's line; `{}`: inside the brackets.
  const ws = inner.includes('\n') ? `${nl}${inner.slice(inner.lastIndexOf('\n') + 1)}${indentUnit(text)}` : '';
  return `${text.slice(0, container.start + 1)}${ws}${render(ws)}${text.slice(container.start + 1)}`;
}

/** `text` without entry `index` of `container`, with the comma and whitespace appendEntry added. */
export function removeEntry(text: string, container: JsonNode, index: number): string {
  const entries = entriesOf(container);
  const entry = entries[index]!;
  if (index > 0) return `${text.slice(0, entries[index - 1]!.end)}${text.slice(entry.end)}`;
  const next = entries[1];
  if (next) return `${text.slice(0, entry.start)}${text.slice(next.start)}`;
  return `${text.slice(0, container.start + 1)}${text.slice(entry.end)}`;
}

/** Whether two parsed JSON values are the same (key order aside). */
export const sameJson = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);
