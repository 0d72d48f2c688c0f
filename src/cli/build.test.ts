import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CommandDef, CommandInput, GroupDef } from '../model/def.js';
import { GROUPS, allCommands } from '../commands/index.js';
import { addGroup, definitionOf } from './build.js';

function program(): Command {
  return new Command('sow').exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
}

describe('the commander tree from command definitions', () => {
  const seen: CommandInput[] = [];
  const def = (name: string, extra: Partial<CommandDef> = {}): CommandDef => ({
    name,
    description: `does ${name}`,
    writes: false,
    async run(_ctx, input) {
      seen.push(input);
      return { data: { ran: name }, text: 'out', message: 'said' };
    },
    ...extra,
  });
  const group: GroupDef = {
    name: 'grp',
    description: 'a group',
    subgroups: { phase: 'the phases' },
    load: async () => [
      def('grp go', {
        args: [
          { name: 'what', description: 'the thing', choices: ['a', 'b'], parse: (w) => w.toUpperCase() },
          { name: 'more', optional: true },
        ],
        options: [
          { flags: '--lease <duration>', description: 'how long', default: '30m' },
          { flags: '--must <x>', description: 'needed', required: true },
        ],
        help: 'A note.',
        examples: ['sow grp go a --must 1'],
      }),
      def('grp phase add'),
    ],
  };

  it('passes arguments (parsed) and options (defaults included) to run, and hands the result to main', async () => {
    const p = program();
    const results: unknown[] = [];
    await addGroup(p, group, { done: (r) => results.push(r) });
    await p.parseAsync(['node', 'sow', 'grp', 'go', 'a', '--must', '1']);
    expect(seen.at(-1)).toEqual({ args: ['A', undefined], opts: { lease: '30m', must: '1' } });
    expect(results).toEqual([{ data: { ran: 'grp go' }, text: 'out', message: 'said' }]);
  });

  it(
    'builds the words between group and command, ' + 'with their descriptions, and help with notes and examples',
    async () => {
      const p = program();
      await addGroup(p, group);
      const grp = p.commands.find((c) => c.name() === 'grp')!;
      expect(grp.commands.map((c) => c.name())).toEqual(['go', 'phase']);
      expect(grp.commands[1]!.description()).toBe('the phases');
      expect(grp.commands[1]!.commands.map((c) => c.name())).toEqual(['add']);
      const help = grp.commands[0]!.helpInformation();
      expect(help).toContain('Usage: sow grp go [options] <what> [more]');
      expect(help).toContain('(choices: "a", "b")');
      expect(help).toContain('(default: "30m")');
      let after = '';
      grp.commands[0]!.configureOutput({ writeOut: (s) => (after += s) });
      grp.commands[0]!.outputHelp();
      expect(after).toContain('A note.\n\nExamples:\n  sow grp go a --must 1');
    },
  );

  it('refuses a missing required option as commander does', async () => {
    const p = program();
    await addGroup(p, group);
    await expect(p.parseAsync(['node', 'sow', 'grp', 'go', 'a'])).rejects.toMatchObject({
      code: 'commander.missingMandatoryOptionValue',
    });
  });

  it('a group of one command named as the group is that command', async () => {
    const p = program();
    await addGroup(p, { name: 'solo', description: '', load: async () => [def('solo')] });
    expect(p.commands.map((c) => c.name())).toEqual(['solo']);
    expect(p.commands[0]!.commands).toEqual([]);
  });

  it('each command of the tree knows the definition it was built from (completion reads its sources)', async () => {
    const p = program();
    await addGroup(p, group);
    const go = p.commands[0]!.commands[0]!;
    expect(definitionOf(go)?.name).toBe('grp go');
    expect(definitionOf(p.commands[0]!)).toBeUndefined();
  });

  it('the registry: every command under its group, each name once', async () => {
    const all = await allCommands();
    const names = all.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const g of GROUPS)
      expect(
        names.some((n) => n === g.name || n.startsWith(`${g.name} `)),
        g.name,
      ).toBe(true);
    expect(names).toContain('advance');
    expect(names).toContain('iter phase add');
  });
});
