import { describe, expect, it } from 'vitest';
import {
  checkConfig,
  executorChoices,
  executorIssues,
  issueText,
  permissionProfile,
  resolveConfig,
  typosIn,
  type ResolvedExecutor,
} from './config.js';
import { userConfigPath } from '../adapters/user-config.js';
import { IGNORED_SETTINGS } from '../adapters/executors/registry.js';
import type { ExecutorConfig } from './config-schemas.js';

describe('userConfigPath', () => {
  it('follows XDG, then ~/.config (macOS too), and %APPDATA% on Windows', () => {
    expect(userConfigPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' }, 'linux')).toBe('/x/sow/config.yaml');
    expect(userConfigPath({ HOME: '/h' }, 'linux')).toBe('/h/.config/sow/config.yaml');
    expect(userConfigPath({ HOME: '/Users/ada' }, 'darwin')).toBe('/Users/ada/.config/sow/config.yaml');
    expect(userConfigPath({ XDG_CONFIG_HOME: 'relative', HOME: '/h' }, 'linux')).toBe('/h/.config/sow/config.yaml');
    expect(userConfigPath({ APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'win32')).toBe(
      'C:\\Users\\ada\\AppData\\Roaming\\sow\\config.yaml',
    );
  });
});

const texts = (issues: { field: string; problem: string }[]) => issues.map(issueText);

describe('resolveConfig', () => {
  it('defaults every role to Claude Code, permissions safe', () => {
    const e = resolveConfig(undefined, {});
    expect(e.bindings['implementer']).toEqual({ role: 'implementer', executor: 'claude-code', source: 'default' });
    expect(e.executors['claude-code']).toMatchObject({
      source: 'default',
      config: { type: 'claude', settings: { permissions: 'safe' } },
    });
    expect(permissionProfile(e.executors['claude-code']!.config)).toBe('safe');
    expect(checkConfig(e, IGNORED_SETTINGS)).toEqual({ errors: [], warnings: [] });
  });

  it('takes the environment over the file over the defaults, and remembers where each came from', () => {
    const file = {
      agents: {
        executors: { fast: { type: 'claude' as const, settings: { model: 'haiku' } } },
        bindings: { implementer: 'fast', reviewer: 'fast' },
      },
    };
    const e = resolveConfig(file, { SOW_AGENTS_REVIEWER: 'codex' });
    expect(e.bindings['implementer']).toMatchObject({ executor: 'fast', source: 'file' });
    expect(e.bindings['reviewer']).toMatchObject({
      executor: 'codex',
      source: 'environment',
      variable: 'SOW_AGENTS_REVIEWER',
    });
    expect(e.bindings['planner']).toMatchObject({ executor: 'claude-code', source: 'default' });
    expect(e.executors['codex']).toMatchObject({ source: 'implicit', config: { type: 'codex' } });
    expect(e.overrides).toEqual({ SOW_AGENTS_REVIEWER: 'codex' });
  });

  it("a binding may name a built-in type, but not 'command' (it has no argv without a definition)", () => {
    const e = resolveConfig({ agents: { bindings: { implementer: 'gemini', reviewer: 'command' } } }, {});
    expect(e.executors['gemini']).toMatchObject({ source: 'implicit' });
    expect(e.executors['command']).toBeUndefined();
    expect(texts(checkConfig(e, IGNORED_SETTINGS).errors)).toEqual([
      "agents.bindings.reviewer: executor 'command' is not defined (defined: claude-code; built-in types, usable " +
        'by name: claude, cursor, windsurf, codex, gemini, copilot, opencode)',
    ]);
  });

  it(
    'reports bindings to undefined executors (with the built-in types and a did-you-mean), unknown roles and a ' +
      'command without argv',
    () => {
      const e = resolveConfig(
        {
          agents: {
            executors: { mine: { type: 'command' } },
            bindings: { implementer: 'nope', wizard: 'claude-code', reviewer: 'cusor' },
          },
        },
        {},
      );
      const report = checkConfig(e, IGNORED_SETTINGS);
      expect(texts(report.errors)).toEqual([
        "agents.bindings.implementer: executor 'nope' is not defined (defined: claude-code, mine; built-in types, " +
          'usable by name: claude, cursor, windsurf, codex, gemini, copilot, opencode)',
        "agents.bindings.reviewer: executor 'cusor' is not defined (defined: claude-code, mine; built-in types, " +
          "usable by name: claude, cursor, windsurf, codex, gemini, copilot, opencode); did you mean 'cursor'?",
        "agents.executors.mine: a 'command' executor needs a 'spawn' argv list",
      ]);
      expect(texts(report.warnings)).toEqual([
        expect.stringMatching(/^agents\.bindings\.wizard: 'wizard' is not an agent role/),
      ]);
    },
  );

  it('names the environment variable when the environment names an undefined executor', () => {
    const report = checkConfig(resolveConfig(undefined, { SOW_AGENTS_IMPLEMENTER: 'nope' }), IGNORED_SETTINGS);
    expect(report.errors).toEqual([
      expect.objectContaining({ field: 'SOW_AGENTS_IMPLEMENTER (environment variable)' }),
    ]);
    expect(report.errors[0]!.problem).toMatch(/^executor 'nope' is not defined/);
  });

  it('warns about SOW_AGENTS_ variables that name no role (nothing reads them), with did-you-mean', () => {
    const e = resolveConfig(undefined, {
      SOW_AGENTS_IMPLEMENTR: 'codex',
      SOW_AGENTS_ZZZ: 'codex',
      SOW_AGENTS_: 'x',
      SOW_AGENTS_EMPTY: '',
    });
    expect(e.strayVariables).toEqual(['SOW_AGENTS_IMPLEMENTR', 'SOW_AGENTS_ZZZ']);
    const zzz = new RegExp(
      /^SOW_AGENTS_ZZZ \(environment variable\): 'zzz' is not an agent role, so nothing reads it /.source +
        /\(roles: orchestrator, implementer/.source,
    );
    expect(texts(checkConfig(e, IGNORED_SETTINGS).warnings)).toEqual([
      "SOW_AGENTS_IMPLEMENTR (environment variable): 'implementr' is not an agent role, so nothing reads it; did " +
        'you mean SOW_AGENTS_IMPLEMENTER?',
      expect.stringMatching(zzz),
    ]);
    // A role the file binds is read, so its variable is not stray.
    expect(
      resolveConfig({ agents: { bindings: { wizard: 'codex' } } }, { SOW_AGENTS_WIZARD: 'codex' }).strayVariables,
    ).toEqual([]);
  });

  it('treats sections whose entries are all commented out (null) as empty', () => {
    const e = resolveConfig({ agents: { executors: null, bindings: null } }, {});
    expect(e.bindings['implementer']?.executor).toBe('claude-code');
  });
});

describe('executorChoices', () => {
  it('lists the executors defined, then the types usable by name (not twice, not command), and a near miss', () => {
    const e = resolveConfig(
      { agents: { executors: { codex: { type: 'codex' }, cur: { type: 'cursor' } }, bindings: { planner: 'gemini' } } },
      {},
    );
    expect(executorChoices(e, 'curr')).toEqual({
      defined: ['claude-code', 'codex', 'cur'],
      types: ['claude', 'cursor', 'windsurf', 'gemini', 'copilot', 'opencode'],
      suggestion: 'cur',
    });
    expect(executorChoices(e, 'zzz').suggestion).toBeUndefined();
  });
});

describe('executorIssues: a setting the executor type does not take is an error naming the type', () => {
  const issues = (config: ExecutorConfig) =>
    texts(executorIssues({ name: 'mine', config, source: 'file' } satisfies ResolvedExecutor, IGNORED_SETTINGS));

  it('model on windsurf', () => {
    expect(issues({ type: 'windsurf', settings: { model: 'x' } })).toEqual([
      "agents.executors.mine.settings.model: the windsurf executor type does not take 'model' (sow passes windsurf " +
        'no model flag); remove it, or pick a type that does',
    ]);
    expect(issues({ type: 'claude', settings: { model: 'x' } })).toEqual([]);
    // A command executor can use it: the {model} placeholder.
    expect(issues({ type: 'command', spawn: ['a', '{model}'], settings: { model: 'x' } })).toEqual([]);
  });

  it('permissions and yolo_mode on windsurf and command (the argv decides); not on the CLIs sow maps them for', () => {
    for (const type of ['windsurf', 'command'] as const) {
      const e = issues({
        type,
        ...(type === 'command' ? { spawn: ['a'] } : {}),
        settings: { permissions: 'yolo', yolo_mode: true },
      });
      expect(e, type).toEqual([
        expect.stringMatching(
          new RegExp(
            `^agents\\.executors\\.mine\\.settings\\.permissions: the ${type} executor type does not take ` +
              `'permissions' \\(`,
          ),
        ),
        expect.stringMatching(
          new RegExp(
            `^agents\\.executors\\.mine\\.settings\\.yolo_mode: the ${type} executor type does not take ` +
              `'yolo_mode' \\(`,
          ),
        ),
      ]);
    }
    for (const type of ['claude', 'cursor', 'codex', 'gemini', 'copilot', 'opencode'] as const) {
      expect(issues({ type, settings: { permissions: 'yolo', yolo_mode: true } }), type).toEqual([]);
    }
  });

  it('spawn and resume on anything but command', () => {
    expect(issues({ type: 'codex', spawn: ['x'], resume: ['y'] })).toEqual([
      "agents.executors.mine.spawn: the codex executor type does not take 'spawn' (only type 'command' runs an " +
        'argv of your own); remove it, or pick a type that does',
      "agents.executors.mine.resume: the codex executor type does not take 'resume' (only type 'command' runs an " +
        'argv of your own); remove it, or pick a type that does',
    ]);
    expect(issues({ type: 'command', spawn: ['x'], resume: ['y'] })).toEqual([]);
  });

  it('checkConfig reports them among its errors, never as warnings', () => {
    const e = resolveConfig(
      {
        agents: { executors: { ws: { type: 'windsurf', settings: { model: 'm' } } }, bindings: { implementer: 'ws' } },
      },
      {},
    );
    expect(texts(checkConfig(e, IGNORED_SETTINGS).errors)).toEqual([
      expect.stringContaining("agents.executors.ws.settings.model: the windsurf executor type does not take 'model'"),
    ]);
    expect(checkConfig(e, IGNORED_SETTINGS).warnings).toEqual([]);
  });

  it('permissions and yolo_mode that disagree are an error; yolo_mode: true is permissions: yolo', () => {
    expect(issues({ type: 'claude', settings: { permissions: 'safe', yolo_mode: true } })).toEqual([
      'agents.executors.mine.settings: permissions: safe and yolo_mode: true disagree; keep one (yolo_mode: true ' +
        'is permissions: yolo)',
    ]);
    expect(issues({ type: 'claude', settings: { permissions: 'yolo', yolo_mode: true } })).toEqual([]);
    expect(permissionProfile({ type: 'claude', settings: { yolo_mode: true } })).toBe('yolo');
    expect(permissionProfile({ type: 'claude', settings: { yolo_mode: false } })).toBe('safe');
  });
});

describe('typosIn', () => {
  it('an unknown key anywhere, with did-you-mean, and a binding for a mistyped role', () => {
    expect(texts(typosIn({ agents: { bindngs: {} } }))).toEqual([
      "agents.bindngs: unknown key 'bindngs'; did you mean 'bindings'?",
    ]);
    expect(texts(typosIn({ agents: { executors: { mine: { type: 'claude', settings: { yolo: true } } } } }))).toEqual([
      "agents.executors.mine.settings.yolo: unknown key 'yolo' (known here: permissions, yolo_mode, model)",
    ]);
    expect(texts(typosIn({ agent: {} }))).toEqual(["agent: unknown key 'agent'; did you mean 'agents'?"]);
    expect(
      texts(typosIn({ agents: { bindings: { implementr: 'codex', reviewer: 'codex', wizard: 'codex' } } })),
    ).toEqual(["agents.bindings.implementr: 'implementr' is not an agent role; did you mean 'implementer'?"]);
    // Found even where the schema fails: `typ` is why `type` is missing.
    expect(texts(typosIn({ agents: { executors: { mine: { typ: 'claude' } } } }))).toEqual([
      "agents.executors.mine.typ: unknown key 'typ'; did you mean 'type'?",
    ]);
  });

  it('nothing for a valid file, an empty one, or values of another shape', () => {
    expect(
      typosIn({
        agents: {
          executors: { x: { type: 'codex', settings: { permissions: 'safe', model: 'm' }, custom_args: [] } },
          bindings: { implementer: 'x' },
        },
      }),
    ).toEqual([]);
    expect(typosIn(null)).toEqual([]);
    expect(typosIn('text')).toEqual([]);
    expect(typosIn({ agents: { bindings: ['implementr'] } })).toEqual([]);
  });

  it("a mistyped role is not also warned about as 'not an agent role'", () => {
    const e = resolveConfig({ agents: { bindings: { implementr: 'claude-code' } } }, {});
    expect(checkConfig(e, IGNORED_SETTINGS).warnings).toEqual([]);
  });
});
