/**
 * JSON text of sow's data, for `--json`, the MCP server and JSON in human output. Values a state
 * file can hold that JSON.stringify gets wrong are written faithfully:
 * - `.inf`, `-.inf` and `.nan` as those strings (JSON has no such numbers; JSON.stringify writes null);
 * - an integer beyond 2^53 (held as a bigint) as a JSON number with its exact digits
 *   (JSON.stringify throws on a bigint; a reader that parses numbers as doubles rounds it, as it
 *   would any number that long).
 * See docs/decisions/0028-values-as-written.md.
 */

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

// A bigint is written as a marked string, and the mark replaced by its digits after; the mark
// carries a nonce, so no string from a file can pass for one.
const NONCE = Math.random().toString(36).slice(2, 12);
const MARK = `\u0000${NONCE}:`;
const MARKED = new RegExp(`"\\\\u0000${NONCE}:(-?\\d+)"`, 'g');

/** Like JSON.stringify(value, null, indent), with non-finite numbers and bigints written faithfully. */
export function toJson(value: unknown, indent?: number): string {
  if (!needsCare(value)) return JSON.stringify(value, null, indent);
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return `${MARK}${v}`;
    if (typeof v === 'number' && !Number.isFinite(v)) return nonFiniteText(v);
    return v;
  }, indent);
  return text.replace(MARKED, '$1');
}
