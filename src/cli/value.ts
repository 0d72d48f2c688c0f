/** How `task get` and `phase get` print one value. */
import { nonFiniteText, toJson } from '../domain/json.js';

/** Renders a value for `get`: bare scalars so scripts can use them, JSON for maps and lists. */
export function renderValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return toJson(value, 2);
  if (typeof value === 'number' && !Number.isFinite(value)) return nonFiniteText(value); // as the file spells it
  return String(value);
}
