import { describe, expect, it } from 'vitest';
import { checkConfig, resolveConfig } from './config.js';
import { userConfigPath } from '../adapters/user-config.js';

describe('userConfigPath', () => {
  it('follows XDG, then ~/.config (macOS too), and %APPDATA% on Windows', () => {
    expect(userConfigPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' }, 'linux')).toBe('/x/sow/config.yaml');
    expect(userConfigPath({ HOME: '/h' }, 'linux')).toBe('/h/.config/sow/config.yaml');
    expect(userConfigPath({ HOME: '/Users/ada' }, 'darwin')).toBe('/Users/ada/.config/sow/config.yaml');
    expect(userConfigPath({ XDG_CONFIG_HOME: 'relative', HOME: '/h' }, 'linux')).toBe('/h/.config/sow/config.yaml');
    expect(userConfigPath({ APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'win32')).toBe('C:\\Users\\ada\\AppData\\Roaming\\sow\\config.yaml');
  });
});

describe('resolveConfig', () => {
  it('defaults every role to Claude Code', () => {
    const e = resolveConfig(undefined, {});
    expect(e.bindings['implementer']).toEqual({ role: 'implementer', executor: 'claude-code', source: 'default' });
    expect(e.executors['claude-code']).toMatchObject({ source: 'default', config: { type: 'claude', settings: { yolo_mode: false } } });
    expect(checkConfig(e)).toEqual({ errors: [], warnings: [] });
  });

  it('takes the environment over the file over the defaults, and remembers where each came from', () => {
    const file = { agents: { executors: { fast: { type: 'claude' as const, settings: { model: 'haiku' } } }, bindings: { implementer: 'fast', reviewer: 'fast' } } };
    const e = resolveConfig(file, { SOW_AGENTS_REVIEWER: 'codex' });
    expect(e.bindings['implementer']).toMatchObject({ executor: 'fast', source: 'file' });
    expect(e.bindings['reviewer']).toMatchObject({ executor: 'codex', source: 'environment', variable: 'SOW_AGENTS_REVIEWER' });
    expect(e.bindings['planner']).toMatchObject({ executor: 'claude-code', source: 'default' });
    expect(e.executors['codex']).toMatchObject({ source: 'implicit', config: { type: 'codex' } });
    expect(e.overrides).toEqual({ SOW_AGENTS_REVIEWER: 'codex' });
  });

  it('reports bindings to undefined executors, unknown roles and misplaced settings', () => {
    const e = resolveConfig({ agents: { executors: { mine: { type: 'command' } }, bindings: { implementer: 'nope', wizard: 'claude-code' } } }, {});
    const report = checkConfig(e);
    expect(report.errors).toEqual([
      "agents.bindings.implementer names executor 'nope', which is not defined (defined: claude-code, mine)",
      "agents.executors.mine: a 'command' executor needs a 'spawn' argv list",
    ]);
    expect(report.warnings[0]).toMatch(/wizard/);
  });

  it('treats sections whose entries are all commented out (null) as empty', () => {
    const e = resolveConfig({ agents: { executors: null, bindings: null } }, {});
    expect(e.bindings['implementer']?.executor).toBe('claude-code');
  });
});
