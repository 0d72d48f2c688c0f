/**
 * `sow agent spawn` and `sow agent resume`: resolve the agent's executor from the user
 * configuration, record the session in the state before the worker starts, run the worker, and
 * report the task's new status. The worker reports back by calling sow itself.
 */
import { contextOf, type AppContext, type Where } from './context.js';
import { randomUUID } from 'node:crypto';
import { findAgent, type AgentDef } from '../domain/agents.js';
import { permissionProfile, resolveConfig, type EffectiveConfig, type ResolvedExecutor } from '../domain/config.js';
import type { PermissionProfile, ProjectState, Session, TaskState, TaskSummary, UsageEntry } from '../domain/schemas.js';
import { checkStatusChange, isFinished, withStatus } from '../domain/tasks.js';
import { logLeftCompleted, writeLogEntry } from './log.js';
import { BudgetSpentError, ExternalToolError, NoReadyTaskError, NotExecutingError, SowError, TaskBlockedError, UsageError } from '../domain/errors.js';
import { refsForPrompt, withRefs } from './refs.js';
import { retireOwner, TaskOwnedError } from '../domain/ownership.js';
import type { ProjectType, ProjectView } from '../domain/project-type.js';
import { RunFiles, writeRunFiles, type WorkerEvent } from '../adapters/agent-outputs.js';
import { diffOfTask } from './task.js';
import { agentSettingsFiles, EXECUTORS, executorOf, IGNORED_SETTINGS, resumableTypes } from '../adapters/executors/registry.js';
import { refuseWideningSettings } from './agent-settings.js';
import type { ExecutorModule, Invocation, Usage } from '../adapters/executors/types.js';
import { addUsage, usageOfLines } from '../adapters/executors/shared.js';
import { isReadyFile, latestEventsFile, readEvents, READY_VARIABLE, writeReady } from '../adapters/supervisor.js';
import { removeOwnerRecord, writeOwnerRecord } from '../adapters/signals.js';
import type { OwnerRecord } from '../domain/signal-proof.js';
import { budgetReached, costOf } from '../domain/usage.js';
import { currentBranch } from '../adapters/repo.js';
import { findOnPath, runProcess } from '../adapters/process-runner.js';
import { describeEvent } from '../adapters/progress.js';
import { readUserConfig, userConfigPath, type LoadedConfig } from '../adapters/user-config.js';
import { readRepoConfig, REPO_CONFIG } from '../adapters/repo-config.js';
import {
  AcpModeNotAskingError,
  AcpSessionNotLoadedError,
  ExecutorBinaryNotFoundError,
  NoSessionError,
  ResumeNotSupportedError,
  SessionExistsError,
  UnknownExecutorError,
  WorkerFailedError,
  RunNotRecordedError,
  WorkerStoppedError,
} from './agent-errors.js';
import { isProject } from './deferred-runs.js';
import type { ProjectIdentity } from '../adapters/deferred-runs.js';
import { readTemplate, renderTemplate } from '../adapters/templates.js';
import { candidateIds, isReady, liveOwner, requireExecuting, takeOver, workerOwner } from './ownership.js';
import { branchProblem, PROJECT_DIR, Reader, taskDir, update, type UnitOfWork } from './workspace.js';
import { isWorkerCheckoutPath } from '../adapters/worker-checkouts.js';
import { claimsRemote, giveBackRemoteClaim, ourClaim, remoteClaimer, remoteLeaseDue, remoteLeaseFrom, renewRemoteClaim, type RemoteClaimer } from './remote-claims.js';
import { ClaimedElsewhereError } from '../domain/claims.js';
import { DEFAULT_LEASE_SECONDS } from '../domain/ownership.js';

/** Workers change the project, so they start only on its branch: refuse before any CLI runs. */
const readForWorker = <T>(ctx: AppContext, fn: (reader: Reader) => Promise<T>) => Reader.read(ctx, fn, { otherBranch: 'refuse' });

export interface AgentRunOptions {
  prompt?: string;
  verbose: boolean;
  quiet: boolean;
  force?: boolean;
  /** resume: start a fresh session with a handoff brief instead of continuing the recorded one. */
  fresh?: boolean;
  /** spawn on a task: the worker works in a checkout of its own (app/worker-checkout.ts); else as .sow/config.yaml says. */
  worktree?: boolean;
  /** Where progress and --verbose lines go (stderr). */
  say: (line: string) => void;
}

export interface AgentRunResult {
  agent: string;
  agent_id: string;
  task?: string;
  executor: string;
  session_id: string | null;
  status?: string;
  events_file: string;
  /** Tool calls the worker's CLI refused under its permissions (empty when none). */
  denials: import('../adapters/denials.js').Denial[];
  /** A worker without a task: what it reported during this run ('sow agent report'), if it did. */
  report?: { status: string; message?: string };
  /** Its own checkout, relative to the project checkout, when it works in one. */
  worktree?: string;
}

export type Target = { kind: 'task'; id: string } | { kind: 'project'; agent: string };

const label = (t: Target) => (t.kind === 'task' ? `task ${t.id}` : `agent ${t.agent}`);

interface Resolution {
  loaded: LoadedConfig;
  effective: EffectiveConfig;
  executor: ResolvedExecutor;
  spec: ExecutorModule;
  binaryPath: string;
  /** How sow talks to it: its command line, or the Agent Client Protocol (a session keeps the one it began with). */
  transport: 'cli' | 'acp';
}

function sourceText(source: string, variable?: string): string {
  return source === 'environment' ? `from environment: ${variable}` : source === 'file' ? 'from config file' : source;
}

async function resolveFor(agentName: string, recordedExecutor: Pick<Session, 'executor' | 'type' | 'transport'> | undefined, opts: AgentRunOptions, env: AppContext['env']): Promise<Resolution> {
  // (Loaded already by this module; imported here so that only this function's lines change.)
  const { checkConfig, executorChoices, executorIssues, issueText } = await import('../domain/config.js');
  const { ConfigFileError } = await import('../adapters/user-config.js');
  // Strict: an unknown key or a mistyped role in the file is CONFIG_INVALID (exit 4) before anything runs.
  const loaded = await readUserConfig(userConfigPath(env));
  const effective = resolveConfig(loaded.config, env);
  const verbose = (line: string) => opts.verbose && opts.say(line);
  verbose('Loading agent configuration...');
  verbose(`  Config file: ${loaded.path} (${loaded.exists ? 'found' : 'not found, using defaults'})`);
  verbose(`  Agent: ${agentName}`);
  let executor: ResolvedExecutor | undefined;
  if (recordedExecutor) {
    // A session belongs to the CLI that started it: resume with that executor.
    executor = effective.executors[recordedExecutor.executor] ?? { name: recordedExecutor.executor, config: { type: recordedExecutor.type as never }, source: 'implicit' };
    verbose(`  Executor: ${executor.name} (type ${executor.config.type}; recorded with the session)`);
  } else {
    const binding = effective.bindings[agentName] ?? { role: agentName, executor: 'claude-code', source: 'default' as const };
    executor = effective.executors[binding.executor];
    if (!executor) {
      throw new UnknownExecutorError(
        binding.executor,
        executorChoices(effective, binding.executor),
        binding.source === 'environment' && binding.variable
          ? { kind: 'environment', variable: binding.variable, configPath: loaded.path }
          : { kind: 'file', field: `agents.bindings.${binding.role}`, configPath: loaded.path },
      );
    }
    verbose(`  Executor: ${executor.name} (type ${executor.config.type}; ${sourceText(binding.source, binding.variable)})`);
  }
  const spec = executorOf(executor.config.type);
  if (!spec) throw new UnknownExecutorError(executor.config.type, { defined: [], types: Object.keys(EXECUTORS) }, { kind: 'session' });
  // The executor's own mistakes refuse the run (exit 4); overrides nothing reads are said once
  // and the run goes on.
  const error = executor.source === 'file' ? executorIssues(executor, IGNORED_SETTINGS)[0] : undefined;
  if (error) throw new ConfigFileError(loaded.path, error.problem, error.field);
  const stray = checkConfig(effective, IGNORED_SETTINGS).warnings.filter((w) => w.field.startsWith('SOW_'));
  for (const w of stray) opts.say(`warning: ${issueText(w)}`);
  const settingsSource = executor.source === 'file' ? 'from config file' : 'default';
  const profileSet = executor.config.settings?.permissions !== undefined || executor.config.settings?.yolo_mode !== undefined;
  verbose(
    `  Settings: permissions=${permissionProfile(executor.config)} (${profileSet ? settingsSource : 'default'})` +
      `${executor.config.settings?.model ? `, model=${executor.config.settings.model} (${settingsSource})` : ''}` +
      `${executor.config.custom_args?.length ? `, custom_args=${JSON.stringify(executor.config.custom_args)}` : ''}`,
  );
  const transport = (recordedExecutor ? recordedExecutor.transport : executor.config.transport) === 'acp' ? 'acp' : 'cli';
  if (transport === 'acp' && !spec.acp) throw new ConfigFileError(loaded.path, `sow has no way to start ${spec.title} over the Agent Client Protocol`, `agents.executors.${executor.name}.transport`);
  const binary = transport === 'acp' ? spec.acp!.binary(executor.config) : spec.binary(executor.config);
  // Looked up on the context's PATH: the worker runs in the context's environment.
  const binaryPath = findOnPath(binary, env);
  if (!binaryPath) throw new ExecutorBinaryNotFoundError(binary || '(none configured)', executor.name, transport === 'acp' ? spec.acp!.install : spec.install);
  verbose(`  Binary: ${binaryPath}${transport === 'acp' ? ' (Agent Client Protocol)' : ''}`);
  return { loaded, effective, executor, spec, binaryPath, transport };
}

/**
 * What the worker may do unasked: the executor's profile, and the repository's declared checks
 * that the person allowed to run here — a check committed or edited since is not handed to it.
 */
async function workerRights(
  root: string,
  resolution: Resolution,
  say: (line: string) => void,
  env: AppContext['env'],
): Promise<{ permissions: PermissionProfile; checks: string[]; withheld: string[] }> {
  const { config } = await readRepoConfig(root);
  const permissions = permissionProfile(resolution.executor.config);
  const { standingsOf } = await import('./check-allowance.js');
  const standings = standingsOf(root, config.checks ?? [], env);
  const refused = standings.checks.filter((s) => !s.allowed).map((s) => s.check.name);
  if (refused.length && permissions === 'safe') {
    say(
      `warning: ${refused.length === 1 ? 'the check' : 'the checks'} ${refused.join(', ')} in ${REPO_CONFIG} ${refused.length === 1 ? 'is' : 'are'} not allowed to run on this machine, so the worker may not run ${refused.length === 1 ? 'it' : 'them'}; review ${refused.length === 1 ? 'it' : 'them'} ('sow check list') and run 'sow check allow'`,
    );
  }
  return { permissions, checks: standings.checks.filter((s) => s.allowed).map((s) => s.check.run), withheld: standings.checks.filter((s) => !s.allowed).map((s) => s.check.run) };
}

const runFiles = (root: string, target: Target, kind: 'spawn' | 'resume') => new RunFiles(root, target.kind === 'task' ? target.id : target.agent, kind);

function agentPrompt(agent: AgentDef, agentId: string, assignment: string, extra: string | undefined, refs = ''): string {
  const template = readTemplate(agent.template);
  const body = withRefs(renderTemplate(template, { agent_id: agentId, assignment, guidance: agent.guidance }), refs);
  return extra?.trim() ? `${body.trimEnd()}\n\n## Instructions from the orchestrator\n\n${extra.trim()}\n` : body;
}

async function createSessionId(spec: ExecutorModule, resolution: Resolution, cwd: string, env: AppContext['env']): Promise<string | undefined> {
  if (spec.sessionIds === 'caller') return randomUUID();
  if (spec.sessionIds !== 'precreated' || !spec.createSession) return undefined;
  const cmd = spec.createSession(resolution.executor.config);
  const lines: string[] = [];
  const outcome = await runProcess({ binary: resolution.binaryPath, args: cmd.args, cwd, env, onLine: (l) => l.trim() && lines.push(l.trim()) });
  const id = lines.at(-1);
  if (outcome.code !== 0 || !id)
    throw new ExternalToolError(cmd.binary, `'${cmd.binary} ${cmd.args.join(' ')}' did not print a session id (exit ${outcome.code})`, outcome.stderrTail.trim().split('\n').at(-1));
  return id;
}

/** A check of the folders a worker runs in: its CLI's own settings there must not widen a safe worker (AGENT_SETTINGS_WIDEN). */
function settingsGuard(resolution: Resolution, permissions: PermissionProfile): (folders: readonly string[]) => void {
  return (folders) => refuseWideningSettings(resolution.spec, { transport: resolution.transport, permissions, executor: resolution.executor.name, configPath: resolution.loaded.path }, folders);
}

/** What a run of a worker needs, however it is driven (a CLI's own output, or ACP). */
interface WorkerRun {
  files: RunFiles;
  target: Target;
  /** The declared checks not granted, because the person has not allowed them here. */
  withheld: readonly string[];
  resolution: Resolution;
  env: Record<string, string>;
  /** The environment the worker starts from (the context's), below what the CLI and sow add. */
  base: AppContext['env'];
  cwd: string;
  opts: AgentRunOptions;
  /** What the run used so far, summed from the CLI's events (the caller records it however the run ends), and the clock its events are stamped with. */
  meter: { usage: Usage; now: () => string };
  onSession?: (id: string) => Promise<void>;
}

type WorkerRunResult = { eventsFile: string; reportedSession?: string; denials: import('../adapters/denials.js').Denial[] };

/** Where the advice about what a worker was refused points: its CLI, its executor and the files that grant it more. */
function adviceContext(run: WorkerRun, granted: Invocation['granted']) {
  const { resolution } = run;
  return {
    type: resolution.executor.config.type,
    title: resolution.spec.title,
    executor: resolution.executor.name,
    configPath: resolution.loaded.path,
    repoConfig: REPO_CONFIG,
    checks: granted.checks,
    notAllowed: run.withheld,
    profile: granted.permissions,
  };
}

/** A worker stopped by a signal sow passed on, with the command that continues it. */
function stoppedError(target: Target, signal: ConstructorParameters<typeof WorkerStoppedError>[0]): WorkerStoppedError {
  const resume = target.kind === 'task' ? `sow agent resume ${target.id} "<prompt>"` : `sow agent resume --agent ${target.agent} "<prompt>"`;
  return new WorkerStoppedError(signal, label(target), `'${resume}'`);
}

/** Runs the worker, streaming its events to a file and a progress view to stderr. */
async function runWorker(run: WorkerRun, invocation: Invocation): Promise<WorkerRunResult> {
  const { files, target, resolution, env, base, cwd, opts, meter, onSession } = run;
  // (Imported here so that only this function's lines change.)
  const { denialAdvice, denialCollector } = await import('../adapters/denials.js');
  const kind = files.kind;
  const eventsFile = files.eventsFile;
  if (resolution.transport === 'acp') return runOverAcp(run, invocation);
  // What the CLI refuses under its permissions, read from its events (and, for Codex, its stderr).
  const refusals = denialCollector(resolution.executor.config.type);
  files.startEvents();
  writeRunFiles(invocation.files ?? []);
  for (const note of invocation.notes) opts.verbose && opts.say(`  Note: ${note}`);
  if (opts.verbose) opts.say(`  Command: ${[invocation.binary, ...invocation.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}`);
  if (!opts.quiet) opts.say(`${kind === 'spawn' ? 'Spawning' : 'Resuming'} ${env['SOW_AGENT_ID']} with ${resolution.executor.name} (${label(target)})…`);
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
        if (!opts.quiet && line.trim()) opts.say(`  ${line}`);
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
      const used = typeof event === 'object' && event ? resolution.spec.usage?.(event as Record<string, unknown>) : undefined;
      if (used) meter.usage = addUsage(meter.usage, used);
      if (!opts.quiet) for (const text of describeEvent(event)) opts.say(`  ${text}`);
    },
    onStderrLine: (line) => refusals.stderr(line),
  }).catch((err: NodeJS.ErrnoException) => {
    throw new ExternalToolError(invocation.binary, `could not start: ${err.code ?? err.message}`);
  });
  await persisting;
  const leftRunning = outcome.leftRunning ? `; something it left running still held its output, which sow no longer reads` : '';
  files.appendWorkerEvents([{ at: meter.now(), kind: 'exit', text: `${outcome.signal ? `ended by ${outcome.signal}` : `exited with code ${outcome.code}`}${leftRunning}`, code: outcome.code }]);
  if (outcome.leftRunning && !opts.quiet) opts.say(`  Note: ${env['SOW_AGENT_ID']} left processes running that still held its output (a server started in the background?); sow went on without them`);
  const denials = [...refusals.denials];
  const advice = denialAdvice(denials, adviceContext(run, invocation.granted));
  if (outcome.interrupted) throw stoppedError(target, outcome.interrupted);
  if (outcome.code !== 0) throw new WorkerFailedError(invocation.binary, outcome.code, outcome.signal, outcome.stderrTail, eventsFile, { denials, advice });
  // Said even with --quiet: the worker was stopped from doing something, and the user can allow it.
  for (const line of advice) opts.say(line);
  return { eventsFile, ...(reportedSession ? { reportedSession } : {}), denials };
}

declare const SOW_VERSION: string;

/** The session a resume over ACP continues (`session/load`); a spawn opens one. */
const ACP_LOAD = Symbol('acp-load');
type AcpInvocation = Invocation & { [ACP_LOAD]?: string };

/** What starts the agent over ACP: its own argv (no permission flags: sow answers each request), the prompt sent once the session is open. */
function acpInvocation(resolution: Resolution, prompt: string, granted: Invocation['granted'], load?: string): AcpInvocation {
  const acp = resolution.spec.acp!;
  return {
    binary: acp.binary(resolution.executor.config),
    args: acp.args(resolution.executor.config, granted.permissions),
    env: acp.env?.({ runningAsRoot: runningAsRoot(), permissions: granted.permissions }) ?? {},
    stdin: prompt,
    notes: [`transport: acp — sow answers each permission ${resolution.spec.title} asks by the profile (${granted.permissions}), and hands it \`sow mcp\` as an MCP server`],
    granted,
    ...(load !== undefined ? { [ACP_LOAD]: load } : {}),
  };
}

async function runOverAcp(run: WorkerRun, invocation: AcpInvocation): Promise<WorkerRunResult> {
  const { files, target, resolution, env, base, cwd, opts, meter, onSession } = run;
  const { runAcpWorker, sowMcpServer } = await import('./acp-worker.js');
  const { denialAdvice } = await import('../adapters/denials.js');
  files.startEvents();
  for (const note of invocation.notes) opts.verbose && opts.say(`  Note: ${note}`);
  if (opts.verbose) opts.say(`  Command: ${[invocation.binary, ...invocation.args].join(' ')} (Agent Client Protocol on stdio)`);
  if (!opts.quiet) opts.say(`${files.kind === 'spawn' ? 'Spawning' : 'Resuming'} ${env['SOW_AGENT_ID']} with ${resolution.executor.name} over ACP (${label(target)})…`);
  const load = invocation[ACP_LOAD];
  const server = sowMcpServer(env);
  const r = await runAcpWorker({
    binaryPath: resolution.binaryPath,
    args: [...invocation.args, ...(server && resolution.spec.acp?.mcpArgs ? resolution.spec.acp.mcpArgs({ ...server, env }) : [])],
    ...(server ? { mcpServers: [{ ...server, env: Object.entries(env).map(([name, value]) => ({ name, value })) }] } : {}),
    title: resolution.spec.title,
    files,
    // Where a safe worker may change files: its own checkout, when it has one.
    root: isWorkerCheckoutPath(cwd) ? cwd : (env['SOW_PROJECT_ROOT'] ?? cwd),
    cwd,
    env: { ...base, ...invocation.env },
    workerEnv: env,
    prompt: invocation.stdin ?? '',
    ...(load !== undefined ? { load } : {}),
    ...(resolution.executor.config.settings?.model ? { model: resolution.executor.config.settings.model } : {}),
    permissions: invocation.granted.permissions,
    checks: invocation.granted.checks,
    ...(invocation.granted.permissions === 'safe' && resolution.spec.acp?.modes ? { modes: resolution.spec.acp.modes } : {}),
    ...(resolution.spec.acp?.sessionMeta?.(invocation.granted.permissions) ? { sessionMeta: resolution.spec.acp.sessionMeta(invocation.granted.permissions)! } : {}),
    now: meter.now,
    say: opts.say,
    quiet: opts.quiet === true,
    onSession: async (id) => {
      if (load === undefined && onSession) await onSession(id);
    },
    version: typeof SOW_VERSION === 'string' ? SOW_VERSION : '0.0.0-dev',
  });
  meter.usage = addUsage(meter.usage, r.usage);
  const advice = denialAdvice(r.denials, { ...adviceContext(run, invocation.granted), decidedBySow: true });
  if (r.interrupted) throw stoppedError(target, r.interrupted);
  if (r.loadFailed !== undefined) throw new AcpSessionNotLoadedError(resolution.spec.title, load ?? '', r.loadFailed, files.eventsFile);
  if (r.notAsking !== undefined) throw new AcpModeNotAskingError(resolution.spec.title, r.notAsking, resolution.spec.acp?.modes?.setBy, files.eventsFile);
  if (r.failure !== undefined)
    throw new WorkerFailedError(
      invocation.binary,
      r.code,
      r.signal,
      r.stderrTail,
      files.eventsFile,
      { denials: r.denials, advice },
      `${invocation.binary} (Agent Client Protocol) failed: ${r.failure}`,
    );
  for (const line of advice) opts.say(line);
  return { eventsFile: files.eventsFile, ...(r.sessionId && load === undefined ? { reportedSession: r.sessionId } : {}), denials: r.denials };
}

function nextAgentId(project: ProjectState, agent: string): { id: string; counts: Record<string, number> } {
  const n = (project.spawn_counts?.[agent] ?? 0) + 1;
  return { id: `${agent}-${n}`, counts: { ...project.spawn_counts, [agent]: n } };
}

function taskAssignment(task: TaskState): string {
  const dir = taskDir(task.phase, task.id);
  return [
    `Task ${task.id}: ${task.name} (iteration ${task.iteration}).`,
    `Its context is in ${dir}/: state.yaml, description.md, log.md and feedback/.`,
    `Your task id is also in the environment as SOW_TASK_ID=${task.id}.`,
    `If \`sow\` is not found on PATH, run it as \`${sowCommand()}\` instead.`,
  ].join('\n');
}

/** How a worker can run this very sow when a login shell has lost it from PATH (Codex runs `bash -lc`). */
const sowCommand = () => `node ${JSON.stringify(process.argv[1] ?? 'sow')}`;

const workerEnv = (agent: string, agentId: string, root: string, taskId?: string, sessionId?: string): Record<string, string> => ({
  SOW_BIN: process.argv[1] ?? '',
  SOW_AGENT: agent,
  SOW_AGENT_ID: agentId,
  SOW_PROJECT_ROOT: root,
  ...(taskId ? { SOW_TASK_ID: taskId } : {}),
  ...(sessionId ? { SOW_SESSION_ID: sessionId } : {}),
});

const runningAsRoot = () => process.getuid?.() === 0;

/** Refuses a new run when the project's workers have used what its budget allows. */
async function requireBudget(reader: Reader): Promise<void> {
  const { config } = await readRepoConfig(reader.root);
  if (!config.budget) return;
  const entries = reader.project.usage ?? [];
  const reached = budgetReached(config.budget, costOf(entries, 'task').total);
  if (!reached) return;
  const biggest = [...costOf(entries, 'task').rows].sort(
    (a, b) => (b.cost_usd ?? 0) - (a.cost_usd ?? 0) || (b.input_tokens ?? 0) + (b.output_tokens ?? 0) - ((a.input_tokens ?? 0) + (a.output_tokens ?? 0)),
  )[0];
  throw new BudgetSpentError(reached.spent, reached.limit, reached.field, biggest ? (biggest.key === '(project)' ? 'the project’s own workers' : `task ${biggest.key}`) : undefined);
}

/** What a spawn checks against: the reader before anything starts, the unit of work under the lock. */
interface SpawnCheck {
  type: ProjectType;
  view(): Promise<ProjectView>;
  dependenciesOf(task: TaskState): Promise<TaskSummary[]>;
  now: string;
}

/**
 * Whether a worker may start on the task now: the project is in a state where tasks are worked on,
 * the task is not finished, nobody else works on it, it has no session to resume, and its
 * dependencies are finished. --force overrides each. Checked before anything starts, and again
 * under the lock when the session is recorded.
 */
async function checkSpawnable(at: SpawnCheck, task: TaskState, force: boolean | undefined, handoff?: boolean): Promise<void> {
  if (force) return;
  // A handoff carries on a session, as a resume does: a finished task may be reopened, and its session is replaced.
  if (isFinished(task.status) && !handoff) {
    throw new TaskBlockedError(`task ${task.id} is ${task.status}; a worker would reopen it`, `add a new task for more work ('sow task add'), or pass --force to spawn on it anyway`, {
      task: task.id,
      status: task.status,
    });
  }
  const owner = liveOwner(task, at.now);
  if (owner) throw new TaskOwnedError(task.id, owner, 'a second worker would clobber its work');
  await requireExecuting(at.type, () => at.view(), task.id);
  if (task.session_id && !handoff) throw new SessionExistsError(`task ${task.id}`, `sow agent resume ${task.id} "<prompt>"`);
  if (!isFinished(task.status) || !handoff) checkStatusChange(task, 'in_progress', await at.dependenciesOf(task));
}

/**
 * The first ready task nobody works on, for `agent spawn --next` (under the lock). With `claim`
 * (a claims remote), the first one whose claim there lands: a task held there, or lost to a
 * racer's push, is passed over.
 */
async function nextReady(uow: UnitOfWork, claim?: (task: TaskState) => Promise<string | undefined>): Promise<TaskState> {
  const tasks = await uow.tasks();
  for (const id of candidateIds(tasks)) {
    const task = await uow.task(id);
    if (isReady(task, uow.now) && (!claim || (await claim(task)) !== undefined)) return task;
  }
  throw new NoReadyTaskError(tasks);
}

/** Gives back a claim that landed on the remote for a worker that was then not recorded here. */
async function giveBack(root: string, pushed: { remote: string; ref: string; sha: string }): Promise<void> {
  const { pushClaim } = await import('../adapters/remote-claims.js');
  await pushClaim(root, pushed.remote, pushed.ref, null, pushed.sha);
}

/**
 * While its worker runs, the process that waits for it looks at the worker's claim on the remote
 * every quarter of the lease, and renews it once half of the lease there has passed — a worker
 * may work for hours and write nothing. Ends with the process; the lease then runs out.
 */
function renewWhileRunning(ctx: AppContext, taskId: string, agentId: string): () => void {
  const timer = setInterval(() => void renewWorkerClaim(ctx, taskId, agentId).catch(() => undefined), (DEFAULT_LEASE_SECONDS * 1000) / 4);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Renews the claim on the remote of the worker this process waits for, if half of its lease
 * there has passed; whether it did. A remote not reached, or the claim taken over there, is
 * warned of (app/remote-claims.ts) and tried again at the next look.
 */
export async function renewWorkerClaim(ctx: AppContext, taskId: string, agentId: string): Promise<boolean> {
  return update(
    ctx,
    async (uow) => {
      const task = await uow.task(taskId);
      const owner = task.owner;
      if (owner?.kind !== 'worker' || owner.by !== agentId || owner.pid !== process.pid || owner.remote === undefined || !remoteLeaseDue(owner, uow.now)) return false;
      const renewed = await renewRemoteClaim(uow.root, task.id, (await uow.project()).branch, owner, uow.now, 'it is tried again in a few minutes');
      if (renewed === owner) return false;
      uow.setTask({ ...task, owner: renewed });
      return true;
    },
    { branchCheck: false },
  );
}

/**
 * After the run, however it ended: what it used goes into the project's ledger (a run the CLI
 * reported nothing for too, so every run is counted), and the task is no longer owned by this
 * process's worker (unless someone took it over).
 */
async function settleRun(ctx: AppContext, target: Target, entry: UsageEntry, owned: ProjectIdentity, stopped?: unknown): Promise<RunNotRecordedError | undefined> {
  try {
    await settleHere(ctx, target, entry, owned, stopped);
    return undefined;
  } catch (err) {
    // Not recorded because the project's branch is not checked out (switched while the worker ran):
    // kept until it is, never written into another branch's copy of the project.
    const checkedOut = currentBranch(ctx.cwd);
    if (checkedOut === owned.branch) throw err;
    const { deferRun } = await import('../adapters/deferred-runs.js');
    deferRun(ctx.cwd, {
      version: 1,
      project: owned,
      ...(target.kind === 'task' ? { task: target.id } : {}),
      agent_id: entry.agent_id,
      pid: process.pid,
      ...(checkedOut !== undefined ? { checked_out: checkedOut } : {}),
      entry,
    });
    return new RunNotRecordedError(entry.agent_id, label(target), checkedOut, owned.branch);
  }
}

async function settleHere(ctx: AppContext, target: Target, entry: UsageEntry, owned: ProjectIdentity, stopped?: unknown): Promise<void> {
  await update(
    ctx,
    async (uow) => {
      const project = await uow.project();
      // Another project, or this one's copy on a branch that is not its own: not the place to write.
      if (!isProject(project, owned) || branchProblem(uow.root, project)) throw new Error('not on the project');
      uow.setProject({ ...project, usage: [...(project.usage ?? []), entry] });
      if (target.kind !== 'task') return;
      const task = await uow.task(target.id);
      if (task.owner?.kind !== 'worker' || task.owner.by !== entry.agent_id || task.owner.pid !== process.pid) return;
      // The task is let go here, so on the remote too (a task its worker finished has no owner left by now).
      await giveBackRemoteClaim(uow.root, task.id, (await uow.project()).branch, task.owner);
      let next = { ...task };
      delete next.owner;
      // Stopped by a signal to this process (agent stop, a shutdown, Ctrl-C): paused, as agent stop leaves it, with a note.
      if (stopped instanceof WorkerStoppedError) {
        if (next.status === 'in_progress') next = withStatus(next, 'paused', uow.now);
        await writeLogEntry(
          uow,
          task.id,
          { agent: uow.actor.by, action: 'paused_task', result: 'partial' },
          `Stopped: ${stopped.signal} reached sow (pid ${process.pid}) while its worker ${entry.agent_id} ran, and ended the worker. Resume it with 'sow agent resume ${task.id} "<prompt>"'.`,
        );
      }
      uow.setTask(next);
    },
    { branchCheck: false },
  );
}

/**
 * After `agent stop` ended a worker: the task is paused (when it was in progress) with a note in
 * its log, no longer owned by the stopped worker, and the run is counted as far as its events say
 * (unless its supervisor counted it itself, having seen the worker end).
 */
export async function settleStopped(ctx: AppContext, taskId: string, agentId: string, pid: number, eventsFile: string | undefined): Promise<string> {
  return update(ctx, async (uow) => {
    let task = await uow.task(taskId);
    const session = task.session;
    const since = task.owner?.since ?? task.started_at ?? uow.now;
    // A sow process that was running the worker passes the signal on and settles the task itself
    // (settleRun): then nothing is left to do here.
    if (task.owner?.kind !== 'worker' || task.owner.by !== agentId || task.owner.pid !== pid) return task.status;
    await giveBackRemoteClaim(uow.root, task.id, (await uow.project()).branch, task.owner);
    task = { ...task };
    delete task.owner;
    if (task.status === 'in_progress') task = withStatus(task, 'paused', uow.now);
    uow.setTask(task);
    await writeLogEntry(
      uow,
      task.id,
      { agent: uow.actor.by, action: 'paused_task', result: 'partial' },
      `Stopped with sow agent stop: its worker ${agentId} (pid ${pid}) was ended. Resume it with 'sow agent resume ${task.id} "<prompt>"'.`,
    );
    const project = await uow.project();
    const counted = (project.usage ?? []).some((e) => e.agent_id === agentId && e.task === task.id && e.at >= since);
    if (!counted && session) {
      const events = eventsFile ? readEvents(uow.root, eventsFile)?.lines : undefined;
      const usage = events ? usageOfEvents(session.type, events) : {};
      const entry = usageEntry(
        uow.now,
        { kind: 'task', id: task.id },
        session.agent,
        agentId,
        session.executor,
        session.resumed_at && session.resumed_at >= since ? 'resume' : 'spawn',
        task.session_id,
        usage,
      );
      uow.setProject({ ...project, usage: [...(project.usage ?? []), entry] });
    }
    return task.status;
  });
}

/** One event of a worker, as `sow agent events` shows it (its shape is the events file's: adapters/agent-outputs.ts). */
export type { WorkerEvent } from '../adapters/agent-outputs.js';

/** An event of the CLI's stream as sow's own kinds, read by its module (progress lines and usage). */
export function workerEvents(spec: ExecutorModule, event: unknown, at: string): WorkerEvent[] {
  const out: WorkerEvent[] = [];
  for (const line of describeEvent(event)) {
    if (line.startsWith('› ')) out.push({ at, kind: 'message', text: line.slice(2) });
    else if (line.startsWith('● ')) out.push({ at, kind: 'tool_call', text: line.slice(2), tool: line.slice(2).split(/[: ]/)[0]! });
    else if (line.startsWith('■ ')) out.push({ at, kind: 'finished', text: line.slice(2) });
    else if (line.startsWith('✗ ')) out.push({ at, kind: 'error', text: line.slice(2) });
    else if (/^session .* started/.test(line)) out.push({ at, kind: 'session', text: line });
    else out.push({ at, kind: 'text', text: line });
  }
  const used = typeof event === 'object' && event ? spec.usage?.(event as Record<string, unknown>) : undefined;
  if (used && Object.keys(used).length) {
    const parts = [
      used.input_tokens !== undefined ? `${used.input_tokens} in` : '',
      used.output_tokens !== undefined ? `${used.output_tokens} out` : '',
      used.cost_usd !== undefined ? `$${used.cost_usd}` : '',
    ].filter(Boolean);
    out.push({ at, kind: 'usage', text: parts.join(', '), ...used });
  }
  return out;
}

/** What a run's events say so far: the last thing it did (as its progress line), and what it used. */
export function activityOf(type: string, lines: readonly string[]): { last?: string; usage: Usage } {
  let last: string | undefined;
  for (let i = lines.length - 1; i >= 0 && last === undefined; i--) {
    try {
      last = describeEvent(JSON.parse(lines[i]!)).at(-1);
    } catch {
      // not an event: a line the CLI printed as text
    }
  }
  return { ...(last !== undefined ? { last } : {}), usage: usageOfEvents(type, lines) };
}

/** The same from sow's own events of a run (an ACP run's raw stream is JSON-RPC): the last thing it did, and what it used. */
export function activityOfEvents(lines: readonly string[]): { last?: string; usage: Usage } {
  let last: string | undefined;
  let usage: Usage = {};
  const MARK: Partial<Record<WorkerEvent['kind'], string>> = { message: '›', tool_call: '●', error: '✗', agent_plan: '☐' };
  for (const line of lines) {
    let e: WorkerEvent;
    try {
      e = JSON.parse(line) as WorkerEvent;
    } catch {
      continue;
    }
    if (!e || typeof e !== 'object') continue;
    const mark = MARK[e.kind];
    if (mark && typeof e.text === 'string') last = `${mark} ${e.text}`;
    if (e.kind === 'usage')
      usage = addUsage(usage, {
        ...(e.input_tokens !== undefined ? { input_tokens: e.input_tokens } : {}),
        ...(e.output_tokens !== undefined ? { output_tokens: e.output_tokens } : {}),
        ...(e.cost_usd !== undefined ? { cost_usd: e.cost_usd } : {}),
      });
  }
  return { ...(last !== undefined ? { last } : {}), usage };
}

/** What a run's events say it used, read with its CLI's own reader. */
function usageOfEvents(type: string, lines: readonly string[]): Usage {
  const spec = executorOf(type);
  return spec ? usageOfLines(spec, lines) : {};
}

/** The ledger entry of a run that ended now. */
function usageEntry(at: string, target: Target, agent: string, agentId: string, executor: string, run: UsageEntry['run'], session: string | undefined, usage: Usage): UsageEntry {
  return { at, agent_id: agentId, agent, executor, ...(target.kind === 'task' ? { task: target.id } : {}), ...(session ? { session } : {}), run, ...usage };
}

/**
 * What must hold before a worker starts, checked where nothing has started yet: the task (or the
 * project's session) can take a worker now, then the budget. The root, and the task when one was named.
 */
export async function spawnPreconditions(
  ctx: AppContext,
  agentName: string,
  taskId: string | undefined,
  opts: { force?: boolean; next?: boolean; iteration?: boolean; handoff?: Handoff },
): Promise<{ root: string; target?: Target }> {
  const agent = findAgent(agentName);
  const found = await readForWorker(ctx, async (reader): Promise<{ root: string; target?: Target }> => {
    if (taskId !== undefined) {
      const task = await reader.task(taskId);
      await checkSpawnable({ type: reader.type, view: () => reader.view(), dependenciesOf: (t) => reader.dependenciesOf(t), now: reader.ctx.now() }, task, opts.force, opts.handoff !== undefined);
      return { root: reader.root, target: { kind: 'task', id: task.id } };
    }
    if (opts.next) {
      if (!opts.force) await requireExecuting(reader.type, () => reader.view(), '(the next ready one)');
      return { root: reader.root };
    }
    if (opts.iteration) {
      // A fresh worker for the next iteration: never a resume, so an earlier session does not matter.
      if (!reader.type.iterationPrompt) {
        throw new SowError(
          'NOT_ITERATIVE',
          'failed',
          `--iteration is for projects whose work runs in iterations, and this project is ${reader.project.type}`,
          `spawn a worker on a task ('sow agent spawn ${agent.name} <task-id>') or for the project ('sow agent spawn ${agent.name}')`,
        );
      }
      return { root: reader.root, target: { kind: 'project', agent: agent.name } };
    }
    if (reader.project.sessions?.[agent.name]?.session_id && !opts.force) {
      throw new SessionExistsError(`agent ${agent.name}`, `sow agent resume --agent ${agent.name} "<prompt>"`);
    }
    return { root: reader.root, target: { kind: 'project', agent: agent.name } };
  });
  // After what the command names is found: a task that is not there is told as such, even over budget.
  await readForWorker(ctx, requireBudget);
  return found;
}

/** A fresh session taking a task over from one that cannot (or is not to) be continued. */
export interface Handoff {
  from_agent_id: string;
  from_session?: string;
  reason: 'asked' | 'session_gone';
  cli_said?: string;
}

export async function spawnAgent(
  where: Where,
  agentName: string,
  taskId: string | undefined,
  opts: AgentRunOptions & { next?: boolean; iteration?: boolean; handoff?: Handoff },
): Promise<AgentRunResult> {
  const ctx = contextOf(where);
  const agent = findAgent(agentName);
  const { root, target: checked } = await spawnPreconditions(ctx, agentName, taskId, opts);
  let target: Target = checked ?? { kind: 'task', id: '' };
  // Once the worker starts, the folder it was asked from may go: what follows is done from the root.
  const inRoot: AppContext = { ...ctx, cwd: root };
  const resolution = await resolveFor(agent.name, undefined, opts, ctx.env);
  // Read (and validate) .sow/config.yaml before anything is started or written.
  const rights = await workerRights(root, resolution, opts.say, ctx.env);
  // Nor may the CLI's own settings in the repository widen a safe worker (its checkout is checked again once opened).
  const widening = settingsGuard(resolution, rights.permissions);
  widening([root]);
  const ownCheckout = opts.worktree ?? ((await readRepoConfig(root)).config.workers?.worktree === true ? 'parallel' : false);
  // Over ACP the agent opens the session and says its id (session/new).
  const sessionId = resolution.transport === 'acp' ? undefined : await createSessionId(resolution.spec, resolution, root, ctx.env);
  const branch = currentBranch(root);
  const now = ctx.now();

  // Record the session before the worker starts: when it exits, the state is the only message.
  let workdir = root;
  let checkoutRel: string | undefined;
  // The task's claim on the claims remote, once its push landed (claims.remote in .sow/config.yaml).
  let pushed: { remote: string; ref: string; sha: string } | undefined;
  let ownerRecord: OwnerRecord | undefined;
  // The project the worker works for: its end is recorded there, and nowhere else.
  let owned: ProjectIdentity | undefined;
  const recorded = update(inRoot, async (uow) => {
    const project = await uow.project();
    owned = { name: project.name, created_at: project.created_at, branch: project.branch };
    const { id, counts } = nextAgentId(project, agent.name);
    const session: Session = {
      executor: resolution.executor.name,
      type: resolution.executor.config.type,
      agent: agent.name,
      agent_id: id,
      cwd: root,
      ...(branch ? { branch } : {}),
      ...(resolution.transport === 'acp' ? { transport: 'acp' as const } : {}),
      started_at: now,
    };
    if (target.kind === 'task') {
      // With a claims remote, the task is claimed there first, as 'task next --claim' does: of two
      // machines spawning on one task, one push lands. Without one, this reads a file and runs no git.
      const claims = await claimsRemote(uow.root);
      const leaseUntil = remoteLeaseFrom(now);
      const claimOn = async (onRemote: RemoteClaimer, task: TaskState): Promise<string | undefined> => {
        const sha = await onRemote.claim(task.id, { task: task.id, owner: id, machine: onRemote.machine, since: now, lease_until: leaseUntil }, now, {
          ours: ourClaim(task, onRemote.remote),
          // --force takes over a claim on a task it names; --next never takes what another holds.
          force: checked !== undefined && opts.force,
        });
        if (sha !== undefined) pushed = { remote: onRemote.remote, ref: onRemote.ref(task.id), sha };
        return sha;
      };
      let task: TaskState;
      if (checked) {
        task = await uow.task(target.id);
        await checkSpawnable({ type: await uow.type(), view: () => uow.view(), dependenciesOf: (t) => uow.dependenciesOf(t), now: uow.now }, task, opts.force, opts.handoff !== undefined);
        if (claims) {
          const onRemote = await remoteClaimer(uow.root, claims, project.branch);
          if ((await claimOn(onRemote, task)) === undefined) throw new ClaimedElsewhereError(task.id, onRemote.remote, await onRemote.holder(task.id), agent.name);
        }
      } else {
        // --next: the first ready task, chosen under the lock, so two spawns never pick the same one;
        // with a claims remote, the first nobody holds there either.
        const onRemote = claims && (await remoteClaimer(uow.root, claims, project.branch));
        task = await nextReady(uow, onRemote ? (t) => claimOn(onRemote, t) : undefined);
      }
      target = { kind: 'task', id: task.id };
      // A stale owner, or (with --force) a live one or an earlier session, no longer owns the task.
      if (task.owner || task.session_id) task = takeOver(task);
      // Forced onto a finished task, the worker reopens it; a completed one says so in its log.
      if (isFinished(task.status)) {
        if (task.status === 'completed') await logLeftCompleted(uow, task, 'in_progress', uow.actor.by, `a worker was spawned on it: sow agent spawn ${agent.name} ${task.id} --force`);
        task = withStatus(task, 'in_progress', now);
      }
      uow.setProject({ ...(await uow.project()), spawn_counts: counts });
      // A task with a checkout keeps working there; --worktree (or the setting, for a parallel task) makes one.
      if (task.worktree || ownCheckout === true || (ownCheckout === 'parallel' && task.parallel)) {
        const { openWorkerCheckout } = await import('./worker-checkout.js');
        const opened = openWorkerCheckout(uow.root, project.branch, task.id, task.worktree, now);
        task = { ...task, worktree: opened.checkout };
        workdir = opened.path;
        checkoutRel = opened.checkout.path;
        session.cwd = opened.path;
      }
      const started: TaskState = {
        ...task,
        ...(sessionId ? { session_id: sessionId } : {}),
        session,
        owner: { ...workerOwner(id, sessionId, now), ...(pushed ? { remote: pushed.remote, remote_claim: pushed.sha, remote_lease_until: leaseUntil } : {}) },
        ...(opts.handoff ? { handoffs: [...(task.handoffs ?? []), { at: now, ...opts.handoff, to_agent_id: id }] } : {}),
        // Taking over is carrying on, as a resume: in progress again, and a correction round after needs_review.
        ...(opts.handoff && !isFinished(task.status) ? { status: 'in_progress' as const, iteration: task.status === 'needs_review' ? task.iteration + 1 : task.iteration } : {}),
        ...(task.assigned_agent ? {} : { assigned_agent: agent.name }),
        ...(task.status === 'pending' ? { status: 'in_progress' as const, started_at: task.started_at ?? now } : {}),
      };
      if (!sessionId) delete started.session_id;
      // The proof that this process is the owner, before the owner is committed: 'agent stop' signals nothing else.
      ownerRecord = writeOwnerRecord(uow.root, { task: started.id, agent_id: id });
      uow.setTask(started);
      return { agentId: id, assignment: taskAssignment(started) };
    }
    const type = await uow.type();
    // The iteration's prompt is everything the worker knows: it starts with no context at all.
    const iteration = opts.iteration && type.iterationPrompt ? type.iterationPrompt(await uow.view(), (rel) => uow.readDoc(rel)) : undefined;
    const current = await uow.project();
    uow.setProject({ ...current, spawn_counts: counts, sessions: { ...current.sessions, [agent.name]: { ...(sessionId ? { session_id: sessionId } : {}), ...session } } });
    const where = `If \`sow\` is not found on PATH, run it as \`${sowCommand()}\` instead.`;
    return {
      agentId: id,
      assignment:
        iteration !== undefined
          ? `${iteration}\n\n${where}`
          : `Project: ${project.name} — ${project.description}\nState: ${project.statechart.current_state}. Run \`sow project status\` to see where it stands.\n${where}`,
    };
  });
  const { agentId, assignment } = await recorded.catch(async (err: unknown) => {
    if (ownerRecord) removeOwnerRecord(root, ownerRecord);
    // The claim landed on the remote but the worker was not recorded here: give it back (as 'task next --claim' does).
    if (pushed) await giveBack(root, pushed);
    throw err;
  });

  const prompt = agentPrompt(agent, agentId, assignment, opts.prompt, refsForPrompt(root));
  const files = runFiles(root, target, 'spawn');
  announceStart(ctx, root, { agent: agent.name, agent_id: agentId, target, session_id: sessionId ?? null, events_file: files.eventsFile });
  const promptFile = files.writePrompt(prompt);
  const invocation =
    resolution.transport === 'acp'
      ? acpInvocation(resolution, prompt, { permissions: rights.permissions, checks: rights.checks })
      : resolution.spec.spawn({
          permissions: rights.permissions,
          checks: rights.checks,
          config: resolution.executor.config,
          cwd: workdir,
          prompt,
          promptFile,
          ...(sessionId ? { sessionId } : {}),
          runningAsRoot: runningAsRoot(),
          protect: agentSettingsFiles(),
        });
  const env = workerEnv(agent.name, agentId, root, target.kind === 'task' ? target.id : undefined, sessionId);
  const persistReported = async (id: string) => {
    await update(inRoot, async (uow) => {
      if (target.kind === 'task') {
        const task = await uow.task(target.id);
        uow.setTask({ ...task, session_id: id, ...(task.owner?.by === agentId ? { owner: { ...task.owner, session: id } } : {}) });
      } else {
        const p = await uow.project();
        const s = p.sessions?.[agent.name];
        if (s) uow.setProject({ ...p, sessions: { ...p.sessions, [agent.name]: { ...s, session_id: id } } });
      }
    });
  };
  const running = target;
  const startedAt = ctx.now();
  let run: Awaited<ReturnType<typeof runWorker>> | undefined;
  const meter = { usage: {} as Usage, now: ctx.now };
  let failure: unknown;
  let unrecorded: RunNotRecordedError | undefined;
  // A worker may run longer than its claim's lease on the remote, and say nothing meanwhile: this process renews it.
  const renewing = pushed && running.kind === 'task' ? renewWhileRunning(inRoot, running.id, agentId) : undefined;
  try {
    // The worker does not inherit where its supervisor reports (it is the supervisor's own business).
    const { [READY_VARIABLE]: _ready, ...base } = ctx.env;
    // Its own checkout, which an earlier worker may have changed (the repository was checked above).
    if (workdir !== root) widening([root, workdir]);
    run = await runWorker({ files, target: running, withheld: rights.withheld, resolution, env, base, cwd: workdir, opts, meter, onSession: persistReported }, invocation);
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    renewing?.();
    // Whatever happened to the worker, this process no longer waits for it, and what it used is
    // counted. (If this fails, the owner is stale as soon as this process exits.)
    const session = sessionId ?? run?.reportedSession;
    unrecorded = await settleRun(inRoot, running, usageEntry(ctx.now(), running, agent.name, agentId, resolution.executor.name, 'spawn', session, meter.usage), owned!, failure).catch(() => undefined);
    if (unrecorded) opts.say(`Warning: ${unrecorded.message}`);
    if (ownerRecord) removeOwnerRecord(root, ownerRecord);
  }
  if (unrecorded) throw unrecorded;
  const result = await finish(inRoot, running, agent.name, agentId, resolution.executor.name, sessionId ?? run.reportedSession ?? null, run.eventsFile, opts, run.denials, startedAt);
  return checkoutRel ? { ...result, worktree: checkoutRel } : result;
}

/** A detached worker's supervisor tells whoever started it that the session is recorded (a new one, or the one continued). */
function announceStart(ctx: AppContext, root: string, run: { agent: string; agent_id: string; target: Target; session_id: string | null; events_file: string }): void {
  const ready = ctx.env[READY_VARIABLE];
  if (!ready || !isReadyFile(root, ready)) return;
  const { target, ...rest } = run;
  writeReady(ready, { ...rest, ...(target.kind === 'task' ? { task: target.id } : {}), pid: process.pid });
}

async function finish(
  ctx: AppContext,
  target: Target,
  agent: string,
  agentId: string,
  executor: string,
  sessionId: string | null,
  eventsFile: string,
  opts: AgentRunOptions,
  denials: AgentRunResult['denials'],
  startedAt: string,
): Promise<AgentRunResult> {
  const result: AgentRunResult = { agent, agent_id: agentId, executor, session_id: sessionId, events_file: eventsFile, denials };
  if (target.kind === 'task') {
    const task = await Reader.read(ctx, (reader) => reader.task(target.id));
    result.task = task.id;
    result.status = task.status;
    if (!opts.quiet) opts.say(`Task ${task.id} is now ${task.status}`);
    // The protocol: a worker ends by setting needs_review, paused or failed.
    if (task.status === 'in_progress') opts.say(`Warning: ${agentId} exited without reporting a status; read ${taskDir(task.phase, task.id)}/log.md, then resume it or set the status`);
  } else {
    // A worker without a task reports how its work stands with 'sow agent report'.
    const report = await Reader.read(ctx, (reader) => reader.project.sessions?.[target.agent]?.report);
    if (report && report.at >= startedAt) result.report = { status: report.status, ...(report.message ? { message: report.message } : {}) };
    if (!opts.quiet) opts.say(result.report ? `${agentId} finished and reported ${result.report.status}${result.report.message ? `: ${result.report.message}` : ''}` : `${agentId} finished`);
  }
  if (sessionId === null && !opts.quiet) opts.say(`Note: ${executor} reported no session id, so this session cannot be resumed`);
  return result;
}

/**
 * What a resume needs before anything starts: the session to continue, not owned by a live worker
 * (unless forced), a status that may go back in progress; and, unless it is handed to a fresh
 * session, the budget.
 */
export async function resumePreconditions(ctx: AppContext, target: Target, opts: { force?: boolean; fresh?: boolean }) {
  const found = await readForWorker(ctx, async (reader) => {
    if (target.kind === 'task') {
      const task = await reader.task(target.id);
      const agentName = task.session?.agent ?? task.assigned_agent ?? 'implementer';
      if (!task.session) throw new NoSessionError(`task ${task.id}`, `sow agent spawn ${agentName} ${task.id}`);
      const owner = liveOwner(task, reader.ctx.now());
      if (owner && !opts.force) throw new TaskOwnedError(task.id, owner, 'resuming its session now would run two workers on it');
      if (!opts.force && !isFinished(task.status)) checkStatusChange(task, 'in_progress', await reader.dependenciesOf(task), { override: 'pass --force to resume it anyway' });
      return { root: reader.root, target: { kind: 'task', id: task.id } as Target, session: task.session, sessionId: task.session_id, agentName };
    }
    findAgent(target.agent);
    const recorded = reader.project.sessions?.[target.agent];
    if (!recorded) throw new NoSessionError(`agent ${target.agent}`, `sow agent spawn ${target.agent}`);
    return { root: reader.root, target, session: recorded, sessionId: recorded.session_id, agentName: target.agent };
  });
  if (opts.fresh && found.target.kind !== 'task')
    throw new UsageError('--fresh hands a task over to a new session; a worker without a task starts afresh with sow agent spawn', `sow agent spawn ${found.agentName} --force`);
  await readForWorker(ctx, requireBudget);
  return found;
}

export async function resumeAgent(where: Where, target: Target, prompt: string, opts: AgentRunOptions): Promise<AgentRunResult> {
  const ctx = contextOf(where);
  const found = await resumePreconditions(ctx, target, opts);
  const { root, session, sessionId, agentName } = found;
  if (opts.fresh && found.target.kind === 'task') {
    return handOff(ctx, found.target.id, agentName, prompt, opts, { from_agent_id: session.agent_id, ...(sessionId ? { from_session: sessionId } : {}), reason: 'asked' });
  }
  // Once the worker starts, the folder it was asked from may go: what follows is done from the root.
  const inRoot: AppContext = { ...ctx, cwd: root };
  target = found.target;
  const resolution = await resolveFor(agentName, session, opts, ctx.env);
  // Over ACP, whether the agent can continue a session is its answer to initialize (session/load), known once it runs.
  if (resolution.transport === 'cli' && !resolution.spec.supportsResumption(resolution.executor.config)) {
    const resumable = Object.values(resolution.effective.executors)
      .filter((e) => executorOf(e.config.type)?.supportsResumption(e.config))
      .map((e) => e.name);
    throw new ResumeNotSupportedError(resolution.executor.name, label(target), resumable.length ? resumable : resumableTypes());
  }
  // A session whose CLI never reported its id (codex or opencode that failed early) cannot be continued.
  if (!sessionId) throw new NoSessionError(label(target), target.kind === 'task' ? `sow agent spawn ${agentName} ${target.id} --force` : `sow agent spawn ${agentName} --force`);
  const rights = await workerRights(root, resolution, opts.say, ctx.env);
  const widening = settingsGuard(resolution, rights.permissions);
  widening([root]);
  const now = ctx.now();
  let pushed: { remote: string; ref: string; sha: string } | undefined;
  let ownerRecord: OwnerRecord | undefined;
  let owned: ProjectIdentity | undefined;
  await update(inRoot, async (uow) => {
    const project = await uow.project();
    owned = { name: project.name, created_at: project.created_at, branch: project.branch };
    if (target.kind === 'task') {
      let task = await uow.task(target.id);
      const owner = liveOwner(task, uow.now);
      if (owner && !opts.force) throw new TaskOwnedError(task.id, owner, 'resuming its session now would run two workers on it');
      if (!opts.force && !isFinished(task.status)) checkStatusChange(task, 'in_progress', await uow.dependenciesOf(task), { override: 'pass --force to resume it anyway' });
      // With a claims remote, the resumed worker claims the task there again, as a spawned one does.
      const claims = await claimsRemote(uow.root);
      const leaseUntil = remoteLeaseFrom(now);
      if (claims) {
        const onRemote = await remoteClaimer(uow.root, claims, (await uow.project()).branch);
        const record = { task: task.id, owner: session.agent_id, machine: onRemote.machine, since: now, lease_until: leaseUntil };
        const sha = await onRemote.claim(task.id, record, now, { ours: ourClaim(task, onRemote.remote), force: opts.force });
        if (sha === undefined) throw new ClaimedElsewhereError(task.id, onRemote.remote, await onRemote.holder(task.id), agentName);
        pushed = { remote: onRemote.remote, ref: onRemote.ref(task.id), sha };
      }
      // With --force, a live owner of another session is retired (this session stays).
      if (task.owner && task.owner.by !== session.agent_id) task = retireOwner(task, { keepSession: true });
      // A resume after needs_review is a correction round: count it.
      const iteration = task.status === 'needs_review' ? task.iteration + 1 : task.iteration;
      // The proof that this process is the owner, before the owner is committed: 'agent stop' signals nothing else.
      ownerRecord = writeOwnerRecord(uow.root, { task: task.id, agent_id: session.agent_id });
      uow.setTask({
        ...task,
        iteration,
        status: task.status === 'completed' || task.status === 'abandoned' ? task.status : 'in_progress',
        session: { ...task.session!, resumed_at: now, resumes: (task.session?.resumes ?? 0) + 1 },
        owner: { ...workerOwner(session.agent_id, sessionId, now), ...(pushed ? { remote: pushed.remote, remote_claim: pushed.sha, remote_lease_until: leaseUntil } : {}) },
      });
    } else {
      const p = await uow.project();
      const s = p.sessions![target.agent]!;
      uow.setProject({ ...p, sessions: { ...p.sessions, [target.agent]: { ...s, resumed_at: now, resumes: (s.resumes ?? 0) + 1 } } });
    }
  }).catch(async (err: unknown) => {
    if (ownerRecord) removeOwnerRecord(root, ownerRecord);
    // The claim landed on the remote but the resume was not recorded here: give it back.
    if (pushed) await giveBack(root, pushed);
    throw err;
  });
  const files = runFiles(root, target, 'resume');
  announceStart(ctx, root, { agent: agentName, agent_id: session.agent_id, target, session_id: sessionId, events_file: files.eventsFile });
  const promptFile = files.writePrompt(prompt);
  // Claude Code resumes only from the directory where the session began: a worker's own checkout
  // is made again there if it went (its branch is kept until the task is merged).
  const recordedCheckout = target.kind === 'task' ? await Reader.read(inRoot, async (reader) => reader.task(target.id as string)) : undefined;
  let sessionCwd = session.cwd;
  if (recordedCheckout?.worktree) {
    const { workerCheckoutOf } = await import('./worker-checkout.js');
    sessionCwd = workerCheckoutOf(root, recordedCheckout, now) ?? sessionCwd;
  }
  const invocation =
    resolution.transport === 'acp'
      ? acpInvocation(resolution, prompt, { permissions: rights.permissions, checks: rights.checks }, sessionId)
      : resolution.spec.resume({
          permissions: rights.permissions,
          checks: rights.checks,
          config: resolution.executor.config,
          cwd: sessionCwd,
          prompt,
          promptFile,
          sessionId,
          runningAsRoot: runningAsRoot(),
          protect: agentSettingsFiles(),
        });
  const env = workerEnv(agentName, session.agent_id, root, target.kind === 'task' ? target.id : undefined, sessionId);
  const running = target;
  const startedAt = ctx.now();
  let run: Awaited<ReturnType<typeof runWorker>> | undefined;
  const meter = { usage: {} as Usage, now: ctx.now };
  let gone: string | undefined;
  let failure: unknown;
  let unrecorded: RunNotRecordedError | undefined;
  const renewing = pushed && running.kind === 'task' ? renewWhileRunning(inRoot, running.id, session.agent_id) : undefined;
  try {
    // The worker does not inherit where its supervisor reports (it is the supervisor's own business).
    const { [READY_VARIABLE]: _ready, ...base } = ctx.env;
    if (sessionCwd !== root) widening([root, sessionCwd]);
    run = await runWorker({ files, target: running, withheld: rights.withheld, resolution, env, base, cwd: sessionCwd, opts, meter }, invocation);
  } catch (err) {
    // The CLI could not resume the session (not found, another machine, an upgrade): not lost — a
    // fresh session takes the task over with a brief of where it stands.
    gone = running.kind !== 'task' ? undefined : err instanceof AcpSessionNotLoadedError ? err.reason : err instanceof WorkerFailedError ? resolution.spec.sessionGone?.(err.stderrTail) : undefined;
    if (!gone) {
      failure = err;
      throw err;
    }
  } finally {
    renewing?.();
    unrecorded = await settleRun(inRoot, running, usageEntry(ctx.now(), running, agentName, session.agent_id, resolution.executor.name, 'resume', sessionId, meter.usage), owned!, failure).catch(
      () => undefined,
    );
    if (unrecorded) opts.say(`Warning: ${unrecorded.message}`);
    if (ownerRecord) removeOwnerRecord(root, ownerRecord);
  }
  if (unrecorded) throw unrecorded;
  if (gone !== undefined && running.kind === 'task') {
    opts.say(`${resolution.spec.title} could not resume session ${sessionId} (${gone}); a fresh session takes task ${running.id} over with a handoff brief.`);
    return handOff(ctx, running.id, agentName, prompt, opts, { from_agent_id: session.agent_id, from_session: sessionId, reason: 'session_gone', cli_said: gone });
  }
  return finish(inRoot, running, agentName, session.agent_id, resolution.executor.name, sessionId, run!.eventsFile, opts, run!.denials, startedAt);
}

/**
 * A fresh session of the same role takes the task over: its prompt is a brief of where the task
 * stands — what it asks, the feedback on it, its log, the files changed and how, the earlier
 * worker's last message — and what it is asked now. The handoff is recorded in the task.
 */
async function handOff(ctx: AppContext, taskId: string, agentName: string, prompt: string, opts: AgentRunOptions, handoff: Handoff): Promise<AgentRunResult> {
  const brief = await Reader.read(ctx, async (reader) => {
    const task = await reader.task(taskId);
    const dir = taskDir(task.phase, task.id);
    const description = reader.readDoc(`${dir}/description.md`)?.trim();
    const feedback = task.inputs.filter((a) => a.type === 'feedback').map((a) => ({ path: a.path, text: reader.readDoc(`${PROJECT_DIR}/${a.path}`)?.trim() }));
    const log = reader.readDoc(`${dir}/log.md`)?.trim();
    const files = task.outputs.filter((a) => a.type === 'modified').map((a) => a.path);
    const base = reader.project.base_branch;
    const diff = diffOfTask(reader, task);
    const events = latestEventsFile(reader.root, task.id);
    const last = events ? lastMessageOf(readEvents(reader.root, events)?.lines ?? []) : undefined;
    const cap = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}\n… (cut at ${max} characters)` : text);
    return [
      `You take over task ${task.id} from ${handoff.from_agent_id}, whose session ${handoff.reason === 'asked' ? 'is not to be continued' : `could not be resumed${handoff.cli_said ? ` (the agent CLI said: ${handoff.cli_said})` : ''}`}. You start with no memory of its conversation: this is what it left.`,
      `## The task\n\n${description || task.name}`,
      ...(feedback.length ? [`## Feedback on its work\n\n${feedback.map((f) => `### ${f.path}\n\n${f.text ?? '(missing)'}`).join('\n\n')}`] : []),
      ...(log ? [`## Its log\n\n${cap(log, 20_000)}`] : []),
      ...(files.length ? [`## Files it changed\n\n${files.map((f) => `- ${f}`).join('\n')}`] : []),
      ...(diff ? [`## How (against ${base ?? 'the last commit'})\n\n\`\`\`diff\n${cap(diff, 40_000)}\n\`\`\``] : []),
      ...(last ? [`## Its last message\n\n${cap(last, 4_000)}`] : []),
      `## What you are asked now\n\n${prompt}`,
    ].join('\n\n');
  });
  return spawnAgent(ctx, agentName, taskId, { ...opts, prompt: brief, handoff });
}

/** The last thing the worker said, from its events. */
function lastMessageOf(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const said = describeEvent(JSON.parse(lines[i]!)).find((l) => l.startsWith('› '));
      if (said) return said.slice(2);
    } catch {
      // not an event
    }
  }
  return undefined;
}
