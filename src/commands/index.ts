/**
 * The registry: every command group sow has, each loaded only when argv, help, completion or
 * `sow mcp` asks for it. A new command is a file beside this one and a line here. Project types
 * bring their groups through their own registry (commands/types.ts).
 */
import type { CommandDef, GroupDef } from './def.js';

const single = (name: string, load: () => Promise<CommandDef>): GroupDef => ({ name, description: '', load: async () => [await load()] });

export const GROUPS: readonly GroupDef[] = [
  single('advance', async () => (await import('./advance.js')).advance),
];

/** Every command of sow's own groups and the project types' (help, completion and `sow mcp` need them all). */
export async function allCommands(): Promise<CommandDef[]> {
  const { typeGroups } = await import('./types.js');
  const groups = [...GROUPS, ...(await typeGroups())];
  return (await Promise.all(groups.map((g) => g.load()))).flat();
}
