/**
 * One agent end to end through sow over the Agent Client Protocol (`transport: acp`, permissions:
 * safe): a temp git repo with one approved task, `sow agent spawn implementer 010 --json` with a
 * prompt that asks the scripted model for the ACP script — (a) sow's `status` through the `sow mcp`
 * server sow handed over in session/new, (b) `sow task set --id 010 status needs_review`, which the
 * safe profile allows, (c) `touch` a file outside the repository and outside /tmp, which it refuses
 * (last: a refusal ends Codex's turn) — then `sow agent resume 010 "Please also log your work"`
 * (session/load; an agent that cannot load hands off to a fresh session).
 *
 * Returns { spawn, granted, refused, mcp, resume } each { ok, text } (text: what to print in the
 * table), plus details: string[].
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { acpPrompt, FINAL_TEXT, RESUME_COMMANDS, RESUME_MARKER, SPAWN_COMMANDS } from './brain.mjs';
import { bindImplementer, executingRepo, GIT_ENV, stepsIn } from './scenario.mjs';
import { run, stripAnsi, tail } from './util.mjs';

/**
 * What each CLI needs on top of its setup (setups.mjs) to run over ACP here; `notes` say why.
 * `executor(prepared)` → the executor config; `env(prepared, dirs)` → extra environment.
 */
export const ACP_RUNS = {
  claude: {
    executor: (p) => ({
      ...p.executor,
      transport: 'acp',
      settings: { permissions: 'safe', model: p.executor.settings.model },
    }),
    // The adapter runs the Claude Code its SDK bundles unless told which one to run: the pinned one.
    env: ({ binDir }) => ({ CLAUDE_CODE_EXECUTABLE: join(binDir, 'claude') }),
    notes: ['Claude Code 2.1.197 (CLAUDE_CODE_EXECUTABLE) through @zed-industries/claude-agent-acp 0.23.1'],
  },
  codex: {
    // Its safe sandbox (workspace-write) needs bubblewrap, which this machine lacks: sow's profile
    // alone decides here, with Codex's sandbox off.
    executor: (p) => ({
      ...p.executor,
      transport: 'acp',
      settings: { permissions: 'safe', model: p.executor.settings.model },
      custom_args: [...p.executor.custom_args, '-c', 'sandbox_mode="danger-full-access"'],
    }),
    notes: [
      '@zed-industries/codex-acp 0.16.0 (its own Codex, not the pinned codex CLI)',
      'custom_args -c sandbox_mode="danger-full-access": Codex\'s workspace-write sandbox needs bubblewrap, which ' +
        "is not available here; sow's safe profile still answers every permission",
    ],
  },
  gemini: {
    // --skip-trust (from setups.mjs) also makes it start the MCP servers it is handed in an untrusted folder.
    executor: (p) => ({
      ...p.executor,
      transport: 'acp',
      settings: { permissions: 'safe', model: p.executor.settings.model },
    }),
    notes: ['custom_args --skip-trust: without it a new folder is untrusted and gemini starts no MCP server there'],
  },
  copilot: {
    executor: (p) => ({
      ...p.executor,
      transport: 'acp',
      settings: { permissions: 'safe', model: p.executor.settings.model },
    }),
    // It takes only http/sse MCP servers from a client, and says so in its own log only.
    mcpWhy: (home) => saidInLogs(join(home, 'copilot-home', 'logs'), /Rejecting non-http\/sse MCP server[^\n]*/),
    notes: [],
  },
  opencode: {
    // Its default model is a remote one: the config names the loopback provider's model.
    executor: (p) => ({
      ...p.executor,
      transport: 'acp',
      settings: { permissions: 'safe', model: p.executor.settings.model },
    }),
    env: ({ prepared }) => ({
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        ...JSON.parse(prepared.env.OPENCODE_CONFIG_CONTENT),
        model: prepared.executor.settings.model,
      }),
    }),
    notes: ['config model anthropic/claude-sonnet-4-5 (over ACP its default model is a remote one)'],
  },
};

/** The first line matching `re` in the .log files of a folder. */
function saidInLogs(dir, re) {
  if (!existsSync(dir)) return undefined;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.log'))) {
    const m = re.exec(readFileSync(join(dir, f), 'utf8'));
    if (m) return m[0].trim();
  }
  return undefined;
}

const outcome = (ok, text) => ({ ok, text: ok ? (text ?? 'ok') : `FAILED: ${text}` });

/**
 * opts: { cli, dir, env (for sow and the agent), executor, server, timeoutMs, log, outsideDir }
 * (the outside folder: outside the repository and outside /tmp, which Codex's sandbox may write)
 */
export async function runAcpScenario(opts) {
  const { cli, dir, env, executor, server, timeoutMs = 120_000, log, outsideDir } = opts;
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const fullEnv = { ...env, ...GIT_ENV };
  const details = [];
  const notRun = { ok: false, text: 'not run' };
  const result = { spawn: notRun, granted: notRun, refused: notRun, mcp: notRun, resume: notRun, details };
  const { step, must } = stepsIn(repo, fullEnv, log);
  await executingRepo(must);
  const name = `real-${cli}-acp`;
  bindImplementer(env, name, executor);
  const valid = await step('sow config validate', 'sow', ['config', 'validate']);
  if (valid.code !== 0) throw new Error(`sow config validate failed:\n${tail(valid.stdout + valid.stderr)}`);
  const state = JSON.parse((await must('sow', ['status', '--json'])).stdout).data;
  const stateName = state?.state ?? state?.project?.state;

  const task = async () => {
    const r = await run('sow', ['task', 'get', '--id', '010', '--json'], {
      cwd: repo,
      env: fullEnv,
      timeoutMs: 30_000,
    });
    try {
      return JSON.parse(r.stdout).data;
    } catch {
      return undefined;
    }
  };
  /** The raw ACP stream sow kept of a run (.git/sow/agent-outputs/010/*-<kind>.jsonl). */
  const rawOf = (kind) => {
    const outDir = join(repo, '.git/sow/agent-outputs/010');
    const files = existsSync(outDir)
      ? readdirSync(outDir)
          .filter((f) => f.endsWith(`-${kind}.jsonl`))
          .sort()
      : [];
    return files.length ? readFileSync(join(outDir, files.at(-1)), 'utf8') : '';
  };
  const mainRequests = (from) => server.requests.slice(from).filter((r) => r.kind === 'main');
  const requestSummary = (from) =>
    server.requests
      .slice(from)
      .map((r) => {
        const what = r.decision
          ? r.decision.kind === 'tool'
            ? `tool ${r.decision.step.kind === 'mcp' ? (r.mcpTool ?? '(none)') : r.shellTool} ` +
              `${JSON.stringify(r.decision.command)}`
            : 'final text'
          : '';
        const line =
          `      #${r.n} ${r.method} ${r.url}${r.upgrade ? ' (upgrade)' : ''}` +
          `${r.kind ? ` [${r.kind}${what ? `: ${what}` : ''}]` : ''}` +
          `${r.note ? ` — ${r.note.split('\n')[0]}` : ''}`;
        const last = r.decision?.results?.length
          ? r.decision.results.at(-1).replace(/\s+/g, ' ').trim().slice(0, 240)
          : '';
        return last ? `${line}\n          previous tool result: ${last}` : line;
      })
      .join('\n');
  const parse = (stdout) => {
    try {
      return JSON.parse(stdout);
    } catch {
      return undefined;
    }
  };

  // ---- spawn
  const forbiddenFile = join(outsideDir, `outside-acp-${cli}`);
  const plan = { forbidden: `touch ${forbiddenFile}` };
  const before = server.requests.length;
  const spawn = await step(
    'sow agent spawn implementer 010 --json --prompt <ACP script>',
    'sow',
    ['agent', 'spawn', 'implementer', '010', '--json', '--prompt', acpPrompt(plan)],
    {
      timeout: timeoutMs,
    },
  );
  const afterSpawn = await task();
  const reqs = mainRequests(before);
  const json = parse(spawn.stdout);
  const sessionId = afterSpawn?.session_id;
  const raw = rawOf('spawn');
  const spawnWhy = [];
  if (spawn.timedOut) spawnWhy.push(`timed out after ${timeoutMs / 1000} s (killed)`);
  else if (spawn.code !== 0) spawnWhy.push(`exit ${spawn.code}`);
  if (!sessionId) spawnWhy.push('no session_id recorded on the task');
  else if (!raw.includes(sessionId)) spawnWhy.push(`the ACP stream sow kept never mentions session ${sessionId}`);
  if (!reqs.length) spawnWhy.push('the model saw no main-loop request');
  const mcpNotes = server.requests.slice(before).find((r) => r.note?.startsWith('no shell tool'));
  if (!reqs.length && mcpNotes) spawnWhy.push(mcpNotes.note);
  result.spawn = outcome(!spawnWhy.length, spawnWhy.join('; ') || `exit 0, session ${sessionId}`);
  if (spawnWhy.length) result.spawn.text = `FAILED: ${spawnWhy.join('; ')}`;
  else result.spawn.text = 'ok';
  details.push(
    `spawn: exit ${spawn.code}; ` +
      `session ${sessionId ?? '(none)'}` +
      `${sessionId && raw.includes(sessionId) ? ' (in the ACP stream sow kept)' : ''}; ${reqs.length} ` +
      `main-loop request(s), ${server.requests.length - before} in all, ${(spawn.ms / 1000).toFixed(1)} s`,
  );
  const acpReqs = reqs.filter((r) => r.decision?.script === 'acp');
  if (reqs.length && !acpReqs.length)
    details.push(
      `spawn: the model never saw the ACP script's marker (scripts ` +
        `seen: ${[...new Set(reqs.map((r) => r.decision?.script))].join(', ')})`,
    );
  const asked = (kind) => acpReqs.find((r) => r.decision?.kind === 'tool' && r.decision.step.kind === kind);
  const askedCommand = (command) => acpReqs.find((r) => r.decision?.kind === 'tool' && r.decision.command === command);
  const lastReq = acpReqs.at(-1);
  const allResults = lastReq?.decision?.results ?? [];
  const stepsOf = (r) => (r?.decision?.kind === 'text' ? r.decision.steps : undefined);

  // (a) sow mcp: the tool was offered, called, and its result (the project state) reached the model.
  const offered = acpReqs[0]?.toolNames ?? [];
  const mcpReq = asked('mcp');
  if (!acpReqs.length) result.mcp = outcome(false, 'not reached (no ACP-script request)');
  else if (!mcpReq) {
    const sowish = offered.filter((n) => /sow|status/i.test(n));
    const why = ACP_RUNS[cli]?.mcpWhy?.(env.HOME);
    const none =
      `no sow MCP tool among the ${offered.length} tools the agent ` +
      `declared${sowish.length ? ` (closest: ${sowish.join(', ')})` : ''}`;
    // The agent itself refused the server sow handed over: a limit of the agent, said as such.
    result.mcp = why ? { ok: false, text: `unavailable: ${none}; its log: ${why}` } : outcome(false, none);
  } else {
    const i = mcpReq.decision.n;
    const after = acpReqs.find((r) => (r.decision?.results?.length ?? 0) > i);
    const text = after?.decision.results[i] ?? '';
    if (!after) result.mcp = outcome(false, `${mcpReq.mcpTool} called, but no later request carried its result`);
    else if (stateName && text.includes(stateName)) result.mcp = outcome(true, `ok (${mcpReq.mcpTool})`);
    else
      result.mcp = outcome(
        false,
        `${mcpReq.mcpTool} called; its result lacks the state ${stateName}: ${JSON.stringify(text.slice(0, 200))}`,
      );
    details.push(
      `sow mcp: the model called ${mcpReq.mcpTool}; result it got ` +
        `back: ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 200))}`,
    );
  }

  // (b) granted: the report through sow, which the safe profile allows.
  const reportReq = askedCommand(SPAWN_COMMANDS[0]);
  if (!reportReq) result.granted = outcome(false, 'the model never got to ask for the report');
  else if (afterSpawn?.status !== 'needs_review')
    result.granted = outcome(
      false,
      `\`${SPAWN_COMMANDS[0]}\` asked; task status is ${afterSpawn?.status ?? '(unreadable)'}, expected needs_review`,
    );
  else result.granted = outcome(true, `ok (${SPAWN_COMMANDS[0]})`);

  // (c) refused: the touch outside the repository.
  const denials = json?.data?.denials ?? [];
  // The denial names the command, or (opencode, which first asks to reach outside its folder) the folder.
  const named = denials.find((d) =>
    [d.input, d.tool].some((x) => typeof x === 'string' && (x.includes(forbiddenFile) || x.includes(outsideDir))),
  );
  if (!askedCommand(plan.forbidden))
    result.refused = outcome(false, 'the model never got to ask for the refused command');
  else if (existsSync(forbiddenFile)) result.refused = outcome(false, `NOT refused: ${forbiddenFile} exists`);
  else if (!json) result.refused = outcome(false, 'refused (no file), but sow printed no JSON result');
  else if (!named)
    result.refused = outcome(
      false,
      `refused (no file), but sow reported no denial naming it (denials: ${JSON.stringify(denials)})`,
    );
  else if (!/refused/.test(stripAnsi(spawn.stderr)))
    result.refused = outcome(false, 'the JSON result lists the denial but stderr says nothing');
  else
    result.refused = outcome(
      true,
      named.input.includes(forbiddenFile)
        ? 'ok (touch outside, reported)'
        : `ok (reported as ${named.kind} ${named.input})`,
    );
  if (named) details.push(`refused: sow reported ${JSON.stringify(named)}`);
  for (const l of stripAnsi(spawn.stderr)
    .split('\n')
    .filter((l) => /refused|declare|permissions: yolo/.test(l)))
    details.push(`  sow said: ${l.trim()}`);
  const finalSeen = lastReq?.decision?.kind === 'text';
  details.push(
    `spawn: ${allResults.length} tool result(s) reached the model${
      finalSeen
        ? `, then its final text (steps: ${stepsOf(lastReq)
            .map((s) => s.kind)
            .join(', ')})`
        : ' (the turn ended before the final text)'
    }; stop reason ${/the turn ended: (\w+)/.exec(readEvents(repo, 'spawn'))?.[1] ?? '(none recorded)'}`,
  );
  if (!result.spawn.ok || !result.granted.ok || !result.refused.ok || !result.mcp.ok) {
    details.push(`  sow stderr (tail):\n${tail(spawn.stderr, 25)}`);
    details.push(`  requests:\n${requestSummary(before) || '      (none)'}`);
  }
  if (!result.spawn.ok || !sessionId) {
    result.resume = { ok: false, text: 'not run (spawn failed)' };
    return result;
  }

  // ---- resume
  const mid = server.requests.length;
  const resume = await step(
    `sow agent resume 010 "${RESUME_MARKER}" --json`,
    'sow',
    ['agent', 'resume', '010', RESUME_MARKER, '--json'],
    { timeout: timeoutMs },
  );
  const afterResume = await task();
  const rreqs = mainRequests(mid);
  const rwhy = [];
  const notes = [];
  if (resume.timedOut) rwhy.push(`timed out after ${timeoutMs / 1000} s (killed)`);
  else if (resume.code !== 0) rwhy.push(`exit ${resume.code}`);
  if (afterResume?.status !== 'needs_review')
    rwhy.push(`task status ${afterResume?.status ?? '(unreadable)'}, expected needs_review`);
  if (afterResume?.iteration !== 2) rwhy.push(`iteration ${afterResume?.iteration}, expected 2`);
  const logFile = join(repo, '.sow/project/phases/implementation/tasks/010/log.md');
  const logText = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
  if (!/completed_task/.test(logText) || !/hello/.test(logText))
    rwhy.push('log.md has no completed_task entry with "hello"');
  const commandsRun = rreqs.filter((r) => r.decision?.kind === 'tool').map((r) => r.decision.command);
  for (const c of RESUME_COMMANDS) if (!commandsRun.includes(c)) rwhy.push(`the model never got to ask for \`${c}\``);
  const handoffs = afterResume?.handoffs ?? [];
  const handedOff = afterResume?.session_id && afterResume.session_id !== sessionId;
  if (handedOff) {
    const h = handoffs.at(-1);
    notes.push(`handed off to a fresh session ${afterResume.session_id}${h ? ` (${h.reason})` : ''}`);
    details.push(`resume: session/load of ${sessionId} failed; sow handed off: ${JSON.stringify(h ?? null)}`);
    const loadSaid = stripAnsi(resume.stderr)
      .split('\n')
      .filter((l) => /load|hand|continue|fresh/i.test(l))
      .slice(0, 4);
    for (const l of loadSaid) details.push(`  sow said: ${l.trim()}`);
  } else if (afterResume?.session_id === sessionId) {
    // session/load: the first request of the resumed turn carries the earlier conversation.
    const history = rreqs[0]?.messages ?? [];
    const earlierPrompt = history.some(
      (m) => m.role === 'user' && m.texts.some((t) => t.includes('REAL-AGENTS ACP RUN')),
    );
    const earlierCall = history.some((m) =>
      m.toolCalls.some((c) => JSON.stringify(c.input ?? '').includes(SPAWN_COMMANDS[0])),
    );
    const earlierFinal = history.some((m) => m.role === 'assistant' && m.texts.some((t) => t.includes(FINAL_TEXT)));
    if (rreqs.length && !(earlierPrompt && earlierCall))
      rwhy.push(
        `session ${sessionId} kept, but the first resumed request lacks the earlier conversation (spawn ` +
          `prompt: ${earlierPrompt}, earlier report call: ${earlierCall})`,
      );
    else if (rreqs.length)
      details.push(
        `resume: session/load of ${sessionId}; the first resumed request carries the earlier conversation ` +
          `(${history.length} messages${earlierFinal ? ', the earlier final answer included' : ''})`,
      );
  } else rwhy.push(`session_id is ${afterResume?.session_id ?? '(none)'} after the resume`);
  details.push(`resume: exit ${resume.code}; ${rreqs.length} main-loop request(s), ${(resume.ms / 1000).toFixed(1)} s`);
  result.resume = rwhy.length
    ? outcome(false, rwhy.join('; '))
    : outcome(true, notes.length ? `ok, ${notes.join('; ')}` : 'ok (session/load)');
  if (!result.resume.ok) {
    details.push(`  sow stderr (tail):\n${tail(resume.stderr, 25)}`);
    details.push(`  requests:\n${requestSummary(mid) || '      (none)'}`);
  }
  return result;
}

/** sow's own events of the runs of a kind (.git/sow/agent-outputs/010/*-<kind>.events.jsonl), as text. */
function readEvents(repo, kind) {
  const outDir = join(repo, '.git/sow/agent-outputs/010');
  if (!existsSync(outDir)) return '';
  return readdirSync(outDir)
    .filter((f) => f.endsWith(`-${kind}.events.jsonl`))
    .map((f) => readFileSync(join(outDir, f), 'utf8'))
    .join('\n');
}
