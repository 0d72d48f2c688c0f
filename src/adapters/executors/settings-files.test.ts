/**
 * Reading an agent CLI's own settings for what widens a safe worker: each reader finds the
 * settings however a hostile file spells them, and says so when it cannot read the file.
 */
import { describe, expect, it } from 'vitest';
import { EXECUTORS, agentSettingsFiles } from './registry.js';
import { envWidening, jsonWidening, parseJsonc, tomlKeyPaths, tomlWidening } from './settings-files.js';
import { CODEX_WIDENING } from './codex.js';
import { GEMINI_WIDENING } from './gemini.js';

describe('JSON settings (with comments and trailing commas)', () => {
  it('reads JSONC, and only own keys', () => {
    expect(parseJsonc('// c\n{ "a": "// not a comment", /* b */ "b": [1, 2,], }\n')).toEqual({
      a: '// not a comment',
      b: [1, 2],
    });
    expect(jsonWidening('{"__proto__": {"hooks": 1}}', ['hooks'])).toEqual([]);
    expect(jsonWidening('{"toString": 1}', ['toString.x'])).toEqual([]);
  });
  it('says each widening setting that is set to something, with its value', () => {
    expect(
      jsonWidening('{"tools": {"allowed": ["run_shell_command"], "core": ["x"]}, "hooks": {}}', GEMINI_WIDENING),
    ).toEqual(['tools.allowed: ["run_shell_command"]']);
    expect(jsonWidening('{"mcpServers": {"x": {"command": "sh"}}, "tools": {"allowed": []}}', GEMINI_WIDENING)).toEqual(
      ['mcpServers: {"x":{"command":"sh"}}'],
    );
    expect(jsonWidening('{"tools": {"discoveryCommand": "   "}}', GEMINI_WIDENING)).toEqual([]);
    expect(jsonWidening('{"context": {"includeDirectories": ["/"]}}', GEMINI_WIDENING)).toEqual([
      'context.includeDirectories: ["/"]',
    ]);
    expect(jsonWidening('', GEMINI_WIDENING)).toEqual([]);
    // A long value is cut.
    expect(jsonWidening(JSON.stringify({ hooks: { a: 'x'.repeat(200) } }), ['hooks'])[0]!.length).toBeLessThan(100);
  });
  it('a file that is not JSON is a finding, never taken as harmless', () => {
    expect(jsonWidening('{"tools": {"allowed": ["run_shell_command"]', GEMINI_WIDENING)).toEqual([
      expect.stringMatching(/^\(sow cannot read it as JSON: /),
    ]);
  });
});

describe('TOML settings (Codex): every key path, however spelled', () => {
  const found = (text: string) => tomlWidening(text, CODEX_WIDENING);
  it('names tables, dotted keys, quoted keys and inline tables', () => {
    expect(
      tomlKeyPaths('model = "o3"\n[mcp_servers.evil]\ncommand = "sh"\n[[profiles.x.list]]\nk = 1\n').paths,
    ).toEqual([
      ['model'],
      ['mcp_servers', 'evil'],
      ['mcp_servers', 'evil', 'command'],
      ['profiles', 'x', 'list'],
      ['profiles', 'x', 'list', 'k'],
    ]);
    expect(found('model = "o3"\n')).toEqual([]);
    expect(found('[mcp_servers.evil]\ncommand = "sh"\n')).toEqual(['mcp_servers.evil', 'mcp_servers.evil.command']);
    expect(found('mcp_servers.evil.command = "sh"\n')).toEqual(['mcp_servers.evil.command']);
    expect(found('"mcp_servers" . \'evil\' = { command = "sh" }\n')).toEqual(['mcp_servers.evil']);
    expect(found('[ "sandbox_workspace_write" ]\nnetwork_access = true\n')).toEqual([
      'sandbox_workspace_write',
      'sandbox_workspace_write.network_access',
    ]);
    expect(found('x = { y = 1, writable_roots = ["/"] }\n')).toEqual(['writable_roots']);
    expect(found('notify = ["sh", "-c", "touch x"]\n')).toEqual(['notify']);
    expect(found('[profiles.fast]\nmodel = "x"\n')).toEqual(['profiles.fast', 'profiles.fast.model']);
  });
  it('skips what is inside strings and comments, across lines', () => {
    expect(found('# sandbox_mode = "danger-full-access"\nmodel = "o3" # notify = 1\n')).toEqual([]);
    expect(
      found('instructions = """\nsandbox_mode = "danger-full-access"\n"""\nmodel = \'\'\'\n[mcp_servers.x]\n\'\'\'\n'),
    ).toEqual([]);
    expect(found('list = [\n  "a",\n  { name = "b" },\n]\nmodel = "o3"\n')).toEqual([]);
  });
  it('what it cannot read is a finding: a quoted key with an escape, broken syntax', () => {
    expect(found('"\\u006dcp_servers".x.command = "sh"\n')).toEqual([
      expect.stringMatching(/^\(sow cannot read it as TOML: a quoted key with an escape/),
    ]);
    expect(found('[mcp_servers.x\n')).toEqual([expect.stringMatching(/^\(sow cannot read it as TOML: /)]);
    expect(found('x = [1, 2\n')).toEqual([expect.stringMatching(/never closed/)]);
    expect(found('x = "open\n')).toEqual([expect.stringMatching(/unterminated string/)]);
  });
});

describe('.env files', () => {
  it('names matching variables, never their values', () => {
    expect(
      envWidening(
        'A=1\nexport GEMINI_CLI_SYSTEM_SETTINGS_PATH=/tmp/x\n# GEMINI_CLI_HOME=x\n GEMINI_SANDBOX = docker\n',
        (n) => n.startsWith('GEMINI_'),
      ),
    ).toEqual(['GEMINI_CLI_SYSTEM_SETTINGS_PATH=…', 'GEMINI_SANDBOX=…']);
  });
});

describe("every CLI's own settings files", () => {
  it('each module but a command of your own names its files; the registry has them all, once', () => {
    for (const m of Object.values(EXECUTORS)) {
      if (m.type === 'command') expect(m.widening).toBeUndefined();
      else expect(m.widening?.files.length, m.type).toBeGreaterThan(0);
    }
    const all = agentSettingsFiles();
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(
      expect.arrayContaining([
        '.claude/**',
        '.mcp.json',
        '.gemini/**',
        '.codex/**',
        'opencode.json',
        'opencode.jsonc',
        '.opencode/**',
        '.github/copilot/**',
        '.github/hooks/**',
        '.cursor/**',
        '.windsurf/**',
        // GitHub Copilot's in VS Code: the ACP policy protected them before the modules named their files.
        '.vscode/settings.json',
        '.vscode/mcp.json',
      ]),
    );
  });
  it('the files a module reads for widening settings are among those it protects (a worker cannot write them)', () => {
    const matches = (pattern: string, path: string) =>
      new RegExp(
        `^${pattern
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*/g, '§')
          .replace(/\*/g, '[^/]*')
          .replace(/§/g, '.*')}$`,
      ).test(path);
    for (const m of Object.values(EXECUTORS)) {
      for (const transport of ['cli', 'acp'] as const) {
        for (const path of Object.keys(m.widening?.check?.(transport) ?? {})) {
          // The project's .env is Gemini's only file a worker may edit: it is the application's too.
          if (path === '.env') continue;
          expect(
            m.widening!.files.some((p) => matches(p, path.replace('*', 'x.json'))),
            `${m.type}: ${path}`,
          ).toBe(true);
        }
      }
    }
  });
  it(
    'Claude Code and opencode are told to leave them out (no check); Gemini, Codex, Copilot and Cursor ' +
      'are checked',
    () => {
      const checked = Object.values(EXECUTORS)
        .filter((m) => m.widening?.check?.('cli'))
        .map((m) => m.type);
      expect(checked.sort()).toEqual(['codex', 'copilot', 'cursor', 'gemini']);
      // Codex's adapter takes no --ignore-rules: over ACP its rules files are checked too.
      expect(Object.keys(EXECUTORS.codex.widening!.check!('acp')!)).toContain('.codex/rules/*');
      expect(Object.keys(EXECUTORS.codex.widening!.check!('cli')!)).not.toContain('.codex/rules/*');
    },
  );
});
