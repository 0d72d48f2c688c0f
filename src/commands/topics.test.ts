/**
 * The help topics come from the registry and from what the source reads: the reference has every
 * command with the usage line commander prints, and the environment page names every variable
 * sow reads (and only those).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addGroup } from '../cli/build.js';
import type { CommandDef } from '../model/def.js';
import { allCommands, GROUPS, TOPICS } from './index.js';
import { ENVIRONMENT, environment, reference, usageOf } from './topics.js';
import { typeGroups } from './types.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const run = (def: Pick<CommandDef, 'run'>) =>
  def.run(
    { app: { cwd: SRC, env: {}, now: () => '2026-11-26T10:00:00.000Z' }, commands: allCommands },
    { args: [], opts: {} },
  );

/** Every command of the commander tree the CLI builds, by its words. */
async function tree(): Promise<Map<string, Command>> {
  const program = new Command('sow');
  for (const g of [...GROUPS, ...(await typeGroups())]) await addGroup(program, g);
  const out = new Map<string, Command>();
  const walk = (cmd: Command, words: string[]) => {
    for (const sub of cmd.commands) {
      const path = [...words, sub.name()];
      if (sub.commands.length === 0) out.set(path.join(' '), sub);
      walk(sub, path);
    }
  };
  walk(program, []);
  return out;
}

describe('sow help reference', () => {
  it('has every command the CLI has, each with the usage line of its --help', async () => {
    const r = (await run(reference))!;
    const entries = r.data as { command: string; usage: string; options: { flags: string }[] }[];
    const cli = await tree();
    const visible = [...cli]
      .filter(([, c]) => !(c as unknown as { _hidden?: boolean })._hidden)
      .map(([name]) => `sow ${name}`);
    expect(entries.map((e) => e.command).sort()).toEqual(visible.sort());
    for (const e of entries) {
      const cmd = cli.get(e.command.slice(4))!;
      expect(e.usage, e.command).toBe(`${e.command} ${cmd.usage()}`.trimEnd());
      expect(e.options.map((o) => o.flags)).toEqual(cmd.options.map((o) => o.flags));
      expect(r.text).toContain(`${e.usage}\n`);
    }
  });

  it('usage lines: [options], then required, optional and variadic arguments', () => {
    const def = {
      name: 'x y',
      description: '',
      writes: false,
      args: [{ name: 'a' }, { name: 'b', optional: true, variadic: true }],
      options: [{ flags: '--c', description: '' }],
      run: async () => undefined,
    } satisfies CommandDef;
    expect(usageOf(def)).toBe('sow x y [options] <a> [b...]');
  });
});

describe('sow help environment', () => {
  /** The variables sow's own code reads, by name (env['X'], env.X, get('X')). */
  function variablesRead(): Set<string> {
    const out = new Set<string>();
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) {
          for (const m of readFileSync(p, 'utf8').matchAll(
            /\b(?:env|ENV)(?:\[['"]([A-Z_]+)['"]\]|\.([A-Z_]{2,})\b)|\bget\('([A-Z_]+)'\)/g,
          ))
            out.add(m[1] ?? m[2] ?? m[3]!);
        }
      }
    };
    walk(SRC);
    return out;
  }
  /** The operating system's own, which the page does not explain (it says where ~ is). */
  // Node's own NODE_OPTIONS and NODE_PENDING_DEPRECATION are read by the executable only to know whether Node would
  // warn (src/bin.ts).
  const SYSTEM = new Set([
    'HOME',
    'PATH',
    'USER',
    'USERPROFILE',
    'APPDATA',
    'LOCALAPPDATA',
    'TERM',
    'NODE_OPTIONS',
    'NODE_PENDING_DEPRECATION',
  ]);

  it('names every variable the source reads, and none it does not', async () => {
    const named = new Set(ENVIRONMENT.flatMap((v) => v.name.split(', ')));
    const read = [...variablesRead()].filter((v) => !SYSTEM.has(v));
    expect(read.length, 'the walk finds the variables').toBeGreaterThan(10);
    expect(read.filter((v) => !named.has(v))).toEqual([]);
    // SOW_AGENTS_<ROLE> is built from a prefix; SOW_PROJECT_ROOT is set for workers, not read.
    expect(
      [...named].filter((v) => !read.includes(v) && v !== 'SOW_AGENTS_<ROLE>' && v !== 'SOW_PROJECT_ROOT'),
    ).toEqual([]);
    const r = (await run(environment))!;
    for (const v of ENVIRONMENT) expect(r.text).toContain(v.name);
  });
});

describe('the topics', () => {
  it('each loads a page that says something, and none is also a command group', async () => {
    for (const t of TOPICS) {
      const r = (await run(await t.load()))!;
      expect(r.text?.length, t.name).toBeGreaterThan(100);
      expect(GROUPS.some((g) => g.name === t.name && t.name !== 'exit-codes')).toBe(false);
    }
  });
});
