/**
 * `sow install` and `sow uninstall` in a repository that came from someone else: its record
 * (`.sow/integrations.yaml`) is a claim, never an order, and the agent folders may be links. Each
 * attack is committed (`git add -f`) in the attacker's repository, cloned, and met with the
 * commands a user runs; nothing outside the clone may change, and a refusal changes nothing
 * inside it either. Beside the attacks: install then uninstall gives back the person's own
 * settings and instruction files byte for byte, however they were laid out.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectEnvelope, ok, useRepos, type Repo } from './harness.js';
import { expectRefused as refusedWith, useHostile, type Hostile } from './hostile.js';

/** Refused with exit 4 and this code, in both forms, nothing changed (hostile.ts). */
const expectRefused = (repo: Repo, args: string[], pattern: RegExp, code?: string) =>
  void refusedWith(repo, args, pattern, code ? { code } : {});

const hostile = useHostile();
const fresh = useRepos();

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** The record as an attacker writes it. */
const record = (files: Record<string, unknown>[]) =>
  `files:\n${files.map((f) => `  - ${JSON.stringify(f)}`).join('\n')}\n`;

/** A folder beside the sentinel, holding a file at `rel` (what a linked agent folder would reach). */
function outsideFile(h: Hostile, rel: string, text: string): string {
  const abs = join(dirname(h.sentinel), 'outside', rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, text);
  return abs;
}

describe('the record is a claim: uninstall removes only what sow installs, unchanged since', () => {
  it(
    'an entry naming src/main.c (with its hash) ' + 'or .git/config is ignored with a warning, and nothing is deleted',
    () => {
      const h = hostile();
      const source = 'int main() { return 0; }\n';
      h.write('src/main.c', source);
      h.write(
        '.sow/integrations.yaml',
        record([
          { path: 'src/main.c', kind: 'file', sha256: sha(source), created: true, targets: ['codex'] },
          { path: '.git/config', kind: 'file', sha256: '0'.repeat(64), created: true, targets: ['codex'] },
          // A name that would forge a line, and clear the screen, in the warning.
          { path: 'x\nwarning: all is well\u001b[2J', kind: 'file', sha256: sha(source), targets: ['codex'] },
        ]),
      );
      h.commit();
      const clone = h.clone();
      // The strongest form: the hash of the clone's own .git/config, as if the attacker guessed it.
      const gitConfig = clone.read('.git/config');
      clone.write(
        '.sow/integrations.yaml',
        clone.read('.sow/integrations.yaml').replace('0'.repeat(64), sha(gitConfig)),
      );
      const r = ok(clone, ['uninstall', 'codex']);
      expect(r.stderr).toMatch(
        new RegExp(
          /warning: \.sow\/integrations\.yaml names src\/main\.c as a file of sow's, /.source +
            /but sow's install for codex writes no file there; sow left it as it is/.source,
        ),
      );
      expect(r.stderr).toMatch(/warning: \.sow\/integrations\.yaml names \.git\/config /);
      expect(r.stderr).toContain('names "x\\nwarning: all is well\\x1b[2J" as a file');
      expect(r.stderr).not.toMatch(/^warning: all is well/m);
      expect(r.stderr).not.toContain('\u001b');
      expect(clone.read('src/main.c')).toBe(source);
      expect(clone.read('.git/config')).toBe(gitConfig);
      h.untouched();
    },
  );

  it(
    'the warnings are in --json data, ' + 'and an entry of the wrong kind for a path sow does install is ignored too',
    () => {
      const h = hostile();
      const mine = '# Our agents\n\nRun the tests.\n';
      h.write('AGENTS.md', mine);
      // AGENTS.md holds a section of sow's; a record calling it a whole file of sow's would delete it.
      h.write(
        '.sow/integrations.yaml',
        record([{ path: 'AGENTS.md', kind: 'file', sha256: sha(mine), created: true, targets: ['codex'] }]),
      );
      h.commit();
      const clone = h.clone();
      const r = expectEnvelope(ok(clone, ['uninstall', 'codex', '--json']));
      expect(r.data.warnings).toEqual([expect.stringContaining("names AGENTS.md as a file of sow's")]);
      expect(clone.read('AGENTS.md')).toBe(mine);
      h.untouched();
    },
  );

  it('an entry without a hash is ignored with a warning, even for a path sow installs', () => {
    const h = hostile();
    const theirs = '---\nname: sow\n---\nTheir own skill.\n';
    h.write('.agents/skills/sow/SKILL.md', theirs);
    h.write('AGENTS.md', '<!-- sow:begin -->\nsomething\n<!-- sow:end -->\n');
    h.write(
      '.sow/integrations.yaml',
      record([
        { path: '.agents/skills/sow/SKILL.md', kind: 'file', created: true, targets: ['codex'] },
        { path: 'AGENTS.md', kind: 'section', created: true, targets: ['codex'] },
      ]),
    );
    h.commit();
    const clone = h.clone();
    const r = ok(clone, ['uninstall', 'codex']);
    expect(r.stderr).toMatch(
      /warning: \.sow\/integrations\.yaml names \.agents\/skills\/sow\/SKILL\.md without a content hash/,
    );
    expect(r.stderr).toMatch(/warning: \.sow\/integrations\.yaml names AGENTS\.md without a content hash/);
    expect(clone.read('.agents/skills/sow/SKILL.md')).toBe(theirs);
    expect(clone.read('AGENTS.md')).toContain('something');
    h.untouched();
  });

  it(
    "JSON settings recorded without a hash (as an older sow did): only sow's own hook groups come out, the " +
      'file stays',
    () => {
      const h = hostile();
      const theirs = { hooks: { Stop: [{ matcher: 'x', hooks: [{ type: 'command', command: 'sow hook stop' }] }] } };
      const ours = { hooks: [{ type: 'command', command: 'sow project continue' }] };
      h.write(
        '.claude/settings.json',
        `${JSON.stringify({ ...theirs, hooks: { ...theirs.hooks, SessionStart: [ours] } }, null, 2)}\n`,
      );
      h.write(
        '.sow/integrations.yaml',
        record([
          {
            path: '.claude/settings.json',
            kind: 'json',
            add: { hooks: { SessionStart: ['sow project continue'], Stop: ['sow hook stop'], PreToolUse: ['echo'] } },
            made: ['hooks.SessionStart'],
            created: true,
            targets: ['claude'],
          },
        ]),
      );
      h.commit();
      const clone = h.clone();
      ok(clone, ['uninstall', 'claude']);
      expect(JSON.parse(clone.read('.claude/settings.json'))).toEqual(theirs);
      h.untouched();
    },
  );

  it(
    'an entry whose hash matches a file outside, reached through a linked folder: uninstall and install refuse ' +
      '(exit 4), the file outside is kept',
    () => {
      const h = hostile();
      const precious = "the user's own skill, outside the repository\n";
      const outside = outsideFile(h, 'skills/sow/SKILL.md', precious);
      h.link('.agents', dirname(dirname(dirname(outside))));
      h.write(
        '.sow/integrations.yaml',
        record([
          {
            path: '.agents/skills/sow/SKILL.md',
            kind: 'file',
            sha256: sha(precious),
            created: true,
            targets: ['codex'],
          },
        ]),
      );
      h.commit();
      const clone = h.clone();
      const leads = new RegExp(
        `'\\.agents' is a link to '${dirname(dirname(dirname(outside)))}', outside the repository`,
      );
      expectRefused(clone, ['uninstall', 'codex'], leads, 'PATH_ESCAPES');
      expectRefused(clone, ['install', 'codex'], leads, 'PATH_ESCAPES');
      expect(readFileSync(outside, 'utf8')).toBe(precious);
      h.untouched();
    },
  );

  it("a whole file of sow's that is a link inside the repository is never written through nor removed", () => {
    const h = hostile();
    const source = 'int main() { return 0; }\n';
    h.write('src/main.c', source);
    h.link('.claude/agents/sow-planner.md', '../../src/main.c');
    h.write(
      '.sow/integrations.yaml',
      record([
        {
          path: '.claude/agents/sow-planner.md',
          kind: 'file',
          sha256: sha(source),
          created: true,
          targets: ['claude'],
        },
      ]),
    );
    h.commit();
    const clone = h.clone();
    const r = expectEnvelope(ok(clone, ['install', 'claude', '--json']));
    expect(r.data.files.find((f: any) => f.path === '.claude/agents/sow-planner.md')).toMatchObject({
      outcome: 'kept',
      note: expect.stringContaining('it is a link'),
    });
    expect(clone.read('src/main.c')).toBe(source);
    expect(clone.read('.claude/agents/sow-planner.md.sow-new')).toContain('name: sow-planner');
    const u = expectEnvelope(ok(clone, ['uninstall', 'claude', '--json']));
    expect(u.data.files.find((f: any) => f.path === '.claude/agents/sow-planner.md')).toMatchObject({
      outcome: 'left',
    });
    expect(clone.read('src/main.c')).toBe(source);
    expect(lstatSync(join(clone.dir, '.claude/agents/sow-planner.md')).isSymbolicLink()).toBe(true);
    expect(clone.exists('.claude/agents/sow-planner.md.sow-new')).toBe(false);
    h.untouched();
  });
});

describe('agent folders that lead out of the repository are refused, before anything is written', () => {
  for (const [folder, target] of [
    ['.claude', 'claude'],
    ['.agents', 'codex'],
    ['.gemini', 'gemini'],
    ['.cursor', 'cursor'],
  ] as const) {
    it(
      `${folder} -> a folder outside: install ${target} and install all refuse it (exit 4, naming it), and write ` +
        `nothing anywhere`,
      () => {
        const h = hostile();
        h.link(folder, h.sentinel);
        h.commit();
        const clone = h.clone();
        const leads = new RegExp(
          `'${folder.replace('.', '\\.')}' is a link to '${h.sentinel}', outside the repository`,
        );
        expectRefused(clone, ['install', target], leads, 'PATH_ESCAPES');
        // Every path is checked first: the targets before the linked one write nothing either.
        expectRefused(clone, ['install', 'all'], leads, 'PATH_ESCAPES');
        expect(clone.exists('.sow/integrations.yaml')).toBe(false);
        h.untouched();
      },
    );
  }

  it('.claude or .agents that is a file: refused (exit 4, never an internal error), nothing written', () => {
    const h = hostile();
    h.write('.claude', 'not a folder\n');
    h.write('.agents', 'not a folder\n');
    h.commit();
    const clone = h.clone();
    expectRefused(clone, ['install', 'claude'], /\.claude is a file, not a folder/, 'NOT_A_FOLDER');
    expectRefused(clone, ['install', 'all'], /\.claude is a file, not a folder/, 'NOT_A_FOLDER');
    expectRefused(clone, ['install', 'codex'], /\.agents is a file, not a folder/, 'NOT_A_FOLDER');
    h.untouched();
  });

  it('.claude/settings.json -> a file outside: refused, the file kept', () => {
    const h = hostile();
    h.link('.claude/settings.json', join(h.sentinel, 'precious.txt'));
    h.commit();
    const clone = h.clone();
    expectRefused(
      clone,
      ['install', 'claude'],
      /'\.claude\/settings\.json' is a link to '.*precious\.txt', outside the repository/,
      'PATH_ESCAPES',
    );
    h.untouched();
  });

  it('--plugin <dir> that is a link out of the repository: install and uninstall refuse it', () => {
    const h = hostile();
    h.link('plugin', h.sentinel);
    h.commit();
    const clone = h.clone();
    for (const verb of ['install', 'uninstall'])
      expectRefused(
        clone,
        [verb, 'claude', '--plugin', 'plugin'],
        /'plugin' is a link to '.*', outside the repository/,
        'PATH_ESCAPES',
      );
    h.untouched();
  });

  it("a plugin folder's record names only the plugin's own files: ../ and other folders are ignored", () => {
    const h = hostile();
    const source = 'int main() { return 0; }\n';
    h.write('src/main.c', source);
    h.write(
      'plugin/.sow-install.yaml',
      record([
        { path: '../src/main.c', kind: 'file', sha256: sha(source), created: true, targets: ['claude'] },
        { path: 'src/main.c', kind: 'file', sha256: sha(source), created: true, targets: ['claude'] },
      ]),
    );
    h.write('plugin/src/main.c', source);
    h.commit();
    const clone = h.clone();
    const r = ok(clone, ['uninstall', 'claude', '--plugin', 'plugin']);
    expect(r.stderr).toMatch(/warning: plugin\/\.sow-install\.yaml names \.\.\/src\/main\.c/);
    expect(r.stderr).toMatch(/warning: plugin\/\.sow-install\.yaml names src\/main\.c/);
    expect(clone.read('src/main.c')).toBe(source);
    expect(clone.read('plugin/src/main.c')).toBe(source);
    h.untouched();
  });
});

describe('size and depth: refused at once (exit 4), never an internal error', () => {
  const big = (line: string) => line.repeat(Math.ceil((50 * 1024 * 1024) / line.length));

  it('a 50 MB .sow/integrations.yaml', () => {
    const h = hostile();
    h.write('.sow/integrations.yaml', `files:\n${big('  - {path: AGENTS.md, kind: section, targets: [codex]}\n')}`);
    h.commit();
    const clone = h.clone();
    for (const verb of ['install', 'uninstall'])
      expectRefused(
        clone,
        [verb, 'codex'],
        /\.sow\/integrations\.yaml is 50(\.\d)? MB; sow reads install records of up to 1 MB/,
        'FILE_TOO_LARGE',
      );
    h.untouched();
  });

  it('a 50 MB .claude/settings.json', () => {
    const h = hostile();
    h.write('.claude/settings.json', `{"permissions": {"allow": [${big('"Bash(npm test)", ')}"x"]}}\n`);
    h.commit();
    const clone = h.clone();
    expectRefused(
      clone,
      ['install', 'claude'],
      /\.claude\/settings\.json is 50(\.\d)? MB; sow reads agent settings and instruction files of up to 1 MB/,
      'FILE_TOO_LARGE',
    );
    h.untouched();
  });

  for (const [name, text] of [
    ['lists', `${'['.repeat(200_000)}${']'.repeat(200_000)}`],
    ['maps', `${'{"":'.repeat(200_000)}1${'}'.repeat(200_000)}`],
  ] as const) {
    it(`a .claude/settings.json of ${name} nested 200,000 deep (and .mcp.json)`, () => {
      const h = hostile();
      h.write('.claude/settings.json', text);
      h.write('.mcp.json', text);
      h.commit();
      const clone = h.clone();
      expectRefused(
        clone,
        ['install', 'claude'],
        /\.claude\/settings\.json nests maps and lists more than 64 levels deep/,
        'JSON_TOO_DEEP',
      );
      clone.write('.claude/settings.json', '{}\n');
      expectRefused(
        clone,
        ['install', 'claude', '--with-mcp'],
        /\.mcp\.json nests maps and lists more than 64 levels deep/,
        'JSON_TOO_DEEP',
      );
      h.untouched();
    });
  }

  it('an alias bomb in .sow/integrations.yaml', () => {
    const h = hostile();
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      lines.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    h.write('.sow/integrations.yaml', `${lines.join('\n')}\nfiles: []\n`);
    h.commit();
    const clone = h.clone();
    for (const verb of ['install', 'uninstall']) expectRefused(clone, [verb, 'codex'], /\.sow\/integrations\.yaml/);
    h.untouched();
  });
});

describe("install then uninstall gives back the person's bytes", () => {
  const settings: [string, string][] = [
    [
      'tabs, CRLF, no newline at the end',
      '{\r\n\t"permissions": {\r\n\t\t"allow": ["Bash(npm test)"]\r\n\t},\r\n\t"hooks": {\r\n\t\t"PreToolUse": ' +
        '[\r\n\t\t\t{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo ' +
        'checked"}]}\r\n\t\t]\r\n\t}\r\n}',
    ],
    ['one line, no spaces', '{"model":"opus","hooks":{"Stop":[]},"env":{"A":"1"}}'],
    [
      'four spaces, keys out of order, blank lines at the end',
      '{\n    "zeta": true,\n    "hooks": {},\n    "alpha": [1,   2]\n}\n\n\n',
    ],
    ['empty', '{}'],
  ];
  for (const [name, text] of settings) {
    it(`.claude/settings.json: ${name}`, () => {
      const repo = fresh();
      repo.write('.claude/settings.json', text);
      repo.write('.mcp.json', text);
      ok(repo, ['install', 'claude', '--with-mcp']);
      const installed = JSON.parse(repo.read('.claude/settings.json'));
      expect(installed.hooks.SessionStart.at(-1)).toEqual({
        hooks: [{ type: 'command', command: 'sow project continue' }],
      });
      expect(installed.hooks.Stop.at(-1)).toEqual({ hooks: [{ type: 'command', command: 'sow hook stop' }] });
      expect(JSON.parse(repo.read('.mcp.json')).mcpServers.sow).toEqual({ command: 'sow', args: ['mcp'] });
      ok(repo, ['uninstall', 'claude']);
      expect(repo.read('.claude/settings.json')).toBe(text);
      expect(repo.read('.mcp.json')).toBe(text);
    });
  }

  it('an edit made between install and uninstall stays, as the person wrote it', () => {
    const repo = fresh();
    const text = '{\n  "permissions": {"allow": []}\n}\n';
    repo.write('.claude/settings.json', text);
    ok(repo, ['install', 'claude']);
    const edited = repo.read('.claude/settings.json').replace('"allow": []', '"allow": [ "Bash(make)" ]');
    repo.write('.claude/settings.json', edited);
    ok(repo, ['uninstall', 'claude']);
    expect(repo.read('.claude/settings.json')).toBe('{\n  "permissions": {"allow": [ "Bash(make)" ]}\n}\n');
  });

  it('a settings.json sow created goes again, unless the person changed it', () => {
    const repo = fresh();
    ok(repo, ['install', 'claude']);
    ok(repo, ['uninstall', 'claude']);
    expect(repo.exists('.claude')).toBe(false);
    ok(repo, ['install', 'claude']);
    const settings = JSON.parse(repo.read('.claude/settings.json'));
    repo.write(
      '.claude/settings.json',
      `${JSON.stringify({ permissions: { allow: ['Bash(make)'] }, ...settings }, null, 2)}\n`,
    );
    ok(repo, ['uninstall', 'claude']);
    expect(JSON.parse(repo.read('.claude/settings.json'))).toEqual({ permissions: { allow: ['Bash(make)'] } });
    // A change of layout alone is a change too: the file is the person's now, and stays (emptied of sow's entries).
    rmSync(join(repo.dir, '.claude'), { recursive: true });
    ok(repo, ['install', 'claude']);
    repo.write('.claude/settings.json', `${JSON.stringify(JSON.parse(repo.read('.claude/settings.json')), null, 4)}\n`);
    ok(repo, ['uninstall', 'claude']);
    expect(repo.read('.claude/settings.json')).toBe('{\n}\n');
  });

  it('AGENTS.md without a newline at the end, GEMINI.md with blank lines at the end', () => {
    const repo = fresh();
    const agents = '# Agents\n\nRun npm test.';
    const gemini = 'Be brief.\n\n\n';
    repo.write('AGENTS.md', agents);
    repo.write('GEMINI.md', gemini);
    ok(repo, ['install', 'all']);
    expect(repo.read('AGENTS.md')).toMatch(/^# Agents\n\nRun npm test\.\n<!-- sow:begin/);
    ok(repo, ['uninstall', 'all']);
    expect(repo.read('AGENTS.md')).toBe(agents);
    expect(repo.read('GEMINI.md')).toBe(gemini);
  });
});

describe('.sow-new files', () => {
  it('uninstall removes the .sow-new files sow left, and only while they hold what sow wrote', () => {
    const repo = fresh();
    const theirs = '---\nname: sow\n---\nOur own skill.\n';
    repo.write('.agents/skills/sow/SKILL.md', theirs);
    repo.write('.cursor/rules/sow.mdc', 'our rule\n');
    ok(repo, ['install', 'codex']);
    ok(repo, ['install', 'cursor']);
    expect(repo.read('.agents/skills/sow/SKILL.md.sow-new')).toMatch(/^---\nname: sow\n/);
    expect(repo.exists('.cursor/rules/sow.mdc.sow-new')).toBe(true);
    // The person took a line from the new cursor rule into it: that file is theirs now.
    repo.write('.cursor/rules/sow.mdc.sow-new', 'kept on purpose\n');
    ok(repo, ['uninstall', 'all']);
    expect(repo.exists('.agents/skills/sow/SKILL.md.sow-new')).toBe(false);
    expect(repo.read('.agents/skills/sow/SKILL.md')).toBe(theirs);
    expect(repo.read('.cursor/rules/sow.mdc.sow-new')).toBe('kept on purpose\n');
    expect(repo.read('.cursor/rules/sow.mdc')).toBe('our rule\n');
  });

  it('a .sow-new file the record does not name (an older sow left it) goes when it holds what sow writes there', () => {
    const repo = fresh();
    repo.write('.agents/skills/sow/SKILL.md', 'ours\n');
    ok(repo, ['install', 'codex']);
    const record = repo.yaml('.sow/integrations.yaml');
    record.files = record.files.filter((f: any) => !f.path.endsWith('.sow-new'));
    repo.write('.sow/integrations.yaml', JSON.stringify(record));
    repo.write('.gemini/skills/sow/SKILL.md.sow-new', 'not what sow writes\n');
    ok(repo, ['uninstall', 'codex']);
    expect(repo.exists('.agents/skills/sow/SKILL.md.sow-new')).toBe(false);
    expect(repo.read('.gemini/skills/sow/SKILL.md.sow-new')).toBe('not what sow writes\n');
  });
});

describe('AGENTS.md that is a link', () => {
  it('to a file inside the repository: stays a link; sow edits the file it points to, and gives its bytes back', () => {
    const h = hostile();
    const notes = '# Notes for agents\n';
    h.write('docs/agents.md', notes);
    h.link('AGENTS.md', 'docs/agents.md');
    h.commit();
    const clone = h.clone();
    ok(clone, ['install', 'codex']);
    expect(readlinkSync(join(clone.dir, 'AGENTS.md'))).toBe('docs/agents.md');
    expect(clone.read('docs/agents.md')).toMatch(/^# Notes for agents\n\n<!-- sow:begin/);
    ok(clone, ['uninstall', 'codex']);
    expect(readlinkSync(join(clone.dir, 'AGENTS.md'))).toBe('docs/agents.md');
    expect(clone.read('docs/agents.md')).toBe(notes);
    h.untouched();
  });

  it('to a file outside: refused (exit 4), the file outside kept', () => {
    const h = hostile();
    h.link('AGENTS.md', join(h.sentinel, 'precious.txt'));
    h.commit();
    const clone = h.clone();
    expectRefused(
      clone,
      ['install', 'codex'],
      /'AGENTS\.md' is a link to '.*precious\.txt', outside the repository/,
      'PATH_ESCAPES',
    );
    expect(existsSync(join(clone.dir, '.agents'))).toBe(false);
    h.untouched();
  });
});
