/** The shape check of JSON records sow wrote into its runtime folder, read back as untrusted; a kind is a name or a
 * check of its own (a nested record, a bound). */
type Kind = 'string' | 'int' | 'strings' | ((v: unknown) => boolean);
const KINDS: Record<Exclude<Kind, (v: unknown) => boolean>, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  int: (v) => Number.isSafeInteger(v),
  strings: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string'),
};

/** The keys named of a record read from a file, if the required ones (and the optional ones there) have their kinds. */
export function pickShape<T>(
  v: unknown,
  required: Record<string, Kind>,
  optional: Record<string, Kind> = {},
): T | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, kind] of Object.entries({ ...optional, ...required })) {
    if (r[key] === undefined && required[key] === undefined) continue;
    if (!(typeof kind === 'function' ? kind : KINDS[kind])(r[key])) return undefined;
    out[key] = r[key];
  }
  return out as T;
}
