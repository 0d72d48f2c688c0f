import { describe, expect, it } from 'vitest';
import { parseDocument, stringify, type Node, type Pair } from 'yaml';
import { spliceYaml } from './splice.js';
import { plainData, sameData } from './data.js';
import * as yaml from 'yaml';

// A small seeded generator, so a failure can be replayed.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const STRINGS = [
  'a',
  'b c',
  'yes',
  '010',
  'x: y',
  '#h',
  'multi\nline\n',
  'tab\tx',
  '',
  'ünï',
  '- d',
  '[q]',
  'it\'s "q"',
];

function value(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 3 || k < 0.5) {
    const p = r();
    if (p < 0.5) return STRINGS[Math.floor(r() * STRINGS.length)];
    if (p < 0.8) return Math.floor(r() * 1000) - 100;
    if (p < 0.9) return r() < 0.5;
    return null;
  }
  if (k < 0.75) {
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(r() * 4); i > 0; i--) out[`k${Math.floor(r() * 6)}`] = value(r, depth + 1);
    return out;
  }
  return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
}

/** A change as sow's commands make them: copy on write along one path; set, remove or add. */
function change(r: () => number, v: unknown, depth = 0): unknown {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const record = v as Record<string, unknown>;
    const keys = Object.keys(record);
    const c = r();
    if (keys.length && c < 0.6) {
      const k = keys[Math.floor(r() * keys.length)]!;
      return { ...record, [k]: change(r, record[k], depth + 1) };
    }
    if (keys.length > 1 && c < 0.75) {
      const { [keys[Math.floor(r() * keys.length)]!]: _gone, ...rest } = record;
      return rest;
    }
    return { ...record, [`n${Math.floor(r() * 5)}`]: value(r, depth + 1) };
  }
  if (Array.isArray(v)) {
    const list = [...v];
    const c = r();
    if (list.length && c < 0.5) {
      const i = Math.floor(r() * list.length);
      list[i] = change(r, list[i], depth + 1);
    } else if (list.length && c < 0.7) list.splice(Math.floor(r() * list.length), 1);
    else list.splice(Math.floor(r() * (list.length + 1)), 0, value(r, depth + 1));
    return list;
  }
  return value(r, depth + 1);
}

/** Some of the ways people write YAML: flow collections, other indentation, comments, aliases. */
function written(r: () => number, data: Record<string, unknown>): string {
  const text = stringify(data, {
    flowLevel: r() < 0.3 ? Math.floor(r() * 3) : undefined,
    indent: r() < 0.3 ? 4 : 2,
    indentSeq: r() < 0.5,
  } as never);
  if (r() < 0.5) return text;
  return `# a header\n${text
    .split('\n')
    .map((l, i) => (i % 3 === 1 && /\S$/.test(l) && !/[:|>-]$/.test(l) && !l.includes('#') ? `${l}   # note ${i}` : l))
    .join('\n')}`;
}

const OPTIONS = { keepSourceTokens: true, intAsBigInt: true, uniqueKeys: false, logLevel: 'error' } as const;

function pairText(text: string, key: string): string | undefined {
  const doc = parseDocument(text, OPTIONS);
  const pair = (doc.contents as { items: Pair[] }).items.find((p) => (p.key as { value?: unknown }).value === key);
  const range = (pair?.value as Node | null)?.range;
  return range ? text.slice((pair!.key as Node).range![0], range[2]) : undefined;
}

describe('spliceYaml on generated files', () => {
  it('writes exactly the new data, and leaves the text of the keys that did not change as it was', () => {
    const r = rng(42);
    let spliced = 0;
    for (let n = 0; n < 800; n++) {
      const root = value(r, 0);
      // Half the files share a map or list between two keys: yaml writes an anchor and an alias.
      const shared = typeof root === 'object' && root !== null && r() < 0.5;
      const data = { root, other: shared ? root : value(r, 1), list: [value(r, 1), value(r, 2)] };
      const text = written(r, data);
      const doc = parseDocument(text, OPTIONS);
      if (doc.errors.length) continue;
      const old = plainData(doc.toJS()) as Record<string, unknown>;
      const key = (['root', 'other', 'list'] as const)[Math.floor(r() * 3)]!;
      const next = { ...old, [key]: change(r, old[key]) };
      const out = spliceYaml(yaml, doc, text, old, next);
      expect(out, `not spliced:\n${text}\n=> ${JSON.stringify(next)}`).toBeDefined();
      const back = plainData(parseDocument(out!, OPTIONS).toJS());
      expect(sameData(back, next), `wrong data:\n${text}\n---\n${out}\n=> ${JSON.stringify(next)}`).toBe(true);
      for (const other of ['root', 'other', 'list'].filter((k) => k !== key)) {
        // An alias of a changed anchor may have to be written out; everything else stays.
        if (shared && other !== 'list') continue;
        expect(pairText(out!, other), `the text of ${other} changed:\n${text}\n---\n${out}`).toBe(
          pairText(text, other),
        );
      }
      spliced++;
    }
    expect(spliced).toBeGreaterThan(600);
  });
});
