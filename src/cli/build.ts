/** The commander tree, built from command definitions (model/def.ts); actions hand their result to main to render. */
import { Argument, Option, type Command } from 'commander';
import type { ArgDef, CommandDef, CommandResult, GroupDef, OptionDef, Registry } from '../model/def.js';
import type { AppContext } from '../app/context.js';
import { SowError } from '../domain/errors.js';

/** `<name>`, `[name]`, `[names...]`: an argument as the usage line writes it. */
export function argUsage(a: ArgDef): string {
  const name = `${a.name}${a.variadic ? '...' : ''}`;
  return a.optional ? `[${name}]` : `<${name}>`;
}

function argumentOf(a: ArgDef): Argument {
  const arg = new Argument(argUsage(a), a.description);
  if (a.default !== undefined) arg.default(a.default);
  if (a.choices) arg.choices(a.choices);
  // After choices(): sow's parser refuses as sow does; the choices stay for help and completion.
  if (a.parse) arg.argParser(a.parse);
  return arg;
}

function optionOf(o: OptionDef): Option {
  const option = new Option(o.flags, o.description);
  if (o.default !== undefined) option.default(o.default);
  if (o.required) option.makeOptionMandatory();
  if (o.choices) option.choices(o.choices);
  if (o.parse) option.argParser(o.parse as (raw: string, previous: unknown) => unknown);
  return option;
}

const DEFINITIONS = new WeakMap<Command, CommandDef>();

/** The definition a command of the tree was built from (completion reads its candidate sources). */
export const definitionOf = (cmd: Command): CommandDef | undefined => DEFINITIONS.get(cmd);

/** The subcommands help lists, without commander's own `help`. */
export const subcommandsOf = (cmd: Command): Command[] =>
  cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => c.name() !== 'help');

/** Commands that run until they are stopped: what they must say, they say first. */
const SERVERS = new Set(['mcp', 'ui']);

// Warns of an invalid configuration file, so no command runs without the settings people think hold; not from the
// config commands, nor when the command's own error is that file's.
async function warnOfConfig(def: CommandDef, app: AppContext, err?: unknown): Promise<void> {
  if (def.name.startsWith('config ') || def.name === 'doctor') return;
  const { configProblems } = await import('../app/config-health.js');
  const problems = await configProblems(app);
  if (problems.length === 0) return;
  const told =
    err instanceof SowError && err.code === 'CONFIG_INVALID'
      ? (err.details as { file?: unknown } | undefined)?.file
      : undefined;
  const { warn } = await import('../adapters/notices.js');
  for (const p of problems) if (p.file !== told) warn(p.warning);
}

/** What the tree's actions hand on: every command (for `sow mcp`), and where a result goes (main renders it). */
export interface Front {
  readonly commands?: () => Promise<readonly CommandDef[]>;
  readonly done?: (result: CommandResult) => void;
}

/** Adds `def` under `parent`, as the last of its words. */
export function addCommand(parent: Command, def: CommandDef, word: string, front: Front = {}): Command {
  const { commands } = front;
  const cmd = parent.command(word).description(def.description);
  DEFINITIONS.set(cmd, def);
  for (const a of def.args ?? []) cmd.addArgument(argumentOf(a));
  for (const o of def.options ?? []) cmd.addOption(optionOf(o));
  const examples = def.examples?.length ? `Examples:\n${def.examples.map((e) => `  ${e}`).join('\n')}` : undefined;
  const help = def.help;
  if (help !== undefined || examples)
    cmd.addHelpText(
      'after',
      () => `\n${[typeof help === 'function' ? help() : help, examples].filter(Boolean).join('\n\n')}`,
    );
  if (def.passThrough) cmd.allowUnknownOption().allowExcessArguments();
  cmd.action(async (...received: unknown[]) => {
    // Commander hands over the arguments, then the options and the command.
    const self = received.at(-1) as Command;
    const { processContext } = await import('../app/context.js');
    const input = { args: received.slice(0, -2), opts: self.opts(), rest: def.passThrough ? self.args : undefined };
    const app = processContext();
    // An invalid configuration is said by every command; a server says it as it starts, the rest when done.
    const serves = SERVERS.has(def.name);
    if (serves) await warnOfConfig(def, app);
    const r = await def.run({ app, json: process.argv.includes('--json'), commands }, input).catch(async (err) => {
      if (!serves) await warnOfConfig(def, app, err);
      throw err;
    });
    if (!serves) await warnOfConfig(def, app);
    if (!r) return;
    if (r.warnings?.length) {
      const { warn } = await import('../adapters/notices.js');
      for (const w of r.warnings) warn(w);
    }
    front.done?.(r);
  });
  return cmd;
}

// Adds a group and its commands (a command named as the group is the group). With `only`, just the commands that begin
// with that word: commander's tree for a large group costs a read ~4 M instructions.
export async function addGroup(program: Command, group: GroupDef, front: Front = {}, only?: string): Promise<void> {
  const defs = await group.load();
  if (defs.length === 1 && defs[0]!.name === group.name) {
    addCommand(program, defs[0]!, group.name, front);
    return;
  }
  const top = program.command(group.name).description(group.description);
  const made = new Map<string, Command>();
  const named = only === undefined ? [] : defs.filter((d) => d.name.split(' ')[1] === only);
  for (const def of named.length > 0 ? named : defs) {
    const words = def.name.split(' ').slice(1);
    let parent = top;
    for (const word of words.slice(0, -1)) {
      let sub = made.get(word);
      if (!sub) {
        sub = parent.command(word).description(group.subgroups?.[word] ?? `${word} commands`);
        made.set(word, sub);
      }
      parent = sub;
    }
    addCommand(parent, def, words.at(-1)!, front);
  }
}

/** Adds the groups the first word names (sow's own, else the project types'), else all of them: then true. */
export async function addGroupsFor(
  program: Command,
  registry: Registry,
  first: string | undefined,
  front: Front = {},
  only?: string,
): Promise<boolean> {
  const own = registry.groups.find((g) => g.name === first);
  const named = own ? [own] : first === undefined ? [] : await registry.typeGroups(first);
  for (const group of named) await addGroup(program, group, front, only);
  if (named.length > 0) return false;
  for (const group of [...registry.groups, ...(await registry.typeGroups())]) await addGroup(program, group, front);
  return true;
}
