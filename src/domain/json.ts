// JSON of sow's data (`--json`, MCP): `.inf`, `-.inf`, `.nan` as strings and integers beyond 2^53 with exact digits,
// where JSON.stringify writes null or throws (decision 0028).

/** A map (a JSON object): not null, not a list. */
export const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** `record` without its undefined members, in its order: a JSON shape names only what is there. */
export const defined = <T extends Record<string, unknown>>(record: T) =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };

/** The strings that stand for the numbers JSON lacks, as YAML spells them. */
export function nonFiniteText(n: number): string {
  return Number.isNaN(n) ? '.nan' : n > 0 ? '.inf' : '-.inf';
}

/** Whether `value` holds a bigint or a number JSON cannot write; most data holds neither. */
function needsCare(value: unknown): boolean {
  if (typeof value === 'bigint') return true;
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(needsCare);
  for (const key in value) if (needsCare((value as Record<string, unknown>)[key])) return true;
  return false;
}

// A bigint is written as a marked string, the mark carrying a nonce so no string from a file passes for one.
const NONCE = Math.random().toString(36).slice(2, 12);
const MARK = `\u0000${NONCE}:`;
const MARKED = new RegExp(`"\\\\u0000${NONCE}:(-?\\d+)"`, 'g');

/** Characters JSON.stringify leaves raw that a terminal acts on (DEL, C1, bidi, separators, BOM): `\uXXXX` is safe. */
const INVISIBLE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;
const escapeInvisible = (text: string) =>
  text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Like JSON.stringify(value, null, indent), with non-finite numbers and bigints written faithfully. */
export function toJson(value: unknown, indent?: number): string {
  if (!needsCare(value)) return escapeInvisible(JSON.stringify(value, null, indent));
  const text = JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v === 'bigint') return `${MARK}${v}`;
      if (typeof v === 'number' && !Number.isFinite(v)) return nonFiniteText(v);
      return v;
    },
    indent,
  );
  return escapeInvisible(text.replace(MARKED, '$1'));
}
