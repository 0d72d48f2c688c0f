/**
 * Names from a cloned repository print safely: a task name, a project description, an agent id or
 * an artifact path with a line break cannot forge a line of sow's output, and escape sequences
 * (OSC 52 clipboard writes, OSC 8 links, screen clears, bells, C1 controls, bidi overrides) never
 * reach the terminal raw — they are shown escaped (`\n`, `\x1b`, `\u202e`). `--json` keeps the
 * exact values.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT, taskFile, toExecuting, type RunResult } from './harness.js';
import { useHostile, type Hostile } from './hostile.js';

const hostile = useHostile();

/**
 * Raw bytes a terminal acts on: C0 controls but the line break, DEL, C1 controls, bidi controls, line/paragraph
 * separators.
 */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

// In YAML's double quotes: \n a line break, \e ESC, \a BEL, \x9b a C1 CSI, \u202e RIGHT-TO-LEFT OVERRIDE.
const FORGED_NAME = '"Real task\\n010  completed  forged\\e]52;c;cm0gLXJmIH4=\\a"';
const NAMES = {
  name: FORGED_NAME,
  other: '"\\u202eevil.exe\\e]8;;https://attacker.example\\e\\\\click\\e]8;;\\e\\\\"',
  agent: '"implementer\\n[030] completed    planted\\x9b2J"',
  path: '"notes\\e[2J\\e[H\\r.md"',
  description: '"A project\\nState    FinalizeDelete\\e]0;pwned\\a"',
};

/**
 * A hostile repository: a project whose task names, agent, an output path and the description carry control
 * characters.
 */
function withHostileNames(): Hostile {
  const h = hostile();
  toExecuting(h.origin);
  h.write(
    taskFile('010'),
    h.origin
      .read(taskFile('010'))
      .replace(/^name: .*$/m, `name: ${NAMES.name}`)
      .replace(/^assigned_agent: .*$/m, `assigned_agent: ${NAMES.agent}`)
      .replace(
        /^outputs: \[\]$/m,
        `outputs:\n  - type: reference\n    path: ${NAMES.path}\n    created_at: "2026-11-26T00:00:00.000Z"`,
      ),
  );
  h.write(taskFile('020'), h.origin.read(taskFile('020')).replace(/^name: .*$/m, `name: ${NAMES.other}`));
  h.write(PROJECT, h.origin.read(PROJECT).replace(/^description: .*$/m, `description: ${NAMES.description}`));
  h.commit();
  return h;
}

function expectNoRawControl(r: RunResult, what: string): void {
  for (const [stream, text] of [
    ['stdout', r.stdout],
    ['stderr', r.stderr],
  ] as const) {
    const m = RAW_CONTROL.exec(text);
    expect(
      m,
      `${what}: a raw U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} ` +
        `reached ${stream}:\n${JSON.stringify(text)}`,
    ).toBeNull();
  }
}

describe('values from a cloned repository print escaped, never raw', () => {
  it('task list, task next, status, project continue: no raw control character, no forged line', () => {
    const h = withHostileNames();
    const clone = h.clone();
    for (const args of [
      ['task', 'list'],
      ['task', 'list'],
      ['task', 'next'],
      ['status'],
      ['project', 'continue'],
      ['task', 'output', 'list', '--id', '010'],
      ['graph', 'tasks'],
      ['graph', 'tasks', '--format', 'mermaid'],
    ]) {
      const r = clone.sow(args);
      expect(r.code, `sow ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
      expectNoRawControl(r, `sow ${args.join(' ')}`);
      const lines = `${r.stdout}\n${r.stderr}`.split('\n');
      expect(
        lines.filter(
          (l) => /^\s*010 {2}completed {2}forged/.test(l) || /^\[030\]/.test(l) || /^State {4}FinalizeDelete/.test(l),
        ),
        `sow ${args.join(' ')}: a forged line`,
      ).toEqual([]);
    }
    const list = clone.sow(['task', 'list']).stdout;
    expect(list).toContain('Real task\\n010  completed  forged\\x1b]52;c;cm0gLXJmIH4=\\x07');
    expect(list).toContain('\\u202eevil.exe\\x1b]8;;https://attacker.example\\x1b\\click');
    expect(list).toContain('agent: implementer\\n[030] completed    planted\\x9b2J');
    expect(clone.sow(['status']).stdout).toContain('About    A project\\nState    FinalizeDelete\\x1b]0;pwned\\x07');
    expect(clone.sow(['task', 'output', 'list', '--id', '010']).stdout).toContain(
      'reference: notes\\x1b[2J\\x1b[H\\r.md',
    );
    // `get` prints one value, bare, as its lines (a script wanting the exact bytes asks for --json);
    // still nothing a terminal acts on.
    const name = clone.sow(['task', 'get', '--id', '010', 'name']);
    expectNoRawControl(name, 'sow task get --id 010 name');
    expect(name.stdout).toBe('Real task\n010  completed  forged\\x1b]52;c;cm0gLXJmIH4=\\x07\n');
    h.untouched();
  });

  it('--json keeps the exact values, escaped the JSON way', () => {
    const h = withHostileNames();
    const clone = h.clone();
    const r = clone.sow(['task', 'list', '--json']);
    expect(r.code).toBe(0);
    expectNoRawControl(r, 'sow task list --json');
    const names = (r.json!.data as { id: string; name: string }[]).map((t) => t.name);
    expect(names).toEqual([
      'Real task\n010  completed  forged\u001b]52;c;cm0gLXJmIH4=\u0007',
      '\u202eevil.exe\u001b]8;;https://attacker.example\u001b\\click\u001b]8;;\u001b\\',
    ]);
    const status = clone.sow(['status', '--json']);
    expectNoRawControl(status, 'sow status --json');
    expect(status.json!.data.description).toBe('A project\nState    FinalizeDelete\u001b]0;pwned\u0007');
    h.untouched();
  });

  it('an error that quotes a value from the repository shows it escaped, and no forged hint', () => {
    const h = hostile();
    toExecuting(h.origin);
    // A project type nobody knows, named to forge the error's hint line and set the terminal title.
    h.write(
      PROJECT,
      h.origin.read(PROJECT).replace(/^type: .*$/m, 'type: "standard\\nhint: run rm -rf ~\\e]0;pwned\\a"'),
    );
    h.commit();
    const clone = h.clone();
    for (const args of [['status'], ['task', 'list'], ['project', 'continue']]) {
      const r = clone.sow(args);
      expect(r.code, `sow ${args.join(' ')}\n${r.stderr}`).toBe(4);
      expectNoRawControl(r, `sow ${args.join(' ')}`);
      expect(r.stderr).toContain("unknown project type 'standard\\nhint: run rm -rf ~\\x1b]0;pwned\\x07'");
      expect(r.stderr.split('\n').filter((l) => l.startsWith('hint:'))).toHaveLength(1);
    }
    h.untouched();
  });

  it("a warning that quotes the project's branch from the repository shows it escaped, on one line", () => {
    const h = hostile();
    toExecuting(h.origin);
    h.write(
      PROJECT,
      h.origin.read(PROJECT).replace(/^branch: .*$/m, 'branch: "gone\\e]0;pwned\\a\\nwarning: all is well"'),
    );
    h.commit();
    const clone = h.clone();
    for (const args of [['status'], ['task', 'list']]) {
      const r = clone.sow(args);
      expect(r.code, `sow ${args.join(' ')}\n${r.stderr}`).toBe(0);
      expectNoRawControl(r, `sow ${args.join(' ')}`);
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
      expect(warnings, r.stderr).toHaveLength(1);
      expect(warnings[0]).toContain("'gone\\x1b]0;pwned\\x07\\nwarning: all is well'");
    }
    h.untouched();
  });
});
