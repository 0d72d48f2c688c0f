/** Log entries as data (a log, its header, the entry), written in the transaction of the change they belong to. */
import { emitYaml } from '../adapters/yaml/emit.js';
import type { LogEntry } from '../adapters/transaction.js';
import { PROJECT_DIR, taskDir } from './project-files.js';
import type { UnitOfWork } from './unit-of-work.js';

type Front = { agent: string; action: string; result: string; files?: readonly string[] };

/** The entry's text: front matter stamped with the command's time, then the notes. */
function entryText(now: string, front: Front, notes: string): string {
  const matter: Record<string, unknown> = {
    timestamp: now,
    agent: front.agent,
    action: front.action,
    result: front.result,
    ...(front.files?.length ? { files: [...front.files] } : {}),
  };
  return `---\n${emitYaml(matter)}---\n\n${notes.trim() ? `${notes.trim()}\n\n` : ''}`;
}

/** An entry of the log of task `id`. */
export function taskLogEntry(phase: string, id: string, now: string, front: Front, notes: string): LogEntry {
  return { rel: `${taskDir(phase, id)}/log.md`, header: `# Task log: ${id}\n\n`, entry: entryText(now, front, notes) };
}

/** Appends an entry to the log of task `id` (or the project's) in the command's transaction; returns its path. */
export async function writeLogEntry(uow: UnitOfWork, id: string | undefined, front: Front, notes: string) {
  const log = id
    ? taskLogEntry(await uow.taskPhase(), id, uow.now, front, notes)
    : {
        rel: `${PROJECT_DIR}/log.md`,
        header: `# Project log: ${(await uow.project()).name}\n\n`,
        entry: entryText(uow.now, front, notes),
      };
  uow.tx.appendEntry(log);
  return log.rel;
}

/** A completed task forced to another status: said in its log, with when it had been completed, by whom and how. */
export function leftCompletedEntry(
  phase: string,
  now: string,
  before: { id: string; completed_at?: string },
  status: string,
  who: string,
  how = `set ${status}`,
): LogEntry {
  const notes =
    `Reopened with --force (${how}): the task had been completed ` +
    `since ${before.completed_at ?? 'an unknown time'}; its status is now ${status}.`;
  return taskLogEntry(phase, before.id, now, { agent: who, action: 'note', result: 'success' }, notes);
}
