/** The agent errors with the texts of spec 003, "Error Handling". */
import { SowError } from '../domain/errors.js';

export class UnknownExecutorError extends SowError {
  constructor(name: string, available: readonly string[], configPath: string) {
    super('UNKNOWN_EXECUTOR', 'failed', `unknown executor: ${name}`,
      `Available executors:\n${available.map((e) => `  - ${e}`).join('\n')}\n\nCheck your configuration at ${configPath}\nRun 'sow config path' to see the full path.\nRun 'sow config init' to create a default configuration.`);
  }
}

export class ExecutorBinaryNotFoundError extends SowError {
  constructor(binary: string, executor: string, install: string) {
    super('EXECUTOR_NOT_FOUND', 'external', `executor binary not found: ${binary}`,
      `Executor "${executor}" requires the ${binary} CLI to be installed and available on PATH.\nInstall ${binary}: ${install}`);
  }
}

export class ResumeNotSupportedError extends SowError {
  constructor(executor: string, target: string, resumable: readonly string[]) {
    super('RESUME_NOT_SUPPORTED', 'failed', `executor "${executor}" does not support session resumption`,
      `Cannot resume ${target}. Consider:\n  - Spawning a new worker instance\n  - Switching to an executor with session support (${resumable.join(', ')})`);
  }
}

export class NoSessionError extends SowError {
  constructor(target: string, spawnCommand: string) {
    super('NO_SESSION', 'failed', `no session found for ${target}`,
      `${target.startsWith('task') ? 'Task' : 'The agent'} has not been started or its session has ended.\nUse \`${spawnCommand}\` to start a new session.`);
  }
}

export class SessionExistsError extends SowError {
  constructor(target: string, resumeCommand: string) {
    super('SESSION_EXISTS', 'failed', `${target} already has a session`,
      `continue it with \`${resumeCommand}\`, or pass --force to start a new session (the old one is forgotten)`);
  }
}

export class WorkerFailedError extends SowError {
  constructor(binary: string, code: number | null, signal: string | null, stderrTail: string, eventsFile: string) {
    const tail = stderrTail.trim().split('\n').slice(-8).join('\n');
    super('WORKER_FAILED', 'external', `${binary} exited with ${signal ? `signal ${signal}` : `code ${code}`}`,
      `${tail ? `its last error output:\n${tail}\n` : ''}its events are in ${eventsFile}; the session is kept, so you can resume it`);
  }
}
