/** Field paths and typed values for `set`/`get`: a known field of the container, or a key of its metadata. */
import {
  DidYouMeanError,
  InvalidFieldError,
  InvalidValueError,
  ReadOnlyFieldError,
  UnknownFieldError,
} from './errors.js';
import { nearMiss } from './suggest.js';
import { isRecord, toJson } from './json.js';

export type Scalar = string | number | boolean;

/** `true`/`false` become booleans, integers a number holds exactly numbers (not `010`), the rest text. */
export function parseValue(raw: string): Scalar {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^-?(0|[1-9]\d{0,15})$/.test(raw)) {
    const n = Number(raw);
    if (Number.isSafeInteger(n) && String(n) === raw) return n;
  }
  return raw;
}

/** Names of parts of every JavaScript object: sow cannot store them faithfully, so it refuses them. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function splitPath(field: string): string[] {
  const parts = field.split('.');
  if (field === '' || parts.some((p) => p === ''))
    throw new InvalidFieldError(
      `invalid field path '${field}': it has an empty name`,
      "use names separated by single dots, e.g. 'metadata.owner.name'",
    );
  const reserved = parts.find((p) => RESERVED_NAMES.has(p));
  if (reserved) throw reservedNameError(field, reserved);
  return parts;
}

/** The refusal of a field path or metadata key that holds one of RESERVED_NAMES. */
export function reservedNameError(field: string, reserved: string): InvalidValueError {
  return new InvalidValueError(
    'field',
    field,
    `a name other than '${reserved}' (it names a part of every JavaScript object, so sow cannot store it faithfully)`,
    "pick another name, e.g. 'metadata.owner'",
  );
}

/** `record[key]` if the record itself has it (never something inherited from Object). */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

export function getAtPath(target: unknown, path: readonly string[]): unknown {
  let cur: unknown = target;
  for (const key of path) {
    if (Array.isArray(cur) && /^\d+$/.test(key)) cur = cur[Number(key)];
    else if (isRecord(cur) && Object.hasOwn(cur, key)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

/** A copy of `target` with `value` at `path` (never empty: splitPath made it), creating maps on the way. */
export function setAtPath<T extends Record<string, unknown>>(target: T, path: readonly string[], value: unknown): T {
  const [head, ...rest] = path as readonly [string, ...string[]];
  if (rest.length === 0) return { ...target, [head]: value };
  const child = target[head];
  if (child !== undefined && !isRecord(child)) {
    throw new InvalidValueError(path.join('.'), String(value), `a map at '${head}', but it holds ${toJson(child)}`);
  }
  return { ...target, [head]: setAtPath((child ?? {}) as Record<string, unknown>, rest, value) };
}

export type FieldSpec =
  | { kind: 'string'; nonEmpty?: boolean }
  | { kind: 'boolean' }
  | { kind: 'integer'; min?: number }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'readonly'; why: string; hint?: string };

/** A field sow keeps itself: `why` it cannot be set, and `hint` when there is a better way than the default. */
export const readOnly = (why: string, hint?: string): FieldSpec => ({ kind: 'readonly', why, hint });

// Whether `field` is a known field or metadata path; a bare name a typo from a known one is refused with "did you
// mean", so `stauts` never lands in metadata.
export function resolveField(
  field: string,
  known: Readonly<Record<string, FieldSpec>>,
  where = 'this container',
  metadataKeys: Iterable<string> = [],
): { where: 'field'; name: string; spec: FieldSpec } | { where: 'metadata'; path: string[] } {
  const path = splitPath(field);
  if (path[0] === 'metadata') {
    if (path.length === 1)
      throw new InvalidFieldError(
        "'metadata' is a map, and cannot be set whole",
        "set one key of it, e.g. 'metadata.owner'",
      );
    return { where: 'metadata', path: path.slice(1) };
  }
  const spec = path.length === 1 ? own(known, field) : undefined;
  if (spec) return { where: 'field', name: field, spec };
  const head = own(known, path[0]!);
  if (head) {
    // `statechart.current_state`: a path into a known field is that field's business, never metadata.
    if (head.kind === 'readonly') throw new ReadOnlyFieldError(field, head.why, head.hint);
    throw new InvalidFieldError(
      `'${path[0]}' holds a single value, so '${field}' names nothing inside it`,
      `set it whole: '${path[0]} <value>'`,
    );
  }
  if (path.length === 1) {
    const suggestion = nearMiss(field, [...Object.keys(known), ...metadataKeys]);
    if (suggestion) throw new DidYouMeanError(field, where, suggestion);
  }
  return { where: 'metadata', path };
}

/** Converts a raw command-line value to the type a known field needs, or explains the mismatch. */
export function coerceField(name: string, raw: string, spec: FieldSpec): Scalar {
  const value = parseValue(raw);
  switch (spec.kind) {
    case 'readonly':
      throw new ReadOnlyFieldError(name, spec.why, spec.hint);
    case 'string':
      if (spec.nonEmpty && raw.trim() === '') throw new InvalidValueError(name, raw, 'a non-empty text');
      return raw;
    case 'boolean':
      if (typeof value !== 'boolean') throw new InvalidValueError(name, raw, 'true or false');
      return value;
    case 'integer':
      if (typeof value === 'number' && (spec.min === undefined || value >= spec.min)) return value;
      throw new InvalidValueError(name, raw, `an integer${spec.min !== undefined ? ` ≥ ${spec.min}` : ''}`);
    case 'enum':
      if (spec.values.includes(raw)) return raw;
      throw new InvalidValueError(name, raw, `one of ${spec.values.join(', ')}`, undefined, nearMiss(raw, spec.values));
  }
}

/** Reads a field for `get`; an unknown name that is not there is an error (as `git config --get`), not "unset". */
export function lookupField(
  container: Readonly<Record<string, unknown>>,
  field: string,
  known: Readonly<Record<string, unknown>>,
  declaredMetadata: Readonly<Record<string, unknown>>,
  where: string,
  /** Other names a typo may be near (aliases, metadata keys of other phases). */
  nearTo: Iterable<string> = [],
): { field: string; value: unknown } {
  const path = splitPath(field);
  const metadataKeys = Object.keys((container['metadata'] as object | undefined) ?? {});
  const missing = () => {
    const names = [...Object.keys(known), ...metadataKeys, ...Object.keys(declaredMetadata), ...nearTo];
    const suggestion = path.length === 1 ? nearMiss(field, names) : undefined;
    if (suggestion) return new DidYouMeanError(field, where, suggestion);
    const keys = metadataKeys.join(', ') || '(none set)';
    return new UnknownFieldError(field, where, `fields: ${Object.keys(known).join(', ')}; metadata keys: ${keys}`);
  };
  const direct = getAtPath(container, path);
  if (direct !== undefined || (path.length === 1 && Object.hasOwn(known, field))) return { field, value: direct };
  // Else a key of metadata: named so (`metadata.x`, then read above), or by itself (`x`).
  const named = path[0] === 'metadata';
  const value = named ? undefined : getAtPath(container['metadata'], path);
  if (value !== undefined || Object.hasOwn(declaredMetadata, named ? path.slice(1).join('.') : field))
    return { field: named ? field : `metadata.${field}`, value };
  throw missing();
}
