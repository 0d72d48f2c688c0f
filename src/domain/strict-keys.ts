/** Configuration files are read strictly: an unknown key is a typo, named with its nearest known key. */
import type { GenericSchema } from 'valibot';
import { nearMiss } from './suggest.js';
import { isRecord } from './json.js';

export interface UnknownKey {
  /** Dotted path of the unknown key, e.g. agents.bindngs. */
  path: string;
  key: string;
  /** The known key it is a near miss of. */
  suggestion?: string;
  /** The keys that are known there. */
  known: string[];
}

type Node = { type?: string; entries?: Record<string, Node>; wrapped?: Node; item?: Node; value?: Node };

/** The first key of `data` (depth first, in file order) that `schema` does not know. */
export function findUnknownKey(schema: GenericSchema, data: unknown): UnknownKey | undefined {
  return walk(schema as unknown as Node, data, []);
}

function walk(node: Node | undefined, data: unknown, path: string[]): UnknownKey | undefined {
  if (!node || data === null || data === undefined) return undefined;
  switch (node.type) {
    case 'optional':
    case 'nullish':
    case 'nullable':
    case 'exact_optional':
      return walk(node.wrapped, data, path);
    case 'object':
    case 'loose_object':
    case 'strict_object': {
      if (!isRecord(data)) return undefined;
      const entries = node.entries ?? {};
      const known = Object.keys(entries);
      for (const key of Object.keys(data)) {
        if (!Object.hasOwn(entries, key)) {
          const suggestion = nearMiss(key, known);
          return { path: [...path, key].join('.'), key, known, ...(suggestion ? { suggestion } : {}) };
        }
        const found = walk(entries[key], data[key], [...path, key]);
        if (found) return found;
      }
      return undefined;
    }
    case 'record':
      if (!isRecord(data)) return undefined;
      for (const key of Object.keys(data)) {
        const found = walk(node.value, data[key], [...path, key]);
        if (found) return found;
      }
      return undefined;
    case 'array':
      if (!Array.isArray(data)) return undefined;
      for (const [i, item] of data.entries()) {
        const found = walk(node.item, item, [...path, String(i)]);
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** "unknown key 'bindngs'; did you mean 'bindings'?" or "… (known: a, b)". */
export function describeUnknownKey(u: UnknownKey): string {
  return u.suggestion
    ? `unknown key '${u.key}'; did you mean '${u.suggestion}'?`
    : `unknown key '${u.key}' (known here: ${u.known.join(', ') || 'none'})`;
}
