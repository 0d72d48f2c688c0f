/**
 * The argv table of every executor, exactly, and every flag it passes checked against the help
 * text of the pinned CLI version (test/fixtures/agent-help, captured from the real CLIs; the live
 * check is `npm run test:real-agents`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXECUTORS } from './table.js';
import type { InvocationContext } from './types.js';
import type { ExecutorConfig } from '../../domain/schemas.js';
import { permissionProfile } from '../../domain/config.js';

const FIXTURES = new URL('../../../test/fixtures/agent-help/', import.meta.url);
const help = (file: string) => readFileSync(new URL(file, FIXTURES), 'utf8');

const ctx = (config: ExecutorConfig, extra: Partial<InvocationContext> = {}): InvocationContext & { sessionId: string } => ({
  config,
  cwd: '/repo',
  prompt: 'the prompt',
  promptFile: '/repo/.sow/project/agent-outputs/010/p.md',
  sessionId: 'SID',
  runningAsRoot: false,
  permissions: permissionProfile(config),
  checks: [],
  ...extra,
});
const full = (type: ExecutorConfig['type']): ExecutorConfig => ({ type, settings: { yolo_mode: true, model: 'M' }, custom_args: ['--extra'] });
const plain = (type: ExecutorConfig['type']): ExecutorConfig => ({ type });

describe('argv tables', () => {
  it('claude', () => {
    expect(EXECUTORS.claude.spawn(ctx(plain('claude'))).args).toEqual(['--print', '--output-format', 'stream-json', '--verbose', '--session-id', 'SID', '--allowedTools', 'Bash(sow *)']);
    const yolo = EXECUTORS.claude.spawn(ctx(full('claude')));
    expect(yolo.args).toEqual(['--print', '--output-format', 'stream-json', '--verbose', '--session-id', 'SID', '--model', 'M', '--dangerously-skip-permissions', '--extra']);
    expect(yolo.stdin).toBe('the prompt');
    expect(yolo.env).toEqual({});
    expect(EXECUTORS.claude.spawn(ctx(full('claude'), { runningAsRoot: true })).env).toEqual({ IS_SANDBOX: '1' });
    expect(EXECUTORS.claude.spawn(ctx(plain('claude'), { runningAsRoot: true })).env).toEqual({});
    expect(EXECUTORS.claude.resume(ctx(full('claude'))).args).toEqual(['--print', '--output-format', 'stream-json', '--verbose', '--resume', 'SID', '--model', 'M', '--dangerously-skip-permissions', '--extra']);
  });
  it('cursor', () => {
    expect(EXECUTORS.cursor.createSession!(plain('cursor'))).toEqual({ binary: 'cursor-agent', args: ['create-chat'] });
    expect(EXECUTORS.cursor.spawn(ctx(full('cursor'))).args).toEqual(['-p', '--output-format', 'stream-json', '--resume', 'SID', '--model', 'M', '--force', '--extra']);
  });
  it('codex', () => {
    expect(EXECUTORS.codex.spawn(ctx(full('codex'))).args).toEqual(['exec', '--json', '-C', '/repo', '-m', 'M', '--dangerously-bypass-approvals-and-sandbox', '--extra', '-']);
    expect(EXECUTORS.codex.resume(ctx(full('codex'))).args).toEqual(['exec', 'resume', '--json', '-m', 'M', '--dangerously-bypass-approvals-and-sandbox', '--extra', 'SID', '-']);
    expect(EXECUTORS.codex.spawn(ctx(plain('codex'))).args).toEqual(['exec', '--json', '-C', '/repo', '-c', 'sandbox_mode="workspace-write"', '-']);
    expect(EXECUTORS.codex.resume(ctx(plain('codex'))).args).toEqual(['exec', 'resume', '--json', '-c', 'sandbox_mode="workspace-write"', 'SID', '-']);
    expect(EXECUTORS.codex.sessionFromEvent!({ type: 'thread.started', thread_id: 'T1' })).toBe('T1');
    expect(EXECUTORS.codex.sessionFromEvent!({ type: 'turn.started' })).toBeUndefined();
  });
  it('gemini', () => {
    expect(EXECUTORS.gemini.spawn(ctx(full('gemini'))).args).toEqual(['--output-format', 'stream-json', '--session-id', 'SID', '-m', 'M', '--yolo', '--extra']);
    const safe = EXECUTORS.gemini.resume(ctx(plain('gemini')));
    expect(safe.args).toEqual(['--output-format', 'stream-json', '--resume', 'SID', '--policy', '/repo/.sow/project/agent-outputs/010/gemini-sow-policy.toml']);
    expect(safe.files?.[0]?.text).toMatch(/toolName = "run_shell_command"\ncommandPrefix = "sow"\ndecision = "allow"/);
    expect(EXECUTORS.gemini.spawn(ctx(full('gemini'))).files).toEqual([]);
  });
  it('copilot', () => {
    expect(EXECUTORS.copilot.spawn(ctx(full('copilot'))).args).toEqual(['--session-id', 'SID', '--output-format', 'json', '-C', '/repo', '--model', 'M', '--allow-all-tools', '--extra']);
    expect(EXECUTORS.copilot.resume(ctx(plain('copilot'))).args).toEqual(['--resume=SID', '--output-format', 'json', '-C', '/repo', '--allow-tool', 'shell(sow)']);
  });
  it('opencode', () => {
    expect(EXECUTORS.opencode.spawn(ctx(full('opencode'))).args).toEqual(['run', '--format', 'json', '--dir', '/repo', '-m', 'M', '--auto', '--extra']);
    expect(EXECUTORS.opencode.resume(ctx(plain('opencode'))).args).toEqual(['run', '--format', 'json', '--dir', '/repo', '--session', 'SID']);
    expect(EXECUTORS.opencode.sessionFromEvent!({ type: 'step_start', sessionID: 'ses_1' })).toBe('ses_1');
    expect(EXECUTORS.opencode.sessionFromEvent!({ type: 'text', part: { sessionID: 'ses_2' } })).toBe('ses_2');
  });
  it('windsurf cannot resume', () => {
    expect(EXECUTORS.windsurf.supportsResumption(plain('windsurf'))).toBe(false);
    expect(EXECUTORS.windsurf.spawn(ctx({ type: 'windsurf', custom_args: ['--cascade'] })).args).toEqual(['--cascade']);
  });
  it('command fills placeholders in argv words, never through a shell', () => {
    const config: ExecutorConfig = { type: 'command', spawn: ['my-agent', '--session', '{session_id}', '--prompt-file', '{prompt_file}', 'in={cwd}', '{model}'], resume: ['my-agent', '--resume', '{session_id}', '{prompt}'], settings: { model: 'M' } };
    expect(EXECUTORS.command.binary(config)).toBe('my-agent');
    expect(EXECUTORS.command.spawn(ctx(config)).args).toEqual(['--session', 'SID', '--prompt-file', '/repo/.sow/project/agent-outputs/010/p.md', 'in=/repo', 'M']);
    expect(EXECUTORS.command.resume(ctx(config, { prompt: '$(rm -rf /); `x`' })).args).toEqual(['--resume', 'SID', '$(rm -rf /); `x`']);
    expect(EXECUTORS.command.supportsResumption({ type: 'command', spawn: ['x'] })).toBe(false);
  });
});

/** Each flag an executor passes must appear in the help of the command path it runs. */
describe('every flag exists in the pinned CLI help', () => {
  const cases: { type: ExecutorConfig['type']; spawnHelp: string[]; resumeHelp: string[] }[] = [
    { type: 'claude', spawnHelp: ['claude@2.1.197__root.txt'], resumeHelp: ['claude@2.1.197__root.txt'] },
    { type: 'codex', spawnHelp: ['codex@0.169.0__exec.txt'], resumeHelp: ['codex@0.169.0__exec_resume.txt'] },
    { type: 'gemini', spawnHelp: ['gemini@0.61.0__root.txt'], resumeHelp: ['gemini@0.61.0__root.txt'] },
    { type: 'copilot', spawnHelp: ['copilot@1.0.102__root.txt'], resumeHelp: ['copilot@1.0.102__root.txt'] },
    { type: 'opencode', spawnHelp: ['opencode@1.18.33__run.txt'], resumeHelp: ['opencode@1.18.33__run.txt'] },
  ];
  const flagsOf = (args: string[]) => args.filter((a) => a.startsWith('-') && a !== '-' && a !== '--extra').map((a) => a.split('=')[0]!);
  const documented = (text: string, flag: string) => new RegExp(`(^|[\\s,\\[])${flag.replace(/[-]/g, '\\-')}(?=[\\s,=\\]<]|$)`, 'm').test(text);
  for (const c of cases) {
    it(`${c.type}`, () => {
      const spawnText = c.spawnHelp.map(help).join('\n');
      const resumeText = c.resumeHelp.map(help).join('\n');
      const config = full(c.type);
      for (const flag of flagsOf(EXECUTORS[c.type].spawn(ctx(config)).args)) expect(documented(spawnText, flag), `${c.type} spawn ${flag}`).toBe(true);
      for (const flag of flagsOf(EXECUTORS[c.type].resume(ctx(config)).args)) expect(documented(resumeText, flag), `${c.type} resume ${flag}`).toBe(true);
      for (const flag of flagsOf(EXECUTORS[c.type].spawn(ctx(plain(c.type))).args)) expect(documented(spawnText, flag), `${c.type} spawn (no yolo) ${flag}`).toBe(true);
      for (const flag of flagsOf(EXECUTORS[c.type].resume(ctx(plain(c.type))).args)) expect(documented(resumeText, flag), `${c.type} resume (no yolo) ${flag}`).toBe(true);
    });
  }
  it('the check can fail', () => {
    expect(documented(help('claude@2.1.197__root.txt'), '--session-idd')).toBe(false);
    expect(documented(help('codex@0.169.0__exec_resume.txt'), '-C')).toBe(false);
  });
});
