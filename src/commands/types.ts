/** The command groups project types bring, as command definitions; they run through app/type-commands.ts. */
import type { TypeCommandDef, TypeOptions } from '../domain/type-commands.js';
import type { ProjectType } from '../domain/project-type.js';
import type { CommandDef, GroupDef } from '../model/def.js';

function commandOf(type: ProjectType, command: TypeCommandDef): CommandDef {
  const group = type.commands!.name;
  return {
    ...command,
    name: `${group} ${command.name}`,
    args: command.args ?? [],
    options: command.options ?? [],
    async run(ctx, input) {
      // Optional arguments not given are left out, as the type's run expects them.
      const args = input.args.filter((a): a is string => typeof a === 'string');
      const { runTypeCommand } = await import('../app/type-commands.js');
      // runTypeCommand prints the warnings itself.
      const { warnings: _, ...r } = await runTypeCommand(ctx.app, type, command, args, input.opts as TypeOptions);
      return r;
    },
  };
}

function groupOf(type: ProjectType): GroupDef {
  const def = type.commands!;
  return {
    name: def.name,
    description: `${def.description} (${type.name} projects)`,
    ...(def.subgroups ? { subgroups: def.subgroups } : {}),
    load: async () => def.commands.map((c) => commandOf(type, c)),
  };
}

/** Every project type's command group, or the one named `name` (none when no type has it). */
export async function typeGroups(name?: string): Promise<GroupDef[]> {
  const { allProjectTypes } = await import('../domain/project-types/index.js');
  return (await allProjectTypes())
    .filter((t) => t.commands && (name === undefined || t.commands.name === name))
    .map(groupOf);
}
