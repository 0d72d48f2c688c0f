/**
 * The executor contract: what every agent CLI module (adapters/executors/<cli>.ts) must do,
 * checked on each module the registry lists. A new CLI's module passes this suite, or it does not
 * ship. (The exact argv of each CLI is argv.test.ts; the live flags are `npm run test:real-agents`.)
 */
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  EXECUTOR_TYPES,
  ExecutorConfigSchema,
  type ExecutorConfig,
  type ExecutorType,
  type PermissionProfile,
} from '../../domain/config-schemas.js';
import { TYPES_BY_NAME } from '../../domain/config.js';
import { denialCollector } from '../denials.js';
import { describeEvent } from '../progress.js';
import { agentSettingsFiles, EXECUTORS, IGNORED_SETTINGS, installTargets, resumableTypes } from './registry.js';
import { addUsage } from './shared.js';
import type { ExecutorModule, InvocationContext, Usage } from './types.js';

const FIXTURES = new URL('../../../test/fixtures/', import.meta.url);
const lines = (file: string) =>
  readFileSync(new URL(file, FIXTURES), 'utf8')
    .split('\n')
    .filter((l) => l.trim());

/**
 * What each CLI printed when it really ran (test/fixtures): its event samples, and a run in which
 * it refused a call under permissions: safe. A CLI sow could not run here has none, and says why.
 */
const RECORDED: Record<
  ExecutorType,
  { events: string[]; refused?: { events: string; stderr?: string } } | { none: string }
> = {
  claude: {
    events: ['agent-help/claude__events-sample.jsonl', 'agent-help/claude__events-sample-success.jsonl'],
    refused: { events: 'denials/claude-safe-spawn.jsonl' },
  },
  codex: {
    events: ['agent-help/codex__events-sample.jsonl', 'agent-help/codex__events-sample-resume.jsonl'],
    refused: { events: 'denials/codex-safe-spawn.jsonl', stderr: 'denials/codex-safe-stderr.txt' },
  },
  gemini: {
    events: ['agent-help/gemini__events-sample.jsonl', 'agent-help/gemini__events-sample-success.jsonl'],
    refused: { events: 'denials/gemini-safe-spawn.jsonl' },
  },
  copilot: {
    events: ['agent-help/copilot__events-sample.jsonl', 'agent-help/copilot__events-sample-success.jsonl'],
    refused: { events: 'denials/copilot-safe-spawn.jsonl' },
  },
  opencode: {
    events: ['agent-help/opencode__events-sample.jsonl', 'agent-help/opencode__events-sample-success.jsonl'],
    refused: { events: 'denials/opencode-safe-spawn.jsonl' },
  },
  cursor: { none: 'cursor-agent is not on npm, so no run of it was recorded' },
  windsurf: { none: 'sow reads no events of windsurf' },
  command: { none: "a command of the user's own prints whatever it prints" },
};

/**
 * The tokens and cost a recorded run adds up to, for each CLI whose events carry them (Copilot CLI's
 * `result.usage` counts premium requests, not tokens; Cursor's events were not recorded).
 */
const USAGE: Partial<Record<ExecutorType, { file: string; total: Usage }>> = {
  claude: {
    file: 'agent-help/claude__events-sample-success.jsonl',
    total: { input_tokens: 5, output_tokens: 3, cost_usd: 0.0001 },
  },
  codex: { file: 'denials/codex-safe-spawn.jsonl', total: { input_tokens: 250, output_tokens: 100 } },
  gemini: { file: 'denials/gemini-safe-spawn.jsonl', total: { input_tokens: 250, output_tokens: 100 } },
  opencode: {
    file: 'denials/opencode-safe-spawn.jsonl',
    total: { input_tokens: 250, output_tokens: 100, cost_usd: 0.00225 },
  },
};

/** A configuration each type runs with: a command of the user's own needs its argv. */
const configOf = (m: ExecutorModule, extra: Partial<ExecutorConfig> = {}): ExecutorConfig =>
  m.type === 'command'
    ? {
        type: 'command',
        spawn: ['my-agent', '--session', '{session_id}'],
        resume: ['my-agent', '--resume', '{session_id}'],
        ...extra,
      }
    : { type: m.type, ...extra };

const ctx = (
  m: ExecutorModule,
  over: Partial<InvocationContext> = {},
  permissions: PermissionProfile = 'safe',
): InvocationContext & { sessionId: string } => ({
  config: configOf(m),
  cwd: '/repo',
  prompt: 'the prompt',
  promptFile: '/repo/.git/sow/agent-outputs/010/prompt.md',
  sessionId: 'SID-1',
  runningAsRoot: false,
  permissions,
  checks: ['npm test'],
  protect: agentSettingsFiles(),
  ...over,
});

/** Every word sow gives the CLI: argv, environment values and the files it writes for the run. */
const everything = (inv: ReturnType<ExecutorModule['spawn']>) =>
  [...inv.args, ...Object.values(inv.env), ...(inv.files ?? []).map((f) => f.text)].join('\n');

const modules = Object.values(EXECUTORS);

describe('the registry', () => {
  it("lists each type of the configuration schema once, under its own name, in the schema's order", () => {
    expect(Object.keys(EXECUTORS)).toEqual([...EXECUTOR_TYPES]);
    for (const [key, m] of Object.entries(EXECUTORS)) expect(m.type, key).toBe(key);
  });
  it("each agent CLI owns its install target, but Windsurf and a command of the user's own; each target is one", () => {
    expect(modules.filter((m) => m.integration === null).map((m) => m.type)).toEqual(['windsurf', 'command']);
    expect(installTargets()).toEqual(['claude', 'cursor', 'codex', 'gemini', 'copilot', 'opencode']);
    const commands = { start: 's', continue: 'c', status: 'st', advance: 'a', spawn: 'sp' };
    const src = { skill: 'skill', agentsSection: 'section', agent: 'agent', commands, version: '1.0.0' };
    for (const t of installTargets()) {
      const plan = EXECUTORS[t].integration!.repository(src, { withMcp: true });
      expect(plan.length, t).toBeGreaterThan(0);
      expect(new Set(plan.map((p) => p.path)).size, t).toBe(plan.length);
      for (const p of plan) expect(p.path, t).toMatch(/^(?!\/|\.sow\/|.*\.\.)/);
    }
    // Only Claude Code takes a plugin.
    expect(installTargets().filter((t) => EXECUTORS[t].integration?.plugin)).toEqual(['claude']);
  });
  it('the configuration schema names the types that speak ACP: those whose module says how', () => {
    const said = v.getDescription(ExecutorConfigSchema.entries.transport.wrapped) ?? '';
    const acp = modules.filter((m) => m.acp).map((m) => m.type);
    expect(said).toContain(`(${acp.join(', ')})`);
  });
  it("the ignored settings are each module's own", () => {
    for (const m of modules) expect(IGNORED_SETTINGS[m.type], m.type).toBe(m.ignores);
  });
  it("the types that resume as they are: every CLI sow maps, in the registry's order, and each usable by name", () => {
    expect(resumableTypes()).toEqual(['claude', 'cursor', 'codex', 'gemini', 'copilot', 'opencode']);
    for (const t of resumableTypes()) expect(TYPES_BY_NAME, t).toContain(t);
  });
});

describe.each(modules.map((m) => [m.type, m] as const))('the executor contract: %s', (type, m) => {
  it('says who it is and how to install it', () => {
    expect(m.title.trim()).not.toBe('');
    expect(m.install.trim()).not.toBe('');
  });

  it('spawns its own binary with an argv of plain words, the prompt on stdin', () => {
    const c = ctx(m);
    const inv = m.spawn(c);
    expect(inv.binary).toBe(m.binary(c.config));
    expect(inv.binary).not.toBe('');
    for (const a of inv.args) expect(typeof a, JSON.stringify(inv.args)).toBe('string');
    expect(inv.args.join(' ')).not.toMatch(/undefined|null|\[object/);
    expect(inv.stdin).toBe('the prompt');
    expect(
      inv.args.some((a) => a.includes('the prompt')),
      'the prompt is not an argv word',
    ).toBe(false);
    expect(inv.granted).toEqual({ permissions: 'safe', checks: ['npm test'] });
  });

  it('learns a session id the way it says, and passes a session id it was given', () => {
    expect(['caller', 'precreated', 'reported', 'none']).toContain(m.sessionIds);
    if (m.sessionIds === 'precreated') expect(m.createSession!(configOf(m)).binary).toBe(m.binary(configOf(m)));
    else expect(m.createSession).toBeUndefined();
    if (m.sessionIds === 'reported') expect(m.sessionFromEvent).toBeDefined();
    else expect(m.sessionFromEvent).toBeUndefined();
    const spawned = m.spawn(ctx(m, { sessionId: 'SID-1' })).args.join(' ');
    if (m.sessionIds === 'caller' || m.sessionIds === 'precreated') expect(spawned).toContain('SID-1');
    else expect(m.spawn({ ...ctx(m), sessionId: undefined }).args.join(' ')).not.toContain('undefined');
  });

  it('resumes only a session it is given, or says it cannot resume', () => {
    const config = configOf(m);
    if (!m.supportsResumption(config)) {
      expect(m.sessionIds).toBe('none');
      return;
    }
    const one = m.resume(ctx(m, { sessionId: 'SID-1' }));
    const two = m.resume(ctx(m, { sessionId: 'SID-2' }));
    expect(one.binary).toBe(m.binary(config));
    expect(one.args.join(' ')).toContain('SID-1');
    expect(two.args.join(' ')).toContain('SID-2');
    expect(one.args.join(' ')).not.toContain('SID-2');
    expect(one.stdin).toBe('the prompt');
  });

  it('maps every permission profile, or declares that it takes none', () => {
    const safe = m.spawn(ctx(m, {}, 'safe'));
    const yolo = m.spawn(ctx(m, {}, 'yolo'));
    if (m.ignores.permissions !== undefined) {
      expect(m.ignores.yolo_mode, 'permissions and yolo_mode go together').toBeDefined();
      expect(yolo.args).toEqual(safe.args);
      expect(yolo.env).toEqual(safe.env);
      return;
    }
    expect(m.ignores.yolo_mode).toBeUndefined();
    expect(yolo.args, 'yolo passes its skip-all flag').not.toEqual(safe.args);
    // What yolo adds (its skip-all flag) is never part of a safe run, with or without checks.
    const yoloOnly = yolo.args.filter((a) => !safe.args.includes(a));
    expect(yoloOnly.length).toBeGreaterThan(0);
    for (const checks of [[], ['npm test', 'make lint']]) {
      const s = m.spawn(ctx(m, { checks }, 'safe'));
      for (const a of yoloOnly) expect(s.args, `${a} in a safe run`).not.toContain(a);
    }
    expect(yolo.granted.permissions).toBe('yolo');
  });

  it('under safe, grants each declared check, or runs every command in a sandbox it names', () => {
    if (m.ignores.permissions !== undefined) return;
    const given = everything(m.spawn(ctx(m, { checks: ['make lint-all'] })));
    if (m.sandbox) {
      expect(given).not.toContain('make lint-all');
      expect(
        m.checkRefusedBecause,
        'a sandbox grants no single check, so it never refuses one it granted',
      ).toBeUndefined();
    } else {
      expect(given).toContain('make lint-all');
      expect(everything(m.spawn(ctx(m, { checks: [] })))).not.toContain('make lint-all');
    }
  });

  it('no value from a task or a state file ever becomes an option', () => {
    // The prompt, the checks and the session id come from the repository; each begins with '-' here.
    const hostile = ctx(m, { prompt: '--prompt-option', checks: ['--check-option'], sessionId: 'SID-1' });
    for (const inv of [m.spawn(hostile), ...(m.supportsResumption(hostile.config) ? [m.resume(hostile)] : [])]) {
      expect(inv.args).not.toContain('--prompt-option');
      expect(inv.args).not.toContain('--check-option');
      expect(inv.args.filter((a) => a.startsWith('--prompt-option') || a.startsWith('--check-option'))).toEqual([]);
    }
    // A reported session id that reads as an option is not taken: sow would pass it back on resume.
    if (m.sessionFromEvent) {
      for (const event of [
        { type: 'thread.started', thread_id: '--yolo' },
        { sessionID: '--yolo' },
        { part: { sessionID: '-x' } },
        { type: 'thread.started', thread_id: '' },
      ]) {
        expect(m.sessionFromEvent(event), JSON.stringify(event)).toBeUndefined();
      }
    }
  });

  it('takes the settings it does not ignore, and says why it ignores each other one', () => {
    for (const [setting, why] of Object.entries(m.ignores)) expect(why?.trim(), `${type} ${setting}`).not.toBe('');
    if (m.ignores.model === undefined && m.type !== 'command') {
      expect(m.spawn({ ...ctx(m), config: { type: m.type, settings: { model: 'the-model' } } }).args).toContain(
        'the-model',
      );
    }
    // Only a command of the user's own takes an argv of its own.
    expect(m.ignores.spawn === undefined, 'spawn').toBe(m.type === 'command');
    expect(m.ignores.resume === undefined, 'resume').toBe(m.type === 'command');
  });

  it('custom_args go last, as given, after every flag sow passes', () => {
    const c = ctx(m, { config: configOf(m, { custom_args: ['--mine', 'x'] }) });
    const args = m.spawn(c).args;
    const at = args.indexOf('--mine');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(args[at + 1]).toBe('x');
    // Codex ends with '-', its prompt-on-stdin marker; nothing else follows them.
    expect(args.slice(at + 2).filter((a) => a !== '-')).toEqual([]);
  });

  it('reads the events it printed when it really ran', () => {
    const recorded = RECORDED[type];
    if ('none' in recorded) {
      expect(recorded.none.trim(), `${type}: why no run of it was recorded`).not.toBe('');
      return;
    }
    let described = 0;
    const ids = new Set<string>();
    for (const file of recorded.events) {
      for (const line of lines(file)) {
        const event = JSON.parse(line) as Record<string, unknown>;
        described += describeEvent(event).length;
        const id = m.sessionFromEvent?.(event);
        if (id) ids.add(id);
      }
    }
    expect(described, `${type}: a progress line from its events`).toBeGreaterThan(0);
    if (m.sessionIds === 'reported') expect(ids.size, `${type}: the session id in its events`).toBeGreaterThan(0);
    if (recorded.refused) {
      const c = denialCollector(type);
      for (const line of lines(recorded.refused.events)) c.event(JSON.parse(line));
      for (const line of recorded.refused.stderr ? lines(recorded.refused.stderr) : []) c.stderr(line);
      expect(c.denials.length, `${type}: the refused call`).toBeGreaterThan(0);
      expect(m.denials, `${type} reads its refusals`).toBeDefined();
    }
  });
});

describe('usage: the tokens and cost a recorded run adds up to', () => {
  it.each(modules.map((m) => [m.type, m] as const))('%s', (type, m) => {
    const expected = USAGE[type];
    expect(Boolean(m.usage), `${type}: reads usage exactly when a recorded run says what it adds up to`).toBe(
      Boolean(expected),
    );
    if (!expected || !m.usage) return;
    let total: Usage = {};
    for (const line of lines(expected.file))
      total = addUsage(total, m.usage(JSON.parse(line) as Record<string, unknown>) ?? {});
    expect(Object.keys(total).sort()).toEqual(Object.keys(expected.total).sort());
    for (const [k, v] of Object.entries(expected.total)) expect(total[k as keyof Usage], k).toBeCloseTo(v, 8);
    // Events of other shapes add nothing.
    expect(m.usage({ type: 'nothing' })).toBeUndefined();
  });
});

describe('the progress dialects do not overlap: each event is read by at most one module', () => {
  const files = Object.values(RECORDED).flatMap((r) =>
    'events' in r ? [...r.events, ...(r.refused ? [r.refused.events] : [])] : [],
  );
  it.each(files)('%s', (file) => {
    for (const line of lines(file)) {
      const event = JSON.parse(line) as Record<string, unknown>;
      const readers = modules.filter((m) => m.progress?.(event) !== undefined).map((m) => m.type);
      expect(readers.length, `${readers.join(', ')} all read ${line.slice(0, 80)}`).toBeLessThanOrEqual(1);
    }
  });
});
