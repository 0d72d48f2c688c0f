// The tools of `sow mcp`, from the commands that declare an MCP exposure: a call checks each value with the command
// line's own parser, runs the command and answers its --json `data`. `action` picks among several commands.
import { processContext } from '../app/context.js';
import type { CommandContext, CommandDef, CommandInput } from '../model/def.js';
import { UsageError } from '../domain/errors.js';
import { nearMiss } from '../domain/suggest.js';
import { defined, isRecord } from '../domain/json.js';

/** What a call runs with: the workspace, the client's cancellation, and progress for long calls. */
export interface ToolContext {
  cwd: string;
  signal?: AbortSignal;
  /** Reports progress when the client asked for it (a check ended); else does nothing. */
  progress(done: number, total: number, message: string): void;
}

/** A tool as `tools/list` shows it (JSON Schema for its input), and `run`: the data of the command called, and the
 * member of `structuredContent` a list goes under. */
export type Tool = ReturnType<typeof toolOf>;

/** One argument of a tool: an argument or option of its command, under the name MCP gives it. */
interface Param {
  readonly name: string;
  readonly kind: 'string' | 'boolean' | 'list' | 'map';
  readonly description: string;
  readonly required: boolean;
  readonly choices?: readonly string[];
  readonly default?: unknown;
  /** Not offered to the client: an omitted option the tool always passes with its default. */
  readonly hidden?: boolean;
  /** Puts the value, as typed words, into the command's input as commander would. */
  put(input: Draft, value: unknown): void;
}

/** A command's input as the call's values fill it. */
type Draft = { args: unknown[]; opts: Record<string, unknown>; rest?: string[] };

const snake = (name: string) => name.replace(/-/g, '_');
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The word, or the command line's refusal of one not among fixed choices, as commander says it. */
function checkChoice(choices: readonly string[] | undefined, what: string, raw: string): string {
  if (choices && !choices.includes(raw))
    throw new UsageError(`${what} Allowed choices are ${choices.join(', ')}.`, 'give one of them');
  return raw;
}

/** The arguments of a tool that runs `def`: its arguments, then its options, then its `--name value` words. */
export function paramsOf(def: CommandDef): Param[] {
  const defaults = def.mcp?.defaults ?? {};
  const omitted = (name: string) => def.mcp?.omit?.includes(snake(name)) === true;
  const params: Param[] = [];
  (def.args ?? []).forEach((a, i) => {
    if (omitted(a.name)) return;
    const one = (raw: string) =>
      a.parse
        ? a.parse(raw)
        : checkChoice(a.choices, `command-argument value '${raw}' is invalid for argument '${a.name}'.`, raw);
    params.push({
      name: snake(a.name),
      kind: a.variadic ? 'list' : 'string',
      description: a.description ?? a.name,
      required: !a.optional && a.default === undefined,
      ...defined({ choices: a.choices, default: a.default }),
      put(input, value) {
        if (a.variadic) input.args[i] = ((value as unknown[] | undefined) ?? []).map((v) => one(String(v)));
        else input.args[i] = value === undefined ? a.default : one(String(value));
      },
    });
  });
  for (const o of def.options ?? []) {
    const [, long, value] = /--([\w-]+)(?:\s+[<[](.+)[>\]])?/.exec(o.flags)!;
    const name = snake(long!);
    const given = defaults[name];
    // An omitted option is left out, unless the tool's defaults fix its value (e.g. a list's limit).
    if (o.terminal || (omitted(long!) && given === undefined)) continue;
    const negated = long!.startsWith('no-');
    const key = camel(negated ? long!.slice(3) : long!);
    const repeats = Array.isArray(o.default);
    const parse = (raw: string, previous: unknown) =>
      o.parse
        ? o.parse(raw, previous)
        : checkChoice(o.choices, `option '${o.flags}' argument '${raw}' is invalid.`, raw);
    params.push({
      name,
      kind: value === undefined ? 'boolean' : repeats ? 'list' : 'string',
      description: o.description,
      required: o.required === true && given === undefined,
      ...(omitted(long!) ? { hidden: true } : {}),
      ...defined({ choices: o.choices, default: given !== undefined ? given : repeats ? undefined : o.default }),
      put(input, v) {
        if (v === undefined) v = given;
        if (value === undefined) {
          if (v === true) input.opts[key] = !negated;
          else if (negated) input.opts[key] = true;
        } else if (v === undefined) {
          if (o.default !== undefined) input.opts[key] = o.default;
        } else if (repeats) {
          input.opts[key] = (v as unknown[]).reduce((previous: unknown, w) => parse(String(w), previous), o.default);
        } else input.opts[key] = parse(String(v), undefined);
      },
    });
  }
  if (def.passThrough)
    params.push({
      name: def.passThrough.name,
      kind: 'map',
      description: def.passThrough.description,
      required: false,
      put(input, value) {
        const given = Object.entries((value as Record<string, unknown> | undefined) ?? {});
        input.rest = given.flatMap(([k, v]) => [`--${k}`, String(v)]);
      },
    });
  return params;
}

const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const words = (v: unknown) => (Array.isArray(v) && v.every(scalar) ? v.map(String) : undefined);

/** Each kind of argument: its JSON Schema (of its items for a list), what it expects in words, and a value of the
 * schema's type as the command line's words (`index: 0` is '0'; one word is a list of one), else undefined. */
const KINDS = {
  boolean: { expected: 'true or false', shaped: (v: unknown) => (typeof v === 'boolean' ? v : undefined) },
  string: { expected: 'a string', shaped: (v: unknown) => (scalar(v) ? String(v) : undefined) },
  list: { expected: 'a list of strings', shaped: (v: unknown) => (scalar(v) ? [String(v)] : words(v)) },
  map: {
    expected: 'an object',
    shaped: (v: unknown) => (isRecord(v) && Object.values(v).every(scalar) ? v : undefined),
  },
};

function schemaOf(p: Param): object {
  const item = p.choices ? { enum: p.choices } : { type: 'string' };
  const map = { type: 'object', additionalProperties: { type: 'string' } };
  const type = { boolean: { type: 'boolean' }, string: item, list: { type: 'array', items: item }, map }[p.kind];
  return { ...type, ...defined({ default: p.default }), description: p.description };
}

/** A tool built from its commands (one, or several told apart by `action`). */
function toolOf(name: string, defs: readonly CommandDef[]) {
  const several = defs.length > 1;
  const byDef = new Map(defs.map((d) => [d, paramsOf(d)]));
  const own = (d: CommandDef) => byDef.get(d)!;
  const actions = defs.map((d) => d.mcp!.action!);
  // Every name once, in the commands' order; a name several commands take says what it is in each.
  const merged = new Map<string, { param: Param; said: Map<string, string[]> }>();
  for (const def of defs)
    for (const p of own(def).filter((q) => !q.hidden)) {
      const seen = merged.get(p.name) ?? { param: p, said: new Map() };
      if (seen.param.kind !== p.kind) throw new Error(`${name}: '${p.name}' has two types`);
      seen.said.set(p.description, [...(seen.said.get(p.description) ?? []), def.mcp!.action ?? '']);
      merged.set(p.name, seen);
    }
  const describe = (said: Map<string, string[]>) =>
    said.size === 1
      ? [...said.keys()][0]!
      : [...said].map(([text, in_]) => `${[...new Set(in_)].join(', ')}: ${text}`).join('; ');
  const every = (p: string) => defs.every((d) => own(d).some((q) => q.name === p && q.required));
  const properties: Record<string, object> = {};
  if (several) {
    // What each action needs, which the schema cannot say, once for the actions that need the same.
    const needs = new Map<string, string[]>();
    for (const d of defs) {
      const named = own(d)
        .flatMap((p) => (p.required && !every(p.name) ? [p.name] : []))
        .join(', ');
      if (named) needs.set(named, [...new Set([...(needs.get(named) ?? []), d.mcp!.action!])]);
    }
    properties['action'] = {
      enum: [...new Set(actions)],
      description: [...needs].map(([ps, acts]) => `${acts.join(', ')}: ${ps}`).join('; ') || 'what to do',
    };
  }
  for (const [p, { param, said }] of merged) properties[p] = schemaOf({ ...param, description: describe(said) });
  const required = [...(several ? ['action'] : []), ...[...merged.keys()].filter(every)];
  const known = Object.keys(properties);
  const description = defs.map((d) => d.mcp!.description).find(Boolean) ?? defs[0]!.description;

  return {
    name,
    description,
    inputSchema: { type: 'object' as const, properties, ...(required.length ? { required } : {}) },
    ...(defs.every((d) => d.writes === false) ? { annotations: { readOnlyHint: true as const } } : {}),
    async run(given: Record<string, unknown>, ctx: ToolContext): Promise<{ data: unknown; listKey?: string }> {
      const problems: string[] = [];
      const args = new Map<string, unknown>();
      for (const [key, v] of Object.entries(given)) {
        if (v === null || v === undefined) continue;
        if (key === 'action' && several) {
          if (typeof v === 'string' && actions.includes(v)) args.set(key, v);
          else problems.push(`'action': expected one of ${[...new Set(actions)].join(', ')}`);
          continue;
        }
        const param = merged.get(key)?.param;
        if (!param) {
          const guess = nearMiss(key, known);
          problems.push(`unknown argument '${key}'${guess ? `; did you mean '${guess}'?` : ''}`);
          continue;
        }
        const value = KINDS[param.kind].shaped(v);
        if (value === undefined) problems.push(`'${key}': expected ${KINDS[param.kind].expected}`);
        else args.set(key, value);
      }
      for (const p of required) if (given[p] === undefined || given[p] === null) problems.push(`'${p}' is required`);
      if (problems.length)
        throw new UsageError(
          `invalid arguments for ${name}: ${problems.join('; ')}`,
          known.length
            ? `${name} takes ${known.join(', ')} (its input schema says which and of what type)`
            : `${name} takes no arguments`,
        );
      // Of the commands for the action, the first that takes every argument given.
      const label = several ? `${name} ${String(args.get('action'))}` : name;
      const candidates = defs.filter((d) => !several || d.mcp!.action === args.get('action'));
      const namesOf = (d: CommandDef) => own(d).map((p) => p.name);
      const untaken = (d: CommandDef) => [...args.keys()].filter((k) => k !== 'action' && !namesOf(d).includes(k));
      const def = candidates.find((d) => untaken(d).length === 0);
      if (!def) {
        const takes = candidates.map((d) => namesOf(d).join(', ') || 'no arguments');
        throw new UsageError(
          `${label} does not take ${untaken(candidates[0]!).join(', ')}`,
          `${label} takes ${takes.join('; or ')}`,
        );
      }
      const params = own(def);
      const missing = params.filter((p) => p.required && !args.has(p.name)).map((p) => p.name);
      if (missing.length) {
        const what = params.filter((p) => missing.includes(p.name)).map((p) => `${p.name}: ${p.description}`);
        throw new UsageError(`${label} needs ${missing.join(' and ')}`, what.join('; '));
      }
      const input: Draft = { args: [], opts: {} };
      for (const p of params) p.put(input, args.get(p.name));
      const context: CommandContext = {
        app: processContext(ctx.cwd),
        json: true,
        progress: ctx.progress,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      };
      const r = await def.run(context, input as CommandInput);
      return { data: r?.data, ...(def.mcp!.listKey ? { listKey: def.mcp!.listKey } : {}) };
    },
  };
}

/** Every tool, in the registry's order: the commands that share a tool name make one. */
export async function loadTools(commands: () => Promise<readonly CommandDef[]>): Promise<readonly Tool[]> {
  const byTool = new Map<string, CommandDef[]>();
  for (const def of await commands()) if (def.mcp) byTool.set(def.mcp.tool, [...(byTool.get(def.mcp.tool) ?? []), def]);
  // The plainest command of an action first (`output add` before `task output add`): what a call without an id runs.
  const words = (d: CommandDef) => d.name.split(' ').length;
  for (const defs of byTool.values()) defs.sort((a, b) => words(a) - words(b));
  return [...byTool].map(([name, defs]) => toolOf(name, defs));
}
