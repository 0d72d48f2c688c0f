/**
 * A repository's checks run only when the person allowed them (`sow check allow`, like direnv's
 * allow): a cloned repository whose committed check would leave a marker and write beside the
 * repository refuses to run it — `sow check run`, completing a task, the MCP tools — until the
 * person allowed exactly that command; a changed command is refused again; SOW_ALLOW_CHECKS=1
 * allows without a record; a worker can neither allow nor give itself SOW_ALLOW_CHECKS, and is
 * handed only allowed checks as permissions.
 *
 * Each test has a state folder of its own (XDG_STATE_HOME), so the record is looked at directly.
 *
 * In-process (src/app/check-allowance.test.ts): what a record allows (when and timeout may change,
 * a new name is a new check, check run of named checks needs only those), that it is per
 * repository, forgetting one or all, SOW_ALLOW_CHECKS=0 and =1 in the context, every way a record
 * can be damaged through every use case, a state folder inside the repository refusing check run.
 * Here: the words and exit codes as a user meets them, one damaged record through each command,
 * real processes (the terminal, the MCP server, workers).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { expectEnvelope, expectFails, ok, SOW, taskFile, TEST_ENV, toExecuting, type Repo } from './harness.js';
import { agentFixtures, show } from './agent-world.js';
import { useHostile, type Hostile } from './hostile.js';

const hostile = useHostile();
const temps: string[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
function scratch(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'sow-allow-')));
  temps.push(d);
  return d;
}

/**
 * The command a hostile repository commits as a check: it leaves the marker and writes into the sentinel folder
 * beside the clone.
 */
const pwn = (h: Hostile) => `touch ${h.marker}; echo pwned > ${h.sentinel}/precious.txt`;

const checksYaml = (checks: { name: string; run: string; when?: string[]; timeout?: number }[]) =>
  `checks:\n` +
  checks
    .map(
      (c) =>
        `  - name: ${c.name}\n    run: ${JSON.stringify(c.run)}\n` +
        `${c.when ? `    when: [${c.when.join(', ')}]\n` : ''}${c.timeout ? `    timeout: ${c.timeout}\n` : ''}`,
    )
    .join('');

/**
 * Someone else's repository in ImplementationExecuting (task 010 in progress), made once per file:
 * `hostile(EXECUTING)`.
 */
const EXECUTING = {
  key: 'executing',
  setup: (origin: Repo) => {
    toExecuting(origin, ['Only task']);
    ok(origin, ['task', 'set', '--id', '010', 'status', 'in_progress']);
  },
};

/**
 * Someone else's repository (`h.origin`, made with EXECUTING), whose committed .sow/config.yaml
 * declares `config`, cloned to a fresh folder as a user would get it.
 */
function cloned(h: Hostile, config: string): Repo {
  expect(h.origin.yaml(taskFile('010')).status, 'made by hostile(EXECUTING)').toBe('in_progress');
  h.write('.sow/config.yaml', config);
  h.commit('a project, with checks');
  const repo = h.clone();
  expect(repo.read('.sow/config.yaml')).toBe(config);
  return repo;
}

/** The record of `repo` in the state folder `state`, parsed; undefined when there is none. */
function recordOf(state: string, repo: Repo): any {
  const dir = join(state, 'sow', 'allowed-checks');
  const file = join(dir, `${createHash('sha256').update(realpathSync(repo.dir)).digest('hex')}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}
const recordFile = (state: string, repo: Repo) =>
  join(state, 'sow', 'allowed-checks', `${createHash('sha256').update(realpathSync(repo.dir)).digest('hex')}.json`);
/** The hash of a check as the record holds it, computed here independently: sha256 of the JSON of [name, run]. */
const hashOf = (name: string, run: string) =>
  createHash('sha256')
    .update(JSON.stringify([name, run]))
    .digest('hex');

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);

describe('a cloned repository whose committed check runs anything', () => {
  it(
    'completing a task and sow check run refuse (exit 1, CHECKS_NOT_ALLOWED) and show the command; nothing ran, ' +
      'nothing outside touched',
    () => {
      const o = hostile({ start: EXECUTING });
      const state = scratch();
      const env = { XDG_STATE_HOME: state };
      const run = pwn(o);
      const repo = cloned(o, checksYaml([{ name: 'pwn', run, when: ['task_complete'] }]));

      const completion = expectFails(
        repo,
        ['task', 'set', '--id', '010', 'status', 'completed'],
        1,
        'CHECKS_NOT_ALLOWED',
        { human: true, env },
      );
      expect(completion).toBe(
        `task 010 was not completed (its task_complete checks run first); this command has not been allowed to run ` +
          `on this machine:\n  pwn: ${run}\n` +
          "read what it would run; if you trust it, run 'sow check allow' (an agent shows this to the person and " +
          'lets them decide; CI can set SOW_ALLOW_CHECKS=1 instead)',
      );
      const checkRun = expectFails(repo, ['check', 'run'], 1, 'CHECKS_NOT_ALLOWED', { human: true, env });
      expect(checkRun).toContain(
        `no check was run; this command has not been allowed to run on this machine:\n  pwn: ${run}\n`,
      );

      // --json: the commands, exact, in the details.
      const doc = expectEnvelope(repo.sow(['check', 'run', 'pwn', '--json'], { env }));
      expect(doc.error.details).toEqual({
        checks: [{ name: 'pwn', run }],
        repository: realpathSync(repo.dir),
        record: recordFile(state, repo),
      });
      expect(repo.yaml(taskFile('010')).status).toBe('in_progress');
      o.untouched();
      expect(readdirSync(state), 'nothing recorded').toEqual([]);

      // check list says so; doctor warns.
      const list = ok(repo, ['check', 'list'], { env });
      expect(list.stdout).toBe(`pwn  ${run}  (needed for task_complete; timeout 600 s; not allowed yet)\n`);
      expect(list.stderr).toContain(
        "A check is not allowed to run on this machine: read what it runs, then 'sow check allow' if you trust it",
      );
      expect(expectEnvelope(ok(repo, ['check', 'list', '--json'], { env })).data).toEqual([
        { name: 'pwn', run, when: ['task_complete'], timeout: 600, allowed: false },
      ]);
      const doctor = expectEnvelope(repo.sow(['doctor', '--json'], { env }));
      const finding = (doctor.ok ? doctor.data.checks : doctor.error.details.checks).find(
        (c: any) => c.id === 'checks',
      );
      expect(finding).toEqual({
        id: 'checks',
        status: 'warn',
        message:
          "1 of 1 declared check is not allowed to run on this machine: pwn; until then 'sow check run' and " +
          'completing a task refuse it, and workers may not run it',
        fix: "read what they run ('sow check list'), then 'sow check allow' if you trust them",
      });
      o.untouched();
    },
  );

  it('control characters in a command are shown escaped, never raw; --json keeps the command exact', () => {
    const o = hostile({ start: EXECUTING });
    const env = { XDG_STATE_HOME: scratch() };
    const run = `echo fine\x1b[2K\r${pwn(o)}\u202e`;
    const repo = cloned(o, checksYaml([{ name: 'pwn', run }]));
    const r = repo.sow(['check', 'run'], { env });
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr).toContain(`  pwn: "echo fine\\x1b[2K\\r${pwn(o)}\\u202e"\n`);
    expect(r.stderr).not.toMatch(/[\x1b\r\u202e]/);
    const allow = repo.sow(['check', 'allow'], { env });
    expect(allow.stderr).not.toMatch(/[\x1b\r\u202e]/);
    expect(expectEnvelope(repo.sow(['check', 'run', '--json'], { env })).error.details.checks).toEqual([
      { name: 'pwn', run },
    ]);
    o.untouched();
  });
});

describe('sow check allow', () => {
  it(
    'shows the commands; without a terminal it needs --yes (exit 2, nothing recorded); --yes records them; ' +
      'then they run',
    () => {
      const o = hostile({ start: EXECUTING });
      const state = scratch();
      const env = { XDG_STATE_HOME: state };
      const run = `touch ${o.marker}`;
      const repo = cloned(
        o,
        checksYaml([
          { name: 'unit', run, when: ['task_complete'] },
          { name: 'lint', run: 'true' },
        ]),
      );
      const root = realpathSync(repo.dir);

      const asked = repo.sow(['check', 'allow'], { env });
      expect(asked.code, show(asked)).toBe(2);
      expect(asked.stderr).toBe(
        `sow would run these 2 commands of .sow/config.yaml in ${root}, as you, whenever they are needed:\n  ` +
          `unit: ${run}\n  lint: true\n` +
          'error: allowing these checks to run needs confirmation, and there is no terminal to ask on\nhint: pass ' +
          '--yes to confirm\n',
      );
      expect(expectEnvelope(repo.sow(['check', 'allow', '--json'], { env })).error.code).toBe('CONFIRMATION_REQUIRED');
      expect(readdirSync(state)).toEqual([]);
      expect(existsSync(o.marker)).toBe(false);

      const allowed = ok(repo, ['check', 'allow', '--yes'], { env });
      expect(allowed.stderr).toContain(`  unit: ${run}\n  lint: true\n`);
      expect(allowed.stderr).toContain(
        `Allowed 2 checks (unit, lint) to run in ${root}; recorded in ${recordFile(state, repo)} ('sow check forget' ` +
          `withdraws it)`,
      );
      // The record: outside the repository, exactly the commands shown, each with its hash.
      expect(recordOf(state, repo)).toEqual({
        version: 1,
        repository: root,
        checks: [
          { name: 'unit', run, sha256: hashOf('unit', run), allowed_at: ISO },
          { name: 'lint', run: 'true', sha256: hashOf('lint', 'true'), allowed_at: ISO },
        ],
      });
      expect(repo.git(['status', '--porcelain']), 'nothing in the repository').toBe('');
      expect(ok(repo, ['check', 'list'], { env }).stdout).toBe(
        `unit  ${run}  (needed for task_complete; timeout 600 s; allowed)\nlint  true  (run by hand; timeout 600 s; ` +
          `allowed)\n`,
      );
      const doctor = expectEnvelope(repo.sow(['doctor', '--json'], { env }));
      expect(
        (doctor.ok ? doctor.data.checks : doctor.error.details.checks).find((c: any) => c.id === 'checks'),
      ).toEqual({
        id: 'checks',
        status: 'ok',
        message: 'all 2 declared checks are allowed to run here',
      });

      // Allowed: completing runs the check, check run runs them.
      ok(repo, ['task', 'set', '--id', '010', 'status', 'completed'], { env });
      expect(existsSync(o.marker)).toBe(true);
      expect(repo.yaml(taskFile('010')).status).toBe('completed');
      rmSync(o.marker);
      expect(ok(repo, ['check', 'run'], { env }).stdout).toMatch(
        /^✓ unit {2}passed in \d+\.\d s\n✓ lint {2}passed in \d+\.\d s\n$/,
      );
      expect(existsSync(o.marker)).toBe(true);

      // Again: nothing to ask.
      const again = ok(repo, ['check', 'allow'], { env });
      expect(again.stderr).toBe('All 2 checks are allowed already\n');
      expect(expectEnvelope(ok(repo, ['check', 'allow', '--json'], { env })).data).toEqual({
        repository: root,
        record: recordFile(state, repo),
        allowed: [],
        already: ['unit', 'lint'],
      });
    },
  );

  const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('on a terminal it asks, and records only on yes', () => {
    const o = hostile({ start: EXECUTING });
    const state = scratch();
    const repo = cloned(o, checksYaml([{ name: 'unit', run: `touch ${o.marker}` }]));
    const onTty = (answer: string) => {
      const cmd = [process.execPath, SOW, 'check', 'allow'].map((a) => `'${a}'`).join(' ');
      return spawnSync('script', ['-qec', cmd, '/dev/null'], {
        cwd: repo.dir,
        input: answer,
        encoding: 'utf8',
        env: { ...process.env, ...TEST_ENV, XDG_STATE_HOME: state },
      });
    };
    const no = onTty('n\n');
    expect(no.stdout).toContain(`  unit: touch ${o.marker}`);
    expect(no.stdout).toContain('Allow it to run here? [y/N]');
    expect(no.status, no.stdout).toBe(1);
    expect(no.stdout).toContain('error: check allow cancelled');
    expect(recordOf(state, repo)).toBeUndefined();
    const yes = onTty('y\n');
    expect(yes.status, yes.stdout).toBe(0);
    expect(recordOf(state, repo).checks.map((c: any) => c.name)).toEqual(['unit']);
    o.untouched();
  });

  it('a changed command is refused again, showing what was allowed', () => {
    const o = hostile({ start: EXECUTING });
    const state = scratch();
    const env = { XDG_STATE_HOME: state };
    const repo = cloned(o, checksYaml([{ name: 'unit', run: 'true', when: ['task_complete'] }]));
    ok(repo, ['check', 'allow', '--yes'], { env });

    // A pull (or a worker's edit) changes the command: refused, both shown.
    const changed = `true; ${pwn(o)}`;
    repo.write('.sow/config.yaml', checksYaml([{ name: 'unit', run: changed, when: ['task_complete'] }]));
    const refused = expectFails(repo, ['task', 'set', '--id', '010', 'status', 'completed'], 1, 'CHECKS_NOT_ALLOWED', {
      env,
    });
    expect(refused).toContain(`  unit: ${changed}\n    (changed; you allowed: true)\n`);
    expect(expectEnvelope(repo.sow(['check', 'run', '--json'], { env })).error.details.checks).toEqual([
      { name: 'unit', run: changed, previously: 'true' },
    ]);
    expect(ok(repo, ['check', 'list'], { env }).stdout).toContain(
      '(needed for task_complete; timeout 600 s; changed since you allowed it)',
    );
    o.untouched();
  });

  it('forget withdraws, and says what it did', () => {
    const o = hostile({ start: EXECUTING });
    const env = { XDG_STATE_HOME: scratch() };
    const repo = cloned(
      o,
      checksYaml([
        { name: 'unit', run: 'true' },
        { name: 'pwn', run: pwn(o) },
      ]),
    );
    ok(repo, ['check', 'allow', '--yes'], { env });
    const forgot = ok(repo, ['check', 'forget', 'pwn'], { env });
    expect(forgot.stderr).toBe("Withdrawn: pwn; it runs again only after 'sow check allow'\n");
    expect(expectEnvelope(ok(repo, ['check', 'forget', '--json'], { env })).data.forgotten).toEqual([
      { name: 'unit', run: 'true' },
    ]);
    expect(ok(repo, ['check', 'forget'], { env }).stderr).toBe('Nothing was allowed in this repository\n');
    o.untouched();
  });

  it('SOW_ALLOW_CHECKS=1 runs them without a record (CI); any other value is a usage error', () => {
    const o = hostile({ start: EXECUTING });
    const state = scratch();
    const repo = cloned(o, checksYaml([{ name: 'pwn', run: pwn(o), when: ['task_complete'] }]));
    expect(
      expectFails(repo, ['check', 'run'], 2, 'USAGE', { env: { XDG_STATE_HOME: state, SOW_ALLOW_CHECKS: 'yes' } }),
    ).toBe(
      "SOW_ALLOW_CHECKS='yes' is neither 1 nor 0\nset SOW_ALLOW_CHECKS=1 to let every declared check run without " +
        "'sow check allow' (for CI), or unset it",
    );
    o.untouched();
    expect(ok(repo, ['check', 'list'], { env: { XDG_STATE_HOME: state, SOW_ALLOW_CHECKS: '1' } }).stdout).toContain(
      '; allowed by SOW_ALLOW_CHECKS=1)',
    );
    ok(repo, ['task', 'set', '--id', '010', 'status', 'completed'], {
      env: { XDG_STATE_HOME: state, SOW_ALLOW_CHECKS: '1' },
    });
    expect(existsSync(o.marker)).toBe(true);
    expect(readdirSync(state), 'nothing recorded').toEqual([]);
  });
});

describe("the record is the person's: read strictly, kept outside the repository", () => {
  // Every way a record can be damaged, through every use case: in-process (src/app/check-allowance.test.ts).
  const cases: [string, (file: string, repo: Repo) => void, string][] = [
    [
      'a command edited without its hash',
      (f) => {
        const record = JSON.parse(readFileSync(f, 'utf8'));
        record.checks[0].run = 'touch /tmp/anything';
        writeFileSync(f, JSON.stringify(record));
      },
      "checks[0] ('unit'): its sha256 is not the hash of its name and command",
    ],
  ];
  it.each(cases)(
    '%s: exit 4 (CHECKS_RECORD_INVALID), never read as allowed; nothing ran; allow will not overwrite it',
    (_label, damage, problem) => {
      const o = hostile({ start: EXECUTING });
      const state = scratch();
      const env = { XDG_STATE_HOME: state };
      const repo = cloned(o, checksYaml([{ name: 'unit', run: pwn(o), when: ['task_complete'] }]));
      ok(repo, ['check', 'allow', '--yes'], { env });
      const file = recordFile(state, repo);
      damage(file, repo);
      for (const args of [
        ['check', 'run'],
        ['task', 'set', '--id', '010', 'status', 'completed'],
        ['check', 'allow', '--yes'],
        ['check', 'list'],
      ]) {
        const message = expectFails(repo, args, 4, 'CHECKS_RECORD_INVALID', { human: true, env });
        expect(message.startsWith(`${file}: ${problem}`), message).toBe(true);
        expect(
          message.endsWith(
            `; it records which checks you allowed to run, and sow will not guess\n` +
              `look at it; or remove it ('rm ${file}') and allow this repository's checks again with 'sow check allow'`,
          ),
          message,
        ).toBe(true);
      }
      o.untouched();
    },
  );

  it('a state folder inside the repository is refused (exit 1): a commit or a worker could write it', () => {
    const o = hostile({ start: EXECUTING });
    const repo = cloned(o, checksYaml([{ name: 'pwn', run: pwn(o) }]));
    const state = join(realpathSync(repo.dir), 'state');
    const message = expectFails(repo, ['check', 'allow', '--yes'], 1, 'CHECKS_RECORD_IN_REPOSITORY', {
      env: { XDG_STATE_HOME: state },
    });
    expect(message).toContain(
      `sow keeps which checks you allowed in ${state}/sow/allowed-checks, which lies inside this repository`,
    );
    expect(existsSync(state)).toBe(false);
    o.untouched();
  });
});

describe('the MCP tools refuse the same way (there is no terminal to ask on)', () => {
  it('check run and task_update to completed: CHECKS_NOT_ALLOWED with the commands, as the CLI', async () => {
    const o = hostile({ start: EXECUTING });
    const state = scratch();
    const run = pwn(o);
    const repo = cloned(o, checksYaml([{ name: 'pwn', run, when: ['task_complete'] }]));
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SOW_')) env[k] = v;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SOW, 'mcp'],
      cwd: repo.dir,
      env: { ...env, ...TEST_ENV, XDG_STATE_HOME: state },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'sow-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    const before = repo.snapshot();
    const cli = expectEnvelope(repo.sow(['check', 'run', '--json'], { env: { XDG_STATE_HOME: state } }));
    for (const [name, args] of [
      ['check', { action: 'run' }],
      ['task_update', { id: '010', field: 'status', value: 'completed' }],
    ] as const) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, name).toBe(true);
      const doc = JSON.parse((r.content as { text: string }[])[0]!.text);
      expect(doc.error.code, name).toBe('CHECKS_NOT_ALLOWED');
      expect(doc.error.details).toEqual(cli.error.details);
    }
    expect(repo.snapshot()).toEqual(before);
    o.untouched();
  });
});

// -------------------------------------------------------------------------------------------------
// Workers (fake agent CLIs, test/fakes/fake-agent.mjs).
// -------------------------------------------------------------------------------------------------

const UNIT = 'touch unit-ran';
const LINT = 'touch lint-ran';
const workers = agentFixtures({
  tasks: ['First task', 'Second task'],
  prefix: 'sow-allow-',
  setup: (t) =>
    t.write(
      '.sow/config.yaml',
      checksYaml([
        { name: 'unit', run: UNIT, when: ['task_complete'] },
        { name: 'lint', run: LINT },
      ]),
    ),
});
const CLAUDE = 'agents:\n  executors:\n    impl:\n      type: claude\n  bindings:\n    implementer: impl\n';
const SILENT = { FAKE_AGENT_SCRIPT: '[]' };
const allowedTools = (argv: string[]) => argv.flatMap((a, i) => (argv[i - 1] === '--allowedTools' ? [a] : []));

describe('a worker never widens its own rights', () => {
  it('only allowed checks are handed to a safe worker as allowed commands; the others are named in a warning', () => {
    const f = workers(CLAUDE);
    const state = scratch();
    const env = { XDG_STATE_HOME: state, ...SILENT };
    f.ok(['check', 'allow', 'unit', '--yes'], env);
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '--verbose'], env);
    expect(allowedTools(f.world.calls()[0]!.argv)).toEqual(['Bash(sow *)', `Bash(${UNIT})`]);
    expect(r.stderr).toContain(
      'warning: the check lint in .sow/config.yaml is not allowed to run on this machine, so the worker may not ' +
        "run it; review it ('sow check list') and run 'sow check allow'\n",
    );
    expect(r.stderr).toContain(
      `  Note: permissions=safe: Claude Code may edit files in the repository (acceptEdits) and run \`sow\`, ` +
        `\`${UNIT}\`; it refuses anything else\n`,
    );

    // Nothing allowed: only sow; everything allowed: both, no warning.
    f.ok(['check', 'forget'], env);
    const none = f.ok(['agent', 'spawn', 'implementer', '020', '-q'], env);
    expect(allowedTools(f.world.calls()[1]!.argv)).toEqual(['Bash(sow *)']);
    expect(none.stderr).toContain(
      'warning: the checks unit, lint in .sow/config.yaml are not allowed to run on this machine',
    );
    f.ok(['check', 'allow', '--yes'], env);
    const all = f.ok(['agent', 'resume', '010', 'Go on.', '-q'], env);
    expect(allowedTools(f.world.calls()[2]!.argv)).toEqual(['Bash(sow *)', `Bash(${UNIT})`, `Bash(${LINT})`]);
    expect(all.stderr).not.toContain('warning');
    // permissions: yolo grants everything anyway: no warning.
    const g = workers(`${CLAUDE.replace('type: claude', 'type: claude\n      settings:\n        permissions: yolo')}`);
    expect(
      g.ok(['agent', 'spawn', 'implementer', '010', '-q'], { XDG_STATE_HOME: scratch(), ...SILENT }).stderr,
    ).not.toContain('warning');
  });

  it(
    'a worker that adds a check cannot allow it, nor run it with SOW_ALLOW_CHECKS=1, nor forget — also with its ' +
      'markers unset',
    () => {
      const f = workers(CLAUDE);
      const o = hostile();
      const state = scratch();
      const out = scratch();
      f.ok(['check', 'allow', '--yes'], { XDG_STATE_HOME: state });
      const recorded = readFileSync(recordFile(state, f.repo), 'utf8');
      const markers = ['SOW_AGENT_ID', 'SOW_SESSION_ID', 'SOW_AGENT', 'SOW_TASK_ID', 'SOW_PROJECT_ROOT', 'SOW_BIN'];
      const linux = process.platform === 'linux';
      const attempts: { name: string; step: Record<string, unknown>; code: string }[] = [
        { name: 'allow', step: { try: ['check', 'allow', '--yes', '--json'] }, code: 'WORKER_CANNOT_ALLOW' },
        {
          name: 'env',
          step: { try: ['check', 'run', 'pwn', '--json'], env: { SOW_ALLOW_CHECKS: '1' } },
          code: 'CHECKS_NOT_ALLOWED',
        },
        {
          name: 'complete',
          step: { try: ['task', 'set', 'status', 'completed', '--json'], env: { SOW_ALLOW_CHECKS: '1' } },
          code: 'CHECKS_NOT_ALLOWED',
        },
        { name: 'forget', step: { try: ['check', 'forget', '--json'] }, code: 'WORKER_CANNOT_ALLOW' },
        // Its own markers removed: its agent CLI, as sow started it, still carries them (Linux).
        ...(linux
          ? [
              {
                name: 'allow-unset',
                step: { try: ['check', 'allow', '--yes', '--json'], unset: markers },
                code: 'WORKER_CANNOT_ALLOW',
              },
              {
                name: 'env-unset',
                step: { try: ['check', 'run', 'pwn', '--json'], env: { SOW_ALLOW_CHECKS: '1' }, unset: markers },
                code: 'CHECKS_NOT_ALLOWED',
              },
            ]
          : []),
      ];
      const script = [
        {
          append: '.sow/config.yaml',
          text: `  - name: pwn\n    run: ${JSON.stringify(pwn(o))}\n    when: [task_complete]\n`,
        },
        ...attempts.map((a) => ({ ...a.step, out: join(out, `${a.name}.json`) })),
        ['task', 'set', 'status', 'needs_review'],
      ];
      const r = f.ok(['agent', 'spawn', 'implementer', '010', '-q'], {
        XDG_STATE_HOME: state,
        FAKE_AGENT_SCRIPT: JSON.stringify(script),
      });
      expect(r.stdout).toBe('needs_review\n');
      const agentCli = f.world.calls()[0]!;
      for (const a of attempts) {
        const got = JSON.parse(readFileSync(join(out, `${a.name}.json`), 'utf8'));
        expect(got.code, `${a.name}: ${got.stdout}${got.stderr}`).toBe(1);
        const doc = JSON.parse(got.stdout);
        expect(doc.error.code, a.name).toBe(a.code);
        if (a.name.endsWith('-unset')) {
          // Found through its parent: the fake agent CLI, in the environment sow started it with.
          expect(doc.error.details.worker, a.name).toEqual({
            pid: agentCli.pid,
            command: expect.any(String),
            variable: 'SOW_AGENT_ID',
          });
        }
        if (a.code === 'WORKER_CANNOT_ALLOW')
          expect(doc.error.message, a.name).toContain('a worker cannot widen its own rights');
        if (a.code === 'CHECKS_NOT_ALLOWED') {
          expect(doc.error.details.environment_ignored, a.name).toBe(true);
          expect(doc.error.hint, a.name).toContain(
            'a worker cannot allow checks (this sow runs under one: SOW_AGENT_ID in ',
          );
          expect(
            doc.error.details.checks.map((c: any) => c.name),
            a.name,
          ).toEqual(['pwn']);
        }
      }
      o.untouched();
      expect(readFileSync(recordFile(state, f.repo), 'utf8'), 'the record is as the person left it').toBe(recorded);
      expect(f.task().status).toBe('needs_review');
    },
  );

  it('SOW_ALLOW_CHECKS=1 given to sow agent spawn reaches its worker (CI): its completion runs the checks', () => {
    const f = workers(CLAUDE);
    const state = scratch();
    const script = JSON.stringify([['task', 'set', 'status', 'completed']]);
    const r = f.ok(['agent', 'spawn', 'implementer', '010', '-q'], {
      XDG_STATE_HOME: state,
      SOW_ALLOW_CHECKS: '1',
      FAKE_AGENT_SCRIPT: script,
    });
    expect(r.stdout).toBe('completed\n');
    expect(existsSync(join(f.root, 'unit-ran'))).toBe(true);
    expect(allowedTools(f.world.calls()[0]!.argv)).toEqual(['Bash(sow *)', `Bash(${UNIT})`, `Bash(${LINT})`]);
    // Without it (and nothing allowed), the worker's completion is refused and nothing runs.
    const g = workers(CLAUDE);
    const out = join(scratch(), 'complete.json');
    g.ok(['agent', 'spawn', 'implementer', '010', '-q'], {
      XDG_STATE_HOME: state,
      FAKE_AGENT_SCRIPT: JSON.stringify([{ try: ['task', 'set', 'status', 'completed', '--json'], out }]),
    });
    expect(JSON.parse(JSON.parse(readFileSync(out, 'utf8')).stdout).error.code).toBe('CHECKS_NOT_ALLOWED');
    expect(existsSync(join(g.root, 'unit-ran'))).toBe(false);
  });
});
