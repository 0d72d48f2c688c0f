// Shell completion, read from the command tree itself so it never goes stale; live values come from the project. The
// shell scripts only pass the line's words to `sow __complete` and offer what it prints.
import { Command, type Argument, type Option } from 'commander';
import type { Candidate } from '../app/completion.js';
import { shown } from '../domain/display.js';
import type { CandidateSource, Registry } from '../model/def.js';
import { addGroupsFor, definitionOf, subcommandsOf } from './build.js';

/** Where the words before the cursor lead: the command, its arguments so far, the options given. */
interface Position {
  cmd: Command;
  path: string[];
  positionals: string[];
  given: Map<string, string>;
  /** The last word is an option that takes a value: the cursor is on that value. */
  pending?: Option;
  /** After `--`: only arguments follow. */
  dashes: boolean;
}

const takesValue = (o: Option) => o.required || o.optional;

function findOption(cmd: Command, flag: string): Option | undefined {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const found = c.options.find((o) => o.long === flag || o.short === flag);
    if (found) return found;
  }
  return undefined;
}

function walk(program: Command, previous: readonly string[]): Position {
  const at: Position = { cmd: program, path: [], positionals: [], given: new Map(), dashes: false };
  for (const word of previous) {
    // bash without bash-completion splits `--id=010` into `--id`, `=`, `010`.
    if (word === '=' && !at.dashes) continue;
    if (at.pending) {
      at.given.set(at.pending.long ?? at.pending.short ?? '', word);
      delete at.pending;
      continue;
    }
    if (at.dashes) {
      at.positionals.push(word);
      continue;
    }
    if (word === '--') at.dashes = true;
    else if (word.startsWith('-') && word.length > 1) {
      const eq = word.indexOf('=');
      const flag = eq > 0 ? word.slice(0, eq) : word;
      const option = findOption(at.cmd, flag);
      if (!option) continue;
      const name = option.long ?? option.short ?? flag;
      if (!takesValue(option)) at.given.set(name, 'true');
      else if (eq > 0) at.given.set(name, word.slice(eq + 1));
      else at.pending = option;
    } else {
      const sub =
        at.positionals.length === 0
          ? subcommandsOf(at.cmd).find((c) => c.name() === word || c.aliases().includes(word))
          : undefined;
      if (sub) {
        at.cmd = sub;
        at.path.push(sub.name());
      } else at.positionals.push(word);
    }
  }
  return at;
}

/** The first clause of a description: enough to tell candidates apart in zsh and fish. */
function short(text: string): string {
  // \u2014 (an em dash): esbuild keeps a regular expression's characters as written, and the bundle stays ASCII.
  const first = text.split(/[:;(]| \u2014 /)[0]!.trim();
  return first.length > 72 ? `${first.slice(0, 71)}…` : first;
}

const fromList = (values: readonly string[]): Candidate[] => values.map((value) => ({ value }));

/** Values from the project; none when there is no project, or anything goes wrong. */
async function live(
  get: (app: typeof import('../app/completion.js')) => Promise<Candidate[]> | Candidate[],
): Promise<Candidate[]> {
  try {
    return await get(await import('../app/completion.js'));
  } catch {
    return [];
  }
}

/** The values a source names, for the command `at` stands on. */
async function fromSource(source: string | undefined, at: Position, cwd: string): Promise<Candidate[]> {
  switch (source) {
    case 'task-id':
      return live((app) => app.taskIdCandidates(cwd));
    case 'phase':
      return live((app) => app.phaseCandidates(cwd));
    case 'event':
      return live((app) => app.eventCandidates(cwd));
    case 'ref':
      return live((app) => app.refCandidates(cwd));
    case 'check':
      return live((app) => app.checkCandidates(cwd));
    case 'agent':
      return fromList((await import('../domain/agents.js')).ROLES);
    case 'task-status':
      return fromList((await import('../domain/schemas.js')).TASK_STATUSES);
    case 'project-type': {
      const { allProjectTypes } = await import('../domain/project-types/index.js');
      return (await allProjectTypes()).map((t) => ({ value: t.name, description: short(t.description) }));
    }
    case 'artifact-type': {
      // `[task] input|output add`: the types of the phase (--phase, else the current one) or of a task.
      const word = at.path.at(-2);
      if (word !== 'input' && word !== 'output') return [];
      const owner = at.path[0] === 'task' ? 'task' : 'phase';
      return live((app) =>
        app.artifactTypeCandidates(cwd, owner, word === 'input' ? 'inputs' : 'outputs', at.given.get('--phase')),
      );
    }
    default:
      return [];
  }
}

/** The long flag of commander's form: '-a, --agent <agent>' → '--agent'. */
const longFlag = (flags: string): string | undefined => /--[\w-]+/.exec(flags)?.[0];

/** The values an option or argument takes: its fixed choices, else those of its definition's source (one named as a
 * source, such as `--agent` or `task-id`, completes from it). */
async function valuesOf(at: Position, item: Option | Argument, cwd: string): Promise<Candidate[]> {
  if (item.argChoices) return fromList(item.argChoices);
  const def = definitionOf(at.cmd);
  const source =
    'long' in item
      ? (def?.options?.find((o) => longFlag(o.flags) === item.long)?.complete ?? item.long?.slice(2))
      : (def?.args?.find((a) => a.name === item.name())?.complete ?? item.name());
  return fromSource(source, at, cwd);
}

function flagsOf(at: Position): Candidate[] {
  const options = at.cmd.createHelp().visibleOptions(at.cmd);
  for (let c = at.cmd.parent; c; c = c.parent)
    options.push(...c.options.filter((o) => !o.hidden && o.long !== '--version'));
  const out: Candidate[] = [];
  for (const o of options) {
    const flag = o.long ?? o.short;
    // An option given already is not offered again, unless it may be given more than once.
    if (flag && (!at.given.has(flag) || o.variadic || o.parseArg))
      out.push({ value: flag, description: short(o.description) });
  }
  return out;
}

async function candidatesAt(at: Position, current: string, cwd: string, registry: Registry): Promise<Candidate[]> {
  if (at.pending) return valuesOf(at, at.pending, cwd);
  const inline = /^(--[^=]+)=(.*)$/s.exec(current);
  if (inline && !at.dashes) {
    const option = findOption(at.cmd, inline[1]!);
    if (!option || !takesValue(option)) return [];
    return (await valuesOf(at, option, cwd)).map((c) => ({ ...c, value: `${inline[1]}=${c.value}` }));
  }
  if (current.startsWith('-') && !at.dashes) return flagsOf(at);
  const subs = subcommandsOf(at.cmd).map((c) => ({ value: c.name(), description: short(c.description()) }));
  if (subs.length > 0 && at.positionals.length === 0)
    return at.path.length === 0 ? [...subs, { value: 'help', description: 'the help of a command' }] : subs;
  if (at.path.length === 0 && at.positionals.length === 1 && at.positionals[0] === 'help')
    return [...subs, ...registry.topics.map((t) => ({ value: t.name, description: t.description }))];
  const args = at.cmd.registeredArguments;
  const last = args.at(-1);
  const arg = args[at.positionals.length] ?? (last?.variadic ? last : undefined);
  return arg ? valuesOf(at, arg, cwd) : [];
}

/** The candidates that start with the last of `words` (the word under the cursor); `sow` is the first word. */
export async function complete(
  words: readonly string[],
  cwd: string,
  root: Command,
  registry: Registry,
): Promise<Candidate[]> {
  const previous = words.slice(1, -1);
  const current = words.at(-1) === '=' ? '' : (words.at(-1) ?? '');
  const first = previous.find((w) => !w.startsWith('-') && w !== '=');
  // The command tree; only the group `first` names, when it names one (`sow task get --id ` needs no other).
  const program = new Command('sow');
  for (const option of root.options) program.addOption(option);
  await addGroupsFor(program, registry, first);
  const at = walk(program, previous);
  const seen = new Set<string>();
  return (await candidatesAt(at, current, cwd, registry)).filter((c) => {
    if (!c.value.startsWith(current) || seen.has(c.value)) return false;
    seen.add(c.value);
    return true;
  });
}

/** One line per candidate: bash the value; zsh `value:description`; fish `value<TAB>description`. */
export function formatCandidates(candidates: readonly Candidate[], shell: string | undefined): string[] {
  return candidates.map((c) => {
    // Values and descriptions come from state files (task names): control characters escaped.
    const value = shown(c.value);
    const description = shown(c.description ?? '')
      .replace(/\s+/g, ' ')
      .trim();
    if (shell === 'zsh') {
      const escaped = value.replace(/\\/g, '\\\\').replace(/:/g, '\\:');
      return description ? `${escaped}:${description}` : escaped;
    }
    if (shell === 'fish') return description ? `${value}\t${description}` : value;
    return value;
  });
}
