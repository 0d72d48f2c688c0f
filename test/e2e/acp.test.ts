/**
 * Workers over the Agent Client Protocol, end to end: the built sow as the ACP client of the fake
 * ACP agent (test/fakes/fake-acp-agent.mjs, on the SDK's agent side, worded as each real agent
 * words its requests). sow answers every permission by the executor's profile; hands the agent
 * `sow mcp`; continues a session with session/load, or hands the task to a fresh session when the
 * agent cannot; stops a worker with session/cancel first; and is not harmed by what a broken or
 * hostile agent sends.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acpEvents } from '../fakes/acp-log.js';
import { SOW } from './harness.js';
import { agentFixtures, cleanEnv, FAKE, until } from './agent-world.js';

const base = agentFixtures({ tasks: ['First task', 'Second task'] });

/** An executor of `type` over ACP, bound to the implementer. */
const config = (type: string, extra = '') =>
  `agents:\n  executors:\n    w:\n      type: ${type}\n      transport: acp\n${extra}  bindings:\n    implementer: w\n`;

/** A folder outside every test repository, for what the safe profile must refuse. */
const outside = realpathSync(mkdtempSync(join(tmpdir(), 'sow-acp-outside-')));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

const REPORT = { run: 'sow task set --id 010 status needs_review' };

describe('agent spawn over ACP', () => {
  // Each real agent's wording, by the executor type that starts it.
  const agents: [type: string, cli: string][] = [
    ['gemini', 'gemini'],
    ['copilot', 'copilot'],
    ['opencode', 'opencode'],
    ['claude', 'claude-agent-acp'],
    ['codex', 'codex-acp'],
  ];
  for (const [type, cli] of agents) {
    it(
      `${type}: sow decides each permission (safe): sow runs, a command outside is refused and reported, the worker ` +
        `reports back`,
      () => {
        const f = base(config(type));
        const marker = join(outside, `${type}-touched`);
        const script = [{ say: 'Working on it.' }, { run: 'sow status' }, { run: `touch ${marker}` }, REPORT];
        const r = f.ok(['agent', 'spawn', 'implementer', '010', '--json'], {
          FAKE_ACP_SCRIPT: JSON.stringify(script),
          CODEX_API_KEY: 'test',
        });
        expect(existsSync(marker), 'the refused command did not run').toBe(false);
        const t = f.task();
        // Codex's adapter has no "no" but "abort": a refusal ends its whole turn, so it never reports.
        expect([t.status, t.session.transport]).toEqual([type === 'codex' ? 'in_progress' : 'needs_review', 'acp']);
        const log = acpEvents(f.world.log);
        // How each is started: its ACP mode; Codex's adapter told to ask (it asks nothing by default).
        const argv = log.find((e) => e.event === 'start')!.argv;
        const expected: Record<string, string[]> = {
          gemini: ['--acp'],
          copilot: ['--acp', '--additional-mcp-config', expect.any(String)],
          opencode: ['acp'],
          claude: [],
          codex: ['-c', 'approval_policy="untrusted"', '-c', 'sandbox_mode="workspace-write"'],
        };
        expect(argv).toEqual(expected[type]);
        // Copilot takes sow mcp on its command line, as it refuses a stdio server in session/new.
        if (type === 'copilot') {
          const mcp = JSON.parse(argv[2]!).mcpServers.sow;
          expect(mcp).toMatchObject({
            type: 'local',
            command: process.execPath,
            args: [SOW, 'mcp'],
            env: { SOW_AGENT_ID: 'implementer-1', SOW_TASK_ID: '010' },
            tools: ['*'],
          });
        }
        const opened = log.find((e) => e.event === 'session/new' && e.session);
        expect(t.session_id).toBe(opened!.session);
        // sow chose, by kind, the option of this agent's own wording that allows once, then the one that refuses.
        const asked = log.filter((e) => e.event === 'permission' && e.cli === cli);
        expect(asked.map((e) => [e.toolCall?.kind, e.outcome?.outcome])).toEqual([
          ['execute', 'selected'],
          ['execute', 'selected'],
          ...(type === 'codex' ? [] : [['execute', 'selected']]),
        ]);
        const steps = log.filter((e) => e.event === 'step' && e.step?.run);
        expect(
          steps.map((e) => (e.result === 'refused' ? 'refused' : e.result?.allowed ? 'ran' : JSON.stringify(e.result))),
        ).toEqual(['ran', 'refused', ...(type === 'codex' ? [] : ['ran'])]);
        expect(r.json!.data.denials).toEqual([expect.objectContaining({ kind: 'command', input: `touch ${marker}` })]);
        expect(r.stderr).toContain(`sow refused`);
      },
    );
  }

  it(
    'hands the agent no file or terminal capability, opens the session in the repository, and hands it sow mcp as ' +
      'the worker',
    () => {
      const f = base(config('claude'));
      f.ok(['agent', 'spawn', 'implementer', '010'], {
        FAKE_ACP_SCRIPT: JSON.stringify([{ mcp: { tool: 'status', arguments: {} } }, REPORT]),
      });
      const log = acpEvents(f.world.log);
      const init = log.find((e) => e.event === 'initialize')!;
      expect(init.params.clientCapabilities).toMatchObject({
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
      });
      const opened = log.find((e) => e.event === 'session/new')!;
      expect(opened.params.cwd).toBe(f.root);
      const server = opened.params.mcpServers[0];
      expect(server).toMatchObject({ name: 'sow', command: process.execPath, args: [SOW, 'mcp'] });
      expect(server.env).toEqual(
        expect.arrayContaining([
          { name: 'SOW_AGENT_ID', value: 'implementer-1' },
          { name: 'SOW_TASK_ID', value: '010' },
        ]),
      );
      // The worker called sow's tool natively, and got the project's state.
      const step = log.find((e) => e.event === 'step' && e.step?.mcp)!;
      expect(step.result.error).toBeUndefined();
      expect(JSON.stringify(step.result.structuredContent)).toContain('ImplementationExecuting');
    },
  );

  it(
    'edits and reads inside the repository are allowed; outside, and in .git, refused; the messages, plan and ' +
      'refusals are its events',
    () => {
      const f = base(config('gemini'));
      const script = [
        { say: 'Planning.' },
        { plan: ['write hello', 'report'] },
        { edit: 'hello.txt', text: 'hello\n' },
        { edit: join(outside, 'evil.txt'), text: 'x\n' },
        { edit: '.git/hooks/post-commit', text: '#!/bin/sh\n' },
        { read: '/etc/hostname' },
        REPORT,
      ];
      f.ok(['agent', 'spawn', 'implementer', '010'], { FAKE_ACP_SCRIPT: JSON.stringify(script) });
      expect(readFileSync(join(f.root, 'hello.txt'), 'utf8')).toBe('hello\n');
      expect(existsSync(join(outside, 'evil.txt'))).toBe(false);
      expect(existsSync(join(f.root, '.git/hooks/post-commit'))).toBe(false);
      const events = f.ok(['agent', 'events', '010']).stdout;
      expect(events).toMatch(/› Planning\./);
      expect(events).toMatch(/☐ \[ \] write hello; \[ \] report/);
      expect(events).toMatch(/✗ refused .*evil\.txt: it changes files outside the repository/);
      expect(events).toMatch(/✗ refused .*post-commit: \.git\/hooks\/post-commit is git's own/);
      expect(events).toMatch(/✗ refused \/etc\/hostname: it reads outside the repository/);
      expect(f.task().status).toBe('needs_review');
    },
  );

  it(
    'the configured model is chosen through the session’s model option; one the agent does not offer is said, and ' +
      'the run goes on',
    () => {
      const f = base(config('opencode', '      settings:\n        model: anthropic/claude-sonnet-4-5\n'));
      f.ok(['agent', 'spawn', 'implementer', '010'], {
        FAKE_ACP_SCRIPT: JSON.stringify([REPORT]),
        FAKE_ACP_MODELS: 'opencode/big-pickle,anthropic/claude-sonnet-4-5',
      });
      const set = acpEvents(f.world.log).find((e) => (e.event as string) === 'session/set_config_option')!;
      expect(set.params).toMatchObject({ configId: 'model', value: 'anthropic/claude-sonnet-4-5' });
      const g = base(config('opencode', '      settings:\n        model: nosuch\n'));
      const r = g.ok(['agent', 'spawn', 'implementer', '010'], {
        FAKE_ACP_SCRIPT: JSON.stringify([REPORT]),
        FAKE_ACP_MODELS: 'opencode/big-pickle',
      });
      expect(r.stderr).toContain(
        "warning: the agent offers no model 'nosuch' (it offers opencode/big-pickle); it keeps opencode/big-pickle",
      );
      expect(g.task().status).toBe('needs_review');
    },
  );

  it('yolo allows what safe refuses', () => {
    const f = base(config('gemini', '      settings:\n        permissions: yolo\n'));
    const marker = join(outside, 'yolo-touched');
    f.ok(['agent', 'spawn', 'implementer', '010'], {
      FAKE_ACP_SCRIPT: JSON.stringify([{ run: `touch ${marker}` }, REPORT]),
    });
    expect(existsSync(marker)).toBe(true);
  });

  it('counts what the agent says it used: the turn tokens and the session cost', () => {
    const f = base(config('claude'));
    f.ok(['agent', 'spawn', 'implementer', '010'], {
      FAKE_ACP_SCRIPT: JSON.stringify([{ usage: { input: 1200, output: 300, cost: 0.25 } }, REPORT]),
    });
    const cost = f.ok(['cost', '--json']).json!.data.total;
    expect(cost).toMatchObject({ runs: 1, input_tokens: 1200, output_tokens: 300, cost_usd: 0.25 });
  });

  it(
    'a broken or hostile agent does no harm: garbage lines, unknown methods, a file read it was not offered, a ' +
      'flood of updates',
    () => {
      const f = base(config('copilot'));
      const script = [
        { garbage: 'this is not JSON-RPC {' },
        { unknown: 'sow/take_over' },
        { fsRead: '/etc/passwd' },
        { flood: 3000 },
        REPORT,
      ];
      f.ok(['agent', 'spawn', 'implementer', '010'], { FAKE_ACP_SCRIPT: JSON.stringify(script) });
      expect(f.task().status).toBe('needs_review');
      const steps = acpEvents(f.world.log).filter((e) => e.event === 'step');
      expect(steps.find((e) => e.step?.unknown)!.result.error.code).toBe(-32601);
      expect(steps.find((e) => e.step?.fsRead)!.result.error).toBeDefined();
      // The raw stream keeps what came; sow's own events have the flood as one message, not 3000 lines.
      const raw = f.ok(['agent', 'events', '010', '--raw']).stdout;
      expect(raw).toContain('this is not JSON-RPC {');
      const kinds = (f.ok(['agent', 'events', '010', '--json']).json!.data.events as { kind: string }[]).map(
        (e) => e.kind,
      );
      expect(kinds.filter((k) => k === 'message').length).toBeLessThan(5);
    },
  );

  it('an agent that exits in the middle of its turn fails the run (exit 5), the session kept', () => {
    const f = base(config('gemini'));
    const r = f.sow(['agent', 'spawn', 'implementer', '010'], { FAKE_ACP_SCRIPT: JSON.stringify([{ exit: 3 }]) });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^error: .*gemini \(Agent Client Protocol\) failed: /m);
    const t = f.task();
    expect([t.status, t.owner, typeof t.session_id]).toEqual(['in_progress', undefined, 'string']);
  });

  it('a type with no ACP transport is refused with the field to fix (exit 4), before anything starts', () => {
    const f = base(config('cursor'));
    const r = f.sow(['agent', 'spawn', 'implementer', '010']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/transport/);
    expect(f.world.calls()).toEqual([]);
  });
});

describe('what a safe worker cannot do over ACP, however it words it', () => {
  /** What the agent was answered for each step, and whether the step's effect happened. */
  const answers = (log: string) =>
    acpEvents(log)
      .filter(
        (e) =>
          e.event === 'step' && (e.step?.run !== undefined || e.step?.ask !== undefined || e.step?.edit !== undefined),
      )
      .map((e) => (e.result === 'refused' ? 'refused' : 'allowed'));

  it(
    'a command is judged as the shell parses it: sow behind a Unicode space, a path or a look-alike shell ' +
      'runs nothing',
    () => {
      const f = base(config('claude'));
      // The repository carries folders whose names begin with sow and an odd space: `sow\v/..` is a path the shell
      // follows.
      for (const name of ['sow\v', 'sow\u3000', 'sow\u00a0']) mkdirSync(join(f.root, name, 'x'), { recursive: true });
      const up = '/..'.repeat(30);
      const marker = (n: number) => join(outside, `shell-${n}`);
      const script = [
        { run: `sow\v${up}/bin/sh -c 'id; touch ${marker(1)} | cat'` },
        { run: `sow\u3000${up}/bin/sh -c 'touch ${marker(2)}'` },
        { run: `sow\u00a0${up}/bin/sh -c 'touch ${marker(3)}'` },
        // An argv no shell reads: its first word is the program.
        {
          ask: {
            kind: 'execute',
            title: 'Run',
            rawInput: { command: [`sow\v${up}/bin/sh`, '-c', `touch ${marker(4)}`] },
          },
          then: `touch ${marker(4)}`,
        },
        // A "shell" of the worker's own making, handed a script that is sow.
        {
          ask: { kind: 'execute', title: 'Run', rawInput: { command: [join(f.root, 'x/bash'), '-lc', 'sow status'] } },
          then: `touch ${marker(5)}`,
        },
        { run: 'sow status' },
        REPORT,
      ];
      const r = f.ok(['agent', 'spawn', 'implementer', '010', '--json'], { FAKE_ACP_SCRIPT: JSON.stringify(script) });
      for (let n = 1; n <= 5; n++) expect(existsSync(marker(n)), `command ${n} did not run`).toBe(false);
      expect(answers(f.world.log)).toEqual([
        'refused',
        'refused',
        'refused',
        'refused',
        'refused',
        'allowed',
        'allowed',
      ]);
      const reasons = (r.json!.data.denials as { reason: string }[]).map((d) => d.reason);
      expect(reasons.slice(0, 3)).toEqual([
        'it is not one plain command: the shell would see a control character (U+000B)',
        expect.stringMatching(
          /^it is not one plain command: the shell would see an invisible or Unicode space character \(U\+3000\)/,
        ),
        expect.stringMatching(/U\+00A0/),
      ]);
      expect(f.task().status).toBe('needs_review');
    },
  );

  it('reads and searches are judged on every value that may name a file, whatever the agent calls it', () => {
    const f = base(config('claude'));
    writeFileSync(join(outside, 'secret'), 'secret\n');
    const reads: unknown[] = [
      { paths: ['/etc/passwd'] },
      { absolute_path: join(outside, 'secret') },
      { file: '../../x' },
      { pattern: '/etc/**' },
      { glob: '../**' },
      { include: '~/x' },
      { args: { dir: '/' } },
    ];
    const marker = (n: number) => join(outside, `read-${n}`);
    const script = [
      ...reads.map((rawInput, n) => ({
        ask: { kind: n % 2 ? 'search' : 'read', title: 'Look', rawInput },
        then: `touch ${marker(n)}`,
      })),
      { ask: { kind: 'search', title: 'Find', rawInput: { pattern: 'src/**/*.ts' } }, then: `touch ${marker(99)}` },
      REPORT,
    ];
    f.ok(['agent', 'spawn', 'implementer', '010'], { FAKE_ACP_SCRIPT: JSON.stringify(script) });
    reads.forEach((_, n) => expect(existsSync(marker(n)), JSON.stringify(reads[n])).toBe(false));
    expect(existsSync(marker(99)), 'a search inside the repository is allowed').toBe(true);
    expect(answers(f.world.log)).toEqual([...reads.map(() => 'refused'), 'allowed', 'allowed']);
  });

  it(
    'a safe worker changes no file that gives rights or runs commands: .git anywhere, .sow/config.yaml, the agent ' +
      'CLIs’ settings; nor through a link',
    () => {
      const f = base(config('claude'));
      f.repo.write('sub/.git/hooks/.keep', '');
      f.repo.write('.claude/.keep', '');
      mkdirSync(join(outside, 'deep'));
      // A link met before `..`: the text says "inside", the system writes outside.
      symlinkSync(join(outside, 'deep'), join(f.root, 'lnk'));
      symlinkSync('.git/config', join(f.root, 'cfg'));
      const before = f.repo.exists('.sow/config.yaml') ? f.repo.read('.sow/config.yaml') : undefined;
      const gitConfig = readFileSync(join(f.root, '.git/config'), 'utf8');
      const script = [
        { edit: '.sow/config.yaml', text: 'checks: []\n' },
        { edit: '.claude/settings.local.json', text: '{"permissions":{"allow":["Bash"]}}\n' },
        { edit: 'sub/.git/hooks/post-checkout', text: '#!/bin/sh\n' },
        { edit: 'cfg', text: '[core]\n\tfsmonitor = id\n' },
        {
          ask: { kind: 'edit', title: 'Write', rawInput: { file_path: `${f.root}/lnk/../escaped.txt` } },
          then: `echo x > '${f.root}/lnk/../escaped.txt'`,
        },
        { edit: 'AGENTS.md', text: 'instructions stay editable\n' },
        REPORT,
      ];
      const r = f.ok(['agent', 'spawn', 'implementer', '010', '--json'], { FAKE_ACP_SCRIPT: JSON.stringify(script) });
      expect(answers(f.world.log)).toEqual([
        'refused',
        'refused',
        'refused',
        'refused',
        'refused',
        'allowed',
        'allowed',
      ]);
      expect(f.repo.exists('.sow/config.yaml') ? f.repo.read('.sow/config.yaml') : undefined).toBe(before);
      expect(f.repo.exists('.claude/settings.local.json')).toBe(false);
      expect(f.repo.exists('sub/.git/hooks/post-checkout')).toBe(false);
      expect(readFileSync(join(f.root, '.git/config'), 'utf8')).toBe(gitConfig);
      expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
      expect(f.repo.read('AGENTS.md')).toBe('instructions stay editable\n');
      expect((r.json!.data.denials as { reason: string }[]).map((d) => d.reason)).toEqual([
        expect.stringMatching(/^\.sow\/config\.yaml is protected/),
        expect.stringMatching(/^\.claude\/settings\.local\.json is protected: it is an agent CLI's own settings/),
        expect.stringMatching(/^sub\/\.git\/hooks\/post-checkout is git's own/),
        expect.stringMatching(/^\.git\/config is git's own/),
        expect.stringMatching(/^it changes files outside the repository/),
      ]);
    },
  );
});

describe('agent resume over ACP', () => {
  it('continues the session with session/load when the agent can', () => {
    const f = base(config('claude'));
    f.ok(['agent', 'spawn', 'implementer', '010'], { FAKE_ACP_SCRIPT: JSON.stringify([REPORT]) });
    const first = f.task().session_id;
    f.ok(['agent', 'resume', '010', 'Please also log your work'], { FAKE_ACP_SCRIPT: JSON.stringify([REPORT]) });
    const load = acpEvents(f.world.log).find((e) => e.event === 'session/load')!;
    expect([load.params.sessionId, load.known]).toEqual([first, true]);
    const t = f.task();
    expect([t.session_id, t.iteration, t.status]).toEqual([first, 2, 'needs_review']);
    expect(acpEvents(f.world.log).filter((e) => e.event === 'session/new')).toHaveLength(1);
  });

  it('hands the task to a fresh session with a brief when the agent cannot continue it (Gemini)', () => {
    const f = base(config('gemini'));
    f.ok(['agent', 'spawn', 'implementer', '010'], { FAKE_ACP_SCRIPT: JSON.stringify([REPORT]) });
    const first = f.task().session_id;
    const r = f.ok(['agent', 'resume', '010', 'Please also log your work'], {
      FAKE_ACP_SCRIPT: JSON.stringify([REPORT]),
    });
    expect(r.stderr).toMatch(/could not resume session|could not continue session/);
    const t = f.task();
    expect(t.session_id).not.toBe(first);
    expect(t.handoffs).toEqual([expect.objectContaining({ from_session: first, reason: 'session_gone' })]);
    const prompts = acpEvents(f.world.log).filter((e) => e.event === 'prompt');
    expect(prompts.at(-1)!.text).toContain('Please also log your work');
    expect(prompts.at(-1)!.text).toContain('You take over task 010');
  });
});

describe('agent stop over ACP', () => {
  it('asks the agent to stop (session/cancel) before it is ended; the task is paused', async () => {
    const f = base(config('claude'));
    const go = join(f.world.root, 'go');
    f.ok(['agent', 'spawn', 'implementer', '010', '--detach'], {
      FAKE_ACP_SCRIPT: JSON.stringify([{ say: 'waiting' }, { wait: go }, REPORT]),
    });
    await until(
      () => acpEvents(f.world.log).some((e) => e.event === 'step' && e.step?.say),
      'the agent is in its turn',
    );
    const r = f.ok(['agent', 'stop', '010']);
    expect(r.stdout).toMatch(/task 010 is paused/);
    const log = acpEvents(f.world.log);
    expect(log.some((e) => e.event === 'cancel')).toBe(true);
    expect(log.find((e) => e.event === 'stop')).toMatchObject({ stopReason: 'cancelled' });
    expect(f.task().status).toBe('paused');
    writeFileSync(go, '');
  });
});

describe('ending an agent over ACP', () => {
  /** A process that has not ended (one ended but not yet reaped, a zombie, has). */
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return !existsSync('/proc');
    }
  };
  it(
    "ends an agent that outlives its stdin and ignores TERM, behind a wrapper that passes no signal on (Codex's " +
      'adapter, Gemini CLI): its whole process group',
    async () => {
      const f = base(config('codex'));
      // As the real adapter is: a node script that runs the agent with spawnSync and inherited stdio.
      const wrapper = join(f.world.bin, 'codex-acp');
      writeFileSync(
        wrapper,
        `#!${process.execPath}\nconst { spawnSync } = require('node:child_process');\nconst r = ` +
          `spawnSync(${JSON.stringify(process.execPath)}, [${JSON.stringify(FAKE)}, 'codex-acp', ` +
          `...process.argv.slice(2)], { stdio: 'inherit' });\nprocess.exit(r.status ?? 1);\n`,
      );
      chmodSync(wrapper, 0o755);
      const env = cleanEnv({
        ...f.world.env,
        FAKE_ACP_SCRIPT: JSON.stringify([REPORT]),
        FAKE_ACP_LINGER: '1',
        CODEX_API_KEY: 'test',
      });
      const child = spawn(process.execPath, [SOW, 'agent', 'spawn', 'implementer', '010', '--json'], {
        cwd: f.root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      let code: number | null | undefined;
      child.on('close', (c) => (code = c));
      const agents = () =>
        acpEvents(f.world.log)
          .filter((e) => e.event === 'start')
          .map((e) => e.pid);
      try {
        await until(() => code !== undefined, 'sow to end the agent and exit', 60_000);
        expect(code, stderr).toBe(0);
        expect(f.task().status).toBe('needs_review');
        expect(
          acpEvents(f.world.log).some((e) => e.event === 'linger'),
          'the agent stayed after its stdin closed',
        ).toBe(true);
        expect(agents().length).toBe(1);
        await until(() => !agents().some(alive), 'the agent to be gone', 30_000);
      } finally {
        child.kill('SIGKILL');
        for (const pid of agents()) if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
    },
  );
});
