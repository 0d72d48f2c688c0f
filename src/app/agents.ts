/**
 * `sow agent spawn` and `sow agent resume`: resolve the agent's executor from the user
 * configuration, record the session in the state before the worker starts, run the worker, and
 * report the task's new status. The worker reports back by calling sow itself.
 */
import { randomUUID } from 'node:crypto';
import { findAgent, type AgentDef } from '../domain/agents.js';
import { permissionProfile, resolveConfig, type EffectiveConfig, type ResolvedExecutor } from '../domain/config.js';
import { ExternalToolError } from '../domain/errors.js';
import type { PermissionProfile, ProjectState, Session, TaskState } from '../domain/schemas.js';
import { checkStatusChange } from '../domain/tasks.js';
import { RunFiles, writeRunFiles } from '../adapters/agent-outputs.js';
import { EXECUTORS, executorOf } from '../adapters/executors/table.js';
import type { Executor, Invocation } from '../adapters/executors/types.js';
import { currentBranch } from '../adapters/repo.js';
import { findOnPath, runProcess } from '../adapters/process-runner.js';
import { describeEvent } from '../adapters/progress.js';
import { readUserConfig, type LoadedConfig } from '../adapters/user-config.js';
import { readRepoConfig } from '../adapters/repo-config.js';
import { ExecutorBinaryNotFoundError, NoSessionError, ResumeNotSupportedError, SessionExistsError, UnknownExecutorError, WorkerFailedError } from './agent-errors.js';
import { readTemplate, renderTemplate } from '../adapters/templates.js';
import { Reader, taskDir, update } from './workspace.js';

/** Workers change the project, so they start only on its branch: refuse before any CLI runs. */
const readForWorker = <T>(cwd: string, fn: (reader: Reader) => Promise<T>) => Reader.read(cwd, fn, { otherBranch: 'refuse' });

export interface AgentRunOptions {
  prompt?: string;
  verbose: boolean;
  quiet: boolean;
  force?: boolean;
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
}

type Target = { kind: 'task'; id: string } | { kind: 'project'; agent: string };

const label = (t: Target) => (t.kind === 'task' ? `task ${t.id}` : `agent ${t.agent}`);

interface Resolution {
  loaded: LoadedConfig;
  effective: EffectiveConfig;
  executor: ResolvedExecutor;
  spec: Executor;
  binaryPath: string;
}

function sourceText(source: string, variable?: string): string {
  return source === 'environment' ? `from environment: ${variable}` : source === 'file' ? 'from config file' : source;
}

async function resolveFor(agentName: string, recordedExecutor: Pick<Session, 'executor' | 'type'> | undefined, opts: AgentRunOptions): Promise<Resolution> {
  const loaded = await readUserConfig();
  const effective = resolveConfig(loaded.config, process.env);
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
    if (!executor) throw new UnknownExecutorError(binding.executor, Object.keys(effective.executors), loaded.path);
    verbose(`  Executor: ${executor.name} (type ${executor.config.type}; ${sourceText(binding.source, binding.variable)})`);
  }
  const spec = executorOf(executor.config.type);
  if (!spec) throw new UnknownExecutorError(executor.config.type, Object.keys(EXECUTORS), loaded.path);
  const settingsSource = executor.source === 'file' ? 'from config file' : 'default';
  const profileSet = executor.config.settings?.permissions !== undefined || executor.config.settings?.yolo_mode !== undefined;
  verbose(`  Settings: permissions=${permissionProfile(executor.config)} (${profileSet ? settingsSource : 'default'})` +
    `${executor.config.settings?.model ? `, model=${executor.config.settings.model} (${settingsSource})` : ''}` +
    `${executor.config.custom_args?.length ? `, custom_args=${JSON.stringify(executor.config.custom_args)}` : ''}`);
  const binary = spec.binary(executor.config);
  const binaryPath = findOnPath(binary);
  if (!binaryPath) throw new ExecutorBinaryNotFoundError(binary || '(none configured)', executor.name, spec.install);
  verbose(`  Binary: ${binaryPath}`);
  return { loaded, effective, executor, spec, binaryPath };
}

/** What the worker may do unasked: the executor's profile, and the repository's declared checks. */
async function workerRights(root: string, resolution: Resolution): Promise<{ permissions: PermissionProfile; checks: string[] }> {
  const { config } = await readRepoConfig(root);
  return { permissions: permissionProfile(resolution.executor.config), checks: (config.checks ?? []).map((c) => c.run) };
}

const runFiles = (root: string, target: Target, kind: 'spawn' | 'resume') => new RunFiles(root, target.kind === 'task' ? target.id : target.agent, kind);

function agentPrompt(agent: AgentDef, agentId: string, assignment: string, extra: string | undefined): string {
  const template = readTemplate(agent.template);
  const body = renderTemplate(template, { agent_id: agentId, assignment, guidance: agent.guidance });
  return extra?.trim() ? `${body.trimEnd()}\n\n## Instructions from the orchestrator\n\n${extra.trim()}\n` : body;
}

async function createSessionId(spec: Executor, resolution: Resolution, cwd: string): Promise<string | undefined> {
  if (spec.sessionIds === 'caller') return randomUUID();
  if (spec.sessionIds !== 'precreated' || !spec.createSession) return undefined;
  const cmd = spec.createSession(resolution.executor.config);
  const lines: string[] = [];
  const outcome = await runProcess({ binary: resolution.binaryPath, args: cmd.args, cwd, env: {}, onLine: (l) => l.trim() && lines.push(l.trim()) });
  const id = lines.at(-1);
  if (outcome.code !== 0 || !id) throw new ExternalToolError(cmd.binary, `'${cmd.binary} ${cmd.args.join(' ')}' did not print a session id (exit ${outcome.code})`, outcome.stderrTail.trim().split('\n').at(-1));
  return id;
}

/** Runs the worker, streaming its events to a file and a progress view to stderr. */
async function runWorker(
  files: RunFiles,
  target: Target,
  invocation: Invocation,
  resolution: Resolution,
  env: Record<string, string>,
  cwd: string,
  opts: AgentRunOptions,
  onSession?: (id: string) => Promise<void>,
): Promise<{ eventsFile: string; reportedSession?: string }> {
  const kind = files.kind;
  const eventsFile = files.eventsFile;
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
    env: { ...invocation.env, ...env },
    ...(invocation.stdin !== undefined ? { stdin: invocation.stdin } : {}),
    onLine: (line) => {
      files.appendEvent(line);
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        if (!opts.quiet && line.trim()) opts.say(`  ${line}`);
        return;
      }
      if (!reportedSession && resolution.spec.sessionFromEvent && typeof event === 'object' && event) {
        const id = resolution.spec.sessionFromEvent(event as Record<string, unknown>);
        if (id) {
          reportedSession = id;
          if (onSession) persisting = persisting.then(() => onSession(id));
        }
      }
      if (!opts.quiet) for (const text of describeEvent(event)) opts.say(`  ${text}`);
    },
  }).catch((err: NodeJS.ErrnoException) => {
    throw new ExternalToolError(invocation.binary, `could not start: ${err.code ?? err.message}`);
  });
  await persisting;
  if (outcome.code !== 0) throw new WorkerFailedError(invocation.binary, outcome.code, outcome.signal, outcome.stderrTail, eventsFile);
  return { eventsFile, ...(reportedSession ? { reportedSession } : {}) };
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

export async function spawnAgent(cwd: string, agentName: string, taskId: string | undefined, opts: AgentRunOptions): Promise<AgentRunResult> {
  const agent = findAgent(agentName);
  // Checked before anything starts; checked again under the lock when the session is recorded.
  const { root, target } = await readForWorker(cwd, async (reader): Promise<{ root: string; target: Target }> => {
    if (taskId !== undefined) {
      const task = await reader.task(taskId);
      if (task.session_id && !opts.force) throw new SessionExistsError(`task ${task.id}`, `sow agent resume ${task.id} "<prompt>"`);
      if (!opts.force) checkStatusChange(task, 'in_progress', await reader.summariesOf(task.dependencies), `task ${task.id}`);
      return { root: reader.root, target: { kind: 'task', id: task.id } };
    }
    if (reader.project.sessions?.[agent.name]?.session_id && !opts.force) {
      throw new SessionExistsError(`agent ${agent.name}`, `sow agent resume --agent ${agent.name} "<prompt>"`);
    }
    return { root: reader.root, target: { kind: 'project', agent: agent.name } };
  });
  const resolution = await resolveFor(agent.name, undefined, opts);
  const sessionId = await createSessionId(resolution.spec, resolution, root);
  const branch = currentBranch(root);
  const now = new Date().toISOString();

  // Record the session before the worker starts: when it exits, the state is the only message.
  const { agentId, assignment } = await update(root, async (uow) => {
    const project = await uow.project();
    const { id, counts } = nextAgentId(project, agent.name);
    const session: Session = { executor: resolution.executor.name, type: resolution.executor.config.type, agent: agent.name, agent_id: id, cwd: root, ...(branch ? { branch } : {}), started_at: now };
    if (target.kind === 'task') {
      const task = await uow.task(target.id);
      if (task.session_id && !opts.force) throw new SessionExistsError(`task ${task.id}`, `sow agent resume ${task.id} "<prompt>"`);
      if (!opts.force) checkStatusChange(task, 'in_progress', await uow.summariesOf(task.dependencies), `task ${task.id}`);
      uow.setProject({ ...(await uow.project()), spawn_counts: counts });
      const started: TaskState = {
        ...task,
        ...(sessionId ? { session_id: sessionId } : {}),
        session,
        ...(task.assigned_agent ? {} : { assigned_agent: agent.name }),
        ...(task.status === 'pending' ? { status: 'in_progress' as const, started_at: task.started_at ?? now } : {}),
      };
      if (!sessionId) delete started.session_id;
      uow.setTask(started);
      return { agentId: id, assignment: taskAssignment(started) };
    }
    const current = await uow.project();
    uow.setProject({ ...current, spawn_counts: counts, sessions: { ...current.sessions, [agent.name]: { ...(sessionId ? { session_id: sessionId } : {}), ...session } } });
    return {
      agentId: id,
      assignment: `Project: ${project.name} — ${project.description}\nState: ${project.statechart.current_state}. Run \`sow project status\` to see where it stands.\nIf \`sow\` is not found on PATH, run it as \`${sowCommand()}\` instead.`,
    };
  });

  const prompt = agentPrompt(agent, agentId, assignment, opts.prompt);
  const files = runFiles(root, target, 'spawn');
  const promptFile = files.writePrompt(prompt);
  const invocation = resolution.spec.spawn({ ...(await workerRights(root, resolution)), config: resolution.executor.config, cwd: root, prompt, promptFile, ...(sessionId ? { sessionId } : {}), runningAsRoot: runningAsRoot() });
  const env = workerEnv(agent.name, agentId, root, target.kind === 'task' ? target.id : undefined, sessionId);
  const persistReported = async (id: string) => {
    await update(root, async (uow) => {
      if (target.kind === 'task') uow.setTask({ ...(await uow.task(target.id)), session_id: id });
      else {
        const p = await uow.project();
        const s = p.sessions?.[agent.name];
        if (s) uow.setProject({ ...p, sessions: { ...p.sessions, [agent.name]: { ...s, session_id: id } } });
      }
    });
  };
  const run = await runWorker(files, target, invocation, resolution, env, root, opts, persistReported);
  return finish(root, target, agent.name, agentId, resolution.executor.name, sessionId ?? run.reportedSession ?? null, run.eventsFile, opts);
}

async function finish(root: string, target: Target, agent: string, agentId: string, executor: string, sessionId: string | null, eventsFile: string, opts: AgentRunOptions): Promise<AgentRunResult> {
  const result: AgentRunResult = { agent, agent_id: agentId, executor, session_id: sessionId, events_file: eventsFile };
  if (target.kind === 'task') {
    const task = await Reader.read(root, (reader) => reader.task(target.id));
    result.task = task.id;
    result.status = task.status;
    if (!opts.quiet) opts.say(`Task ${task.id} is now ${task.status}`);
    // The protocol: a worker ends by setting needs_review, paused or failed.
    if (task.status === 'in_progress') opts.say(`Warning: ${agentId} exited without reporting a status; read ${taskDir(task.phase, task.id)}/log.md, then resume it or set the status`);
  } else if (!opts.quiet) opts.say(`${agentId} finished`);
  if (sessionId === null && !opts.quiet) opts.say(`Note: ${executor} reported no session id, so this session cannot be resumed`);
  return result;
}

export async function resumeAgent(cwd: string, target: Target, prompt: string, opts: AgentRunOptions): Promise<AgentRunResult> {
  const found = await readForWorker(cwd, async (reader) => {
    if (target.kind === 'task') {
      const task = await reader.task(target.id);
      const agentName = task.session?.agent ?? task.assigned_agent ?? 'implementer';
      if (!task.session) throw new NoSessionError(`task ${task.id}`, `sow agent spawn ${agentName} ${task.id}`);
      return { root: reader.root, target: { kind: 'task', id: task.id } as Target, session: task.session, sessionId: task.session_id, agentName };
    }
    findAgent(target.agent);
    const recorded = reader.project.sessions?.[target.agent];
    if (!recorded) throw new NoSessionError(`agent ${target.agent}`, `sow agent spawn ${target.agent}`);
    return { root: reader.root, target, session: recorded, sessionId: recorded.session_id, agentName: target.agent };
  });
  const { root, session, sessionId, agentName } = found;
  target = found.target;
  const resolution = await resolveFor(agentName, session, opts);
  if (!resolution.spec.supportsResumption(resolution.executor.config)) {
    const resumable = Object.values(resolution.effective.executors).filter((e) => executorOf(e.config.type)?.supportsResumption(e.config)).map((e) => e.name);
    throw new ResumeNotSupportedError(resolution.executor.name, label(target), resumable.length ? resumable : ['claude-code', 'cursor']);
  }
  // A session whose CLI never reported its id (codex or opencode that failed early) cannot be continued.
  if (!sessionId) throw new NoSessionError(label(target), target.kind === 'task' ? `sow agent spawn ${agentName} ${target.id} --force` : `sow agent spawn ${agentName} --force`);
  const now = new Date().toISOString();
  await update(root, async (uow) => {
    if (target.kind === 'task') {
      const task = await uow.task(target.id);
      // A resume after needs_review is a correction round: count it.
      const iteration = task.status === 'needs_review' ? task.iteration + 1 : task.iteration;
      uow.setTask({
        ...task,
        iteration,
        status: task.status === 'completed' || task.status === 'abandoned' ? task.status : 'in_progress',
        session: { ...task.session!, resumed_at: now, resumes: (task.session?.resumes ?? 0) + 1 },
      });
    } else {
      const p = await uow.project();
      const s = p.sessions![target.agent]!;
      uow.setProject({ ...p, sessions: { ...p.sessions, [target.agent]: { ...s, resumed_at: now, resumes: (s.resumes ?? 0) + 1 } } });
    }
  });
  const files = runFiles(root, target, 'resume');
  const promptFile = files.writePrompt(prompt);
  // Claude Code resumes only from the directory where the session began.
  const sessionCwd = session.cwd;
  const invocation = resolution.spec.resume({ ...(await workerRights(root, resolution)), config: resolution.executor.config, cwd: sessionCwd, prompt, promptFile, sessionId, runningAsRoot: runningAsRoot() });
  const env = workerEnv(agentName, session.agent_id, root, target.kind === 'task' ? target.id : undefined, sessionId);
  const run = await runWorker(files, target, invocation, resolution, env, sessionCwd, opts);
  return finish(root, target, agentName, session.agent_id, resolution.executor.name, sessionId, run.eventsFile, opts);
}
