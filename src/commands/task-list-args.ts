/** The words of the task lists (`task list`, `task next`): which fields, how many, and a row of only those. */
import { shown } from '../domain/display.js';
import { UsageError } from '../domain/errors.js';
import { nearMiss } from '../domain/suggest.js';

/** The fields `task list --fields` takes: its JSON's names, and `agent` for assigned_agent. */
const LIST_FIELDS = 'id name status agent assigned_agent parallel dependencies worker remote_claim'.split(' ');
export const LIST_FIELDS_HELP = LIST_FIELDS.filter((f) => f !== 'assigned_agent').join(', ');

export function fieldsArg(raw: string): string[] {
  const names = raw
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new UsageError('--fields names no field', `for example --fields id,name,status (${LIST_FIELDS_HELP})`);
  return [
    ...new Set(
      names.map((n) => {
        if (!LIST_FIELDS.includes(n)) {
          const guess = nearMiss(n, LIST_FIELDS);
          throw new UsageError(
            `--fields: no field '${shown(n)}'${guess ? `; did you mean '${guess}'?` : ''}`,
            `the fields: ${LIST_FIELDS_HELP}`,
          );
        }
        return n === 'agent' ? 'assigned_agent' : n;
      }),
    ),
  ];
}

export function limitArg(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`invalid --limit '${shown(raw)}': expected a whole number from 1`, 'for example --limit 10');
  return n;
}

/** A row of only `fields`, in their order (a field it does not have, or an empty one, is left out). */
export function pick(row: object, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = (row as Record<string, unknown>)[f];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)) out[f] = v;
  }
  return out;
}
