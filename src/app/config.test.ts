/**
 * `sow config …` in-process: the file lives where the context's environment puts it (XDG_CONFIG_HOME,
 * else HOME), the environment's SOW_AGENTS_* override it, the agent CLIs are looked up on the
 * context's PATH, and the editor is the context's EDITOR/VISUAL — none of it read from the process.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROLES } from '../domain/agents.js';
import { exitCodeFor, SowError } from '../domain/errors.js';
import { refused, said, worlds, type World } from '../../test/inproc.js';
import {
  ConfigInvalidError,
  configPath,
  configTemplate,
  editConfig,
  initConfig,
  resetConfig,
  showConfig,
  validateConfig,
  validateRepoConfig,
  validateUserConfig,
} from './config.js';
import type { AppContext } from './context.js';

const world = worlds();

const VALID = `agents:
  executors:
    claude-code:
      type: claude
      settings:
        model: sonnet
    cur:
      type: cursor
      settings:
        yolo_mode: true
  bindings:
    implementer: cur
    reviewer: claude-code
`;

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A person of their own: a home, a configuration folder, and a PATH of fake commands (none unless made). */
function person(w: World, more: Record<string, string> = {}, cwd?: string) {
  const base = mkdtempSync(join(tmpdir(), 'sow-inproc-config-'));
  temps.push(base);
  const bin = join(base, 'bin');
  mkdirSync(bin);
  const env = { HOME: join(base, 'home'), XDG_CONFIG_HOME: join(base, 'xdg'), PATH: bin, ...more };
  const ctx = w.ctx(env, cwd);
  const path = join(base, 'xdg', 'sow', 'config.yaml');
  return {
    base,
    ctx,
    path,
    with: (extra: Record<string, string>): AppContext => w.ctx({ ...env, ...extra }, cwd),
    write: (text: string) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    },
    read: () => readFileSync(path, 'utf8'),
    /** An executable on this person's PATH: a shell script with `body`. */
    command: (name: string, body = 'exit 0') => {
      const file = join(bin, name);
      writeFileSync(file, `#!/bin/sh\n${body}\n`);
      chmodSync(file, 0o755);
      return file;
    },
  };
}

/** Expects `run` to throw this SowError (code, exit code, a hint). */
async function fails(run: () => Promise<unknown> | unknown, code: string, exit: number): Promise<SowError> {
  let error: unknown;
  try {
    await run();
  } catch (err) {
    error = err;
  }
  expect(error, `expected ${code}`).toBeInstanceOf(SowError);
  const e = error as SowError;
  expect(e.code, e.message).toBe(code);
  expect(exitCodeFor(e.kind), e.message).toBe(exit);
  expect(e.hint, `${code} names the next step`).toMatch(/\S/);
  return e;
}

const no = async () => false;
const yes = async () => true;

describe('config path', () => {
  it(
    'is $XDG_CONFIG_HOME/sow/config.yaml of the context, ' + 'else ~/.config of its HOME; exists once written',
    async () => {
      const w = await world('bare');
      const p = person(w);
      expect(configPath(p.ctx)).toEqual({ path: p.path, exists: false });
      p.write(VALID);
      expect(configPath(p.ctx)).toEqual({ path: p.path, exists: true });
      expect(configPath(p.with({ XDG_CONFIG_HOME: '' })).path).toBe(
        join(p.base, 'home', '.config', 'sow', 'config.yaml'),
      );
      // A relative XDG_CONFIG_HOME is ignored, as the XDG rules say.
      expect(configPath(p.with({ XDG_CONFIG_HOME: 'relative' })).path).toBe(
        join(p.base, 'home', '.config', 'sow', 'config.yaml'),
      );
    },
  );
});

describe('config init', () => {
  it('writes the template, which names its own path and binds every role to the default', async () => {
    const w = await world('bare');
    const p = person(w);
    expect(await initConfig(p.ctx, false, false, no)).toEqual({ path: p.path, overwritten: false });
    expect(p.read()).toBe(configTemplate(p.path));
    expect(p.read()).toContain(`# Location: ${p.path}`);
    expect((await validateUserConfig(p.ctx, { binaries: false })).valid).toBe(true);
  });

  it(
    'over a file: refused without a terminal (exit 2 naming --yes) or when the person says no; replaced with ' +
      'yes or --yes',
    async () => {
      const w = await world('bare');
      const p = person(w);
      const mine = '# mine\nagents:\n  bindings:\n    implementer: claude-code\n';
      p.write(mine);
      const e = await fails(() => initConfig(p.ctx, false, false, yes), 'CONFIRMATION_REQUIRED', 2);
      expect(said(e)).toContain(`replacing ${p.path} with the template`);
      expect(e.hint).toContain('--yes');
      const asked: string[] = [];
      await fails(() => initConfig(p.ctx, false, true, async (q) => (asked.push(q), false)), 'ABORTED', 1);
      expect(asked).toEqual([`${p.path} exists. Replace it with the template?`]);
      expect(p.read(), 'untouched').toBe(mine);
      expect(await initConfig(p.ctx, false, true, yes)).toEqual({ path: p.path, overwritten: true });
      expect(p.read()).toBe(configTemplate(p.path));
      p.write(mine);
      expect(await initConfig(p.ctx, true, false, no)).toEqual({ path: p.path, overwritten: true });
      expect(p.read()).toBe(configTemplate(p.path));
    },
  );
});

describe('config validate', () => {
  const texts = (r: { lines: { level: string; text: string }[] }) => r.lines.map((l) => `${l.level}: ${l.text}`);

  it('a valid file: every stage ok; the agent CLIs are looked for on the context’s PATH', async () => {
    const w = await world('bare');
    const p = person(w);
    p.write(VALID);
    p.command('claude');
    p.command('cursor-agent');
    const r = await validateConfig(p.ctx);
    expect(r).toMatchObject({ path: p.path, exists: true, valid: true });
    expect(r.repository).toBeUndefined();
    expect(texts(r)).toEqual([
      'ok: YAML syntax valid',
      'ok: schema valid',
      'ok: executor types valid (claude, cursor)',
      'ok: all bindings reference defined executors',
    ]);
  });

  it('an agent CLI missing from the context’s PATH: a warning with how to install it, still valid', async () => {
    const w = await world('bare');
    const p = person(w);
    p.write(VALID);
    p.command('claude');
    const r = await validateUserConfig(p.ctx);
    expect(r.valid).toBe(true);
    const warnings = r.lines.filter((l) => l.level === 'warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.text).toMatch(
      /^cursor-agent not found on PATH\n {2}The 'cur' executor requires it\. Install: /,
    );
    expect(texts(await validateUserConfig(p.ctx, { binaries: false }))).not.toContainEqual(
      expect.stringContaining('not found on PATH'),
    );
  });

  it(
    'over ACP the program looked for is the agent’s ACP server (an adapter for Claude Code); a type without one is ' +
      'an error naming the field',
    async () => {
      const w = await world('bare');
      const p = person(w);
      p.write(
        'agents:\n  executors:\n    cc:\n      type: claude\n      transport: acp\n  bindings:\n    implementer: cc\n',
      );
      p.command('claude');
      const warnings = (await validateUserConfig(p.ctx)).lines.filter((l) => l.level === 'warning');
      expect(warnings.map((l) => l.text)).toEqual([
        expect.stringMatching(
          /^claude-agent-acp not found on PATH\n.*Install: npm install -g @zed-industries\/claude-agent-acp/s,
        ),
      ]);
      p.write(
        'agents:\n  executors:\n    cur:\n      type: cursor\n      transport: acp\n  bindings:\n    ' +
          'implementer: cur\n',
      );
      const bad = await validateUserConfig(p.ctx, { binaries: false });
      expect(bad.valid).toBe(false);
      expect(bad.lines.find((l) => l.level === 'error')!.text).toMatch(
        /agents\.executors\.cur\.transport.*Agent Client Protocol/,
      );
    },
  );

  it('no file: the defaults, and the environment’s overrides are still checked', async () => {
    const w = await world('bare');
    const p = person(w);
    const r = await validateUserConfig(p.ctx, { binaries: false });
    expect(r).toMatchObject({ exists: false, valid: true });
    expect(texts(r)).toEqual(['ok: no configuration file; the built-in defaults are used (every role: claude-code)']);
    const bad = await validateUserConfig(p.with({ SOW_AGENTS_IMPLEMENTER: 'nosuch' }), { binaries: false });
    expect(bad.valid).toBe(false);
    expect(bad.lines.find((l) => l.level === 'error')).toMatchObject({
      source: 'environment',
      text: expect.stringMatching(/SOW_AGENTS_IMPLEMENTER.*'nosuch'/),
    });
  });

  it(
    'the refusal after a report with errors: CONFIG_INVALID, exit 4, naming the file and the field, with the fix ' +
      'for each place',
    async () => {
      const w = await world('bare');
      const p = person(w);
      p.write('agents:\n  executors:\n    cur:\n      type: cursor\n  bindings:\n    implementer: nosuch\n');
      const r = await validateUserConfig(p.with({ SOW_AGENTS_REVIEWER: 'nosuch2' }), { binaries: false });
      expect(r.valid).toBe(false);
      const e = await fails(
        () => {
          throw new ConfigInvalidError(r, 'sow config validate');
        },
        'CONFIG_INVALID',
        4,
      );
      expect(e.message).toContain(`${p.path}: agents.bindings.implementer: executor 'nosuch' is not defined`);
      expect(e.message).toContain('SOW_AGENTS_REVIEWER');
      expect(e.hint).toBe(
        `fix ${p.path} with 'sow config edit'; change or unset the environment variable named; then run 'sow config ` +
          `validate' again`,
      );
      expect(e.details).toMatchObject({ file: p.path });
    },
  );

  it(
    'bad YAML stops at the syntax; ' + 'a typo comes before the schema problem it causes; an unknown type is named',
    async () => {
      const w = await world('bare');
      const p = person(w);
      p.write('agents:\n  bindings: [\n    implementer: cur\n');
      const syntax = await validateUserConfig(p.ctx, { binaries: false });
      expect(syntax.valid).toBe(false);
      expect(texts(syntax)).toEqual([expect.stringMatching(/^error: YAML syntax: /)]);
      p.write('agents:\n  executors:\n    x:\n      typ: claude\n');
      const typo = texts(await validateUserConfig(p.ctx, { binaries: false }));
      expect(typo[0]).toBe('ok: YAML syntax valid');
      expect(typo[1]).toMatch(/^error: .*typ.*did you mean 'type'/);
      expect(typo.at(-1)).toMatch(/^error: schema: /);
      p.write('agents:\n  executors:\n    x:\n      type: vim-agent\n');
      expect(texts(await validateUserConfig(p.ctx, { binaries: false })).join('\n')).toMatch(/^error: .*vim-agent/m);
    },
  );

  it(
    'inside a workspace (from a subfolder too) the repository’s .sow/config.yaml is checked; outside one, or when ' +
      'told not to, it is not',
    async () => {
      const w = await world('init');
      const p = person(w);
      const none = await validateConfig(p.ctx);
      expect(none.repository).toEqual({ root: w.dir, path: '.sow/config.yaml', exists: false, valid: true });
      expect(texts(none)).toContain('ok: .sow/config.yaml: none in this repository (it declares no checks)');
      w.write('.sow/config.yaml', 'checks:\n  - name: unit\n    run: npm test\n');
      w.write('src/a/.keep', '');
      const sub = person(w, {}, 'src/a');
      const r = await validateConfig(sub.ctx);
      expect(r.valid).toBe(true);
      expect(texts(r)).toContain('ok: .sow/config.yaml valid (checks: unit)');
      expect((await validateConfig(sub.ctx, { repository: false })).repository).toBeUndefined();
      w.write('.sow/config.yaml', 'checks:\n  - name: unit\n    run: npm test\n    timout: 5\n');
      const bad = await validateConfig(p.ctx);
      expect(bad.valid).toBe(false);
      expect(bad.repository).toMatchObject({ exists: true, valid: false });
      expect(bad.lines.at(-1)).toEqual({
        level: 'error',
        text: ".sow/config.yaml: checks.0.timout: unknown key 'timout'; did you mean 'timeout'?",
        source: 'repository',
      });
      const e = await refused(
        w,
        () => Promise.reject(new ConfigInvalidError(bad, 'sow config validate')),
        'CONFIG_INVALID',
        4,
      );
      expect(e.hint).toBe(
        "fix .sow/config.yaml (its fields: 'sow schema repo-config'); then run 'sow config validate' again",
      );

      const bare = await world('bare');
      expect(await validateRepoConfig(person(bare).ctx)).toBeUndefined();
      expect((await validateConfig(person(bare).ctx)).repository).toBeUndefined();
    },
  );
});

describe('config show', () => {
  it('every binding and setting with its source: the file, the context’s environment, the default', async () => {
    const w = await world('bare');
    const p = person(w, { SOW_AGENTS_IMPLEMENTER: 'codex' });
    p.write(VALID);
    const r = await showConfig(p.ctx);
    expect(r).toMatchObject({ path: p.path, exists: true });
    expect(r.effective.overrides).toEqual({ SOW_AGENTS_IMPLEMENTER: 'codex' });
    const lines = r.text.split('\n');
    expect(lines).toContain(`# Config file: ${p.path} (exists)`);
    expect(lines).toContain('# Environment overrides: SOW_AGENTS_IMPLEMENTER=codex');
    expect(lines).toContain('    implementer: codex  # (from environment: SOW_AGENTS_IMPLEMENTER)');
    expect(lines).toContain('    reviewer: claude-code  # (from config file)');
    for (const role of ['orchestrator', 'architect', 'planner', 'researcher', 'decomposer'])
      expect(lines, role).toContain(`    ${role}: claude-code  # (default)`);
    expect(lines).toContain('        model: sonnet  # (from config file)');
    expect(lines).toContain('        permissions: yolo  # (from config file: yolo_mode: true)');
  });

  it('no file: every value a default; an invalid file: CONFIG_INVALID, exit 4, naming the field', async () => {
    const w = await world('bare');
    const p = person(w);
    const r = await showConfig(p.ctx);
    expect(r.exists).toBe(false);
    expect(r.text).toContain(`# Config file: ${p.path} (not found)`);
    expect(r.text).toContain('# Environment overrides: none');
    for (const role of ROLES) expect(r.text.split('\n'), role).toContain(`    ${role}: claude-code  # (default)`);
    p.write('agents:\n  bindngs: {}\n');
    const e = await fails(() => showConfig(p.ctx), 'CONFIG_INVALID', 4);
    expect(e.message).toMatch(new RegExp(`^${p.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: agents.bindngs: `));
    expect(e.hint).toContain("'sow config edit'");
  });
});

describe('config edit', () => {
  /** An editor on the person's PATH that records its arguments and appends EDITOR_APPEND to the file. */
  function editor(p: ReturnType<typeof person>) {
    const record = join(p.base, 'editor-argv');
    p.command(
      'fake-editor',
      `printf '%s\\n' "$@" > "${record}"\nfor last; do :; done\nprintf '%s' "$EDITOR_APPEND" >> "$last"`,
    );
    return { argv: () => (existsSync(record) ? readFileSync(record, 'utf8').trim().split('\n') : []) };
  }

  it(
    'runs the context’s $EDITOR (found on its PATH) with its arguments and the file, then validates the user ' +
      'configuration',
    async () => {
      const w = await world('init');
      const p = person(w);
      p.write(VALID);
      // A broken repository configuration is not what `config edit` checks.
      w.write('.sow/config.yaml', 'nonsense: 1\n');
      const ed = editor(p);
      const r = await editConfig(p.with({ EDITOR: 'fake-editor --flag', EDITOR_APPEND: '    planner: cur\n' }));
      expect(ed.argv()).toEqual(['--flag', p.path]);
      expect(p.read()).toBe(`${VALID}    planner: cur\n`);
      expect(r).toMatchObject({ path: p.path, created: false, report: { valid: true } });
      expect(r.report.repository).toBeUndefined();
    },
  );

  it('$VISUAL comes before $EDITOR; without a file the template is written first', async () => {
    const w = await world('bare');
    const p = person(w);
    const ed = editor(p);
    const r = await editConfig(p.with({ VISUAL: 'fake-editor', EDITOR: 'no-such-editor' }));
    expect(ed.argv()).toEqual([p.path]);
    expect(r.created).toBe(true);
    expect(p.read()).toBe(configTemplate(p.path));
    expect(r.report.valid).toBe(true);
  });

  it('invalid after the edit: the report says so (the command refuses with it)', async () => {
    const w = await world('bare');
    const p = person(w);
    p.write(VALID);
    editor(p);
    const r = await editConfig(p.with({ EDITOR: 'fake-editor', EDITOR_APPEND: '    planner: nosuch\n' }));
    expect(r.report.valid).toBe(false);
    expect(r.report.lines.filter((l) => l.level === 'error').map((l) => l.text)).toEqual([
      expect.stringContaining("'nosuch'"),
    ]);
  });

  it(
    'no editor set: NO_EDITOR naming EDITOR and the file; an editor not on the PATH or that fails: exit 5; the file ' +
      'is left as it was',
    async () => {
      const w = await world('bare');
      const p = person(w);
      p.write(VALID);
      const none = await fails(() => editConfig(p.ctx), 'NO_EDITOR', 1);
      expect(none.hint).toBe(`set EDITOR (e.g. export EDITOR="code -w"), or edit ${p.path} directly`);
      const missing = await fails(() => editConfig(p.with({ EDITOR: 'fake-editor' })), 'EXTERNAL_TOOL_FAILED', 5);
      expect(said(missing)).toBe('fake-editor: not found on PATH\ncheck the EDITOR variable');
      p.command('failing-editor', 'exit 3');
      const failed = await fails(() => editConfig(p.with({ EDITOR: 'failing-editor' })), 'EXTERNAL_TOOL_FAILED', 5);
      expect(said(failed)).toBe(`failing-editor: exited with code 3\nthe file is at ${p.path}`);
      expect(p.read()).toBe(VALID);
    },
  );
});

describe('config reset', () => {
  it(
    'no file: nothing to do; with one: refused without a terminal or when the person says no; yes moves it ' +
      'to .backup',
    async () => {
      const w = await world('bare');
      const p = person(w);
      expect(await resetConfig(p.ctx, false, false, no)).toEqual({ path: p.path, removed: false });
      p.write(VALID);
      const e = await fails(() => resetConfig(p.ctx, false, false, yes), 'CONFIRMATION_REQUIRED', 2);
      expect(e.hint).toContain('--yes');
      await fails(() => resetConfig(p.ctx, false, true, no), 'ABORTED', 1);
      expect(p.read()).toBe(VALID);
      expect(existsSync(`${p.path}.backup`)).toBe(false);
      expect(await resetConfig(p.ctx, false, true, yes)).toEqual({
        path: p.path,
        backup: `${p.path}.backup`,
        removed: true,
      });
      expect(existsSync(p.path)).toBe(false);
      expect(readFileSync(`${p.path}.backup`, 'utf8')).toBe(VALID);
      const mine = '# mine\n';
      p.write(mine);
      expect((await resetConfig(p.ctx, true, false, no)).removed).toBe(true);
      expect(readFileSync(`${p.path}.backup`, 'utf8')).toBe(mine);
      expect((await showConfig(p.ctx)).exists).toBe(false);
    },
  );
});
