/**
 * `sow install|uninstall` in-process: what each target writes into the repository, what is left
 * to the user, and the refusals. Rendering the outcomes (the lines on stdout) is the command
 * line's part (test/e2e/install.test.ts).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { refused, said, worlds, type World } from '../../test/inproc.js';
import { EXECUTORS } from '../adapters/executors/registry.js';
import { EXECUTOR_TYPES } from '../domain/config-schemas.js';
import { install, parseTarget, uninstall } from './install.js';
import { RECORD } from './install-record.js';

const world = worlds();
const VERSION = '1.2.3';

/** Every file of the repository outside .git and .sow, with its text. */
function tree(w: World): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      const rel = relative(w.dir, abs);
      if (rel === '.git' || rel === '.sow') continue;
      if (statSync(abs).isDirectory()) walk(abs);
      else out[rel] = readFileSync(abs, 'utf8');
    }
  };
  walk(w.dir);
  return out;
}
const outcomeOf = (r: { files: { path: string; outcome: string; note?: string }[] }, path: string) =>
  r.files.find((f) => f.path === path);

describe('install', () => {
  it(
    'claude: the sub-agents, commands and skill, ' + 'hooks merged into the user’s settings; again: all unchanged',
    async () => {
      const w = await world('init');
      const user = { permissions: { allow: ['Bash(npm test)'] } };
      w.write('.claude/settings.json', `${JSON.stringify(user, null, 2)}\n`);
      const r = await install(w.dir, 'claude', { version: VERSION });
      expect(r).toMatchObject({ targets: ['claude'], base: w.dir, plugin: false, warnings: [] });
      expect(outcomeOf(r, '.claude/agents/sow-implementer.md')?.outcome).toBe('created');
      expect(outcomeOf(r, '.claude/settings.json')?.outcome).toBe('updated');
      const settings = JSON.parse(w.read('.claude/settings.json'));
      expect(settings.permissions).toEqual(user.permissions);
      expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'sow hook stop' }] }]);
      expect(parse(w.read(RECORD)).files.map((f: { path: string }) => f.path)).toContain('.claude/skills/sow/SKILL.md');
      const before = tree(w);
      expect(new Set((await install(w.dir, 'claude', { version: VERSION })).files.map((f) => f.outcome))).toEqual(
        new Set(['unchanged']),
      );
      expect(tree(w)).toEqual(before);
    },
  );

  it(
    "--with-mcp registers sow mcp in .mcp.json beside the user's servers; " + "uninstall takes out only sow's",
    async () => {
      const w = await world('init');
      w.write('.mcp.json', '{"mcpServers":{"db":{"command":"db-mcp","args":[]}}}\n');
      await install(w.dir, 'claude', { version: VERSION, withMcp: true });
      expect(JSON.parse(w.read('.mcp.json')).mcpServers).toEqual({
        db: { command: 'db-mcp', args: [] },
        sow: { command: 'sow', args: ['mcp'] },
      });
      await uninstall(w.dir, 'claude', {});
      expect(JSON.parse(w.read('.mcp.json'))).toEqual({ mcpServers: { db: { command: 'db-mcp', args: [] } } });
    },
  );

  it(
    'upgrades what an older sow wrote, keeps what the user edited (the new version beside it), and skips a settings ' +
      'file that is not JSON',
    async () => {
      const w = await world('init');
      await install(w.dir, 'claude', { version: VERSION });
      const old = 'an older version\n';
      w.write('.claude/commands/sow/status.md', old);
      const record = parse(w.read(RECORD));
      record.files.find((f: { path: string }) => f.path === '.claude/commands/sow/status.md').sha256 = createHash(
        'sha256',
      )
        .update(old)
        .digest('hex');
      w.write(RECORD, JSON.stringify(record));
      const edited = `${w.read('.claude/commands/sow/continue.md')}\nAlso run the linter.\n`;
      w.write('.claude/commands/sow/continue.md', edited);
      w.write('.claude/settings.json', '{ not json');
      const r = await install(w.dir, 'claude', { version: VERSION });
      expect(outcomeOf(r, '.claude/commands/sow/status.md')?.outcome).toBe('updated');
      expect(outcomeOf(r, '.claude/commands/sow/continue.md')).toMatchObject({
        outcome: 'kept',
        note: expect.stringContaining('.claude/commands/sow/continue.md.sow-new'),
      });
      expect(w.read('.claude/commands/sow/continue.md')).toBe(edited);
      expect(w.read('.claude/commands/sow/continue.md.sow-new')).toContain('!`sow project continue --full`');
      expect(outcomeOf(r, '.claude/settings.json')).toMatchObject({
        outcome: 'skipped',
        note: expect.stringContaining('it is not a JSON object'),
      });
      expect(w.read('.claude/settings.json')).toBe('{ not json');
    },
  );

  it(
    'the other targets share the Agent Skill and the AGENTS.md section; uninstalling one keeps what another uses; ' +
      "all out restores the user's files",
    async () => {
      const w = await world('init');
      const agents = '# Notes for agents\n\nRun npm test before committing.\n';
      w.write('AGENTS.md', agents);
      for (const target of ['codex', 'cursor', 'gemini', 'copilot', 'opencode'])
        await install(w.dir, target, { version: VERSION });
      expect(w.read('AGENTS.md').startsWith(agents)).toBe(true);
      expect(w.read('AGENTS.md')).toMatch(
        /<!-- sow:begin[^>]*-->\n## sow\n[\s\S]*sow project continue[\s\S]*<!-- sow:end -->\n$/,
      );
      expect(w.read('AGENTS.md').match(/sow:begin/g)).toHaveLength(1);
      expect(w.read('.agents/skills/sow/SKILL.md')).toMatch(/^---\nname: sow\n/);
      expect(w.read('.cursor/rules/sow.mdc')).toMatch(/^---\ndescription: .*\nalwaysApply: true\n---/);
      expect(w.read('.gemini/commands/sow/status.toml')).toMatch(
        /^description = ".*"\nprompt = """\n[\s\S]*!\{sow project status\}[\s\S]*"""\n$/,
      );
      expect(w.read('.gemini/commands/sow/start.toml')).toContain('sow project new {{args}}');
      expect(w.read('GEMINI.md')).toContain('<!-- sow:end -->');
      expect(parse(w.read(RECORD)).files.find((f: { path: string }) => f.path === 'AGENTS.md').targets).toEqual([
        'codex',
        'cursor',
        'copilot',
        'opencode',
      ]);

      const codex = await uninstall(w.dir, 'codex', {});
      expect(outcomeOf(codex, 'AGENTS.md')).toEqual({
        path: 'AGENTS.md',
        outcome: 'left',
        note: 'still used by cursor, copilot, opencode',
      });
      expect(w.exists('.agents/skills/sow/SKILL.md')).toBe(true);
      await uninstall(w.dir, 'all', {});
      expect(tree(w)).toEqual({ 'AGENTS.md': agents });
      expect(w.exists(RECORD)).toBe(false);
    },
  );

  it('an edited section is left on uninstall; a record entry sow would not write is left with a warning', async () => {
    const w = await world('init');
    await install(w.dir, 'codex', { version: VERSION });
    w.write('AGENTS.md', w.read('AGENTS.md').replace('## sow', '## sow (our way)'));
    const r = await uninstall(w.dir, 'codex', {});
    expect(outcomeOf(r, 'AGENTS.md')).toMatchObject({
      outcome: 'left',
      note: expect.stringContaining("you edited sow's section"),
    });
    expect(w.read('AGENTS.md')).toContain('## sow (our way)');
    w.write(
      RECORD,
      'files:\n  - path: src/main.ts\n    kind: file\n    targets: [codex]\n    sha256: ' + '0'.repeat(64) + '\n',
    );
    w.write('src/main.ts', 'mine\n');
    const odd = await uninstall(w.dir, 'codex', {});
    expect(odd.warnings).toEqual([
      ".sow/integrations.yaml names src/main.ts as a file of sow's, " +
        "but sow's install for codex writes no file there; sow left it as it is",
    ]);
    expect(w.read('src/main.ts')).toBe('mine\n');
  });

  it(
    'refuses an unknown target, --plugin with another target, a record it cannot read, and outside a workspace, ' +
      'writing nothing',
    async () => {
      const w = await world('init');
      const e = await refused(w, () => install(w.dir, 'vscode', { version: VERSION }), 'USAGE', 2);
      expect(said(e)).toContain('claude, cursor, codex, gemini, copilot, opencode, all');
      expect(
        said(await refused(w, () => install(w.dir, 'codex', { version: VERSION, plugin: 'x' }), 'USAGE', 2)),
      ).toContain('--plugin is for the claude target');
      w.write(RECORD, 'files: 3\n');
      await refused(w, () => install(w.dir, 'claude', { version: VERSION }), 'INSTALL_RECORD_INVALID', 4);
      expect(tree(w)).toEqual({});
      const bare = await world('bare');
      await refused(bare, () => install(bare.dir, 'claude', { version: VERSION }), 'NOT_INITIALIZED', 1);
    },
  );

  it('--plugin writes a Claude Code plugin folder, recorded in it; uninstall removes the folder', async () => {
    const w = await world('init');
    const r = await install(w.dir, 'claude', { version: VERSION, plugin: 'dist-plugin' });
    expect(r).toMatchObject({ plugin: true, base: join(w.dir, 'dist-plugin') });
    expect(JSON.parse(w.read('dist-plugin/.claude-plugin/plugin.json'))).toMatchObject({
      name: 'sow',
      version: VERSION,
    });
    expect(w.exists('dist-plugin/.sow-install.yaml')).toBe(true);
    expect(w.exists('.claude')).toBe(false);
    await uninstall(w.dir, 'claude', { plugin: 'dist-plugin' });
    expect(w.exists('dist-plugin')).toBe(false);
  });

  it('takes every agent CLI whose module has an install target, all for all of them, and no other word', () => {
    const targets = EXECUTOR_TYPES.filter((t) => EXECUTORS[t].integration !== null);
    expect(parseTarget('all')).toEqual(targets);
    for (const t of EXECUTOR_TYPES)
      if (targets.includes(t)) expect(parseTarget(t)).toEqual([t]);
      else expect(() => parseTarget(t), t).toThrow(`unknown target '${t}'`);
    expect(() => parseTarget('vscode')).toThrow("unknown target 'vscode'");
  });
});
