import { join } from 'node:path';
import { AbortedError, ConfirmationRequiredError, InvalidNameError, NoProjectError, ProjectExistsError, ReadOnlyFieldError, UsageError } from '../domain/errors.js';
import { coerceField, parseValue, resolveField, setAtPath, type FieldSpec } from '../domain/fields.js';
import { projectType } from '../domain/project-types/index.js';
import { ProjectStateSchema, type ProjectState } from '../domain/schemas.js';
import { branchExists, branchHasFile, git } from '../adapters/git.js';
import { currentBranch, findWorkspaceRoot } from '../adapters/repo.js';
import { withLock } from '../adapters/lock.js';
import { readStateFile, renderStateFile } from '../adapters/state-files.js';
import { removeTreeAtomic } from '../adapters/fs-atomic.js';
import { Transaction, replayJournal } from '../adapters/transaction.js';
import { PROJECT_DIR, PROJECT_FILE, hasProject, lockPath, now, update } from './workspace.js';

export const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const DEFAULT_BRANCHES = ['main', 'master'];

export function checkProjectName(name: string): string {
  if (!NAME_PATTERN.test(name) || name.length > 64) {
    throw new InvalidNameError('project name', name, 'use lower-case letters, digits and single dashes (at most 64 characters)');
  }
  return name;
}

export interface NewProjectOptions {
  name: string;
  description: string;
  branch?: string;
  planning: boolean;
  type?: string;
}

export interface NewProjectResult {
  project: ProjectState;
  branch: string;
  createdBranch: boolean;
  switchedBranch: boolean;
}

function checkBranchName(root: string, branch: string): void {
  try {
    git(root, ['check-ref-format', '--branch', branch]);
  } catch {
    throw new InvalidNameError('branch name', branch, 'git does not accept it as a branch name');
  }
}

export async function newProject(cwd: string, opts: NewProjectOptions): Promise<NewProjectResult> {
  const root = findWorkspaceRoot(cwd);
  checkProjectName(opts.name);
  const type = projectType(opts.type ?? 'standard');
  if (!opts.planning && !type.phases.some((p) => p.name === 'planning' && p.canDisable)) {
    throw new UsageError(`the ${type.name} project type cannot skip planning`);
  }
  return withLock(lockPath(root), async () => {
    replayJournal(root);
    const here = currentBranch(root);
    if (hasProject(root)) {
      const existing = await readStateFile(root, PROJECT_FILE, ProjectStateSchema);
      throw new ProjectExistsError(existing.data.name, here ?? existing.data.branch);
    }
    if (here === undefined && opts.branch === undefined) {
      throw new UsageError('HEAD is detached, so there is no branch to hold the project', 'check out a branch, or pass --branch <name>');
    }
    let branch = here!;
    let createdBranch = false;
    let switchedBranch = false;
    const target = opts.branch ?? (here !== undefined && DEFAULT_BRANCHES.includes(here) ? `feat/${opts.name}` : undefined);
    if (target !== undefined && target !== here) {
      checkBranchName(root, target);
      // Refuse before switching: a failed `project new` leaves the user where they were.
      if (branchHasFile(root, target, PROJECT_FILE)) throw new ProjectExistsError(undefined, target);
      if (branchExists(root, target)) {
        git(root, ['checkout', '--quiet', target]);
      } else {
        git(root, ['checkout', '--quiet', '-b', target]);
        createdBranch = true;
      }
      switchedBranch = true;
      branch = target;
      // The branch we moved to may already carry a project (ADR-003).
      if (hasProject(root)) {
        const existing = await readStateFile(root, PROJECT_FILE, ProjectStateSchema);
        throw new ProjectExistsError(existing.data.name, branch);
      }
    }
    const at = now();
    const phases: ProjectState['phases'] = {};
    for (const phase of type.phases) {
      const enabled = !(phase.name === 'planning' && !opts.planning);
      phases[phase.name] = {
        status: 'pending',
        enabled,
        iteration: 1,
        created_at: at,
        metadata: {},
        inputs: [],
        outputs: [],
        ...(phase.hasTasks ? { tasks: [] } : {}),
      };
    }
    const initial: ProjectState = {
      name: opts.name,
      type: type.name,
      description: opts.description,
      branch,
      created_at: at,
      updated_at: at,
      statechart: { current_state: type.initialState, updated_at: at },
      phases,
    };
    const { advance } = await import('../domain/lifecycle.js');
    const { project } = advance(type, initial, at, 'project_init');
    const tx = new Transaction(root);
    const { text, entry } = await renderStateFile(undefined, PROJECT_FILE, ProjectStateSchema, project);
    tx.write(PROJECT_FILE, text, entry);
    tx.write(`${PROJECT_DIR}/log.md`, `# Project log: ${opts.name}\n\n`);
    tx.commit();
    return { project, branch, createdBranch, switchedBranch };
  });
}

const PROJECT_FIELDS: Record<string, FieldSpec> = {
  name: { kind: 'string', nonEmpty: true },
  description: { kind: 'string' },
  type: { kind: 'readonly', why: 'a project keeps its type' },
  branch: { kind: 'readonly', why: 'a project lives on the branch it was created on (ADR-003)' },
  created_at: { kind: 'readonly', why: 'it records when the project was created' },
  updated_at: { kind: 'readonly', why: 'sow keeps it current' },
  statechart: { kind: 'readonly', why: "only 'sow advance' moves the state machine", hint: "run 'sow advance'" },
  phases: { kind: 'readonly', why: 'phases are set one field at a time', hint: "use 'sow phase set <field> <value> --phase <name>'" },
};

export async function setProjectField(cwd: string, field: string, raw: string): Promise<{ field: string; value: unknown }> {
  return update(cwd, async (uow) => {
    const project = await uow.project();
    const resolved = resolveField(field, PROJECT_FIELDS);
    if (resolved.where === 'field') {
      const value = coerceField(resolved.name, raw, resolved.spec);
      if (resolved.name === 'name') checkProjectName(String(value));
      uow.setProject({ ...project, [resolved.name]: value });
      return { field: resolved.name, value };
    }
    if (resolved.path[0] === 'statechart' || resolved.path[0] === 'phases') {
      throw new ReadOnlyFieldError(field, resolved.path[0] === 'statechart' ? "only 'sow advance' moves the state machine" : 'phases are set with sow phase set', resolved.path[0] === 'phases' ? "use 'sow phase set <field> <value> --phase <name>'" : "run 'sow advance'");
    }
    const value = parseValue(raw);
    uow.setProject({ ...project, metadata: setAtPath({ ...project.metadata }, resolved.path, value) });
    return { field: `metadata.${resolved.path.join('.')}`, value };
  });
}

/** Removes .sow/project/. `confirmed` is the caller's answer (a TTY question or --yes). */
export async function deleteProject(cwd: string, confirm: (name: string) => Promise<boolean>, interactive: boolean, yes: boolean): Promise<{ name: string }> {
  const root = findWorkspaceRoot(cwd);
  return withLock(lockPath(root), async () => {
    replayJournal(root);
    if (!hasProject(root)) {
      throw new NoProjectError();
    }
    // Read the name without trusting the file: an invalid project can still be deleted.
    let name = '(unreadable project)';
    try {
      name = (await readStateFile(root, PROJECT_FILE, ProjectStateSchema)).data.name;
    } catch {
      // keep the placeholder
    }
    if (!yes) {
      if (!interactive) throw new ConfirmationRequiredError(`deleting project '${name}'`, '--yes');
      if (!(await confirm(name))) {
        throw new AbortedError('project delete');
      }
    }
    removeTreeAtomic(join(root, PROJECT_DIR), join(root, '.sow'));
    removeTreeAtomic(join(root, '.sow', '.cache'), join(root, '.sow'));
    return { name };
  });
}
