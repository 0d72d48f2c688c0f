/**
 * `sow install|uninstall <target>` and the Stop hook, through the built CLI: what each target
 * gets, the user's own settings and AGENTS.md text untouched, upgrades of what sow wrote, edits
 * left alone (the new version beside them), shared files counted per target, and uninstall
 * removing exactly what sow wrote.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { expectEnvelope, expectFails, ok, SOW, TEST_ENV, toExecuting, useRepos, type Repo } from './harness.js';

const fresh = useRepos();

/** Every file of the repository outside .git and .sow, with its text. */
function tree(repo: Repo, under = ''): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      const rel = relative(repo.dir, abs);
      if (rel === '.git' || rel === '.sow') continue;
      if (statSync(abs).isDirectory()) walk(abs);
      else out[rel] = readFileSync(abs, 'utf8');
    }
  };
  walk(join(repo.dir, under));
  return out;
}

const SETTINGS = '.claude/settings.json';
const USER_SETTINGS = {
  permissions: { allow: ['Bash(npm test)'] },
  hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo checked' }] }] },
};

describe('sow install claude', () => {
  it("writes a sub-agent per role, the slash commands, the skill, and hooks merged into the user's settings", () => {
    const repo = fresh();
    repo.write(SETTINGS, `${JSON.stringify(USER_SETTINGS, null, 2)}\n`);
    const r = ok(repo, ['install', 'claude']);
    expect(r.stderr).toContain('Installed sow for claude');
    const files = Object.keys(tree(repo)).sort();
    expect(files).toEqual([
      '.claude/agents/sow-architect.md',
      '.claude/agents/sow-decomposer.md',
      '.claude/agents/sow-implementer.md',
      '.claude/agents/sow-orchestrator.md',
      '.claude/agents/sow-planner.md',
      '.claude/agents/sow-researcher.md',
      '.claude/agents/sow-reviewer.md',
      '.claude/commands/sow/advance.md',
      '.claude/commands/sow/continue.md',
      '.claude/commands/sow/spawn.md',
      '.claude/commands/sow/start.md',
      '.claude/commands/sow/status.md',
      SETTINGS,
      '.claude/skills/sow/SKILL.md',
    ]);
    // One line each, saying when to use it: Claude Code lists them in every session.
    expect(repo.read('.claude/agents/sow-implementer.md')).toMatch(
      /^---\nname: sow-implementer\ndescription: "Use to implement a sow task \(give its id\)\."\n/,
    );
    expect(repo.read('.claude/agents/sow-implementer.md')).toContain('sow prompt guidance/implementer/base');
    // The orchestrator's guidance is its state's whole prompt.
    expect(repo.read('.claude/agents/sow-orchestrator.md')).toContain('```bash\nsow project continue --full\n```');
    expect(repo.read('.claude/commands/sow/continue.md')).toContain('!`sow project continue --full`');
    expect(repo.read('.claude/commands/sow/continue.md')).toContain('allowed-tools: Bash(sow:*)');
    expect(repo.read('.claude/skills/sow/SKILL.md')).toMatch(/^---\nname: sow\ndescription: /);
    const settings = JSON.parse(repo.read(SETTINGS));
    expect(settings.permissions).toEqual(USER_SETTINGS.permissions);
    expect(settings.hooks.PreToolUse).toEqual(USER_SETTINGS.hooks.PreToolUse);
    expect(settings.hooks.SessionStart).toEqual([{ hooks: [{ type: 'command', command: 'sow project continue' }] }]);
    expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'sow hook stop' }] }]);
    // Installing again changes nothing, and adds no second hook.
    const before = tree(repo);
    const again = expectEnvelope(ok(repo, ['install', 'claude', '--json']));
    expect(new Set(again.data.files.map((f: any) => f.outcome))).toEqual(new Set(['unchanged']));
    expect(tree(repo)).toEqual(before);
  });

  it(
    'upgrades what sow wrote, leaves what the user edited (the new version beside it), and refuses nothing it ' +
      'cannot parse by overwriting it',
    () => {
      const repo = fresh();
      ok(repo, ['install', 'claude']);
      // An older sow wrote a different status command; the record says so.
      const old = 'an older version\n';
      repo.write('.claude/commands/sow/status.md', old);
      const record = parse(repo.read('.sow/integrations.yaml'));
      record.files.find((f: any) => f.path === '.claude/commands/sow/status.md').sha256 = createHash('sha256')
        .update(old)
        .digest('hex');
      repo.write('.sow/integrations.yaml', JSON.stringify(record));
      // The user edited the continue command.
      const edited = `${repo.read('.claude/commands/sow/continue.md')}\nAlso run the linter.\n`;
      repo.write('.claude/commands/sow/continue.md', edited);
      const r = expectEnvelope(ok(repo, ['install', 'claude', '--json']));
      const outcome = (p: string) => r.data.files.find((f: any) => f.path === p);
      expect(outcome('.claude/commands/sow/status.md').outcome).toBe('updated');
      expect(repo.read('.claude/commands/sow/status.md')).toContain('!`sow project status`');
      expect(outcome('.claude/commands/sow/continue.md')).toMatchObject({
        outcome: 'kept',
        note: expect.stringContaining('.claude/commands/sow/continue.md.sow-new'),
      });
      expect(repo.read('.claude/commands/sow/continue.md')).toBe(edited);
      expect(repo.read('.claude/commands/sow/continue.md.sow-new')).toContain('!`sow project continue --full`');
      // A settings file that is not JSON is left exactly as it is.
      repo.write(SETTINGS, '{ not json');
      const s = ok(repo, ['install', 'claude']);
      expect(s.stdout).toMatch(/skipped +\.claude\/settings\.json +\(it is not a JSON object/);
      expect(repo.read(SETTINGS)).toBe('{ not json');
    },
  );

  it('--plugin writes a Claude Code plugin with a marketplace manifest, recorded in the plugin folder', () => {
    const repo = fresh();
    const r = ok(repo, ['install', 'claude', '--plugin', 'dist-plugin']);
    expect(r.stderr).toContain('claude --plugin-dir');
    const files = Object.keys(tree(repo, 'dist-plugin'));
    expect(files).toEqual(
      expect.arrayContaining([
        'dist-plugin/.claude-plugin/plugin.json',
        'dist-plugin/.claude-plugin/marketplace.json',
        'dist-plugin/hooks/hooks.json',
        'dist-plugin/commands/status.md',
        'dist-plugin/agents/sow-reviewer.md',
        'dist-plugin/skills/sow/SKILL.md',
        'dist-plugin/.sow-install.yaml',
      ]),
    );
    const manifest = JSON.parse(repo.read('dist-plugin/.claude-plugin/plugin.json'));
    expect(manifest).toMatchObject({ name: 'sow', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(JSON.parse(repo.read('dist-plugin/.claude-plugin/marketplace.json')).plugins).toEqual([
      expect.objectContaining({ name: 'sow', source: './' }),
    ]);
    expect(JSON.parse(repo.read('dist-plugin/hooks/hooks.json')).hooks.SessionStart[0].hooks[0].command).toBe(
      'sow project continue',
    );
    expect(repo.exists('.claude')).toBe(false);
    expect(expectFails(repo, ['install', 'codex', '--plugin', 'x'], 2, 'USAGE')).toContain(
      '--plugin is for the claude target',
    );
    ok(repo, ['uninstall', 'claude', '--plugin', 'dist-plugin']);
    expect(repo.exists('dist-plugin')).toBe(false);
  });
});

describe('the other targets', () => {
  it('an edited section is left on uninstall; an unknown target is a usage error', () => {
    const repo = fresh();
    ok(repo, ['install', 'codex']);
    repo.write('AGENTS.md', repo.read('AGENTS.md').replace('## sow', '## sow (our way)'));
    expect(ok(repo, ['uninstall', 'codex']).stdout).toMatch(/left +AGENTS\.md +\(you edited sow's section/);
    expect(repo.read('AGENTS.md')).toContain('## sow (our way)');
    expect(expectFails(repo, ['install', 'vscode'], 2, 'USAGE')).toContain(
      'targets: claude, cursor, codex, gemini, copilot, opencode, all',
    );
  });
});

describe('sow hook stop (the Stop hook)', () => {
  it('blocks a spawned worker that has not reported back, once; lets everyone else stop', () => {
    const repo = fresh();
    toExecuting(repo);
    ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
    const worker = { SOW_AGENT: 'implementer', SOW_AGENT_ID: 'implementer-1', SOW_TASK_ID: '010' };
    const blocked = repo.sow(['hook', 'stop'], { env: worker, input: '{"session_id":"s","stop_hook_active":false}' });
    expect(blocked.code).toBe(0);
    const decision = JSON.parse(blocked.stdout);
    expect(decision.decision).toBe('block');
    expect(decision.reason).toContain("'sow task set --id 010 status needs_review'");
    // The hook already blocked once in this stop: let it stop.
    expect(repo.sow(['hook', 'stop'], { env: worker, input: '{"stop_hook_active":true}' }).stdout).toBe('');
    // A person's session (no SOW_AGENT_ID) is never held.
    expect(repo.sow(['hook', 'stop'], { input: '{}' }).stdout).toBe('');
    ok(repo, ['task', 'set', '--id', '010', 'status', 'needs_review']);
    expect(repo.sow(['hook', 'stop'], { env: worker, input: '{}' }).stdout).toBe('');
  });

  it(
    '64 MiB on stdin: exit 1 with a sentence (its limit is 1 MiB), never a stack trace or a hang; the ' +
      'state unchanged',
    () => {
      const repo = fresh();
      toExecuting(repo);
      ok(repo, ['task', 'set', '--id', '010', 'status', 'in_progress']);
      const before = repo.snapshot();
      const worker = { SOW_AGENT: 'implementer', SOW_AGENT_ID: 'implementer-1', SOW_TASK_ID: '010' };
      for (const json of [false, true]) {
        // A writer as fast as a pipe goes, 64 MiB of 'a' (nothing this size is held by the test).
        const r = spawnSync(
          'sh',
          [
            '-c',
            `head -c 67108864 /dev/zero | tr '\\0' a | exec "$0" "$1" hook stop ${json ? '--json' : ''}`,
            process.execPath,
            SOW,
          ],
          {
            cwd: repo.dir,
            env: { ...process.env, ...TEST_ENV, ...worker },
            encoding: 'utf8',
            timeout: 120_000,
          },
        );
        expect(r.signal, 'did not hang').toBeNull();
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).not.toMatch(/\n\s+at |RangeError/);
        if (json)
          expect(JSON.parse(r.stdout)).toMatchObject({
            ok: false,
            error: { code: 'INPUT_TOO_LARGE', message: "the hook's input on stdin is larger than 1 MiB" },
          });
        else expect(r.stderr).toContain("error: the hook's input on stdin is larger than 1 MiB");
      }
      expect(repo.snapshot()).toEqual(before);
    },
  );

  it('a project-level worker is held until it runs sow agent report', () => {
    const repo = fresh();
    toExecuting(repo);
    // Record a session for planner-1 as sow agent spawn would.
    const state = parse(repo.read('.sow/project/state.yaml'));
    state.sessions = {
      planner: {
        executor: 'claude-code',
        type: 'claude',
        agent: 'planner',
        agent_id: 'planner-1',
        cwd: repo.dir,
        started_at: '2026-11-26T10:00:00.000Z',
      },
    };
    repo.write('.sow/project/state.yaml', JSON.stringify(state));
    const env = { SOW_AGENT: 'planner', SOW_AGENT_ID: 'planner-1' };
    expect(JSON.parse(repo.sow(['hook', 'stop'], { env, input: '{}' }).stdout).reason).toContain(
      'sow agent report --status done',
    );
    ok(repo, ['agent', 'report', '--status', 'done', 'planned it'], { env });
    expect(repo.sow(['hook', 'stop'], { env, input: '{}' }).stdout).toBe('');
  });
});
