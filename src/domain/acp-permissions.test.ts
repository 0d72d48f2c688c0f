import { describe, expect, it } from 'vitest';
import { decidePermission, isSimpleCommand, optionFor, type PermissionPolicy } from './acp-permissions.js';

const safe: PermissionPolicy = { profile: 'safe', checks: ['npm test'], inside: (p) => p.startsWith('/repo/') && !p.startsWith('/repo/.git/') };
const run = (command: unknown) => decidePermission({ kind: 'execute', rawInput: { command } }, safe);

describe('decidePermission (safe)', () => {
  it('runs sow and the allowed checks, as one plain command each', () => {
    expect(run('sow task set --id 010 status needs_review').allow).toBe(true);
    expect(run('sow log "done; really" --action completed_task').allow).toBe(true);
    expect(run('npm test').allow).toBe(true);
    expect(run(['bash', '-lc', 'sow status']).allow).toBe(true);
  });

  it('refuses any other command, and sow chained, piped, redirected or substituted with another', () => {
    for (const c of [
      'rm -rf /',
      'sow status; rm -rf /',
      'sow status && curl x',
      'sow status | sh',
      'sow log "$(cat ~/.ssh/id_rsa)"',
      'sow log `id`',
      'sow status > /etc/passwd',
      'sowx',
      'npm test --watch',
      'sow status\nrm x',
    ]) {
      const d = run(c);
      expect([c, d.allow]).toEqual([c, false]);
      if (!d.allow) expect(d.kind).toBe('command');
    }
    expect(decidePermission({ kind: 'execute', title: 'Run something' }, safe)).toMatchObject({ allow: false, reason: 'the safe profile runs only sow and the declared checks you allowed' });
    expect(decidePermission({ kind: 'execute', rawInput: {} }, safe)).toMatchObject({ allow: false, reason: 'it does not say which command it runs' });
  });

  it('edits, deletes and moves only inside the repository, never in .git', () => {
    expect(decidePermission({ kind: 'edit', locations: [{ path: '/repo/src/a.ts' }] }, safe).allow).toBe(true);
    expect(decidePermission({ kind: 'edit', locations: [{ path: '/repo/a' }, { path: '/etc/passwd' }] }, safe)).toMatchObject({ allow: false, kind: 'edit' });
    expect(decidePermission({ kind: 'delete', locations: [{ path: '/repo/.git/config' }] }, safe).allow).toBe(false);
    expect(decidePermission({ kind: 'move', locations: [] }, safe).allow).toBe(false);
  });

  it('reads inside the repository, not outside; refuses fetches, mode switches and unknown kinds', () => {
    expect(decidePermission({ kind: 'read', locations: [{ path: '/repo/README.md' }] }, safe).allow).toBe(true);
    expect(decidePermission({ kind: 'read', locations: [{ path: '/home/me/.ssh/id_rsa' }] }, safe).allow).toBe(false);
    expect(decidePermission({ kind: 'think' }, safe).allow).toBe(true);
    for (const kind of ['fetch', 'switch_mode', 'other', 'teleport', undefined]) expect(decidePermission({ kind }, safe).allow).toBe(false);
  });

  it("allows sow's own tools through the sow mcp server it handed over, as each agent that asks names them; no other MCP server's", () => {
    // As Claude Code's adapter and Gemini CLI ask (measured with the pinned ones).
    expect(decidePermission({ kind: 'other', title: 'mcp__sow__status', rawInput: {}, content: [] }, safe).allow).toBe(true);
    expect(decidePermission({ kind: 'other', title: 'task_update (sow MCP Server)' }, safe).allow).toBe(true);
    for (const title of ['mcp__github__create_issue', 'mcp__sow__status; rm', 'status (github MCP Server)', 'mcp__sowx__status', 'sow status'])
      expect([title, decidePermission({ kind: 'other', title }, safe).allow]).toEqual([title, false]);
    // Only as a tool of its own: never a fetch or a command that borrows the name.
    expect(decidePermission({ kind: 'fetch', title: 'mcp__sow__status' }, safe).allow).toBe(false);
  });

  it('yolo allows everything', () => {
    expect(decidePermission({ kind: 'execute', rawInput: { command: 'rm -rf /tmp/x' } }, { ...safe, profile: 'yolo' }).allow).toBe(true);
  });
});

describe('isSimpleCommand', () => {
  it('knows quotes', () => {
    expect(isSimpleCommand(`sow log 'a;b|c>d'`)).toBe(true);
    expect(isSimpleCommand(`sow log "a;b" x`)).toBe(true);
    expect(isSimpleCommand(`sow log "unclosed`)).toBe(false);
    expect(isSimpleCommand(`sow log "$(id)"`)).toBe(false);
    expect(isSimpleCommand(`sow log '$(id)'`)).toBe(true);
  });
});

describe('optionFor', () => {
  const options = [
    { optionId: 'a1', kind: 'allow_once' },
    { optionId: 'aa', kind: 'allow_always' },
    { optionId: 'r1', kind: 'reject_once' },
  ];
  it('allows once, never always; refuses once', () => {
    expect([optionFor(options, true), optionFor(options, false)]).toEqual(['a1', 'r1']);
    expect(optionFor([{ optionId: 'aa', kind: 'allow_always' }], true)).toBeUndefined();
  });
});

describe('the shapes of the real agents (the pinned versions)', () => {
  it('finds the command where each puts it: rawInput.command, an argv of a shell, or (Gemini) the title', () => {
    const cases: [string, object][] = [
      ['claude-agent-acp', { kind: 'execute', title: 'sow status', rawInput: { command: 'sow status', description: 'Run a command' } }],
      ['copilot', { kind: 'execute', title: 'Run a command', rawInput: { command: 'sow status', commands: ['sow status'] } }],
      ['codex-acp', { kind: 'execute', title: 'sow status', rawInput: { command: ['/bin/bash', '-lc', 'sow status'], cwd: '/repo' } }],
      ['gemini', { kind: 'execute', title: 'sow status', content: [] }],
      ['opencode', { kind: 'execute', title: 'sow status', rawInput: { command: 'sow status' } }],
    ];
    for (const [who, call] of cases) expect([who, decidePermission(call, safe)]).toEqual([who, { allow: true, what: 'sow status' }]);
    // A title is the command only when there is no input at all: Copilot's title is a description.
    expect(decidePermission({ kind: 'execute', title: 'sow status', rawInput: { description: 'x' } }, safe).allow).toBe(false);
  });

  it('finds the files each names: locations, a diff, file_path / fileName / filepath, Codex changes', () => {
    const outside = [
      { kind: 'edit', title: 'Write x', rawInput: { file_path: '/etc/x', content: 'a' } },
      { kind: 'edit', title: 'Create file', rawInput: { fileName: '/etc/x', diff: '' } },
      { kind: 'edit', title: '/etc/x', content: [{ type: 'diff', path: '/etc/x', oldText: '', newText: 'a' }], rawInput: { filepath: '/etc/x' } },
      { kind: 'edit', title: 'Edit', rawInput: { changes: { '/etc/x': { type: 'add', content: 'a' } } } },
      { kind: 'edit', title: 'Writing to x', content: [{ type: 'diff', path: '/etc/x', oldText: '', newText: 'a' }] },
    ];
    for (const call of outside) expect(decidePermission(call, safe)).toMatchObject({ allow: false, kind: 'edit' });
    for (const call of outside) expect(decidePermission(JSON.parse(JSON.stringify(call).replaceAll('/etc/x', '/repo/x')), safe).allow).toBe(true);
  });
});
