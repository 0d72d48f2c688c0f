import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { denialAdvice, denialCollector, type AdviceContext, type Denial } from './denials.js';

const FIXTURES = join(import.meta.dirname, '../../test/fixtures/denials');
const OUTSIDE = /^touch \/var\/tmp\/sow-real-agents-outside-\w+\/outside-(claude|codex|gemini|copilot|opencode)$/;

/** Feeds a captured run to a collector, as runWorker does: every stdout line that parses, every stderr line. */
function collect(type: string, events: string, stderr = ''): readonly Denial[] {
  const c = denialCollector(type);
  for (const line of events.split('\n')) {
    if (!line.trim()) continue;
    try {
      c.event(JSON.parse(line));
    } catch {
      // not JSON: the CLIs print none on stdout, but runWorker skips such lines too
    }
  }
  for (const line of stderr.split('\n')) if (line) c.stderr(line);
  return c.denials;
}
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

describe('denials in the events the real CLIs printed (test/fixtures/denials)', () => {
  it.each([
    ['claude', 'Bash', undefined],
    ['gemini', 'run_shell_command', 'Tool execution denied by policy.'],
    ['copilot', 'bash', expect.stringMatching(/^Permission denied because no interactive user response was available/)],
    ['opencode', 'bash', 'The user rejected permission to use this specific tool call.'],
  ])('%s: exactly the refused touch, not the allowed sow and npm test calls', (type, tool, reason) => {
    const denials = collect(type, fixture(`${type}-safe-spawn.jsonl`));
    expect(denials).toEqual([
      { tool, input: expect.stringMatching(OUTSIDE), kind: 'command', ...(reason ? { reason } : {}) },
    ]);
    expect(denials[0]!.input).toContain(`outside-${type}`);
  });

  it('codex: nothing in its events; its stderr names the refusal but not the command', () => {
    expect(collect('codex', fixture('codex-safe-spawn.jsonl'))).toEqual([]);
    expect(collect('codex', '', fixture('codex-safe-stderr.txt'))).toEqual([
      {
        tool: 'shell',
        input: null,
        kind: 'command',
        reason: expect.stringMatching(/^approval policy is Never; reject command/),
      },
    ]);
  });

  it('a type sow cannot read, and lines that are no events, give none', () => {
    expect(collect('command', fixture('claude-safe-spawn.jsonl'))).toEqual([]);
    const c = denialCollector('claude');
    c.event(null);
    c.event([1]);
    c.event('result');
    c.stderr('ERROR codex_core::tools::router: error=reject');
    expect(c.denials).toEqual([]);
  });
});

const CTX: AdviceContext = {
  type: 'claude',
  title: 'Claude Code',
  executor: 'claude-code',
  configPath: '/home/u/.config/sow/config.yaml',
  repoConfig: '.sow/config.yaml',
  checks: ['npm test'],
  profile: 'safe',
};
const command = (input: string | null, tool = 'Bash'): Denial => ({ tool, input, kind: 'command' });

describe('denialAdvice', () => {
  it('nothing refused: nothing to say', () => {
    expect(denialAdvice([], CTX)).toEqual([]);
  });

  it('safe, an undeclared command: which, then declare it as a check, or permissions: yolo for the executor', () => {
    expect(denialAdvice([command('touch /x'), command('touch /x')], CTX)).toEqual([
      'Claude Code refused a tool call (permissions: safe):',
      '  Bash: touch /x',
      'To let a worker run that command, declare it as a check in .sow/config.yaml:',
      '  checks:',
      '    - name: allowed',
      '      run: "touch /x"',
      "then allow it on this machine: 'sow check allow'.",
      'To let executor "claude-code" do anything unasked, set permissions: yolo in /home/u/.config/sow/config.yaml:',
      '  agents:',
      '    executors:',
      '      claude-code:',
      '        type: claude',
      '        settings:',
      '          permissions: yolo',
    ]);
  });

  it('a declared check refused: why this CLI refuses it, and no advice to declare it', () => {
    const lines = denialAdvice([command('node check.mjs', 'bash')], {
      ...CTX,
      type: 'copilot',
      title: 'Copilot CLI',
      checks: ['node check.mjs'],
    });
    expect(lines[2]).toBe(
      '`node check.mjs` is declared as a check, but Copilot CLI refused it: Copilot CLI matches a shell command by ' +
        'its name (plus the first subcommand for tools such as npm or git), not by the whole line, so it may not ' +
        'see this command as the one granted; declare the check as a package script and run it by that name (`npm ' +
        'run <script>`).',
    );
    expect(lines.join('\n')).not.toContain('declare it as a check');
  });

  it('a declared check the person has not allowed here: allow it, not declare it', () => {
    const lines = denialAdvice([command('npm test')], { ...CTX, checks: [], notAllowed: ['npm test'] });
    expect(lines[2]).toBe(
      "`npm test` is declared as a check, but you have not allowed it on this machine: review it ('sow check " +
        "list') and run 'sow check allow'.",
    );
    expect(lines.join('\n')).not.toContain('declare it as a check');
  });

  it('an edit outside the repository: said so', () => {
    expect(denialAdvice([{ tool: 'Write', input: '/etc/x', kind: 'edit' }], CTX)).toContain(
      'A safe worker edits files only inside the repository.',
    );
  });

  it('refusals that name no command are counted each, not merged', () => {
    const lines = denialAdvice([command(null, 'shell'), command(null, 'shell')], {
      ...CTX,
      type: 'codex',
      title: 'Codex CLI',
    });
    expect(lines[0]).toBe('Codex CLI refused 2 tool calls (permissions: safe):');
  });

  it('a sandboxed CLI (codex): the sandbox is the profile, and a check does not widen it', () => {
    const lines = denialAdvice([command(null, 'shell')], { ...CTX, type: 'codex', title: 'Codex CLI' });
    expect(lines.slice(0, 3)).toEqual([
      'Codex CLI refused a tool call (permissions: safe):',
      '  shell: (a command; codex does not say which)',
      'Codex runs every command in its workspace-write sandbox (writes only in the repository and /tmp, no ' +
        'network), checks too; declaring a check does not widen it.',
    ]);
    expect(lines.at(-1)).toBe('          permissions: yolo');
  });

  it("yolo: the CLI's own configuration denies it, no advice to set yolo", () => {
    expect(denialAdvice([command('rm -rf /')], { ...CTX, profile: 'yolo' })).toEqual([
      'Claude Code refused a tool call (permissions: yolo):',
      '  Bash: rm -rf /',
      'Claude Code refused it even with permissions: yolo: its own configuration denies it.',
    ]);
  });
});
