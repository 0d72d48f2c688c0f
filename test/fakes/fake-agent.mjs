#!/usr/bin/env node
/**
 * A strict fake of the agent CLIs sow drives (claude, cursor-agent, codex, gemini, copilot,
 * opencode, windsurf, and a generic "my-agent"); in ACP mode (`gemini --acp`, `copilot --acp`,
 * `opencode acp`, `claude-agent-acp`, `codex-acp`) it hands over to fake-acp-agent.mjs, the fake
 * ACP agent. It records what it was given (argv, stdin, cwd, the SOW_* environment) to
 * $FAKE_AGENT_LOG as one JSON line, refuses flags the real CLI does not have, keeps sessions like
 * the real one (in $FAKE_AGENT_HOME), prints events in the CLI's JSON format, and calls `sow` back
 * the way a worker would.
 *
 * Behaviour knobs (environment):
 *   FAKE_AGENT_SCRIPT  JSON list of sow argv lists to run instead of the default
 *   FAKE_AGENT_FAIL    exit with this code after printing an error on stderr
 *   FAKE_AGENT_DENY    JSON list of shell commands the worker tried and the CLI refused: each is
 *                      reported in that CLI's own shape (the real ones are in test/fixtures/denials)
 *   FAKE_AGENT_HELP_WITHOUT  comma-separated flags `--help` leaves out (an older CLI, for sow doctor)
 *   FAKE_AGENT_USAGE   JSON {input, output, cost}: what the run used, reported in the CLI's own fields
 *   FAKE_AGENT_EXIT_AFTER  exit with this code after the closing event that says the run succeeded
 *                      (a CLI that fails after it printed its result)
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

const [cli, ...args] = process.argv.slice(2);

// Started in ACP mode, the agent serves the Agent Client Protocol on stdio instead: the fake ACP
// agent takes over (before stdin is read, as that is where the client speaks).
const acpMode =
  ((cli === 'gemini' || cli === 'copilot') && args.includes('--acp')) ||
  (cli === 'opencode' && args[0] === 'acp') ||
  cli === 'claude-agent-acp' ||
  cli === 'codex-acp';
if (acpMode) {
  const { main } = await import('./fake-acp-agent.mjs');
  process.exit(await main(cli, args));
}
const home = process.env.FAKE_AGENT_HOME ?? '/tmp/fake-agent-home';
mkdirSync(home, { recursive: true });
const stdin = (() => {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
})();

function fail(message, code = 2) {
  process.stderr.write(`${cli}: ${message}\n`);
  process.exit(code);
}

/** Parses argv against the flags this CLI really has; anything else is refused, like the real CLI. */
function parse(spec, argv) {
  const out = { flags: {}, positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('-') && a !== '-') {
      const [name, inline] = a.split('=', 2);
      if (!(name in spec)) fail(`unknown option '${name}'`);
      if (spec[name]) out.flags[name] = inline ?? argv[++i];
      else out.flags[name] = true;
    } else out.positional.push(a);
  }
  return out;
}

const SPECS = {
  claude: {
    '--print': false,
    '-p': false,
    '--output-format': true,
    '--verbose': false,
    '--session-id': true,
    '--resume': true,
    '-r': true,
    '--model': true,
    '--dangerously-skip-permissions': false,
    '--allowedTools': true,
    '--permission-mode': true,
    '--setting-sources': true,
    '--strict-mcp-config': false,
    '--settings': true,
  },
  'cursor-agent': {
    '-p': false,
    '--print': false,
    '--output-format': true,
    '--resume': true,
    '--model': true,
    '--force': false,
    '--sandbox': true,
  },
  codex: {
    '--json': false,
    '-C': true,
    '-m': true,
    '-c': true,
    '--dangerously-bypass-approvals-and-sandbox': false,
    '--ignore-rules': false,
  },
  gemini: {
    '-p': true,
    '--prompt': true,
    '--output-format': true,
    '-o': true,
    '--session-id': true,
    '--resume': true,
    '-r': true,
    '-m': true,
    '--yolo': false,
    '-y': false,
    '--policy': true,
    '--approval-mode': true,
  },
  copilot: {
    '-p': true,
    '--session-id': true,
    '--output-format': true,
    '--model': true,
    '--allow-all-tools': false,
    '--allow-tool': true,
    '-C': true,
    '--disallow-temp-dir': false,
  },
  opencode: { '--format': true, '--dir': true, '--session': true, '-s': true, '-m': true, '--auto': false },
  windsurf: { '--cascade': false },
  'my-agent': { '--session': true, '--resume': true, '--prompt-file': true },
};

// `--help` and `--version`, as `sow doctor` asks them (never logged: no worker runs). The help
// lists the flags this fake accepts; FAKE_AGENT_HELP_WITHOUT (comma-separated flags) leaves some
// out, as an older CLI's help would.
if (args.includes('--help')) {
  const without = new Set((process.env.FAKE_AGENT_HELP_WITHOUT ?? '').split(',').filter(Boolean));
  const lines = Object.entries(SPECS[cli] ?? {})
    .filter(([flag]) => !without.has(flag))
    .map(([flag, value]) => `  ${flag}${value ? ' <value>' : ''}`);
  process.stdout.write(
    `Usage: ${cli} [options]\n\nOptions:\n${lines.join('\n')}\n  -h, --help  display help for command\n`,
  );
  process.exit(0);
}
if (args[0] === '--version') {
  process.stdout.write(`${cli} 0.0.0 (fake)\n`);
  process.exit(0);
}

// One file per session, as several fake agents run at once (parallel workers): a shared file
// written whole by each would lose the sessions of the others.
const sessionsDir = join(home, `${cli}-sessions`);
mkdirSync(sessionsDir, { recursive: true });
const sessionFile = (id) => join(sessionsDir, `${encodeURIComponent(id)}.json`);
const loaded = {};
for (const name of readdirSync(sessionsDir)) {
  if (!name.endsWith('.json')) continue;
  loaded[decodeURIComponent(name.slice(0, -5))] = readFileSync(join(sessionsDir, name), 'utf8');
}
const sessions = Object.fromEntries(Object.entries(loaded).map(([id, text]) => [id, JSON.parse(text)]));
/** Writes the sessions this run changed (each to its own file, whole: temp file and rename). */
const saveSessions = () => {
  for (const [id, session] of Object.entries(sessions)) {
    const text = JSON.stringify(session);
    if (loaded[id] === text) continue;
    const tmp = `${sessionFile(id)}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, sessionFile(id));
  }
};
const emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

let sessionId;
let resuming = false;
let promptText = stdin;

switch (cli) {
  case 'claude': {
    const p = parse(SPECS.claude, args);
    if (!p.flags['--print'] && !p.flags['-p']) fail('interactive mode needs a terminal');
    if (p.flags['--output-format'] === 'stream-json' && !p.flags['--verbose'])
      fail('--output-format=stream-json requires --verbose');
    if (p.flags['--dangerously-skip-permissions'] && process.getuid?.() === 0 && process.env.IS_SANDBOX !== '1')
      fail('--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons', 1);
    const resume = p.flags['--resume'] ?? p.flags['-r'];
    if (resume) {
      if (!sessions[resume] || sessions[resume].cwd !== process.cwd())
        fail(`No conversation found with session ID: ${resume}`, 1);
      sessionId = resume;
      resuming = true;
    } else {
      sessionId = p.flags['--session-id'] ?? randomUUID();
      if (!/^[0-9a-f-]{36}$/.test(sessionId)) fail('Invalid session ID. Must be a valid UUID.', 1);
      if (sessions[sessionId]) fail(`Session ID ${sessionId} is already in use.`, 1);
    }
    emit({
      type: 'system',
      subtype: 'init',
      session_id: sessionId,
      cwd: process.cwd(),
      model: p.flags['--model'] ?? 'fake-model',
      tools: ['Bash'],
    });
    break;
  }
  case 'cursor-agent': {
    if (args[0] === 'create-chat') {
      const id = randomUUID();
      sessions[id] = { cwd: null, created: true };
      saveSessions();
      process.stdout.write(`${id}\n`);
      process.exit(0);
    }
    const p = parse(SPECS['cursor-agent'], args);
    if (!p.flags['-p'] && !p.flags['--print']) fail('interactive mode needs a terminal');
    sessionId = p.flags['--resume'];
    if (!sessionId || !sessions[sessionId]) fail(`chat ${sessionId} not found`, 1);
    resuming = sessions[sessionId].cwd !== null;
    emit({ type: 'system', subtype: 'init', session_id: sessionId });
    break;
  }
  case 'codex': {
    if (args[0] !== 'exec') fail('only exec is faked');
    let rest = args.slice(1);
    if (rest[0] === 'resume') {
      resuming = true;
      rest = rest.slice(1);
    }
    const p = parse(SPECS.codex, rest);
    if (resuming && p.flags['-C']) fail("unexpected argument '-C' found");
    if (!p.flags['--json']) fail('fake codex needs --json');
    if (resuming) {
      sessionId = p.positional[0];
      // As the real codex says it (test/fixtures/agent-help/codex@*__resume-session-gone.stderr.txt).
      if (!sessions[sessionId])
        fail(
          `Error: thread/resume: thread/resume failed: no rollout found for thread id ${sessionId} (code -32600)`,
          1,
        );
      if (p.positional[1] !== '-') fail('expected - to read the prompt from stdin');
    } else {
      if (p.positional[0] !== '-') fail('expected - to read the prompt from stdin');
      sessionId = `thread-${randomUUID()}`;
    }
    emit({ type: 'thread.started', thread_id: sessionId });
    break;
  }
  case 'gemini': {
    const p = parse(SPECS.gemini, args);
    // Like the real CLI: stdin is put in front of a -p text; with no -p the piped stdin is the prompt.
    const prompt = p.flags['-p'] ?? p.flags['--prompt'];
    promptText = prompt === undefined ? stdin : `${stdin}\n\n${prompt}`;
    if (!promptText.trim()) fail('no prompt: pass -p or pipe one on stdin');
    const resume = p.flags['--resume'] ?? p.flags['-r'];
    if (resume) {
      sessionId = resume;
      if (!sessions[sessionId] || sessions[sessionId].cwd !== process.cwd())
        fail('Error resuming session: No previous sessions found for this project.', 42);
      resuming = true;
    } else {
      sessionId = p.flags['--session-id'];
      if (!sessionId) fail('fake gemini needs --session-id');
      if (sessions[sessionId]) fail(`session ${sessionId} exists`, 1);
    }
    if (
      !p.flags['--yolo'] &&
      !p.flags['-y'] &&
      !(p.flags['--policy'] && /commandPrefix = "sow"/.test(readFileSync(p.flags['--policy'], 'utf8')))
    ) {
      fail('headless without --yolo or a policy allowing run_shell_command(sow): the shell tool is not offered', 4);
    }
    emit({ type: 'init', session_id: sessionId, model: p.flags['-m'] ?? 'gemini-fake' });
    break;
  }
  case 'copilot': {
    // --resume takes an optional value: only --resume=<id> names a session.
    const resumeArg = args.find((a) => a.startsWith('--resume'));
    if (resumeArg && !resumeArg.startsWith('--resume='))
      fail('--resume without =<id> opens the session picker, which needs a terminal');
    const p = parse(
      SPECS.copilot,
      args.filter((a) => a !== resumeArg),
    );
    // With -p, stdin is ignored; without it, piped stdin is the prompt.
    promptText = p.flags['-p'] ?? stdin;
    if (!promptText.trim()) fail('no prompt');
    if (resumeArg) {
      sessionId = resumeArg.slice('--resume='.length);
      if (!sessions[sessionId]) fail(`session ${sessionId} not found`, 1);
      resuming = true;
    } else {
      sessionId = p.flags['--session-id'];
      if (!sessionId || sessions[sessionId]) fail('need a new --session-id', 1);
    }
    if (p.flags['-C'] && p.flags['-C'] !== process.cwd()) fail('fake copilot expects -C to be the cwd sow gives it');
    break;
  }
  case 'opencode': {
    if (args[0] !== 'run') fail('only run is faked');
    const p = parse(SPECS.opencode, args.slice(1));
    if (p.flags['--format'] !== 'json') fail('fake opencode needs --format json');
    const resume = p.flags['--session'] ?? p.flags['-s'];
    if (resume) {
      if (!sessions[resume]) fail('\x1b[91m\x1b[1mError: \x1b[0mSession not found', 1);
      if (sessions[resume].cwd !== process.cwd())
        fail('resumed from another directory (the real opencode hangs here)', 1);
      sessionId = resume;
      resuming = true;
    } else sessionId = `ses_${randomUUID().replaceAll('-', '')}`;
    emit({ type: 'step_start', sessionID: sessionId, part: { sessionID: sessionId, type: 'step-start' } });
    break;
  }
  case 'windsurf': {
    parse(SPECS.windsurf, args);
    break;
  }
  case 'my-agent': {
    const p = parse(SPECS['my-agent'], args);
    if (p.flags['--prompt-file']) promptText = readFileSync(p.flags['--prompt-file'], 'utf8');
    if (p.flags['--resume']) {
      sessionId = p.flags['--resume'];
      if (!sessions[sessionId]) fail(`session ${sessionId} not found`, 1);
      resuming = true;
    } else sessionId = p.flags['--session'];
    break;
  }
  default:
    fail(`no fake for ${cli}`);
}

if (process.env.FAKE_AGENT_LOG) {
  appendFileSync(
    process.env.FAKE_AGENT_LOG,
    `${JSON.stringify({
      cli,
      pid: process.pid,
      argv: args,
      stdin,
      prompt: promptText,
      cwd: process.cwd(),
      resuming,
      session: sessionId ?? null,
      env: Object.fromEntries(
        Object.entries(process.env).filter(
          ([k]) => k.startsWith('SOW_') || k === 'IS_SANDBOX' || k.startsWith('OPENCODE_'),
        ),
      ),
    })}\n`,
  );
}

const denied = process.env.FAKE_AGENT_DENY ? JSON.parse(process.env.FAKE_AGENT_DENY) : [];
for (const [i, command] of denied.entries()) {
  const id = `call_denied_${i}`;
  if (cli === 'gemini') {
    emit({
      type: 'tool_use',
      tool_name: 'run_shell_command',
      tool_id: id,
      parameters: { command, description: 'Run a command' },
    });
    emit({
      type: 'tool_result',
      tool_id: id,
      status: 'error',
      output: 'Tool execution denied by policy.',
      error: { type: 'policy_violation', message: 'Tool execution denied by policy.' },
    });
  } else if (cli === 'copilot') {
    emit({
      type: 'tool.execution_start',
      data: { toolCallId: id, toolName: 'bash', arguments: { command, description: 'Run a command' } },
    });
    emit({
      type: 'tool.execution_complete',
      data: {
        toolCallId: id,
        success: false,
        error: { message: 'Permission denied because no interactive user response was available.', code: 'denied' },
      },
    });
  } else if (cli === 'opencode') {
    emit({
      type: 'tool_use',
      sessionID: sessionId,
      part: {
        type: 'tool',
        tool: 'bash',
        callID: id,
        state: {
          status: 'error',
          input: { command },
          error: 'The user rejected permission to use this specific tool call.',
        },
      },
    });
  } else if (cli === 'cursor-agent') {
    emit({
      type: 'tool_call',
      subtype: 'started',
      call_id: id,
      tool_call: { shellToolCall: { args: { command } } },
      session_id: sessionId,
    });
    emit({
      type: 'tool_call',
      subtype: 'completed',
      call_id: id,
      tool_call: {
        shellToolCall: {
          args: { command },
          result: { rejected: { command, workingDirectory: process.cwd(), reason: '', isReadonly: false } },
        },
      },
      session_id: sessionId,
    });
  } else if (cli === 'codex') {
    // Codex says nothing in its events; its stderr logs a refused escalation, without the command.
    process.stderr.write(
      `2026-01-01T00:00:00.000000Z ERROR codex_core::tools::router: error=approval policy is Never; reject command ` +
        `— you cannot ask for escalated permissions if the approval policy is Never\n`,
    );
  }
}
const claudeDenials =
  cli === 'claude' && denied.length
    ? {
        permission_denials: denied.map((command, i) => ({
          tool_name: 'Bash',
          tool_use_id: `toolu_denied_${i}`,
          tool_input: { command, description: 'Run a command' },
        })),
      }
    : {};
if (process.env.FAKE_AGENT_FAIL && cli === 'claude' && denied.length)
  emit({ type: 'result', subtype: 'success', is_error: true, ...claudeDenials });

if (process.env.FAKE_AGENT_FAIL) {
  process.stderr.write(`${cli}: API Error: 529 overloaded (fake)\n`);
  process.exit(Number(process.env.FAKE_AGENT_FAIL));
}

if (sessionId && cli !== 'windsurf') {
  sessions[sessionId] = { cwd: process.cwd(), turns: (sessions[sessionId]?.turns ?? 0) + 1 };
  saveSessions();
}

function sow(argv) {
  emit(
    cli === 'codex'
      ? { type: 'item.started', item: { type: 'command_execution', command: `sow ${argv.join(' ')}` } }
      : {
          type: 'assistant',
          message: { content: [{ type: 'tool_use', name: 'Bash', input: { command: `sow ${argv.join(' ')}` } }] },
        },
  );
  const r = spawnSync('sow', argv, { encoding: 'utf8', env: process.env });
  if (r.status !== 0) fail(`sow ${argv.join(' ')} failed (${r.status}): ${r.stderr}`, 3);
}

const task = process.env.SOW_TASK_ID;
const script = process.env.FAKE_AGENT_SCRIPT
  ? JSON.parse(process.env.FAKE_AGENT_SCRIPT)
  : task
    ? resuming
      ? [
          ['log', '--action', 'modified_file', '--result', 'success', '--file', 'src/fix.ts', 'Addressed the feedback'],
          ['task', 'set', 'status', 'needs_review'],
        ]
      : [
          ['prompt', 'guidance/implementer/base'],
          ['log', '--action', 'started_task', '--result', 'success', '--file', 'src/feature.ts', 'Started'],
          ['task', 'set', 'status', 'needs_review'],
        ]
    : [['log', '--project', '--action', 'research', '--result', 'success', 'Looked around']];
/**
 * Script steps: a sow argv list; {wait: path} (until the file exists, at most 30 s); {touch: path}
 * (create it, to signal the test); {try: argv, out: path, env?, unset?} (run sow — with `env`
 * added to the worker's environment and the names in `unset` removed — write {code, stdout,
 * stderr} to out, and go on whatever it exits with: a late worker whose write is refused, a worker
 * trying what it may not); {append: path, text} (add text to a file, as the worker's edit tool);
 * {leave: path} (start a process that outlives this one holding its stdout and stderr — a server
 * started in the background — and write its pid to path).
 */
for (const step of script) {
  if (Array.isArray(step)) sow(step);
  else if (step.wait) {
    const until = Date.now() + 30_000;
    // Blocks this thread for 50 ms between looks without starting a process (a `sleep` for each look cost a fork).
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (!existsSync(step.wait) && Date.now() < until) Atomics.wait(pause, 0, 0, 50);
  } else if (step.touch) writeFileSync(step.touch, '');
  else if (step.append) appendFileSync(step.append, step.text);
  else if (step.leave) {
    const left = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    left.unref();
    writeFileSync(step.leave, String(left.pid));
  } else if (step.try) {
    const env = { ...process.env, ...step.env };
    for (const name of step.unset ?? []) delete env[name];
    const r = spawnSync('sow', step.try, { encoding: 'utf8', env });
    writeFileSync(step.out, JSON.stringify({ code: r.status, stdout: r.stdout, stderr: r.stderr }));
  }
}
// What the run used, in each CLI's own fields (the shapes of test/fixtures/agent-help/*events-sample*).
const usage = process.env.FAKE_AGENT_USAGE ? JSON.parse(process.env.FAKE_AGENT_USAGE) : undefined;
const usageFields = !usage
  ? {}
  : cli === 'claude'
    ? {
        total_cost_usd: usage.cost,
        usage: { input_tokens: usage.input, cache_read_input_tokens: 0, output_tokens: usage.output },
      }
    : cli === 'codex'
      ? { usage: { input_tokens: usage.input, cached_input_tokens: 0, output_tokens: usage.output } }
      : cli === 'gemini'
        ? {
            stats: {
              total_tokens: usage.input + usage.output,
              input_tokens: usage.input,
              output_tokens: usage.output,
              cached: 0,
            },
          }
        : {};
if (usage && cli === 'opencode')
  emit({
    type: 'step_finish',
    part: {
      type: 'step-finish',
      reason: 'stop',
      tokens: { total: usage.input + usage.output, input: usage.input, output: usage.output },
      cost: usage.cost,
    },
  });
emit(
  cli === 'codex'
    ? { type: 'turn.completed', ...usageFields }
    : {
        type: 'result',
        subtype: 'success',
        is_error: false,
        num_turns: script.length,
        result: 'done',
        ...(cli === 'copilot' ? { sessionId } : {}),
        ...claudeDenials,
        ...usageFields,
      },
);
if (process.env.FAKE_AGENT_EXIT_AFTER) {
  process.stderr.write(`${cli}: failed after its result (fake)\n`);
  process.exit(Number(process.env.FAKE_AGENT_EXIT_AFTER));
}
