/** Configuration files are read strictly: an unknown key is a typo, named with its nearest known key. */
import type { GenericSchema } from 'valibot';
import { nearMiss } from './suggest.js';
import { defined, isRecord } from './json.js';

/** `path`: dotted, e.g. agents.bindngs; `suggestion`: the known key it is a near miss of; `known`: the keys there. */
export type UnknownKey = { path: string; key: string; suggestion?: string; known: string[] };

type Node = { type?: string; entries?: Record<string, Node>; wrapped?: Node; item?: Node; value?: Node };

/** The first key of `data` (depth first, in file order) that `schema` does not know. */
export function findUnknownKey(schema: GenericSchema, data: unknown): UnknownKey | undefined {
  return walk(schema as unknown as Node, data, []);
}

const WRAPPERS = new Set(['optional', 'nullish', 'nullable', 'exact_optional']);
const OBJECTS = new Set(['object', 'loose_object', 'strict_object']);

function walk(node: Node | undefined, data: unknown, path: string[]): UnknownKey | undefined {
  if (!node || data === null || data === undefined) return undefined;
  const type = node.type ?? '';
  if (WRAPPERS.has(type)) return walk(node.wrapped, data, path);
  const object = OBJECTS.has(type);
  const entries = node.entries ?? {};
  // Each member or item with the schema it must meet, in file order.
  const children: [string, unknown, Node | undefined][] =
    (object || type === 'record') && isRecord(data)
      ? Object.entries(data).map(([key, value]) => [key, value, object ? entries[key] : node.value])
      : type === 'array' && Array.isArray(data)
        ? data.map((item, i) => [String(i), item, node.item])
        : [];
  for (const [key, value, schema] of children) {
    if (object && !Object.hasOwn(entries, key)) {
      const known = Object.keys(entries);
      const suggestion = nearMiss(key, known);
      return { path: [...path, key].join('.'), key, known, ...defined({ suggestion }) };
    }
    const found = walk(schema, value, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** "unknown key 'bindngs'; did you mean 'bindings'?" or "… (known: a, b)". */
export function describeUnknownKey(u: UnknownKey): string {
  return u.suggestion
    ? `unknown key '${u.key}'; did you mean '${u.suggestion}'?`
    : `unknown key '${u.key}' (known here: ${u.known.join(', ') || 'none'})`;
}
