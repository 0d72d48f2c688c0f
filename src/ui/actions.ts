// The actions of `sow ui`: a closed list of fixed sow command sequences whose values come from the page's body, checked
// here and by the command. Nothing the page sends becomes a command line (decisions 0055, 0064).
import { ROLES } from '../domain/agents.js';
import { TASK_STATUSES } from '../domain/schemas.js';
import { isRecord } from '../domain/json.js';

/** One sow command with the page's values as its arguments (never a free command line). */
export type Call = { name: string; label?: string; args: string[]; opts: Record<string, unknown> };

/** The longest text an action takes (feedback, a prompt for a worker), in characters. */
const MAX_TEXT = 16 * 1024;
/** The longest checkout name (a path relative to the main checkout) an action takes. */
const MAX_CHECKOUT = 4096;

/** A value of the page's body read as one kind of argument: its text, or undefined when it is not of that shape. */
type Check = (v: unknown) => string | undefined;
const text: Check = (v) => (typeof v === 'string' && v.length <= MAX_TEXT ? v : undefined);
const TEXT_RULE = `a text of at most ${MAX_TEXT} characters`;

/** The fields an action may take, each read one way and named in words when it is not of its shape. */
const FIELDS = {
  task: [(v) => (typeof v === 'string' && /^\d{1,9}$/.test(v) ? v : undefined), 'a task id (digits, e.g. "010")'],
  index: [
    (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : undefined),
    'an output index (a whole number from 0)',
  ],
  text: [text, TEXT_RULE],
  prompt: [text, TEXT_RULE],
  status: [(v) => TASK_STATUSES.find((s) => s === v), `a task status (${TASK_STATUSES.join(', ')})`],
  agent: [(v) => ROLES.find((r) => r === v), `an agent (${ROLES.join(', ')})`],
} satisfies Record<string, [Check, string]>;
type Values = Readonly<Record<keyof typeof FIELDS, string>>;

/** An action: the fields it takes (each required) and the sow commands they make, run in order. */
type Action = { fields: readonly (keyof typeof FIELDS)[]; calls: (v: Values) => Call[] };

/** What a worker is told when changes are requested from the page: the feedback itself. */
export const changesPrompt = (task: string, feedback: string): string =>
  `Changes were requested on task ${task} (also recorded as its newest pending feedback):\n\n${feedback.trim()}`;

export const call = (name: string, args: string[], opts: Record<string, unknown> = {}): Call => ({ name, args, opts });

const action = (fields: Action['fields'], calls: Action['calls']): Action => ({ fields, calls });

/** A `Map`, looked up by own key only: a plain object would answer `constructor` or `__proto__`. */
const ACTIONS: ReadonlyMap<string, Action> = new Map<string, Action>([
  ['advance', action([], () => [call('advance', [])])],
  ['approve_output', action(['index'], (v) => [call('output set', ['approved', 'true'], { index: v.index })])],
  ['approve_tasks', action([], () => [call('phase set', ['metadata.tasks_approved', 'true'])])],
  ['resume', action(['task', 'prompt'], (v) => [call('agent resume', [v.task, v.prompt], { detach: true })])],
  ['stop', action(['task'], (v) => [call('agent stop', [v.task])])],
  ['feedback', action(['task', 'text'], (v) => [call('task feedback', [v.text], { id: v.task })])],
  // Review: accept completes the task through the same checks as `sow task set … status completed`.
  ['accept', action(['task'], (v) => [call('task set', ['status', 'completed'], { id: v.task })])],
  // Request changes: the feedback written, then the worker resumed with it, as the orchestrator does in two commands.
  [
    'request_changes',
    action(['task', 'text'], (v) => [
      call('task feedback', [v.text], { id: v.task }),
      call('agent resume', [v.task, changesPrompt(v.task, v.text)], { detach: true }),
    ]),
  ],
  // The board: a card dragged to another column, a worker started on a ready card.
  ['set_status', action(['task', 'status'], (v) => [call('task set', ['status', v.status], { id: v.task })])],
  ['spawn', action(['agent', 'task'], (v) => [call('agent spawn', [v.agent, v.task], { detach: true })])],
]);

/** A name from the page, shown in an error: short (the answer is JSON, which escapes the rest). */
const shown = (v: unknown): string => {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
};

/** A refusal of the page's request, sent as 400 (or `status`) with a JSON error; nothing was run. */
export class ActionRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export function parseJson(raw: string | undefined): unknown {
  try {
    return JSON.parse(raw ?? '');
  } catch {
    throw new ActionRefused('UI_BAD_ACTION', 'the body is not a JSON object');
  }
}

/** The page's body read as one action: its commands and the checkout it is for; ActionRefused for anything else. */
export function parseAction(given: unknown): { name: string; calls: Call[]; checkout: string | null } {
  if (!isRecord(given)) throw new ActionRefused('UI_BAD_ACTION', 'the body is not a JSON object');
  const own = (key: string): unknown => (Object.hasOwn(given, key) ? given[key] : undefined);
  const name = own('action');
  const action = typeof name === 'string' ? ACTIONS.get(name) : undefined;
  if (!action)
    throw new ActionRefused(
      'UI_NO_SUCH_ACTION',
      `no action '${shown(name)}' (actions: ${[...ACTIONS.keys()].join(', ')})`,
    );
  const takes = new Set<string>(['action', 'checkout', ...action.fields]);
  const extra = Object.keys(given).find((k) => !takes.has(k));
  if (extra !== undefined) throw new ActionRefused('UI_BAD_ACTION', `action '${name}' takes no '${shown(extra)}'`);
  const values: Record<string, string> = {};
  for (const key of action.fields) {
    const [check, rule] = FIELDS[key];
    const value = check(own(key));
    if (value === undefined) throw new ActionRefused('UI_BAD_ACTION', `action '${name}' needs '${key}': ${rule}`);
    values[key] = value;
  }
  const checkout = own('checkout');
  if (checkout !== undefined && checkout !== null && !(typeof checkout === 'string' && checkout.length <= MAX_CHECKOUT))
    throw new ActionRefused(
      'UI_BAD_ACTION',
      "'checkout' is a checkout's path relative to the main one (a text), or left out",
    );
  return {
    name: name as string,
    calls: action.calls(values as Values),
    checkout: typeof checkout === 'string' ? checkout : null,
  };
}
