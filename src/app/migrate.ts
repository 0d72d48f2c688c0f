// `sow migrate`: finishes a half-done old write, keeps a copy of `.sow/` in `.git/sow/backup/<old version>/`, converts
// and validates every state file, and writes all in one transaction, `.sow/.version` last.
import { MigrationNeededError, StateFileError } from '../domain/errors.js';
import { sowTooOld } from '../adapters/installation.js';
import { migrateProjectV1, migrateTaskV1 } from '../domain/migrations.js';
import { loadProjectType } from '../domain/project-types/index.js';
import { projectProblem } from '../domain/project.js';
import { LAYOUT_VERSION, ProjectStateSchema, TaskStateSchema, type ProjectState } from '../domain/schemas.js';
import { backupSow, moveToRuntime, namesInSow, pathExists, removePath } from '../adapters/backup.js';
import { readFileIfExists } from '../adapters/files.js';
import { branchCreatedFrom, branchExists, findWorkspaceRoot } from '../adapters/repo.js';
import { parseStateText, readText, renderStateFile, validateState } from '../adapters/state-files.js';
import { isFolder, listNames } from '../adapters/task-index.js';
import { legacyJournal, Transaction } from '../adapters/transaction.js';
import { shownRuntime } from '../adapters/runtime.js';
import { repairIgnoreFile } from './init.js';
import {
  AGENT_OUTPUTS,
  checkJournalText,
  layoutVersion,
  PROJECT_DIR,
  PROJECT_FILE,
  taskFile,
  tasksDir,
  VERSION_FILE,
} from './project-files.js';
import { withRootLock } from './unit-of-work.js';
import { quoted } from '../domain/display.js';
import { isRecord } from '../domain/json.js';
import type { AppContext } from './context.js';

export interface MigrationReport {
  from: number;
  to: number;
  dryRun: boolean;
  changes: { file: string; change: string }[];
  /** Where the copy of the old `.sow/` is (written only by a real run). */
  backup?: string;
}

/** A text 0.1.0's journal would write: layout 1 files parse as YAML (converted next), `.version` is a number. */
async function checkLegacyText(rel: string, text: string): Promise<void> {
  if (rel.endsWith('.yaml')) await parseStateText(rel, text);
  else await checkJournalText(rel, text);
}

/** sow 0.1.0's runtime files, none of which layout 2 uses. */
const LEGACY_RUNTIME = ['.cache', '.lock', '.lock.takeover', '.journal.json'];
const LEGACY_AGENT_OUTPUTS = `${PROJECT_DIR}/agent-outputs`;

/** What the backup keeps: the state, not runtime files. */
const NOT_KEPT = new Set(['.runtime', '.backup', '.tmp', ...LEGACY_RUNTIME]);
const keepInBackup = (rel: string) => {
  const first = rel.split('/')[0]!;
  return !NOT_KEPT.has(first) && !first.startsWith('.trash-') && !rel.startsWith('project/agent-outputs');
};

function baseBranchOf(root: string, branch: string): { name: string; source: string } | undefined {
  const recorded = branchCreatedFrom(root, branch);
  if (recorded && recorded !== branch) return { name: recorded, source: "from git's reflog" };
  const fallback = ['main', 'master'].find((b) => b !== branch && branchExists(root, b));
  return fallback ? { name: fallback, source: 'git kept no record, so the default branch' } : undefined;
}

const asObject = (rel: string, data: unknown): Record<string, unknown> => {
  if (!isRecord(data)) throw new StateFileError(rel, 'is not a map of fields');
  return data;
};

async function planV1(root: string, at: string) {
  const changes: MigrationReport['changes'] = [];
  const changed = (file: string, change: string) => changes.push({ file, change });
  const tx = new Transaction(root);
  const after: (() => void)[] = [];

  const { added } = repairIgnoreFile(root, tx);
  if (added.length)
    changed('.sow/.gitignore', `added ${added.join(', ')} (runtime files, backups and worktrees stay out of git)`);

  if (readFileIfExists(root, PROJECT_FILE) !== undefined) {
    const phase = 'implementation';
    const folders = listNames(root, tasksDir(phase)).filter((name) => isFolder(root, `${tasksDir(phase)}/${name}`));
    const text = readText(root, PROJECT_FILE);
    const parsed = await parseStateText(PROJECT_FILE, text);
    const input = asObject(PROJECT_FILE, parsed.data);
    const branch = typeof input['branch'] === 'string' ? input['branch'] : '';
    const base = branch ? baseBranchOf(root, branch) : undefined;
    const project = migrateProjectV1(input, { ...(base ? { baseBranch: base } : {}), taskFolders: folders, now: at });
    const valid = validateState(PROJECT_FILE, ProjectStateSchema, project.data) as ProjectState;
    const type = await loadProjectType(valid.type);
    if (!type) throw new StateFileError(PROJECT_FILE, `unknown project type ${quoted(valid.type)}`, 'type');
    const problem = projectProblem(type, valid);
    if (problem) throw new StateFileError(PROJECT_FILE, problem.message, problem.path);
    tx.write(
      PROJECT_FILE,
      await renderStateFile({ text, handWritten: parsed.handWritten }, PROJECT_FILE, ProjectStateSchema, valid),
    );
    for (const change of project.changes) changed(PROJECT_FILE, change);

    for (const id of folders) {
      const rel = taskFile(phase, id);
      const taskText = readText(root, rel);
      const taskParsed = await parseStateText(rel, taskText);
      const task = migrateTaskV1(asObject(rel, taskParsed.data));
      const validTask = validateState(rel, TaskStateSchema, task.data);
      if (validTask.id !== id)
        throw new StateFileError(
          rel,
          `says id ${quoted(validTask.id)}, but it is the file of task ${id} (its folder)`,
          'id',
        );
      const source = { text: taskText, handWritten: taskParsed.handWritten };
      if (task.changes.length) tx.write(rel, await renderStateFile(source, rel, TaskStateSchema, validTask));
      for (const change of task.changes) changed(rel, change);
    }
  }

  for (const name of namesInSow(root)) {
    if (LEGACY_RUNTIME.includes(name) || name.startsWith('.trash-')) {
      changed(`.sow/${name}`, "removed (a runtime file of sow 0.1.0; runtime files now live in git's folder)");
      after.push(() => removePath(root, `.sow/${name}`));
    }
  }
  if (pathExists(root, LEGACY_AGENT_OUTPUTS)) {
    changed(LEGACY_AGENT_OUTPUTS, `moved to ${shownRuntime(root, AGENT_OUTPUTS)} (worker events are runtime files)`);
    after.push(() => moveToRuntime(root, LEGACY_AGENT_OUTPUTS, AGENT_OUTPUTS));
  }
  // Last, so that a crash before it leaves a layout the next `sow migrate` converts again.
  tx.write(VERSION_FILE, `${LAYOUT_VERSION}\n`);
  changed(VERSION_FILE, `layout 1 → ${LAYOUT_VERSION}`);
  return { changes, tx, after };
}

export async function migrate(ctx: AppContext, dryRun: boolean): Promise<MigrationReport> {
  const root = findWorkspaceRoot(ctx.cwd);
  const from = layoutVersion(root);
  if (from > LAYOUT_VERSION) throw sowTooOld(from, LAYOUT_VERSION);
  if (from === LAYOUT_VERSION) return { from, to: LAYOUT_VERSION, dryRun, changes: [] };
  if (from !== 1) throw new MigrationNeededError(from, LAYOUT_VERSION);
  return withRootLock(root, async () => {
    const changes: MigrationReport['changes'] = [];
    // A write sow 0.1.0 left half done is finished first (checked like any journal).
    const unfinished = await legacyJournal(root, checkLegacyText);
    if (unfinished) {
      changes.push({
        file: '.sow/.journal.json',
        change: 'finished the write sow 0.1.0 left half done (before converting)',
      });
      if (!dryRun) {
        unfinished.commit();
        removePath(root, '.sow/.journal.json');
      }
    }
    const plan = await planV1(root, ctx.now());
    changes.push(...plan.changes);
    if (dryRun) return { from, to: LAYOUT_VERSION, dryRun, changes };
    const { backup } = backupSow(root, String(from), keepInBackup);
    plan.tx.commit();
    for (const step of plan.after) step();
    return { from, to: LAYOUT_VERSION, dryRun, changes, backup };
  });
}
