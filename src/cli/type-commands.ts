/**
 * The command groups project types bring (`ProjectType.commands`), registered like sow's own:
 * arguments and options from the type's definitions, run through app/type-commands.ts.
 */
import type { Command } from 'commander';
import { PROJECT_TYPES } from '../domain/project-types/index.js';
import type { ProjectType } from '../domain/project-types/types.js';
import type { TypeOptions } from '../domain/project-types/commands.js';
import { cwd, respond } from './output.js';

function registerGroup(program: Command, type: ProjectType): void {
  const def = type.commands!;
  const group = program.command(def.name).description(`${def.description} (${type.name} projects)`);
  const subgroups = new Map<string, Command>();
  for (const command of def.commands) {
    const words = command.name.split(' ');
    let parent = group;
    for (const word of words.slice(0, -1)) {
      let sub = subgroups.get(word);
      if (!sub) {
        sub = parent.command(word).description(def.subgroups?.[word] ?? `${word} commands`);
        subgroups.set(word, sub);
      }
      parent = sub;
    }
    const cmd = parent.command(words.at(-1)!).description(command.description);
    for (const a of command.args ?? []) cmd.argument(a.optional ? `[${a.name}]` : `<${a.name}>`, a.description);
    for (const o of command.options ?? []) {
      if (o.required) cmd.requiredOption(o.flags, o.description);
      else cmd.option(o.flags, o.description);
    }
    if (command.help) cmd.addHelpText('after', `\n${command.help}`);
    cmd.action(async (...received: unknown[]) => {
      const self = received.at(-1) as Command;
      const args = received.slice(0, (command.args ?? []).length).filter((a): a is string => typeof a === 'string');
      const { runTypeCommand } = await import('../app/type-commands.js');
      const r = await runTypeCommand(cwd(), type, command, args, self.opts<TypeOptions>());
      respond({ data: r.data, ...(r.text !== undefined ? { text: r.text } : {}), ...(r.message !== undefined ? { message: r.message } : {}) });
    });
  }
}

/** Registers the group named `name`, or every type's group without a name; false when no type has it. */
export default function registerTypeCommands(program: Command, name?: string): boolean {
  let found = false;
  for (const type of Object.values(PROJECT_TYPES)) {
    if (!type.commands || (name !== undefined && type.commands.name !== name)) continue;
    registerGroup(program, type);
    found = true;
  }
  return found;
}
