/**
 * One CLI end to end through sow: a temp git repo with one approved task, a sow config binding the
 * implementer to the CLI, `sow agent spawn implementer 010` (the scripted model makes the worker run
 * `sow task set --id 010 status needs_review`), then `sow agent resume 010 "Please also log your
 * work"` (the worker runs `sow log …` and sets needs_review again). Checks the state sow leaves and
 * what the fake endpoint saw.
 *
 * With `safe` (the executor runs with permissions: safe), the repository declares a check
 * (`npm test`, which runs check.mjs, which leaves a marker file) and the spawn asks for the
 * safe-profile script instead: (a) write hello.txt with the CLI's own edit tool, (b) run the
 * check, (c) run a command the profile does not allow (`touch` a file outside the repository and
 * outside /tmp), then (d) report back with `sow task set`. The "safe profile" result says which of
 * these happened, and whether sow reported the refusal (stderr and `denials` in its JSON result).
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FINAL_TEXT, RESUME_COMMANDS, RESUME_MARKER, SPAWN_COMMANDS, safePrompt } from './brain.mjs';
import { run, stripAnsi, tail } from './util.mjs';

export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'sow real-agents',
  GIT_AUTHOR_EMAIL: 'real-agents@example.invalid',
  GIT_COMMITTER_NAME: 'sow real-agents',
  GIT_COMMITTER_EMAIL: 'real-agents@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** JSON strings are valid YAML double-quoted scalars, so this YAML is exact for any value. */
export function toYaml(value, indent = '') {
  if (Array.isArray(value))
    return value.length
      ? value
          .map(
            (v) => `\n${indent}- ${typeof v === 'object' ? toYaml(v, `${indent}  `).trimStart() : JSON.stringify(v)}`,
          )
          .join('')
      : ' []';
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => {
        if (v && typeof v === 'object') return `\n${indent}${k}:${toYaml(v, `${indent}  `)}`;
        return `\n${indent}${k}: ${JSON.stringify(v)}`;
      })
      .join('');
  }
  return ` ${JSON.stringify(value)}`;
}

/** Writes `sow` on PATH as a wrapper of the built CLI. */
export function writeSowWrapper(binDir, sowJs) {
  mkdirSync(binDir, { recursive: true });
  const file = join(binDir, 'sow');
  const q = (p) => `'${p.replace(/'/g, `'\\''`)}'`;
  writeFileSync(file, `#!/bin/sh\nexec ${q(process.execPath)} ${q(sowJs)} "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

/** What the safe-profile run leaves: the check's marker, and the file the refused command would create. */
/** The steps of a scenario in `repo`: each command logged with its exit and time; `must` throws when one fails. */
export function stepsIn(repo, env, log) {
  const step = async (label, bin, args, { timeout = 60_000, cwd = repo } = {}) => {
    const r = await run(bin, args, { cwd, env, timeoutMs: timeout });
    log(`  $ ${label} → exit ${r.code}${r.timedOut ? ' (TIMED OUT, killed)' : ''} in ${(r.ms / 1000).toFixed(1)} s`);
    return r;
  };
  const must = async (bin, args) => {
    const r = await step(`${bin} ${args.join(' ')}`, bin, args);
    if (r.code !== 0)
      throw new Error(`${bin} ${args.join(' ')} failed (exit ${r.code}):\n${tail(r.stderr + r.stdout)}`);
    return r;
  };
  return { step, must };
}

/** A git repository with a standard project executing one task, 010 'Say hello', for the implementer. */
export async function executingRepo(must) {
  await must('git', ['init', '-q', '-b', 'main']);
  await must('git', ['commit', '-q', '--allow-empty', '-m', 'Initial commit']);
  await must('sow', ['init']);
  await must('sow', ['project', 'new', 'demo', '--description', 'd', '--no-planning']);
  await must('sow', ['task', 'add', 'Say hello', '--agent', 'implementer']);
  await must('sow', ['phase', 'set', 'tasks_approved', 'true']);
  await must('sow', ['advance']);
}

/**
 * The user configuration of `env` (its XDG_CONFIG_HOME): `executor`, named `name`, bound to the implementer. Its
 * path.
 */
export function bindImplementer(env, name, executor) {
  const configFile = join(env.XDG_CONFIG_HOME, 'sow', 'config.yaml');
  mkdirSync(join(env.XDG_CONFIG_HOME, 'sow'), { recursive: true });
  writeFileSync(
    configFile,
    `# written by npm run ` +
      `test:real-agents${toYaml({ agents: { executors: { [name]: executor }, bindings: { implementer: name } } })}\n`,
  );
  return configFile;
}

export const CHECK_MARKER = '.check-ran';
const CHECK_SCRIPT =
  `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(CHECK_MARKER)}, 'the ` +
  `check ran\\n');\nconsole.log('check ok');\n`;

/**
 * opts: { cli, dir, env (full env for sow and the CLI; XDG_CONFIG_HOME decides where sow's config
 * goes), executor (the sow executor config), server ({ requests }), sessionOf(record) → the
 * session id a request carries (or undefined), timeoutMs, log, safe (run the safe-profile script),
 * outsideDir (a folder outside the repository and outside /tmp, for the refused command) }
 * Returns { spawn: { ok, why[] }, resume: { ok, why[] }, safe: { ok, why[], notes[] } | undefined, details: string[] }.
 */
export async function runScenario(opts) {
  const { cli, dir, env, executor, server, sessionOf, timeoutMs = 150_000, log, safe = false, outsideDir } = opts;
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const fullEnv = { ...env, ...GIT_ENV };
  const details = [];
  const result = {
    spawn: { ok: false, why: [] },
    resume: { ok: false, why: [] },
    ...(safe ? { safe: { ok: false, why: [], notes: [] } } : {}),
    details,
  };
  const { step, must } = stepsIn(repo, fullEnv, log);
  // The repository and the project; the sow configuration.
  await executingRepo(must);
  const name = `real-${cli}`;
  const configFile = bindImplementer(env, name, executor);
  const valid = await step('sow config validate', 'sow', ['config', 'validate']);
  if (valid.code !== 0) throw new Error(`sow config validate failed:\n${tail(valid.stdout + valid.stderr)}`);

  // The safe-profile run: a declared check, and the plan the scripted model follows.
  const plan = safe && {
    file: join(repo, 'hello.txt'),
    relFile: 'hello.txt',
    text: `hello from a safe ${cli} worker\n`,
    check: 'npm test',
    forbidden: `touch ${join(outsideDir, `outside-${cli}`)}`,
  };
  if (plan) {
    writeFileSync(join(repo, 'check.mjs'), CHECK_SCRIPT);
    writeFileSync(
      join(repo, 'package.json'),
      `${JSON.stringify({ name: 'demo', private: true, scripts: { test: 'node check.mjs' } }, null, 2)}\n`,
    );
    writeFileSync(
      join(repo, '.sow/config.yaml'),
      `# written by npm run ` +
        `test:real-agents${toYaml({ checks: [{ name: 'unit', run: plan.check, when: ['task_complete'] }] })}\n`,
    );
    await must('git', ['add', 'check.mjs', 'package.json', '.sow/config.yaml']);
    await must('git', ['commit', '-q', '-m', 'A check']);
    // The person allows it on this machine; until then sow would neither run it nor grant it to the worker.
    await must('sow', ['check', 'allow', '--yes']);
  }

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
  /** Whether the CLI's own events (stdout, kept by sow in .git/sow/agent-outputs/) carry the session id. */
  const eventsCarry = (kind, id) => {
    const outDir = join(repo, '.git/sow/agent-outputs/010');
    const files = existsSync(outDir)
      ? readdirSync(outDir)
          .filter((f) => f.endsWith(`-${kind}.jsonl`))
          .sort()
      : [];
    const text = files.length ? readFileSync(join(outDir, files.at(-1)), 'utf8') : '';
    return Boolean(id) && text.includes(id);
  };
  const mainRequests = (from) => server.requests.slice(from).filter((r) => r.kind === 'main');
  const requestSummary = (from) =>
    server.requests
      .slice(from)
      .map((r) => {
        const what =
          r.decision?.kind === 'tool' ? `tool ${r.shellTool} ${JSON.stringify(r.decision.command)}` : 'final text';
        const line =
          `      #${r.n} ${r.method} ${r.url}${r.upgrade ? ' (upgrade)' : ''}` +
          `${r.kind ? ` [${r.kind}${r.decision ? `: ${what}` : ''}]` : ''}` +
          `${r.note ? ` — ${r.note.split('\n')[0]}` : ''}`;
        // The tool output this request brought back (what the worker's shell printed).
        const results = (r.messages ?? []).flatMap((m) => m.toolResults);
        const last = results.length && r.decision ? results.at(-1).replace(/\s+/g, ' ').trim().slice(0, 240) : '';
        return last ? `${line}\n          previous tool result: ${last}` : line;
      })
      .join('\n');

  // ---- spawn
  const before = server.requests.length;
  const spawnArgs = [
    'agent',
    'spawn',
    'implementer',
    '010',
    '--verbose',
    ...(plan ? ['--json', '--prompt', safePrompt(plan)] : []),
  ];
  const spawn = await step(
    `sow agent spawn implementer 010 --verbose${plan ? ' --json --prompt <safe-profile script>' : ''}`,
    'sow',
    spawnArgs,
    { timeout: timeoutMs },
  );
  const verboseLines = (r) =>
    stripAnsi(r.stderr)
      .split('\n')
      .filter((l) => /^\s*(Command|Note):/.test(l))
      .map((l) => l.trim());
  for (const l of verboseLines(spawn)) details.push(`spawn ${l}`);
  const afterSpawn = await task();
  const spawnReqs = mainRequests(before);
  const why = result.spawn.why;
  if (spawn.timedOut) why.push(`sow agent spawn timed out after ${timeoutMs / 1000} s (killed)`);
  else if (spawn.code !== 0) why.push(`sow agent spawn exited ${spawn.code}`);
  if (afterSpawn?.status !== 'needs_review')
    why.push(`task status is ${afterSpawn?.status ?? '(unreadable)'}, expected needs_review`);
  if (!afterSpawn?.session_id) why.push('no session_id recorded on the task');
  else if (!eventsCarry('spawn', afterSpawn.session_id))
    why.push(`the CLI's events never mention the recorded session id ${afterSpawn.session_id}`);
  const noShell = (from) => server.requests.slice(from).find((r) => r.note?.startsWith('no shell tool'));
  if (!spawnReqs.length)
    why.push(
      noShell(before)
        ? `the CLI offered the model no shell tool, so the worker cannot run sow (${noShell(before).note})`
        : 'the endpoint saw no main-loop request',
    );
  else {
    const toolResults = spawnReqs.some((r) => r.messages?.some((m) => m.toolResults.length));
    if (!toolResults) why.push('no request carried a tool result');
    const seen = [...new Set(spawnReqs.map((r) => sessionOf?.(r)).filter(Boolean))];
    if (sessionOf) {
      if (seen.length !== 1) why.push(`requests carried session ids ${JSON.stringify(seen)}, expected exactly one`);
      else if (seen[0] !== afterSpawn?.session_id)
        why.push(`endpoint saw session ${seen[0]}, sow recorded ${afterSpawn?.session_id}`);
      else details.push(`spawn: session id ${seen[0]} recorded by sow = the one the endpoint saw`);
    } else
      details.push(
        `spawn: session id ${afterSpawn?.session_id ?? '(none)'} recorded by sow = the one in the CLI's events ` +
          `(the CLI sends none to the endpoint)`,
      );
  }
  const model = executor.settings?.model?.split('/').at(-1);
  const modelCheck = (reqs, kind, list) => {
    if (!model || !reqs.length) return;
    const models = [...new Set(reqs.map((r) => r.model))];
    if (models.length !== 1 || models[0] !== model)
      list.push(
        `${kind} requests asked for model(s) ${JSON.stringify(models)}, sow was configured ` +
          `with ${executor.settings.model}`,
      );
    else details.push(`${kind}: the configured model ${executor.settings.model} reached the endpoint`);
  };
  modelCheck(spawnReqs, 'spawn', why);
  if (plan) checkSafe(result.safe, { plan, repo, spawn, spawnReqs, afterSpawn, cli, details });
  result.spawn.ok = why.length === 0;
  if (!result.spawn.ok) {
    details.push(`spawn FAILED: ${why.join('; ')}`);
    details.push(`  sow stderr (tail):\n${tail(spawn.stderr, 25)}`);
    details.push(`  requests:\n${requestSummary(before) || '      (none)'}`);
    result.resume.why.push('not run: spawn failed');
    return result;
  }
  details.push(
    `spawn: ${spawnReqs.length} main-loop request(s), ${server.requests.length - before} in all; task 010 → ` +
      `needs_review in ${(spawn.ms / 1000).toFixed(1)} s`,
  );

  // ---- resume
  const mid = server.requests.length;
  const resume = await step(
    `sow agent resume 010 "${RESUME_MARKER}" --verbose`,
    'sow',
    ['agent', 'resume', '010', RESUME_MARKER, '--verbose'],
    { timeout: timeoutMs },
  );
  for (const l of verboseLines(resume)) details.push(`resume ${l}`);
  const afterResume = await task();
  const resumeReqs = mainRequests(mid);
  const rwhy = result.resume.why;
  if (resume.timedOut) rwhy.push(`sow agent resume timed out after ${timeoutMs / 1000} s (killed)`);
  else if (resume.code !== 0) rwhy.push(`sow agent resume exited ${resume.code}`);
  if (afterResume?.status !== 'needs_review')
    rwhy.push(`task status is ${afterResume?.status ?? '(unreadable)'}, expected needs_review`);
  if (afterResume?.iteration !== 2) rwhy.push(`task iteration is ${afterResume?.iteration}, expected 2`);
  if (afterResume?.session_id !== afterSpawn.session_id)
    rwhy.push(`session_id changed from ${afterSpawn.session_id} to ${afterResume?.session_id}`);
  if (!eventsCarry('resume', afterSpawn.session_id))
    rwhy.push(`the resumed CLI's events never mention session ${afterSpawn.session_id}`);
  const logFile = join(repo, '.sow/project/phases/implementation/tasks/010/log.md');
  const logText = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
  if (!/completed_task/.test(logText) || !/hello/.test(logText))
    rwhy.push('log.md has no completed_task entry with "hello"');
  if (!resumeReqs.length)
    rwhy.push(
      noShell(mid)
        ? `the CLI offered the model no shell tool, so the worker cannot run sow (${noShell(mid).note})`
        : 'the endpoint saw no main-loop request',
    );
  else {
    const first = resumeReqs[0];
    const history = first.messages ?? [];
    const earlierCall = history.some((m) =>
      m.toolCalls.some((c) => JSON.stringify(c.input ?? '').includes(SPAWN_COMMANDS[0])),
    );
    const earlierFinal = history.some((m) => m.role === 'assistant' && m.texts.some((t) => t.includes(FINAL_TEXT)));
    const earlierPrompt = history.some((m) => m.role === 'user' && m.texts.some((t) => t.includes('Task 010')));
    if (!(earlierCall && earlierPrompt))
      rwhy.push(
        `the first resume request does not carry the earlier conversation (spawn prompt: ${earlierPrompt}, earlier ` +
          `tool call: ${earlierCall}, earlier final text: ${earlierFinal})`,
      );
    else
      details.push(
        `resume: the first resumed request carries the earlier conversation (spawn prompt, the earlier ` +
          `\`${SPAWN_COMMANDS[0]}\` ` +
          `call${earlierFinal ? ', the earlier final answer' : ''}; ${history.length} messages)`,
      );
    const commandsRun = resumeReqs.filter((r) => r.decision?.kind === 'tool').map((r) => r.decision.command);
    for (const c of RESUME_COMMANDS) if (!commandsRun.includes(c)) rwhy.push(`the model never got to ask for \`${c}\``);
    if (sessionOf) {
      const seen = [...new Set(resumeReqs.map((r) => sessionOf(r)).filter(Boolean))];
      if (seen.length !== 1 || seen[0] !== afterSpawn.session_id)
        rwhy.push(`resume requests carried session ids ${JSON.stringify(seen)}, expected [${afterSpawn.session_id}]`);
      else details.push(`resume: requests carry the same session id ${seen[0]}`);
    } else details.push(`resume: the CLI's events carry the same session id ${afterSpawn.session_id}`);
  }
  modelCheck(resumeReqs, 'resume', rwhy);
  result.resume.ok = rwhy.length === 0;
  if (!result.resume.ok) {
    details.push(`resume FAILED: ${rwhy.join('; ')}`);
    details.push(`  sow stderr (tail):\n${tail(resume.stderr, 25)}`);
    details.push(`  requests:\n${requestSummary(mid) || '      (none)'}`);
  } else details.push(`resume: iteration 2, needs_review, log.md entry written, in ${(resume.ms / 1000).toFixed(1)} s`);
  return result;
}

/**
 * The safe-profile checks after the spawn: (a) the file was written with the CLI's own edit tool,
 * (b) the declared check ran, (c) the refused command did nothing and sow reported the refusal,
 * (d) the worker still reported back. `safe.notes` say what is partial (Codex names no command).
 */
function checkSafe(safe, { plan, repo, spawn, spawnReqs, afterSpawn, cli, details }) {
  const why = safe.why;
  // (a) the edit
  const editReq = spawnReqs.find((r) => r.decision?.kind === 'tool' && r.decision.step.kind === 'edit');
  const written = existsSync(plan.file) ? readFileSync(plan.file, 'utf8') : undefined;
  if (!editReq) why.push('(a) the model never got to ask for the edit');
  else if (!editReq.editTool) why.push(`(a) ${editReq.note || 'the CLI offered no file-writing tool'}`);
  else if (written !== plan.text)
    why.push(
      `(a) ${plan.relFile} ${written === undefined ? 'was not written' : `has ${JSON.stringify(written)}`} after ` +
        `the ${editReq.editTool} call`,
    );
  else details.push(`safe (a): ${plan.relFile} written by the CLI's own ${editReq.editTool} tool`);
  // (b) the check
  const checkReq = spawnReqs.find((r) => r.decision?.kind === 'tool' && r.decision.command === plan.check);
  if (!checkReq) why.push('(b) the model never got to ask for the check');
  else if (!existsSync(join(repo, CHECK_MARKER))) why.push(`(b) \`${plan.check}\` did not run (no ${CHECK_MARKER})`);
  else details.push(`safe (b): the declared check \`${plan.check}\` ran (${CHECK_MARKER} written)`);
  // (c) the refusal
  const outside = plan.forbidden.replace(/^touch /, '');
  let data;
  try {
    data = JSON.parse(spawn.stdout).data;
  } catch {
    data = undefined;
  }
  const denials = data?.denials ?? [];
  const named = denials.find((d) => d.input?.includes(outside));
  const unnamed = denials.find((d) => d.kind === 'command' && d.input === null);
  if (!spawnReqs.some((r) => r.decision?.kind === 'tool' && r.decision.command === plan.forbidden))
    why.push('(c) the model never got to ask for the refused command');
  else if (existsSync(outside)) why.push(`(c) \`${plan.forbidden}\` was NOT refused: ${outside} exists`);
  else if (!data) why.push('(c) sow printed no JSON result');
  else if (!named && !unnamed)
    why.push(
      `(c) the command was refused (no ${outside}) but sow reported no denial (denials: ${JSON.stringify(denials)})`,
    );
  else if (!/refused/.test(stripAnsi(spawn.stderr)))
    why.push('(c) the JSON result lists the denial but stderr says nothing');
  else {
    details.push(`safe (c): refused, and sow reported ${JSON.stringify(named ?? unnamed)}`);
    if (!named) safe.notes.push(`${cli} names no command`);
    const advice = stripAnsi(spawn.stderr)
      .split('\n')
      .filter((l) => /refused|declare|permissions: yolo/.test(l));
    for (const l of advice) details.push(`  sow said: ${l.trim()}`);
  }
  // (d) reported back after the refusal
  if (afterSpawn?.status !== 'needs_review')
    why.push(`(d) task status is ${afterSpawn?.status ?? '(unreadable)'} after the refusal, expected needs_review`);
  else details.push('safe (d): the worker reported back (sow task set --id 010 status needs_review) after the refusal');
  safe.ok = why.length === 0;
}
