// Flag and argument values, checked before a command reads anything: a mistake is a line that cannot be parsed
// (exit 2), said before any other refusal.
import { notOneOf, UsageError } from '../domain/errors.js';
import { quoted } from '../domain/display.js';
import { durationSeconds } from '../domain/ownership.js';
import type { OptionDef } from './def.js';

/** `word` if it is one of `values`, else a refusal naming the near miss and the values. */
export function oneOf<T extends string>(what: string, word: string, values: readonly T[], listed?: string): T {
  if ((values as readonly string[]).includes(word)) return word as T;
  throw notOneOf(what, word, values, listed);
}

/** A parser for commander's argParser: keeps `.choices()` (completion offers them) but refuses as sow does. */
export const choiceOf =
  <T extends string>(what: string, values: readonly T[], listed?: string) =>
  (word: string): T =>
    oneOf(what, word, values, listed);

/** A task id as typed (`10`, `010`): digits. Whether the task exists is the repository's business. */
export function taskIdArg(raw: string, flag = '--id'): string {
  if (!isTaskId(raw))
    throw new UsageError(
      `invalid ${flag} ${quoted(raw)}: expected a task id, digits such as 010`,
      "'sow task list' shows the ids",
    );
  return raw;
}

/** Digits, and not all zeros (ids start at 001). */
const isTaskId = (raw: string): boolean => /^\s*\d{1,9}\s*$/.test(raw) && Number(raw) > 0;

/** Task ids separated by commas (`010,020`). */
export function taskIdsArg(raw: string, flag: string): string {
  const word = raw.split(',').find((w) => w.trim() !== '' && !isTaskId(w));
  if (word !== undefined)
    throw new UsageError(
      `invalid ${flag} ${quoted(raw)}: ${quoted(word.trim())} is not a task id`,
      `give task ids separated by commas, e.g. ${flag} 010,020`,
    );
  return raw;
}

export function booleanArg(raw: string, flag: string): string {
  if (raw !== 'true' && raw !== 'false')
    throw new UsageError(`invalid ${flag} ${quoted(raw)}: expected true or false`, `for example ${flag} true`);
  return raw;
}

/** A text that says something: not empty, not only spaces. */
export function textArg(raw: string, what: string, example: string): string {
  if (raw.trim() === '') throw new UsageError(`${what} is empty`, example);
  return raw;
}

/** An agent role, as `--agent` or `agent spawn <agent>` names it. */
export async function agentArg(raw: string, what = 'agent'): Promise<string> {
  const { ROLES } = await import('../domain/agents.js');
  return oneOf(what, raw, ROLES, "agents ('sow agent list' says what each does)");
}

/** A repeatable option's parser (`--file a --file b`): the values in order; give it `default: []`. */
export const collect = (value: string, previous: unknown): string[] => [...(previous as string[]), value];

/** Turns `--key value` / `--key=value` words commander did not know into a map (artifact metadata). */
export function extraFlags(words: readonly string[]): Record<string, string> {
  // No prototype: `--__proto__ x` must arrive as a name (and be refused), not vanish into Object.
  const out = Object.create(null) as Record<string, string>;
  const refuse = (word: string, why = `unexpected argument '${word}'`) =>
    new UsageError(why, "extra fields are passed as '--name value' (e.g. --assessment pass)");
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const match = /^--([A-Za-z0-9_.-]+)(?:=(.*))?$/s.exec(word);
    if (!match) throw refuse(word);
    const key = match[1]!;
    if (match[2] !== undefined) out[key] = match[2];
    else {
      const value = words[i + 1];
      if (value === undefined || value.startsWith('--')) throw refuse(word, `--${key} needs a value`);
      out[key] = value;
      i++;
    }
  }
  return out;
}

/** `--id`, or inside a spawned worker the task it was spawned for (SOW_TASK_ID). */
export function taskIdOf(opts: { id?: string }): string {
  const id = opts.id ?? process.env['SOW_TASK_ID'];
  if (id === undefined || id === '')
    throw new UsageError(
      "required option '--id <id>' not specified",
      "pass --id <task id> ('sow task list' shows them); spawned workers default to SOW_TASK_ID",
    );
  return taskIdArg(id, opts.id === undefined ? 'SOW_TASK_ID' : '--id');
}

/** `--watch` of a view (`sow status`, `sow task list`): for a person at a terminal, so no MCP client gets it. */
export const WATCH_OPTION = {
  flags: '-w, --watch',
  description: 'show it again each time it changes, until Ctrl-C (with --json: one document per line)',
  terminal: true,
} as const satisfies OptionDef;
export const PHASE_OPTION = {
  flags: '-p, --phase <name>',
  description: 'the phase (default: the one in progress)',
} as const satisfies OptionDef;
export const TASK_ID_OPTION = {
  flags: '--id <id>',
  description: 'task id (default: $SOW_TASK_ID)',
  complete: 'task-id',
} as const satisfies OptionDef;
/** `--timeout` of the waits: an orchestrator whose tool calls are limited waits in slices. */
export const TIMEOUT_OPTION = {
  flags: '--timeout <duration>',
  description: 'give up after this long (90s, 5m): exit 124',
  /** A duration as typed: 90s, 5m, 1h, or a bare number of seconds; returns seconds. */
  parse: (raw) => {
    const seconds = durationSeconds(raw, 's');
    if (!Number.isFinite(seconds) || seconds <= 0)
      throw new UsageError(
        `invalid --timeout ${quoted(raw)}: expected a duration such as 90s, 5m or 1h`,
        'for example --timeout 5m',
      );
    return seconds;
  },
} as const satisfies OptionDef;
