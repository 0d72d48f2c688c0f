/**
 * A log entry written inside a command's transaction (a worker's end, a forced reopening): below the
 * workspace, so the unit of work's own steps can log without importing the commands that use it.
 */
import { emitYaml } from '../adapters/yaml/emit.js';
import { PROJECT_DIR, taskDir } from './project-files.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Appends an entry to the log of task `id` (or the project's), in the command's transaction; its
 * front matter is stamped with the command's time. Returns the log's path.
 */
export async function writeLogEntry(
  uow: UnitOfWork,
  id: string | undefined,
  front: { agent: string; action: string; result: string; files?: readonly string[] },
  notes: string,
): Promise<string> {
  const logRel = id ? `${taskDir(await uow.taskPhase(), id)}/log.md` : `${PROJECT_DIR}/log.md`;
  const matter: Record<string, unknown> = {
    timestamp: uow.now,
    agent: front.agent,
    action: front.action,
    result: front.result,
    ...(front.files?.length ? { files: [...front.files] } : {}),
  };
  const entry = `---\n${emitYaml(matter)}---\n\n${notes.trim() ? `${notes.trim()}\n\n` : ''}`;
  uow.appendLog(logRel, id ? `# Task log: ${id}\n\n` : `# Project log: ${(await uow.project()).name}\n\n`, entry);
  return logRel;
}

/**
 * A completed task that was set to another status with --force: said in its log, with when it had
 * been completed (the task file no longer says so), by whom and how it was moved.
 */
export async function logLeftCompleted(
  uow: UnitOfWork,
  before: { id: string; completed_at?: string },
  status: string,
  who: string,
  how = `set ${status}`,
): Promise<void> {
  await writeLogEntry(
    uow,
    before.id,
    { agent: who, action: 'note', result: 'success' },
    `Reopened with --force (${how}): the task had been completed ` +
      `since ${before.completed_at ?? 'an unknown time'}; its status is now ${status}.`,
  );
}
