/**
 * A real orchestrator, unattended: the real Claude Code, set up by `sow install claude` (its
 * SessionStart hook gives it the project's state and instructions), with its Bash tool limited to a
 * few seconds, takes a standard project from ImplementationExecuting to FinalizeDelete. Three tasks
 * marked parallel are each done by a detached real Claude Code worker; one is sent back with
 * feedback and resumed in the background; then the review, the documentation step, the checks.
 * Orchestrator and workers talk to one scripted model on 127.0.0.1, which tells them apart by the
 * session id Claude Code sends with each request (the orchestrator's is chosen here).
 *
 * The workers "think" for a few seconds before their first answer, so three of them take about the
 * time of one only if they run at once; the run reports each worker's interval as the model saw it,
 * the `sow agent ps` the test took while all three ran, and compares `sow cost` with the usage the
 * model reported to the workers.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerAnthropic, messageStream, normaliseAnthropic } from './anthropic.mjs';
import { shellInput, shellTool } from './brain.mjs';
import { sendJson, sendSse, startServer } from './server.mjs';
import { toYaml } from './scenario.mjs';
import { run, sleep, tail } from './util.mjs';

const TASKS = ['010', '020', '030'];
/** The task the orchestrator sends back with feedback. */
const SENT_BACK = '020';
const FEEDBACK_FILE = `phases/implementation/tasks/${SENT_BACK}/feedback/001.md`;
const RESUME_TEXT = `Address the feedback in ${FEEDBACK_FILE}, then report back.`;
/** How long a worker's first answer takes (the model thinking): long enough that overlap shows. */
const THINK_MS = 8_000;
/** The orchestrator's Bash limit (Claude Code's BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS). */
const BASH_LIMIT_MS = 4_000;
const WAIT = `sow agent wait ${TASKS.join(' ')} --timeout 3s`;
/**
 * How long the project's check takes: longer than the orchestrator's Bash limit, so it runs detached and is waited
 * for in slices.
 */
const CHECK_MS = 10_000;
const CHECK_WAIT = 'sow check wait --timeout 3s';
const FINAL = 'The project is at FinalizeDelete: every task is done, the review passed and the checks pass.';

/** The orchestrator's script: a command, and for a wait, when it is done (else it is asked again, in slices). */
const ORCHESTRATOR = [
  ...TASKS.map((id) => ({ command: `sow agent spawn implementer ${id} --detach` })),
  { command: WAIT, until: waited(TASKS) },
  { command: 'sow agent ps' },
  {
    command:
      `mkdir -p .sow/project/${FEEDBACK_FILE.replace(/\/[^/]+$/, '')} && printf '%s\\n' '# Feedback' 'Say ` +
      `which task this is in the file.' > .sow/project/${FEEDBACK_FILE}`,
  },
  { command: `sow task input add --id ${SENT_BACK} --type feedback --path ${FEEDBACK_FILE}` },
  { command: `sow agent resume ${SENT_BACK} "${RESUME_TEXT}" --detach` },
  ...TASKS.filter((id) => id !== SENT_BACK).map((id) => ({ command: `sow task set --id ${id} status completed` })),
  { command: `sow agent wait ${SENT_BACK} --timeout 3s`, until: waited([SENT_BACK]) },
  { command: `sow task set --id ${SENT_BACK} status completed` },
  { command: 'sow advance' },
  {
    command:
      "mkdir -p .sow/project/review && printf '%s\\n' '# Review 1' 'Every task meets its description. Verdict: " +
      "pass.' > .sow/project/review/report-1.md",
  },
  { command: 'sow output add --type review --path review/report-1.md --assessment pass' },
  { command: 'sow output set --index 0 approved true' },
  { command: 'sow advance' },
  { command: 'sow advance' },
  { command: 'sow check run --detach' },
  { command: CHECK_WAIT, until: (result) => !STILL.test(result) && /^unit {2}passed$/m.test(result) },
  { command: 'sow advance' },
  { command: 'sow project status' },
];

/** A wait is done when every named task has a status line and none still runs. */
function waited(ids) {
  return (result) => !STILL.test(result) && ids.every((id) => new RegExp(`^${id}  \\w`, 'm').test(result));
}
/** What a wait that timed out says (exit 124): some still run. */
const STILL = /still run/;

/** A command's result that says it failed (sow's `error:` line, or the exit code Claude Code reports). */
const failedResult = (result) => /^error: /m.test(result) || /Exit code [1-9]/.test(result);

/**
 * The orchestrator's next step, replayed from the conversation: each result moves the script on (a wait only once it
 * is done).
 */
function orchestratorNext(messages) {
  const results = messages.flatMap((m) => m.toolResults);
  let at = 0;
  const slices = [];
  for (const result of results) {
    const step = ORCHESTRATOR[at];
    if (!step) break;
    if (step.until) {
      if (step.until(result)) at++;
      else if (failedResult(result) && !STILL.test(result))
        return { kind: 'text', text: `STOPPED: \`${step.command}\` failed:\n${result}` };
      else slices.push(step.command);
    } else if (failedResult(result)) return { kind: 'text', text: `STOPPED: \`${step.command}\` failed:\n${result}` };
    else at++;
  }
  const step = ORCHESTRATOR[at];
  return step ? { kind: 'tool', command: step.command, n: at, repeat: slices.length } : { kind: 'text', text: FINAL };
}

/** A worker's script, from its prompt: its task, and whether it is the resume with feedback. */
function workerNext(messages) {
  const texts = messages.filter((m) => m.role === 'user').flatMap((m) => m.texts);
  const task = texts.join('\n').match(/Task (\d{3})/)?.[1];
  if (!task) return { kind: 'text', text: 'I do not know which task this is.' };
  let start = messages.findIndex((m) => m.role === 'user' && m.texts.some((t) => t.trim()));
  let script = 'spawn';
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user' && messages[i].texts.some((t) => t.includes(RESUME_TEXT))) {
      start = i;
      script = 'resume';
      break;
    }
  }
  const file = `work-${task}.txt`;
  const steps =
    script === 'spawn'
      ? [
          `printf 'the work of task ${task}\\n' > ${file} && sow log --file ${file} --action completed_task ` +
            `--result success "wrote ${file}"`,
          `sow task set --id ${task} status needs_review`,
        ]
      : [
          `printf 'the work of task ${task}, as the feedback asked\\n' > ${file} && sow log --file ${file} ` +
            `--action completed_task --result success "addressed the feedback"`,
          `sow task input set --id ${task} --index 0 status addressed`,
          `sow task set --id ${task} status needs_review`,
        ];
  const done = messages.slice(start + 1).reduce((n, m) => n + m.toolResults.length, 0);
  return done < steps.length
    ? { kind: 'tool', command: steps[done], n: done, task, script }
    : { kind: 'text', text: `Task ${task} is ready for review.`, task, script };
}

/**
 * opts: { claude (its binary), dir, env (isolated, with sow and the CLIs on PATH), log, timeoutMs }
 * Returns { ok, why[], details[] }.
 */
export async function runOrchestra({ claude, dir, env, log, timeoutMs = 15 * 60_000 }) {
  const why = [];
  const details = [];
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const orchestratorSession = randomUUID();
  /**
   * Per worker session: its task, when its first request arrived and its last answer went, what the model reported
   * it used.
   */
  const workers = new Map();
  let psSnapshot;
  let psTaken;
  const fullEnv = {
    ...env,
    GIT_AUTHOR_NAME: 'sow real-agents',
    GIT_AUTHOR_EMAIL: 'real-agents@example.invalid',
    GIT_COMMITTER_NAME: 'sow real-agents',
    GIT_COMMITTER_EMAIL: 'real-agents@example.invalid',
    GIT_CONFIG_NOSYSTEM: '1',
  };
  const sow = (args, timeout = 60_000) => run('sow', args, { cwd: repo, env: fullEnv, timeoutMs: timeout });

  const server = await startServer({
    name: 'anthropic-orchestra',
    maxRequests: 600,
    lifetimeMs: timeoutMs + 60_000,
    logFile: join(dir, 'requests.jsonl'),
    async handle(req, res, record) {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'HEAD' || (req.method === 'GET' && (path === '/' || path === ''))) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(req.method === 'HEAD' ? undefined : 'ok');
        return;
      }
      if (req.method === 'POST' && /\/messages\/count_tokens$/.test(path))
        return sendJson(res, 200, { input_tokens: 100 });
      if (!(req.method === 'POST' && /\/messages$/.test(path) && record.body)) {
        record.note = 'not handled';
        return sendJson(res, 404, {
          type: 'error',
          error: { type: 'not_found_error', message: `no route ${req.method} ${path}` },
        });
      }
      const body = record.body;
      const session = req.headers['x-claude-code-session-id'];
      record.session = session;
      record.role = session === orchestratorSession ? 'orchestrator' : 'worker';
      // Distinct numbers per request, so that a sum that missed or doubled one would show.
      const usage = { input: 100 + record.n, output: 10 + (record.n % 7) };
      record.usage = usage;
      const tools = (body.tools ?? [])
        .filter((t) => t && t.name)
        .map((t) => ({ name: t.name, schema: t.input_schema }));
      const shell = shellTool(tools);
      let blocks;
      let stop;
      if (!shell) {
        ({ blocks, stop } = answerAnthropic(body, record));
      } else {
        const messages = normaliseAnthropic(body.messages);
        record.kind = 'main';
        record.messages = messages;
        const d = record.role === 'orchestrator' ? orchestratorNext(messages) : workerNext(messages);
        record.decision = d;
        if (record.role === 'worker' && session) {
          const w = workers.get(session) ?? { task: d.task, runs: {} };
          workers.set(session, w);
          const r = (w.runs[d.script] ??= { first: Date.now(), last: 0 });
          // The worker's first answer of a run takes a while: the model thinks.
          if (d.n === 0 && d.kind === 'tool' && !r.thought) {
            r.thought = true;
            if (
              d.script === 'spawn' &&
              [...workers.values()].filter((x) => x.runs.spawn).length === TASKS.length &&
              !psTaken
            ) {
              // All three are running: what `sow agent ps` shows now.
              psTaken = sow(['agent', 'ps']).then((p) => (psSnapshot = p));
            }
            await sleep(THINK_MS);
          }
        }
        if (d.kind === 'tool')
          blocks = [
            {
              type: 'tool_use',
              id: `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
              name: shell.name,
              input: shellInput(shell, d.command),
            },
          ];
        else blocks = [{ type: 'text', text: d.text }];
        stop = d.kind === 'tool' ? 'tool_use' : 'end_turn';
      }
      if (record.role === 'worker' && session && workers.has(session)) {
        const w = workers.get(session);
        w.usage = { input: (w.usage?.input ?? 0) + usage.input, output: (w.usage?.output ?? 0) + usage.output };
        const script = record.decision?.script;
        if (script && w.runs[script]) w.runs[script].last = Date.now();
      } else if (record.role === 'worker' && session) {
        // A side request of a worker before its first main-loop one (a title): counted with it.
        workers.set(session, { task: undefined, runs: {}, usage: { ...usage } });
      }
      const model = body.model ?? 'claude-fake';
      if (body.stream)
        return sendSse(res, messageStream(model, blocks, stop, usage).events, { 'request-id': `req_${record.n}` });
      return sendJson(res, 200, {
        id: `msg_${record.n}`,
        type: 'message',
        role: 'assistant',
        model,
        content: blocks.map((b) =>
          b.type === 'text'
            ? { type: 'text', text: b.text }
            : { type: 'tool_use', id: b.id, name: b.name, input: b.input },
        ),
        stop_reason: stop,
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      });
    },
  });

  try {
    const must = async (bin, args) => {
      const r = await run(bin, args, { cwd: repo, env: fullEnv, timeoutMs: 60_000 });
      if (r.code !== 0)
        throw new Error(`${bin} ${args.join(' ')} failed (exit ${r.code}):\n${tail(r.stderr + r.stdout)}`);
      return r;
    };
    // The repository, sow installed for Claude Code, a standard project with three parallel tasks, a check the person
    // allowed.
    await must('git', ['init', '-q', '-b', 'main']);
    writeFileSync(join(repo, 'check.mjs'), `setTimeout(() => console.log('check ok'), ${CHECK_MS});\n`);
    writeFileSync(
      join(repo, 'package.json'),
      `${JSON.stringify({ name: 'orchestra', private: true, scripts: { test: 'node check.mjs' } }, null, 2)}\n`,
    );
    await must('git', ['add', '.']);
    await must('git', ['commit', '-q', '-m', 'Initial commit']);
    await must('sow', ['init']);
    await must('sow', ['install', 'claude']);
    writeFileSync(
      join(repo, '.sow/config.yaml'),
      `# written by npm run ` +
        `test:real-agents${toYaml({ checks: [{ name: 'unit', run: 'npm test', when: ['finalize'] }] })}\n`,
    );
    await must('git', ['add', '.']);
    await must('git', ['commit', '-q', '-m', 'sow, for Claude Code']);
    await must('sow', ['check', 'allow', '--yes']);
    await must('sow', ['project', 'new', 'orchestra', '--description', 'Three parallel tasks', '--no-planning']);
    for (const name of ['First part', 'Second part', 'Third part'])
      await must('sow', ['task', 'add', name, '--agent', 'implementer', '--parallel']);
    await must('sow', ['phase', 'set', 'tasks_approved', 'true']);
    await must('sow', ['advance']);
    const configDir = join(env.XDG_CONFIG_HOME, 'sow');
    mkdirSync(configDir, { recursive: true });
    const realClaude = { type: 'claude', settings: { yolo_mode: true, model: 'claude-sonnet-4-5' } };
    const userConfig = {
      agents: { executors: { 'real-claude': realClaude }, bindings: { implementer: 'real-claude' } },
    };
    writeFileSync(join(configDir, 'config.yaml'), `# written by npm run test:real-agents${toYaml(userConfig)}\n`);

    const claudeEnv = {
      ...fullEnv,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'test',
      CLAUDE_CODE_MAX_RETRIES: '0',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      BASH_DEFAULT_TIMEOUT_MS: String(BASH_LIMIT_MS),
      BASH_MAX_TIMEOUT_MS: String(BASH_LIMIT_MS),
    };
    const prompt =
      'Carry the sow project in this repository through to its end on your own, following what sow says to do.';
    log(`  $ claude --print (the orchestrator, session ${orchestratorSession}, Bash limit ${BASH_LIMIT_MS / 1000} s)`);
    const started = Date.now();
    const orchestrator = await run(
      claude,
      [
        '--print',
        '--output-format',
        'stream-json',
        '--verbose',
        '--session-id',
        orchestratorSession,
        '--model',
        'claude-sonnet-4-5',
        '--allowedTools',
        'Bash',
      ],
      {
        cwd: repo,
        env: claudeEnv,
        input: prompt,
        timeoutMs,
      },
    );
    const wall = (Date.now() - started) / 1000;
    log(
      `    → exit ${orchestrator.code}${orchestrator.timedOut ? ' (TIMED OUT, killed)' : ''} in ${wall.toFixed(1)} s`,
    );
    await psTaken;

    // What the orchestrator did, as the model saw it.
    const main = server.requests.filter((r) => r.kind === 'main');
    const orch = main.filter((r) => r.role === 'orchestrator');
    const first = orch[0];
    const firstText = (first?.messages ?? []).flatMap((m) => m.texts).join('\n');
    if (!first) why.push('the model saw no request from the orchestrator');
    else if (!/ImplementationExecuting/.test(firstText) || !/--detach/.test(firstText))
      why.push(
        "the orchestrator's first request does not carry sow's state and instructions (the SessionStart hook of " +
          'sow install claude)',
      );
    else
      details.push(
        "the orchestrator's first request carried `sow project continue` (ImplementationExecuting, spawn with " +
          '--detach) from the SessionStart hook installed by `sow install claude`',
      );
    const asked = orch.filter((r) => r.decision?.kind === 'tool').map((r) => r.decision.command);
    const slices = asked.filter((c) => c.startsWith('sow agent wait')).length;
    details.push(
      `the orchestrator ran ${asked.length} commands, ${slices} of them \`sow agent wait … --timeout 3s\` slices`,
    );
    const last = orch.at(-1)?.decision;
    if (last?.kind !== 'text' || last.text !== FINAL)
      why.push(
        `the orchestrator did not finish its script: ` +
          (last?.kind === 'text'
            ? last.text.split('\n').slice(0, 6).join(' | ')
            : `its last step was \`${last?.command}\``),
      );
    if (slices < 2) why.push(`the orchestrator waited in ${slices} slice(s): its Bash limit never made it wait again`);
    const checkSlices = asked.filter((c) => c === CHECK_WAIT).length;
    details.push(
      `the checks (${CHECK_MS / 1000} s, over the ${BASH_LIMIT_MS / 1000} s Bash limit) ran detached, waited for ` +
        `in ${checkSlices} \`${CHECK_WAIT}\` slices`,
    );
    if (checkSlices < 2)
      why.push(`the orchestrator waited for the checks in ${checkSlices} slice(s): they should outlast its Bash limit`);
    if (orchestrator.code !== 0)
      why.push(`claude (the orchestrator) exited ${orchestrator.code}:\n${tail(orchestrator.stderr, 10)}`);

    // Where the project ended.
    const status = await sow(['project', 'status', '--json']);
    let state;
    try {
      state = JSON.parse(status.stdout).data;
    } catch {
      state = undefined;
    }
    const current = state?.state ?? state?.project?.state ?? state?.statechart?.current_state;
    if (current !== 'FinalizeDelete')
      why.push(
        `the project is at ${current ?? '(unreadable)'}, expected ` +
          `FinalizeDelete:\n${tail(status.stdout + status.stderr, 6)}`,
      );
    else details.push('the project reached FinalizeDelete');
    const tasks = await sow(['task', 'list', '--json']);
    let rows = [];
    try {
      rows = JSON.parse(tasks.stdout).data;
    } catch {
      why.push(`sow task list --json printed no JSON:\n${tail(tasks.stdout + tasks.stderr, 4)}`);
    }
    const taskRows = Array.isArray(rows) ? rows : (rows.tasks ?? []);
    for (const id of TASKS) {
      const t = taskRows.find((x) => x.id === id);
      if (t?.status !== 'completed') why.push(`task ${id} is ${t?.status ?? 'missing'}, expected completed`);
    }
    const sentBack = await sow(['task', 'get', '--id', SENT_BACK, '--json']);
    let t2;
    try {
      t2 = JSON.parse(sentBack.stdout).data;
    } catch {
      t2 = undefined;
    }
    if (t2?.iteration !== 2)
      why.push(`task ${SENT_BACK} is at iteration ${t2?.iteration}, expected 2 (sent back once)`);
    const fb = t2?.inputs?.find((i) => i.type === 'feedback');
    if (fb?.metadata?.status !== 'addressed')
      why.push(
        `the feedback on task ${SENT_BACK} is ${fb ? (fb.metadata?.status ?? 'without a status') : 'missing'}, ` +
          `expected addressed`,
      );
    else
      details.push(
        `task ${SENT_BACK} was sent back with feedback, resumed in the background (iteration 2), and its worker ` +
          `marked the feedback addressed`,
      );

    // The workers: did they overlap?
    const spawnRuns = [...workers.values()].filter((w) => w.runs.spawn).map((w) => ({ task: w.task, ...w.runs.spawn }));
    if (spawnRuns.length !== TASKS.length)
      why.push(`the model saw ${spawnRuns.length} worker session(s) start, expected ${TASKS.length}`);
    else {
      const t0 = Math.min(...spawnRuns.map((r) => r.first));
      const span = (Math.max(...spawnRuns.map((r) => r.last)) - t0) / 1000;
      const sum = spawnRuns.reduce((n, r) => n + (r.last - r.first) / 1000, 0);
      const overlap = Math.max(...spawnRuns.map((r) => r.first)) < Math.min(...spawnRuns.map((r) => r.last));
      for (const r of spawnRuns.sort((a, b) => a.first - b.first))
        details.push(
          `  worker on ${r.task}: ${((r.first - t0) / 1000).toFixed(1)}–${((r.last - t0) / 1000).toFixed(1)} s ` +
            `(from the first worker's first request to its last answer)`,
        );
      details.push(
        `the three workers' runs: ${sum.toFixed(1)} s in all, ${span.toFixed(1)} s from the first start to the ` +
          `last end (each thinks ${THINK_MS / 1000} s first)`,
      );
      if (!overlap) why.push('the workers did not all run at once: one ended before another began');
      else details.push('all three ran at once: each began before any had ended');
    }
    if (psSnapshot)
      details.push(
        `sow agent ps while the three ran ` +
          `(exit ${psSnapshot.code}):\n${psSnapshot.stdout.trimEnd().replace(/^/gm, '      ')}`,
      );
    else why.push('no `sow agent ps` snapshot was taken while the workers ran');

    // What it cost: sow's ledger against the usage the model reported to the workers.
    const cost = await sow(['cost', '--json']);
    let ledger;
    try {
      ledger = JSON.parse(cost.stdout).data;
    } catch {
      ledger = undefined;
    }
    const reported = [...workers.values()].reduce(
      (n, w) => ({ input: n.input + (w.usage?.input ?? 0), output: n.output + (w.usage?.output ?? 0) }),
      { input: 0, output: 0 },
    );
    const total = ledger?.total ?? {};
    details.push(
      `sow cost: ${JSON.stringify(total)}; the model reported to the workers ${reported.input} input ` +
        `and ${reported.output} output tokens ` +
        `over ${server.requests.filter((r) => r.role === 'worker').length} requests`,
    );
    if (total.input_tokens !== reported.input || total.output_tokens !== reported.output)
      why.push(
        `sow cost says ${total.input_tokens} in / ${total.output_tokens} out, the model reported ${reported.input} ` +
          `/ ${reported.output} to the workers`,
      );
    const costText = await sow(['cost', '--by', 'task']);
    details.push(`sow cost --by task:\n${costText.stdout.trimEnd().replace(/^/gm, '      ')}`);

    // Nothing left running: every supervisor has exited.
    const supervisors = join(repo, '.git/sow/supervisors');
    const pids = existsSync(supervisors)
      ? readdirSync(supervisors).flatMap((d) => {
          try {
            return [JSON.parse(readFileSync(join(supervisors, d, 'ready.json'), 'utf8')).pid];
          } catch {
            return [];
          }
        })
      : [];
    // Exited is exited: a zombie (state Z) waits only for init to reap it, which is not sow's to do.
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid, 0);
      } catch {
        return false;
      }
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
      } catch {
        return true;
      }
    });
    details.push(
      `${pids.length} detached runs (three spawns and the resume); still alive after the orchestrator ` +
        `exited: ${alive.length}`,
    );
    if (pids.length !== TASKS.length + 1) why.push(`${pids.length} supervisors ran, expected ${TASKS.length + 1}`);
    if (alive.length) {
      // What each still is (a zombie waits for its parent; anything else still runs), and what it is running.
      const what = (pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
          return `${pid} (state ${state[0]}, parent ${state[1]}: ${cmd.slice(0, 200)})`;
        } catch {
          return `${pid} (gone by now)`;
        }
      };
      why.push(`supervisors still alive: ${alive.map(what).join(', ')} (killed now)`);
      for (const pid of alive) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
    details.push(`the orchestrator's whole run: ${wall.toFixed(1)} s`);
    if (why.length) {
      details.push(
        `  the orchestrator's commands:\n` +
          orch
            .map((r) => {
              const step =
                r.decision?.kind === 'tool' ? r.decision.command : `(text) ${String(r.decision?.text).split('\n')[0]}`;
              return `      #${r.n} ${step}`;
            })
            .join('\n'),
      );
      details.push(`  claude stderr (tail):\n${tail(orchestrator.stderr, 15)}`);
    }
  } finally {
    await server.close();
  }
  return { ok: why.length === 0, why, details };
}
