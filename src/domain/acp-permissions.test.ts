import * as posix from 'node:path/posix';
import { describe, expect, it } from 'vitest';
import { agentSettingsFiles } from '../adapters/executors/registry.js';
import { decidePermission, optionFor, type AskedToolCall, type PermissionPolicy } from './acp-permissions.js';

/**
 * The repository is /repo, the worker works there; no links (the real locate, with links, is tested in
 * app/acp-worker.test.ts).
 */
const locate = (p: string) => {
  const abs = posix.resolve('/repo', p);
  return abs === '/repo' ? [''] : abs.startsWith('/repo/') ? [abs.slice('/repo/'.length)] : undefined;
};
const safe: PermissionPolicy = {
  profile: 'safe',
  checks: ['npm test', 'make check ARGS="-j 2"'],
  locate,
  protected: agentSettingsFiles(),
};
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
    expect(decidePermission({ kind: 'execute', title: 'Run something' }, safe)).toMatchObject({
      allow: false,
      reason: 'the safe profile runs only sow and the declared checks you allowed',
    });
    expect(decidePermission({ kind: 'execute', rawInput: {} }, safe)).toMatchObject({
      allow: false,
      reason: 'it does not say which command it runs',
    });
  });

  it('edits, deletes and moves only inside the repository, never in .git', () => {
    expect(decidePermission({ kind: 'edit', locations: [{ path: '/repo/src/a.ts' }] }, safe).allow).toBe(true);
    expect(
      decidePermission({ kind: 'edit', locations: [{ path: '/repo/a' }, { path: '/etc/passwd' }] }, safe),
    ).toMatchObject({ allow: false, kind: 'edit' });
    expect(decidePermission({ kind: 'delete', locations: [{ path: '/repo/.git/config' }] }, safe).allow).toBe(false);
    expect(decidePermission({ kind: 'move', locations: [] }, safe).allow).toBe(false);
  });

  it('reads inside the repository, not outside; refuses fetches, mode switches and unknown kinds', () => {
    expect(decidePermission({ kind: 'read', locations: [{ path: '/repo/README.md' }] }, safe).allow).toBe(true);
    expect(decidePermission({ kind: 'read', locations: [{ path: '/home/me/.ssh/id_rsa' }] }, safe).allow).toBe(false);
    expect(decidePermission({ kind: 'think' }, safe).allow).toBe(true);
    for (const kind of ['fetch', 'switch_mode', 'other', 'teleport', undefined])
      expect(decidePermission({ kind }, safe).allow).toBe(false);
  });

  it(
    "allows sow's own tools through the sow mcp server it handed over, as each agent that asks names them; no other " +
      "MCP server's",
    () => {
      // As Claude Code's adapter and Gemini CLI ask (measured with the pinned ones).
      expect(
        decidePermission({ kind: 'other', title: 'mcp__sow__status', rawInput: {}, content: [] }, safe).allow,
      ).toBe(true);
      expect(decidePermission({ kind: 'other', title: 'task_update (sow MCP Server)' }, safe).allow).toBe(true);
      for (const title of [
        'mcp__github__create_issue',
        'mcp__sow__status; rm',
        'status (github MCP Server)',
        'mcp__sowx__status',
        'sow status',
      ])
        expect([title, decidePermission({ kind: 'other', title }, safe).allow]).toEqual([title, false]);
      // Only as a tool of its own: never a fetch or a command that borrows the name.
      expect(decidePermission({ kind: 'fetch', title: 'mcp__sow__status' }, safe).allow).toBe(false);
    },
  );

  it('yolo allows everything', () => {
    expect(
      decidePermission({ kind: 'execute', rawInput: { command: 'rm -rf /tmp/x' } }, { ...safe, profile: 'yolo' }).allow,
    ).toBe(true);
  });
});

describe('commands, judged as the shell parses them (safe)', () => {
  it('refuses every look-alike of sow: Unicode spaces, shell syntax, another first word', () => {
    const spaces = [
      '\v',
      '\f',
      '\u00a0',
      ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
      '\u3000',
      '\ufeff',
    ];
    const lookAlikes = [
      ...spaces.map((s) => `sow${s}status`),
      ...spaces.map((s) => `sow${s}/../../../../bin/sh -c 'id; touch ../../pwned | cat'`),
      `sow\v/.. -c 'a;b'`,
      'sow$IFS-x',
      'sow${IFS}-x',
      'A=1 sow status',
      'env sow status',
      'exec sow status',
      'command sow status',
      'sow \\\nstatus',
      'sow status # comment',
      'sow status > f',
      'sow status < f',
      'sow status 2>&1',
      'sow log $(id)',
      'sow log `id`',
      'sow log "$(id)"',
      'sow log ~/x',
      'sow log *',
      './sow status',
      '/usr/bin/sow status',
      's\\ow status',
      "'sow' status",
      '"sow" status',
      'sow status\nid',
      'sow status\r\nid',
      'sow status\0',
      'sow status\x1b[2J',
      'sow status; rm -rf /',
      'sow status && curl x',
      'sow status | sh',
      'sowx',
      'rm -rf /',
      'npm test --watch',
    ];
    for (const c of lookAlikes) {
      const d = run(c);
      expect([c, d.allow]).toEqual([c, false]);
      if (!d.allow) expect(d.kind).toBe('command');
    }
    // Also as the script of a shell's argv (Codex), and as the title (Gemini CLI).
    for (const c of lookAlikes) expect([c, run(['/bin/bash', '-lc', c]).allow]).toEqual([c, false]);
    for (const c of lookAlikes)
      expect([c, decidePermission({ kind: 'execute', title: c }, safe).allow]).toEqual([c, false]);
    expect(run('sow\vstatus')).toMatchObject({
      reason: 'it is not one plain command: the shell would see a control character (U+000B)',
    });
    expect(run('sow status; id')).toMatchObject({
      reason: 'it is not one plain command: the shell would see the operator ;',
    });
    expect(run("'sow' status")).toMatchObject({
      reason: 'the safe profile runs only sow and the declared checks you allowed',
    });
  });

  it('allows sow with literal words, operators inside quotes being data', () => {
    for (const c of [
      'sow task list',
      'sow task set --id 010 status completed',
      'sow log "fixed the \\"x\\" bug; see y"',
      "sow agent report --summary 'a | b'",
      "sow x ';' y",
      '  sow status\n',
      'sow\tstatus',
    ])
      expect([c, run(c).allow]).toEqual([c, true]);
  });

  it('allows an allowed check exactly as written (trimmed), nothing around it', () => {
    expect(run('npm test').allow).toBe(true);
    expect(run(' npm test \n').allow).toBe(true);
    expect(run('make check ARGS="-j 2"').allow).toBe(true);
    for (const c of ['npm test; id', 'npm  test', '\vnpm test', 'npm test\u00a0', 'npm test --watch'])
      expect([c, run(c).allow]).toEqual([c, false]);
  });

  it(
    'judges an argv that no shell runs as words: the first exactly sow, no word with a control character; a check ' +
      'by its words',
    () => {
      expect(run(['sow', 'task', 'list']).allow).toBe(true);
      expect(run(['sow', 'log', 'a; b | c']).allow).toBe(true);
      expect(run(['npm', 'test']).allow).toBe(true);
      expect(run(['make', 'check', 'ARGS=-j 2']).allow).toBe(true);
      for (const argv of [
        ['./sow', 'status'],
        ['/usr/bin/sow'],
        ['sow\v', 'x'],
        ['sow', 'log', 'a\nb'],
        ['sow', 'log', '\u00a0'],
        ['env', 'sow'],
        ['npm', 'test', '--watch'],
      ])
        expect([argv, run(argv).allow]).toEqual([argv, false]);
      // Only a POSIX shell's script is read as a script: zsh and fish read other syntax, a shell elsewhere is the
      // worker's own.
      for (const argv of [
        ['/bin/zsh', '-c', 'sow status'],
        ['./bash', '-lc', 'sow status'],
        ['/tmp/x/bash', '-c', 'sow status'],
        ['bash', '-xc', 'sow status'],
      ])
        expect([argv, run(argv).allow]).toEqual([argv, false]);
      for (const sh of [
        'sh',
        'bash',
        'dash',
        '/bin/sh',
        '/bin/bash',
        '/usr/bin/bash',
        '/usr/local/bin/bash',
        '/opt/homebrew/bin/bash',
      ])
        expect([sh, run([sh, '-c', 'sow status']).allow]).toEqual([sh, true]);
    },
  );

  it('refuses a command that runs in a folder outside the repository', () => {
    expect(
      decidePermission(
        { kind: 'execute', rawInput: { command: ['/bin/bash', '-lc', 'sow status'], cwd: '/repo/src' } },
        safe,
      ).allow,
    ).toBe(true);
    expect(
      decidePermission(
        { kind: 'execute', rawInput: { command: ['/bin/bash', '-lc', 'sow status'], cwd: '/home/me/other' } },
        safe,
      ),
    ).toMatchObject({ allow: false, kind: 'command' });
  });
});

describe('paths: every value that may name a file is judged (safe)', () => {
  const read = (rawInput: unknown) => decidePermission({ kind: 'read', title: 'Read', rawInput }, safe);
  const search = (rawInput: unknown) => decidePermission({ kind: 'search', title: 'Search', rawInput }, safe);
  it('refuses a read of what lies outside, whatever the agent calls the field and however deep it is', () => {
    const outside: unknown[] = [
      { paths: ['/etc/passwd'] },
      { paths: ['src/a.ts', '/etc/passwd'] },
      { absolute_path: '/etc/shadow' },
      { file: '../../x' },
      { files: [{ name: 'x', path: '/etc/x' }] },
      { pattern: '/etc/**' },
      { glob: '../**' },
      { glob: 'src/../../**' },
      { glob: 'src/**/../../../x' },
      { glob: '{/etc/passwd,src/a}' },
      { glob: 'src/{a,~/x}' },
      { include: '~/x' },
      { include: '~' },
      { args: { dir: '/' } },
      { args: [{ options: { directory: '/home' } }] },
      { DirPath: '/etc' },
      { 'target-dir': '/etc' },
      { notebook_path: '/etc/x.ipynb' },
      { old_path: '/etc/x' },
      { uri: 'file:///etc/passwd' },
      { uri: 'file:///repo/%2e%2e/etc/passwd' },
      { url: 'https://example.com/x' },
      { anything: '/etc/passwd' },
      { anything: ['../x'] },
      { anything: 'src/../../x' },
      { path: 'a\0b' },
    ];
    for (const rawInput of outside) {
      expect([rawInput, read(rawInput)]).toEqual([
        rawInput,
        expect.objectContaining({
          allow: false,
          kind: 'other',
          reason: expect.stringMatching(/^it reads outside the repository/),
        }),
      ]);
      expect([rawInput, search(rawInput).allow]).toEqual([rawInput, false]);
    }
  });

  it('allows what lies inside: relative to the worker, globs by their folder, text that only looks like a path', () => {
    for (const rawInput of [
      { pattern: 'src/**/*.ts' },
      { pattern: '**/*.ts' },
      { pattern: 'import .* from', path: 'src' },
      { glob: '*.{ts,js}' },
      { path: 'app/[id]/page.tsx' },
      { path: '/repo/src/a.ts' },
      { paths: ['src', 'test/x.ts'] },
      { file: 'src/../README.md' },
      { uri: 'file:///repo/README.md' },
      { description: 'compare /etc/x with ../y', query: '/usr' },
      {},
      undefined,
    ])
      expect([rawInput, read(rawInput).allow]).toEqual([rawInput, true]);
  });

  it('refuses reads of git’s own files, and input too deep to judge', () => {
    expect(read({ path: '.git/config' })).toMatchObject({
      allow: false,
      reason: expect.stringContaining('.git/config'),
    });
    // Named by a folder key, relative and plain (no `/`, `~` or `..` that would read as a path anywhere).
    for (const rawInput of [{ cwd: '.git' }, { workdir: '.git' }, { working_directory: '.git' }, { root: '.git' }])
      expect([rawInput, read(rawInput).allow]).toEqual([rawInput, false]);
    let deep: unknown = { path: '/etc/passwd' };
    for (let i = 0; i < 100; i++) deep = { a: deep };
    expect(read(deep)).toMatchObject({ allow: false, reason: 'its input is too large or too deeply nested to judge' });
  });

  it('judges every path of an edit, a delete or a move, in every field', () => {
    const edit = (rawInput: unknown, kind = 'edit') =>
      decidePermission({ kind, title: 'x', rawInput, locations: [{ path: '/repo/src/a.ts' }] }, safe);
    expect(edit({ file_path: 'src/a.ts', new_string: '/* a comment */', old_string: '// x' }).allow).toBe(true);
    expect(edit({ file_path: 'src/a.ts', content: '../../etc' }).allow).toBe(true);
    expect(edit({ file_path: 'src/a.ts', extra: { destination: '/etc/cron.d/x' } })).toMatchObject({
      allow: false,
      kind: 'edit',
    });
    expect(edit({ source: 'src/a.ts', destination: '../x' }, 'move')).toMatchObject({ allow: false, kind: 'edit' });
    expect(edit({ old_path: 'a', new_path: 'b' }, 'move').allow).toBe(true);
    expect(decidePermission({ kind: 'edit', title: 'x', rawInput: { content: 'x' } }, safe)).toMatchObject({
      allow: false,
      reason: 'it does not say which file it changes',
    });
  });
});

describe('protected files (safe)', () => {
  const edit = (path: string, kind = 'edit'): ReturnType<typeof decidePermission> =>
    decidePermission({ kind, title: 'Write', rawInput: { file_path: path } }, safe);
  it('refuses changes to .git anywhere, .sow/config.yaml and the agent CLIs’ settings, naming the file and why', () => {
    const cases: [string, RegExp][] = [
      ['.git/config', /^\.git\/config is git's own/],
      ['/repo/.git/hooks/post-commit', /^\.git\/hooks\/post-commit is git's own/],
      ['.sow/worktrees/w/.git', /^\.sow\/worktrees\/w\/\.git is git's own/],
      ['.sow/worktrees/.workers/main--task-010/.git', /is git's own/],
      ['sub/.git/hooks/x', /^sub\/\.git\/hooks\/x is git's own/],
      ['sub/.GIT/config', /is git's own/],
      ['src/../.git/config', /^\.git\/config is git's own/],
      ['.sow/config.yaml', /^\.sow\/config\.yaml is protected: it holds the checks sow runs/],
      [
        '.claude/settings.local.json',
        /^\.claude\/settings\.local\.json is protected: it is an agent CLI's own settings/,
      ],
      ['.claude/settings.json', /agent CLI's own settings/],
      ['.claude/hooks/x.sh', /agent CLI's own settings/],
      ['.mcp.json', /agent CLI's own settings/],
      ['.gemini/settings.json', /agent CLI's own settings/],
      ['.codex/config.toml', /agent CLI's own settings/],
      ['opencode.json', /agent CLI's own settings/],
      ['opencode.jsonc', /agent CLI's own settings/],
      ['.opencode/plugin/x.ts', /agent CLI's own settings/],
      ['.cursor/mcp.json', /agent CLI's own settings/],
      ['.github/copilot/settings.json', /agent CLI's own settings/],
      ['.vscode/settings.json', /agent CLI's own settings/],
      ['.vscode/mcp.json', /agent CLI's own settings/],
      ['.Claude/settings.json', /agent CLI's own settings/],
      // Glob characters in a file's name: the file itself is judged, not only the folder before them.
      ['app/[id]/.git/config', /^app\/\[id\]\/\.git\/config is git's own/],
      ['.claude/*', /agent CLI's own settings/],
    ];
    for (const [path, why] of cases)
      for (const kind of ['edit', 'delete', 'move'])
        expect([path, kind, edit(path, kind)]).toEqual([
          path,
          kind,
          expect.objectContaining({ allow: false, kind: 'edit', reason: expect.stringMatching(why) }),
        ]);
  });

  it('refuses a delete or a move of a folder that holds one; instructions stay editable', () => {
    for (const path of ['.claude', '.sow', '.vscode', '.github', '.', '/repo'])
      expect([path, edit(path, 'delete').allow, edit(path, 'move').allow]).toEqual([path, false, false]);
    expect(edit('.sow', 'delete')).toMatchObject({
      reason:
        '.sow holds .sow/config.yaml, which is protected: it holds the checks sow runs and the settings of the ' +
        'repository',
    });
    for (const path of [
      'AGENTS.md',
      'CLAUDE.md',
      'GEMINI.md',
      '.github/copilot-instructions.md',
      '.github/workflows/x.yml',
      '.vscode/launch.json',
      '.sow/project/x.md',
      'src/.gitignore',
      'src/.github',
      'a.git',
    ])
      expect([path, edit(path).allow]).toEqual([path, true]);
    expect(edit('.vscode', 'edit').allow).toBe(true);
  });

  it('takes the patterns from the policy: the list can be replaced', () => {
    const policy = { ...safe, protected: ['.mine/**', 'x.json'] };
    const d = (path: string) => decidePermission({ kind: 'edit', rawInput: { path } } as AskedToolCall, policy).allow;
    expect([d('.mine/a'), d('x.json'), d('.claude/settings.json'), d('.git/config'), d('.sow/config.yaml')]).toEqual([
      false,
      false,
      true,
      false,
      false,
    ]);
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
      [
        'claude-agent-acp',
        { kind: 'execute', title: 'sow status', rawInput: { command: 'sow status', description: 'Run a command' } },
      ],
      [
        'copilot',
        { kind: 'execute', title: 'Run a command', rawInput: { command: 'sow status', commands: ['sow status'] } },
      ],
      [
        'codex-acp',
        {
          kind: 'execute',
          title: 'sow status',
          rawInput: { command: ['/bin/bash', '-lc', 'sow status'], cwd: '/repo' },
        },
      ],
      ['gemini', { kind: 'execute', title: 'sow status', content: [] }],
      ['opencode', { kind: 'execute', title: 'sow status', rawInput: { command: 'sow status' } }],
    ];
    for (const [who, call] of cases)
      expect([who, decidePermission(call, safe)]).toEqual([who, { allow: true, what: 'sow status' }]);
    // A title is the command only when there is no input at all: Copilot's title is a description.
    expect(decidePermission({ kind: 'execute', title: 'sow status', rawInput: { description: 'x' } }, safe).allow).toBe(
      false,
    );
  });

  it('finds the files each names: locations, a diff, file_path / fileName / filepath, Codex changes', () => {
    const outside = [
      { kind: 'edit', title: 'Write x', rawInput: { file_path: '/etc/x', content: 'a' } },
      { kind: 'edit', title: 'Create file', rawInput: { fileName: '/etc/x', diff: '' } },
      {
        kind: 'edit',
        title: '/etc/x',
        content: [{ type: 'diff', path: '/etc/x', oldText: '', newText: 'a' }],
        rawInput: { filepath: '/etc/x' },
      },
      { kind: 'edit', title: 'Edit', rawInput: { changes: { '/etc/x': { type: 'add', content: 'a' } } } },
      { kind: 'edit', title: 'Writing to x', content: [{ type: 'diff', path: '/etc/x', oldText: '', newText: 'a' }] },
    ];
    for (const call of outside) expect(decidePermission(call, safe)).toMatchObject({ allow: false, kind: 'edit' });
    for (const call of outside)
      expect(decidePermission(JSON.parse(JSON.stringify(call).replaceAll('/etc/x', '/repo/x')), safe).allow).toBe(true);
  });
});
