/** The agent errors with the texts of spec 003, "Error Handling". */
import { errorClass, SowError } from '../domain/errors.js';

// A binding names an executor neither defined nor built in, or a session a type this sow lacks (exit 4); `source`:
// where the name came from, the file, the environment, or a recorded session.
export class UnknownExecutorError extends errorClass(
  'UNKNOWN_EXECUTOR',
  'state',
  (
    name: string,
    choices: { defined: readonly string[]; types: readonly string[]; suggestion?: string },
    source:
      | { kind: 'file'; field: string; configPath: string }
      | { kind: 'environment'; variable: string; configPath: string }
      | { kind: 'session' },
  ) => {
    const list = [
      ...choices.defined.map((e) => `  - ${e}`),
      ...choices.types.map((t) => `  - ${t} (built-in type)`),
    ].join('\n');
    const mean = choices.suggestion ? `; did you mean '${choices.suggestion}'?` : '';
    const message =
      source.kind === 'environment'
        ? `unknown executor: ${name} (from the environment variable ${source.variable})${mean}`
        : source.kind === 'session'
          ? `unknown executor type: ${name} (recorded with the session)`
          : `unknown executor: ${name}${mean}`;
    const next =
      source.kind === 'environment'
        ? `${source.variable}=${name} is set in your environment, and the environment overrides the configuration ` +
          `file.\nSet it to one of the executors above, or unset it (unset ${source.variable}) to ` +
          `use ${source.configPath}.`
        : source.kind === 'session'
          ? "This sow cannot run that executor type; start a new session with --force on 'sow agent spawn'."
          : `${source.field} names it.\nCheck your configuration at ${source.configPath}\nRun 'sow config path' to ` +
            `see the full path.\nRun 'sow config init' to create a default configuration.`;
    return [
      message,
      `${source.kind === 'session' ? 'Executor types' : 'Available executors'}:\n${list}\n\n${next}`,
      {
        executor: name,
        ...(source.kind === 'environment' ? { variable: source.variable } : {}),
        ...(source.kind === 'file' ? { file: source.configPath, field: source.field } : {}),
      },
    ];
  },
) {}

export class ExecutorBinaryNotFoundError extends errorClass(
  'EXECUTOR_NOT_FOUND',
  'external',
  (binary: string, executor: string, install: string) => [
    `executor binary not found: ${binary}`,
    `Executor "${executor}" requires the ${binary} CLI to be installed and available on ` +
      `PATH.\nInstall ${binary}: ${install}`,
  ],
) {}

export class ResumeNotSupportedError extends errorClass(
  'RESUME_NOT_SUPPORTED',
  'failed',
  (executor: string, target: string, resumable: readonly string[]) => [
    `executor "${executor}" does not support session resumption`,
    `Cannot resume ${target}. Consider:\n  - Spawning a new worker instance\n  - Switching to an executor with ` +
      `session support (${resumable.join(', ')})`,
  ],
) {}

export class NoSessionError extends errorClass('NO_SESSION', 'failed', (target: string, spawnCommand: string) => [
  `no session found for ${target}`,
  `${target.startsWith('task') ? 'Task' : 'The agent'} has not been started or its session has ended.\nUse ` +
    `\`${spawnCommand}\` to start a new session.`,
]) {}

export class SessionExistsError extends errorClass('SESSION_EXISTS', 'failed', (target: string, resume: string) => [
  `${target} already has a session`,
  `continue it with \`${resume}\`, or pass --force to start a new session (the old one is forgotten)`,
]) {}

/** Over ACP, the agent could not continue the session (`session/load`): a fresh session takes over. */
export class AcpSessionNotLoadedError extends SowError {
  constructor(
    title: string,
    session: string,
    readonly reason: string,
    eventsFile: string,
  ) {
    super(
      'SESSION_NOT_LOADED',
      'external',
      `${title} could not continue session ${session} over the Agent Client Protocol: ${reason}`,
      `its messages are in ${eventsFile}; 'sow agent resume --fresh' hands the task to a new session with a brief`,
    );
  }
}

/** sow received SIGINT or SIGTERM while its worker ran, passed it on, and the worker ended. */
export class WorkerStoppedError extends SowError {
  constructor(
    readonly signal: 'SIGINT' | 'SIGTERM',
    target: string,
    resume: string,
  ) {
    super(
      'WORKER_STOPPED',
      'failed',
      `the worker on ${target} was stopped: sow received ${signal} and passed it on`,
      `its session is kept; go on with ${resume}`,
    );
  }
}

export class WorkerFailedError extends SowError {
  /** `refused`: the tool calls the CLI refused before it failed, and how to allow them (src/adapters/denials.ts). */
  constructor(
    binary: string,
    code: number | null,
    signal: string | null,
    /** The end of what it wrote on stderr (where a CLI says it has no such session). */
    readonly stderrTail: string,
    eventsFile: string,
    refused?: { denials: readonly object[]; advice: readonly string[] },
    /** What went wrong, when it was not the exit (over ACP: the request the agent did not answer). */
    what?: string,
  ) {
    const tail = stderrTail.trim().split('\n').slice(-8).join('\n');
    const advice = refused?.advice.length ? `${refused.advice.join('\n')}\n` : '';
    super(
      'WORKER_FAILED',
      'external',
      what ?? `${binary} exited with ${signal ? `signal ${signal}` : `code ${code}`}`,
      `${tail ? `its last error output:\n${tail}\n` : ''}${advice}its ` +
        `events are in ${eventsFile}; the session is kept, so you can resume it`,
      refused?.denials.length ? { denials: refused.denials } : undefined,
    );
  }
}

/** The CLI's own settings in the repository widen a safe worker and cannot be left out: it is not started. */
export class AgentSettingsWidenError extends errorClass(
  'AGENT_SETTINGS_WIDEN',
  'failed',
  (
    title: string,
    executor: string,
    configPath: string,
    findings: readonly { file: string; settings: readonly string[] }[],
  ) => [
    `${title}'s own settings in this repository would let a safe worker do more than sow allows: ` +
      `${findings.map((f) => `${f.file} (${f.settings.join('; ')})`).join(', ')}; the worker was not started`,
    `read what they declare ('git log -p -- ${findings.map((f) => f.file).join(' ')}'); remove those settings (or ` +
      `the files) and retry, or, if you trust them, give executor '${executor}' permissions: yolo in ${configPath} ` +
      `to let it do anything unasked`,
    { executor, files: findings.map((f) => ({ file: f.file, settings: [...f.settings] })) },
  ],
) {}

// A safe worker's ACP session was in a mode that does not ask sow (set by the repository's settings) and could not be
// switched, or left the asking modes mid-turn.
export class AcpModeNotAskingError extends errorClass(
  'AGENT_MODE_NOT_ASKING',
  'failed',
  (title: string, found: { mode: string; why: string }, setBy: string | undefined, eventsFile: string) => [
    `${title} would not ask sow before it acts: ${found.why}; sow stopped the worker`,
    `${setBy ? `the mode most likely comes from ${setBy}: ` : ''}remove that setting and retry, or, if you mean ` +
      `the worker to do anything unasked, give its executor permissions: yolo; its messages are in ${eventsFile}`,
    { mode: found.mode },
  ],
) {}

// A worker ended while another branch was checked out: its end waits in the runtime folder for the first command on the
// project's branch.
export class RunNotRecordedError extends errorClass(
  'RUN_NOT_RECORDED',
  'failed',
  (agentId: string, target: string, checkedOut: string | undefined, branch: string) => [
    `the worker ${agentId} on ${target} ended ` +
      `while ${checkedOut === undefined ? 'a detached HEAD' : `'${checkedOut}'`} was checked out, not the ` +
      `project's branch '${branch}'; its run is kept, and recorded when '${branch}' is checked out again`,
    `run 'git checkout ${branch}'`,
    { agent_id: agentId, branch, ...(checkedOut !== undefined ? { checked_out: checkedOut } : {}) },
  ],
) {}
