/** The run stage: a worker's CLI started as its executor module says (command line or ACP), its events streamed to a
 * file and a progress view. Nothing here writes the project's state. */
import type { AppContext } from '../context.js';
import type { AgentDef } from '../../domain/agents.js';
import type { PermissionProfile } from '../../domain/config-schemas.js';
import { ExternalToolError } from '../../domain/errors.js';
import { RunFiles, writeRunFiles } from '../../adapters/agent-outputs.js';
import type { Denial } from '../../adapters/denials.js';
import { agentSettingsFiles, startedFor } from '../../adapters/executors/registry.js';
import type { Invocation, Usage } from '../../adapters/executors/types.js';
import { addUsage } from '../../adapters/executors/shared.js';
import { runProcess } from '../../adapters/process-runner.js';
import { describeEvent } from '../../adapters/progress.js';
import { REPO_CONFIG } from '../../adapters/repo-config.js';
import { isWorkerCheckoutPath } from '../../adapters/worker-checkouts.js';
import { readTemplate, renderTemplate } from '../../adapters/templates.js';
import { withRefs } from '../refs-index.js';
import {
  AcpModeNotAskingError,
  AcpSessionNotLoadedError,
  WorkerFailedError,
  WorkerStoppedError,
} from '../agent-errors.js';
import { workerEvents } from './events.js';
import { label, type Resolution, type Speaker, type Target } from './types.js';

export const runFiles = (root: string, target: Target, kind: 'spawn' | 'resume') =>
  new RunFiles(root, target.kind === 'task' ? target.id : target.agent, kind);

/** The worker's prompt: its role's template around its assignment, the project's refs, the orchestrator's words. */
export function agentPrompt(
  agent: AgentDef,
  agentId: string,
  assignment: string,
  extra: string | undefined,
  refs = '',
) {
  const template = readTemplate(agent.template);
  const body = withRefs(renderTemplate(template, { agent_id: agentId, assignment, guidance: agent.guidance }), refs);
  return extra?.trim() ? `${body.trimEnd()}\n\n## Instructions from the orchestrator\n\n${extra.trim()}\n` : body;
}

export const runningAsRoot = () => process.getuid?.() === 0;

/** What the worker is granted: its profile, and the declared checks it may run unasked. */
export type Granted = { permissions: PermissionProfile; checks: string[] };

/** How the worker's CLI is started: over ACP its argv and the prompt sent once the session is open, else the executor
 * module's spawn or resume line (a resume's `sessionId` is the session it continues). */
export function invocationOf(
  resolution: Resolution,
  granted: Granted,
  run: { cwd: string; prompt: string; promptFile: string; kind: 'spawn' | 'resume'; sessionId: string | undefined },
): Invocation {
  if (resolution.transport === 'acp') return acpInvocation(resolution, run.prompt, granted);
  const common = {
    permissions: granted.permissions,
    checks: granted.checks,
    config: resolution.executor.config,
    cwd: run.cwd,
    prompt: run.prompt,
    promptFile: run.promptFile,
    runningAsRoot: runningAsRoot(),
    protect: agentSettingsFiles(),
  };
  return run.kind === 'resume'
    ? resolution.spec.resume({ ...common, sessionId: run.sessionId! })
    : resolution.spec.spawn({ ...common, ...(run.sessionId ? { sessionId: run.sessionId } : {}) });
}

/** What a run of a worker needs, however it is driven (a CLI's own output, or ACP). */
export interface WorkerRun {
  files: RunFiles;
  target: Target;
  /** The declared checks not granted, because the person has not allowed them here. */
  withheld: readonly string[];
  resolution: Resolution;
  env: Record<string, string>;
  /** The environment the worker starts from (the context's), below what the CLI and sow add. */
  base: AppContext['env'];
  cwd: string;
  speaker: Speaker;
  /** What the run used so far (the caller records it however the run ends), and the clock of its events. */
  meter: { usage: Usage; now: () => string };
  onSession?: (id: string) => Promise<void>;
  /** The session a resume over ACP continues (`session/load`); a spawn opens one. */
  load?: string | undefined;
}

export type WorkerRunResult = { eventsFile: string; reportedSession?: string; denials: Denial[] };

/** How a transport's run ended: what was refused, the session it reported, and the error its failure is, if it failed
 * (given the advice about what was refused). */
type Ended = Pick<WorkerRunResult, 'reportedSession' | 'denials'> & {
  interrupted?: ConstructorParameters<typeof WorkerStoppedError>[0] | undefined;
  failure: (advice: string[]) => Error | undefined;
};

/** Tells, before the worker starts, its notes and command (verbose) and what starts. */
function sayStart(run: WorkerRun, invocation: Invocation, command: string, over: string): void {
  const { speaker, files, env, resolution } = run;
  if (speaker.verbose) for (const note of invocation.notes) speaker.say(`  Note: ${note}`);
  if (speaker.verbose) speaker.say(`  Command: ${command}`);
  const verb = files.kind === 'spawn' ? 'Spawning' : 'Resuming';
  if (!speaker.quiet)
    speaker.say(`${verb} ${env['SOW_AGENT_ID']} with ${resolution.executor.name}${over} (${label(run.target)})…`);
}

/** Runs the worker, streaming its events to a file and a progress view to stderr; a stop or failure is thrown with
 * advice about what its CLI (or sow, over ACP) refused it. */
export async function runWorker(run: WorkerRun, invocation: Invocation): Promise<WorkerRunResult> {
  const { files, target, resolution, speaker } = run;
  const { denialAdvice } = await import('../../adapters/denials.js');
  const acp = resolution.transport === 'acp';
  files.startEvents();
  const ended = acp ? await runOverAcp(run, invocation) : await runCli(run, invocation);
  const { denials, reportedSession } = ended;
  const { granted } = invocation;
  const advice = denialAdvice(denials, {
    type: resolution.executor.config.type,
    title: resolution.spec.title,
    executor: resolution.executor.name,
    configPath: resolution.loaded.path,
    repoConfig: REPO_CONFIG,
    checks: granted.checks,
    notAllowed: run.withheld,
    profile: granted.permissions,
    decidedBySow: acp,
  });
  if (ended.interrupted) {
    const which = target.kind === 'task' ? target.id : `--agent ${target.agent}`;
    throw new WorkerStoppedError(ended.interrupted, label(target), `'sow agent resume ${which} "<prompt>"'`);
  }
  const failed = ended.failure(advice);
  if (failed) throw failed;
  // Said even with --quiet: the worker was stopped from doing something, and the user can allow it.
  for (const line of advice) speaker.say(line);
  return { eventsFile: files.eventsFile, ...(reportedSession ? { reportedSession } : {}), denials };
}

/** The worker's own CLI, its events read from its stdout (and what it refused, for Codex, from its stderr). */
async function runCli(run: WorkerRun, invocation: Invocation): Promise<Ended> {
  const { files, resolution, env, base, cwd, speaker, meter, onSession } = run;
  const { denialCollector } = await import('../../adapters/denials.js');
  const refusals = denialCollector(resolution.executor.config.type);
  writeRunFiles(invocation.files ?? []);
  const words = [invocation.binary, ...invocation.args].map((a) =>
    /^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a),
  );
  sayStart(run, invocation, words.join(' '), '');
  let reportedSession: string | undefined;
  let persisting: Promise<void> = Promise.resolve();
  const outcome = await runProcess({
    binary: resolution.binaryPath,
    args: invocation.args,
    cwd,
    env: { ...base, ...invocation.env, ...env },
    ...(invocation.stdin !== undefined ? { stdin: invocation.stdin } : {}),
    onLine: (line) => {
      files.appendEvent(line);
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        if (line.trim()) files.appendWorkerEvents([{ at: meter.now(), kind: 'text', text: line.trim() }]);
        if (!speaker.quiet && line.trim()) speaker.say(`  ${line}`);
        return;
      }
      files.appendWorkerEvents(workerEvents(resolution.spec, event, meter.now()));
      if (!reportedSession && resolution.spec.sessionFromEvent && typeof event === 'object' && event) {
        const id = resolution.spec.sessionFromEvent(event as Record<string, unknown>);
        if (id) {
          reportedSession = id;
          if (onSession) persisting = persisting.then(() => onSession(id));
        }
      }
      refusals.event(event);
      const used =
        typeof event === 'object' && event ? resolution.spec.usage?.(event as Record<string, unknown>) : undefined;
      if (used) meter.usage = addUsage(meter.usage, used);
      if (!speaker.quiet) for (const text of describeEvent(event)) speaker.say(`  ${text}`);
    },
    onStderrLine: (line) => refusals.stderr(line),
  }).catch((err: NodeJS.ErrnoException) => {
    throw new ExternalToolError(invocation.binary, `could not start: ${err.code ?? err.message}`);
  });
  await persisting;
  const leftRunning = outcome.leftRunning
    ? `; something it left running still held its output, which sow no longer reads`
    : '';
  const ended = outcome.signal ? `ended by ${outcome.signal}` : `exited with code ${outcome.code}`;
  files.appendWorkerEvents([{ at: meter.now(), kind: 'exit', text: `${ended}${leftRunning}`, code: outcome.code }]);
  if (outcome.leftRunning && !speaker.quiet)
    speaker.say(
      `  Note: ${env['SOW_AGENT_ID']} left processes running that still held its output (a server started in the ` +
        `background?); sow went on without them`,
    );
  const denials = [...refusals.denials];
  const { code, signal, stderrTail } = outcome;
  return {
    denials,
    reportedSession,
    interrupted: outcome.interrupted,
    failure: (advice) =>
      code === 0
        ? undefined
        : new WorkerFailedError(invocation.binary, code, signal, stderrTail, files.eventsFile, { denials, advice }),
  };
}

declare const SOW_VERSION: string;

/** What starts the agent over ACP: its own argv (no permission flags: sow answers each request), then the prompt. */
function acpInvocation(resolution: Resolution, prompt: string, granted: Granted): Invocation {
  const acp = resolution.spec.acp!;
  return {
    binary: startedFor(resolution.spec, resolution.executor.config, 'acp').binary,
    args: acp.args(resolution.executor.config, granted.permissions),
    env: acp.env?.({ runningAsRoot: runningAsRoot(), permissions: granted.permissions }) ?? {},
    stdin: prompt,
    notes: [
      `transport: acp — sow answers each permission ${resolution.spec.title} asks by the profile ` +
        `(${granted.permissions}), and hands it \`sow mcp\` as an MCP server`,
    ],
    granted,
  };
}

async function runOverAcp(run: WorkerRun, invocation: Invocation): Promise<Ended> {
  const { files, resolution, env, base, cwd, speaker, meter, onSession, load } = run;
  const { runAcpWorker, sowMcpServer } = await import('../acp-worker.js');
  const command = `${[invocation.binary, ...invocation.args].join(' ')} (Agent Client Protocol on stdio)`;
  sayStart(run, invocation, command, ' over ACP');
  const server = sowMcpServer(env);
  const { permissions } = invocation.granted;
  const sessionMeta = resolution.spec.acp?.sessionMeta?.(permissions);
  const r = await runAcpWorker({
    binaryPath: resolution.binaryPath,
    args: [
      ...invocation.args,
      ...(server && resolution.spec.acp?.mcpArgs ? resolution.spec.acp.mcpArgs({ ...server, env }) : []),
    ],
    ...(server
      ? { mcpServers: [{ ...server, env: Object.entries(env).map(([name, value]) => ({ name, value })) }] }
      : {}),
    files,
    // Where a safe worker may change files: its own checkout, when it has one.
    root: isWorkerCheckoutPath(cwd) ? cwd : (env['SOW_PROJECT_ROOT'] ?? cwd),
    cwd,
    env: { ...base, ...invocation.env },
    workerEnv: env,
    prompt: invocation.stdin ?? '',
    ...(load !== undefined ? { load } : {}),
    ...(resolution.executor.config.settings?.model ? { model: resolution.executor.config.settings.model } : {}),
    permissions,
    checks: invocation.granted.checks,
    ...(permissions === 'safe' && resolution.spec.acp?.modes ? { modes: resolution.spec.acp.modes } : {}),
    ...(sessionMeta ? { sessionMeta } : {}),
    now: meter.now,
    say: speaker.say,
    quiet: speaker.quiet === true,
    onSession: async (id) => {
      if (load === undefined && onSession) await onSession(id);
    },
    version: typeof SOW_VERSION === 'string' ? SOW_VERSION : '0.0.0-dev',
  });
  meter.usage = addUsage(meter.usage, r.usage);
  const { title } = resolution.spec;
  const failure = (advice: string[]) => {
    if (r.loadFailed !== undefined)
      return new AcpSessionNotLoadedError(title, load ?? '', r.loadFailed, files.eventsFile);
    if (r.notAsking !== undefined)
      return new AcpModeNotAskingError(title, r.notAsking, resolution.spec.acp?.modes?.setBy, files.eventsFile);
    if (r.failure === undefined) return undefined;
    const what = `${invocation.binary} (Agent Client Protocol) failed: ${r.failure}`;
    const refused = { denials: r.denials, advice };
    return new WorkerFailedError(invocation.binary, r.code, r.signal, r.stderrTail, files.eventsFile, refused, what);
  };
  return {
    denials: r.denials,
    ...(r.sessionId && load === undefined ? { reportedSession: r.sessionId } : {}),
    interrupted: r.interrupted,
    failure,
  };
}
