/** The command groups project types bring (`ProjectType.commands`), registered like sow's own. */
import type { Command } from 'commander';
import { typeGroups } from '../commands/types.js';
import { addGroup } from './build.js';

/** Registers the group named `name`, or every type's group without a name; false when no type has it. */
export default async function registerTypeCommands(program: Command, name?: string): Promise<boolean> {
  const groups = await typeGroups(name);
  for (const group of groups) await addGroup(program, group);
  return groups.length > 0;
}
