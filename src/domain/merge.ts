// Pure three-way merges of sow's files by meaning, for `sow merge-driver`: a field both sides changed differently
// is a conflict (ours kept) unless its meaning decides; artifacts merge by type and path, growing lists take both adds.
import { defined, isRecord } from './json.js';

// A field both sides changed to different values: `field` is its dotted path (`phases.review.outputs.0.approved`); a
// side that is absent had it removed, or never set.
export type FieldConflict = { field: string; base?: unknown; ours?: unknown; theirs?: unknown };

/** The files merged by meaning; anything else is merged as text. */
export type MergeKind = 'project' | 'task' | 'knowledge' | 'log';

/** What kind of sow file `path` (repository-relative, as git names it) is, or undefined for one merged as text. */
export function mergeKindOf(path: string): MergeKind | undefined {
  if (path === '.sow/project/state.yaml') return 'project';
  if (path === '.sow/knowledge/index.yaml') return 'knowledge';
  if (path === '.sow/project/log.md') return 'log';
  const task = /^\.sow\/project\/phases\/[^/]+\/tasks\/[^/]+\/(state\.yaml|log\.md)$/.exec(path);
  if (task) return task[1] === 'log.md' ? 'log' : 'task';
  return undefined;
}

// `time`: the member holding a growing list's item's time, for the order; `atomic`: a value taken whole, so two
// different changes to it conflict.
type Rule =
  { kind: 'latest' | 'earliest' | 'max' | 'atomic' | 'owner' | 'set' | 'artifacts' } | { kind: 'grows'; time: string };

/** Rules by path; `*` stands for any one key (a phase, an agent, a list index). */
const RULES: Record<MergeKind, readonly (readonly [string, Rule])[]> = {
  project: [
    ['statechart.history', { kind: 'grows', time: 'at' }],
    ['usage', { kind: 'grows', time: 'at' }],
    ['phases.*.inputs', { kind: 'artifacts' }],
    ['phases.*.outputs', { kind: 'artifacts' }],
    ['sessions.*', { kind: 'atomic' }],
    ['spawn_counts.*', { kind: 'max' }],
  ],
  task: [
    ['inputs', { kind: 'artifacts' }],
    ['outputs', { kind: 'artifacts' }],
    ['dependencies', { kind: 'set' }],
    ['retired_owners', { kind: 'set' }],
    ['handoffs', { kind: 'grows', time: 'at' }],
    ['owner', { kind: 'owner' }],
    ['session', { kind: 'atomic' }],
  ],
  knowledge: [['entries', { kind: 'grows', time: 'date' }]],
  log: [],
};

/** Stamps whose meaning picks between two times, wherever they are (a phase, a task, an artifact). */
const STAMPS: Readonly<Record<string, Rule>> = {
  updated_at: { kind: 'latest' },
  completed_at: { kind: 'latest' },
  created_at: { kind: 'earliest' },
  started_at: { kind: 'earliest' },
};

type Path = readonly string[];
type Data = Record<string, unknown>;
type List = readonly unknown[];

function ruleAt(kind: MergeKind, path: Path): Rule | undefined {
  for (const [pattern, rule] of RULES[kind]) {
    const parts = pattern.split('.');
    if (parts.length === path.length && parts.every((p, i) => p === '*' || p === path[i])) return rule;
  }
  const last = path.at(-1);
  return last !== undefined && Object.hasOwn(STAMPS, last) ? STAMPS[last] : undefined;
}

/** A text that two equal values share and two different ones do not (keys sorted; bigints kept apart from numbers). */
export function dataKey(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `[${value.map(dataKey).join(',')}]`;
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${dataKey(value[k])}`)
      .join(',')}}`;
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return JSON.stringify(value) ?? String(value);
}

const same = (a: unknown, b: unknown): boolean => a === b || dataKey(a) === dataKey(b);

/** A time as milliseconds, or undefined when `v` is not one. */
function timeOf(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/** Three-way merge of the parsed data of a state file (`base` undefined when both sides added the file). */
export function mergeData(kind: MergeKind, base: unknown, ours: unknown, theirs: unknown) {
  const conflicts: FieldConflict[] = [];

  /** Records that both sides changed `path` differently; this side's value stays. */
  function conflict(path: Path, base: unknown, ours: unknown, theirs: unknown): unknown {
    conflicts.push({ field: path.join('.') || '(the whole file)', ...defined({ base, ours, theirs }) });
    return ours;
  }

  function merge(path: Path, base: unknown, ours: unknown, theirs: unknown): unknown {
    if (same(ours, theirs)) return ours;
    if (same(base, ours)) return theirs;
    if (same(base, theirs)) return ours;
    const rule = ruleAt(kind, path);
    const lists = (base === undefined || Array.isArray(base)) && Array.isArray(ours) && Array.isArray(theirs);
    switch (rule?.kind) {
      case 'latest':
      case 'earliest': {
        const o = timeOf(ours);
        const t = timeOf(theirs);
        if (o === undefined || t === undefined) break;
        return (rule.kind === 'latest' ? t > o : t < o) ? theirs : ours;
      }
      case 'max':
        if (typeof ours === 'number' && typeof theirs === 'number') return Math.max(ours, theirs);
        break;
      case 'owner':
        // Who works on a task, never a mix of two: the same owner takes the later lease, two different ones conflict.
        if (isRecord(ours) && isRecord(theirs) && ['kind', 'by', 'session'].every((k) => ours[k] === theirs[k]))
          return leaseEnd(theirs) > leaseEnd(ours) ? theirs : ours;
        break;
      case 'set':
        if (lists) return keptAndAdded(base ?? [], ours, theirs).flat();
        break;
      case 'grows':
        if (lists)
          return interleave(...keptAndAdded(base ?? [], ours, theirs), (item) =>
            isRecord(item) ? timeOf(item[rule.time]) : undefined,
          );
        break;
      case 'artifacts':
        if (lists) return mergeArtifacts(path, base ?? [], ours, theirs);
        break;
      case undefined:
        if (isRecord(ours) && isRecord(theirs) && (base === undefined || isRecord(base)))
          return mergeObject(path, base ?? {}, ours, theirs);
    }
    return conflict(path, base, ours, theirs);
  }

  function mergeObject(path: Path, base: Data, ours: Data, theirs: Data) {
    const out: Data = {};
    // This side's key order, then the keys only the other side has.
    const keys = [...Object.keys(ours), ...Object.keys(theirs).filter((k) => !Object.hasOwn(ours, k))];
    for (const key of keys) {
      const pick = (o: Data) => (Object.hasOwn(o, key) ? o[key] : undefined);
      const merged = merge([...path, key], pick(base), pick(ours), pick(theirs));
      if (merged !== undefined) out[key] = merged;
    }
    return out;
  }

  function mergeArtifacts(path: Path, base: List, ours: List, theirs: List): unknown[] {
    const index = (list: List) => new Map(identities(list).map((id, i) => [id, list[i]]));
    const b = index(base);
    const o = index(ours);
    const t = index(theirs);
    const shared: string[] = [];
    const addedOurs: string[] = [];
    for (const id of o.keys()) {
      if (!b.has(id)) addedOurs.push(id);
      // Removed by the other side: gone, unless this side changed it meanwhile (a conflict).
      else if (t.has(id) || !same(o.get(id), b.get(id))) shared.push(id);
    }
    const addedTheirs = [...t.keys()].filter((id) => !o.has(id) && !b.has(id));
    for (const [id, item] of t) {
      // Removed by this side: gone, unless the other side changed it meanwhile (a conflict, kept removed).
      if (!o.has(id) && b.has(id) && !same(item, b.get(id)))
        conflict([...path, `(${describeArtifact(item)})`], b.get(id), undefined, item);
    }
    const createdAt = (id: string) => {
      const item = o.get(id) ?? t.get(id);
      return isRecord(item) ? timeOf(item['created_at']) : undefined;
    };
    // Conflicts inside an artifact are named by where it ends up in the merged list.
    return [...shared, ...interleave(addedOurs, addedTheirs, createdAt)].map((id, i) => {
      const here = [...path, String(i)];
      if (!o.has(id)) return t.get(id);
      if (!t.has(id)) return b.has(id) ? conflict(here, b.get(id), o.get(id), undefined) : o.get(id);
      // Shared, or added on both sides (base undefined: every field that differs is the pair's to settle).
      return merge(here, b.get(id), o.get(id), t.get(id));
    });
  }

  return { value: merge([], base, ours, theirs), conflicts };
}

/** When an owner's hold ends (else began): of two records of the same owner, the later one stands. */
const leaseEnd = (owner: Data) => timeOf(owner['lease_until']) ?? timeOf(owner['since']) ?? 0;

/** This side's items but those the other side removed, and what the other side added: each once. */
function keptAndAdded<T>(base: readonly T[], ours: readonly T[], theirs: readonly T[]): [T[], T[]] {
  const b = new Set(base.map(dataKey));
  const t = new Set(theirs.map(dataKey));
  const kept = ours.filter((x) => !(b.has(dataKey(x)) && !t.has(dataKey(x))));
  const have = new Set(kept.map(dataKey));
  const added: T[] = [];
  for (const x of theirs) {
    const k = dataKey(x);
    if (b.has(k) || have.has(k)) continue;
    have.add(k);
    added.push(x);
  }
  return [kept, added];
}

/** Two sequences into one in time order, neither side's order changed; an item without a time follows its elder. */
export function interleave<T>(ours: readonly T[], theirs: readonly T[], time: (item: T) => number | undefined): T[] {
  const stamped = (list: readonly T[]) => {
    let last = -Infinity;
    return list.map((item) => {
      last = time(item) ?? last;
      return { item, at: last };
    });
  };
  const a = stamped(ours);
  const b = stamped(theirs);
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.at <= b[j]!.at)) out.push(a[i++]!.item);
    else out.push(b[j++]!.item);
  }
  return out;
}

/** An artifact's identity: its type and path, and which of the artifacts with both it is (the first, …). */
function identities(list: List): string[] {
  const seen = new Map<string, number>();
  return list.map((a) => {
    const base = isRecord(a) ? `${String(a['type'])}\u0000${String(a['path'])}` : `\u0001${dataKey(a)}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return `${base}\u0000${n}`;
  });
}

function describeArtifact(a: unknown): string {
  return isRecord(a) ? `${String(a['type'])} ${String(a['path'])}` : dataKey(a);
}

const ENTRY_START = /^---\n(?=timestamp:)/gm;

/** A log as sow writes it: a heading, then entries that each begin with front matter (`---`, `timestamp: …`). */
export function splitLog(text: string): { head: string; entries: string[] } {
  const starts = [...text.matchAll(ENTRY_START)].map((m) => m.index!);
  if (starts.length === 0) return { head: text, entries: [] };
  const entries = starts.map((s, i) => text.slice(s, starts[i + 1] ?? text.length));
  return { head: text.slice(0, starts[0]), entries };
}

function entryTime(entry: string): number | undefined {
  const m = /^timestamp:[ \t]*["']?([^"'\n]*)["']?[ \t]*$/m.exec(entry);
  return m ? timeOf(m[1]!.trim()) : undefined;
}

/** An entry's text as compared and written: ending in one blank line, as sow writes them. */
const entryText = (e: string) => `${e.replace(/\s+$/, '')}\n\n`;

/** Three-way merge of a log.md by its entries; undefined when both sides changed the heading (text merge decides). */
export function mergeLog(base: string, ours: string, theirs: string): string | undefined {
  if (ours === theirs || theirs === base) return ours;
  if (ours === base) return theirs;
  const b = splitLog(base);
  const o = splitLog(ours);
  const t = splitLog(theirs);
  let head: string;
  if (o.head === t.head || t.head === b.head) head = o.head;
  else if (o.head === b.head) head = t.head;
  else return undefined;
  // A log only grows: the entries both keep, and the other side's additions woven in by time.
  const [kept, added] = keptAndAdded(b.entries.map(entryText), o.entries.map(entryText), t.entries.map(entryText));
  const body = interleave(kept, added, entryTime).join('');
  if (head !== '' && body !== '' && !head.endsWith('\n\n')) head = head.endsWith('\n') ? `${head}\n` : `${head}\n\n`;
  return `${head}${body}`;
}
