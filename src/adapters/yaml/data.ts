/** What sow holds of a YAML value, and when two are the same: plain data, with a bigint for an integer beyond ±2^53. */
import { isRecord } from './emit.js';

/** The plain data of what `yaml` made: exact bigints to numbers, `!!set` a list, `!!omap` a map, `!!binary` base64. */
export function plainData(value: unknown): unknown {
  if (typeof value === 'bigint') {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value;
  }
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = plainData(value[i]);
    return value;
  }
  if (value instanceof Set) return Array.from(value, plainData);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of value) defineKey(out, keyText(key), plainData(item));
    return out;
  }
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = plainData(record[key]);
  return record;
}

/** A key as the `yaml` package spells it in a JavaScript object (null is ''). */
function keyText(key: unknown): string {
  if (key === null || key === undefined) return '';
  return typeof key === 'object'
    ? JSON.stringify(key, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))
    : String(key);
}

/** Sets an own key, even `__proto__` (which plain assignment would turn into the prototype). */
function defineKey(record: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Whether two values are the same data: NaN is NaN, a bigint its nearest number, key order and undefined aside. */
export function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  // An integer beyond 2^53 where a schema wants a number is held as the nearest number (schema-check.ts check()).
  if (typeof a === 'bigint' && typeof b === 'number') return Number(a) === b;
  if (typeof a === 'number' && typeof b === 'bigint') return a === Number(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  if (!isRecord(a) || !isRecord(b)) return false;
  let count = 0;
  for (const key of Object.keys(a)) {
    if (a[key] === undefined) continue;
    count++;
    if (!Object.hasOwn(b, key) || !sameData(a[key], b[key])) return false;
  }
  for (const key of Object.keys(b)) if (b[key] !== undefined) count--;
  return count === 0;
}
