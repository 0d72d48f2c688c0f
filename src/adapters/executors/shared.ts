/** What the executor modules share: argv pieces, the safe profile's grants, and reading JSON events. */
import type { ExecutorConfig } from '../../domain/config-schemas.js';
import { addFigure } from '../../domain/usage.js';
import { isRecord } from '../../domain/json.js';
import { quietly } from '../io-errors.js';
import type { Denial, ExecutorModule, Invocation, InvocationContext, Usage } from './types.js';

export const model = (c: ExecutorConfig, flag: string) => (c.settings?.model ? [flag, c.settings.model] : []);
export const custom = (c: ExecutorConfig) => c.custom_args ?? [];
export const words = (list: string): readonly string[] => list.split(' ');

/** What a permission profile adds to a run: flags, environment, what --verbose says, files written first. */
export interface Grant {
  args: string[];
  env?: Record<string, string>;
  notes?: string[];
  files?: Invocation['files'];
}
export const viaStdin = (binary: string, ctx: InvocationContext, grant: Grant): Invocation => ({
  binary,
  args: grant.args,
  env: grant.env ?? {},
  stdin: ctx.prompt,
  notes: grant.notes ?? [],
  ...(grant.files ? { files: grant.files } : {}),
  granted: { permissions: ctx.permissions, checks: ctx.checks },
});

// What the agent CLIs share: a resuming binary whose --help doctor checks, no user argv; runs take the prompt on stdin,
// argv `head`, model, profile flags, custom_args, `tail`.
export function agentCli(
  binary: string,
  modelFlag: string,
  head: (ctx: InvocationContext, resume: boolean) => string[],
  grant: (ctx: InvocationContext) => Grant,
  tail: (ctx: InvocationContext, resume: boolean) => string[] = () => [],
): Pick<ExecutorModule, 'binary' | 'supportsResumption' | 'spawn' | 'resume' | 'ignores' | 'doctor'> {
  const invoke = (ctx: InvocationContext, resume: boolean) => {
    const g = grant(ctx);
    const c = ctx.config;
    return viaStdin(binary, ctx, {
      ...g,
      args: [...head(ctx, resume), ...model(c, modelFlag), ...g.args, ...custom(c), ...tail(ctx, resume)],
    });
  };
  return {
    binary: () => binary,
    supportsResumption: () => true,
    spawn: (ctx) => invoke(ctx, false),
    resume: (ctx) => invoke(ctx, true),
    ignores: OWN_ARGV,
    doctor: 'flags',
  };
}

// Permissions (decision 0017): `yolo` is each CLI's skip-all flag; `safe` allows edits, `sow` and each allowed check
// and refuses the rest (a headless worker cannot ask), or sandboxes every command where a CLI cannot grant single ones.

// What no safe worker may edit beside CLI settings: any `.git` (a git dir of its choosing runs its hooks in sow's next
// git command) and `.sow/config.yaml` (its checks).
export const SOW_PROTECTED = ['**/.git', '**/.git/**', '.sow/config.yaml'] as const;

/** The declared checks a safe worker may run, each once. */
export const checksOf = (ctx: InvocationContext): string[] => [
  ...new Set(ctx.checks.map((c) => c.trim()).filter(Boolean)),
];
export const listed = (ctx: InvocationContext) => ['sow', ...checksOf(ctx)].map((c) => `\`${c}\``).join(', ');

/** For a CLI without the Agent Client Protocol (or with one sow cannot start): transport stays cli. */
export const NO_ACP = 'sow has no way to start it over the Agent Client Protocol; leave transport out (cli)';
const OWN = "only type 'command' runs an argv of your own";
/** The settings only a command of the user's own takes. */
export const OWN_ARGV = { spawn: OWN, resume: OWN } as const;

/** A session id a CLI reported, if sow may pass it back as an argv word (never one that reads as an option). */
export const reportedSession = (x: unknown): string | undefined =>
  typeof x === 'string' && x !== '' && !x.startsWith('-') ? x : undefined;

export type Obj = Record<string, unknown>;
export const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
/** A string with something in it (progress skips blank texts). */
export const text = (x: unknown): string | undefined => (typeof x === 'string' && x.trim() ? x : undefined);
export const oneLine = (s: string, max = 110) => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** A count or an amount a CLI reported: a finite number, not below zero. */
const amount = (x: unknown): number | undefined =>
  typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined;
/** Usage from the CLI's own fields, leaving out what it did not report. */
export function usageOf(input: unknown, output: unknown, cost?: unknown): Usage {
  const u: Usage = {};
  const [i, o, c] = [amount(input), amount(output), amount(cost)];
  if (i !== undefined) u.input_tokens = i;
  if (o !== undefined) u.output_tokens = o;
  // A CLI's own float (0.0014910000000000001) to the billionth of a dollar, as sums are kept.
  if (c !== undefined) u.cost_usd = Math.round(c * 1e9) / 1e9;
  return u;
}
/** The sum of a run's usage. */
export function addUsage(total: Usage, more: Usage): Usage {
  const out: Usage = {};
  for (const k of ['input_tokens', 'output_tokens', 'cost_usd'] as const) {
    const v = addFigure(k, total[k], more[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** What a run's events say it used: the totals, or (before a CLI tells them) what it said so far, each answer once. */
export function usageOfLines(spec: Pick<ExecutorModule, 'usage' | 'usageSoFar'>, lines: readonly string[]): Usage {
  let total: Usage = {};
  if (!spec.usage) return total;
  const soFar = new Map<string, Usage>();
  for (const line of lines) {
    const event: unknown = quietly(() => JSON.parse(line));
    if (!isRecord(event)) continue;
    const used = spec.usage(event);
    if (used) total = addUsage(total, used);
    const partial = spec.usageSoFar?.(event);
    if (partial) soFar.set(partial.key, partial.usage);
  }
  if (Object.keys(total).length || !soFar.size) return total;
  return [...soFar.values()].reduce(addUsage, {});
}

const DETAIL_KEYS = words('command file_path path pattern description url');
/** What a tool call is about, for a progress line: the first of these its input has. */
export function toolDetail(input: unknown): string {
  if (!isRecord(input)) return '';
  const detail = DETAIL_KEYS.map((k) => text(input[k])).find(Boolean);
  return detail ? `: ${oneLine(detail, 90)}` : '';
}

/** The command, or the file, a tool call's input is about; else its JSON, shortened. */
function inputText(input: unknown): string | null {
  if (typeof input === 'string') return input;
  if (!isRecord(input)) return null;
  const command = input['command'] ?? input['cmd'];
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.every((c) => typeof c === 'string')) return command.join(' ');
  const path = str(input['file_path']) ?? str(input['filePath']) ?? str(input['path']) ?? str(input['absolute_path']);
  if (path) return path;
  const json = JSON.stringify(input);
  return json.length > 200 ? `${json.slice(0, 199)}…` : json;
}

/** A denial of `tool`, its kind read from the CLI's names for its command and edit tools. */
export function denial(
  tool: string,
  input: unknown,
  kinds: { command: readonly string[]; edit: readonly string[] },
  reason?: string,
): Denial {
  const kind = kinds.command.includes(tool) ? 'command' : kinds.edit.includes(tool) ? 'edit' : 'other';
  return { tool, input: inputText(input), kind, ...(reason ? { reason } : {}) };
}

/** The first line of `stderr` (colours taken out) that matches `pattern`: why a session could not be resumed. */
export function saidLine(stderr: string, pattern: RegExp): string | undefined {
  // eslint-disable-next-line no-control-regex
  const line = stderr
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .find((l) => pattern.test(l));
  return line?.trim();
}
