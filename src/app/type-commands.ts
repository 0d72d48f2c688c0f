// A project type's own commands, run through the workspace as every other command is (lock, one transaction, branch
// check); a command of one type refuses a project of another first.
import type { AppContext } from './context.js';
import type {
  Knowledge,
  TypeCommandContext,
  TypeCommandDef,
  CommandResult,
  TypeOptions,
  TypeSession,
} from '../domain/type-commands.js';
import { readFileIfExists } from '../adapters/files.js';
import { currentBranch } from '../adapters/repo.js';
import type { ProjectType } from '../domain/project-type.js';
import { readKnowledgeIndex } from './advance.js';
import { SowError } from '../domain/errors.js';
import { isRecord } from '../domain/json.js';
import { gh, GH_ARGS, ghInstalled } from '../adapters/gh.js';
import { warn } from '../adapters/notices.js';
import { githubRepo } from './github.js';
import { withRootLock, type UnitOfWork } from './unit-of-work.js';
import { openRoot, Reader, update } from './workspace.js';

// A read's session refuses to write; a write's writes through its unit of work.
function sessionOf(r: Reader | UnitOfWork): TypeSession {
  const refuse = () => {
    throw new Error('a read cannot write');
  };
  const uow = r instanceof Reader ? undefined : r;
  return {
    now: uow ? uow.now : r.ctx.now(),
    project: async () => (uow ? uow.project() : (r as Reader).project),
    setProject: uow ? (p) => uow.setProject(p) : refuse,
    task: (id) => r.task(id),
    tasks: () => r.taskStates(),
    setTask: uow ? (t) => uow.setTask(t) : refuse,
    readFile: (rel) => r.readDoc(rel),
    writeFile: uow ? (rel, text) => uow.tx.write(rel, text) : refuse,
  };
}

/** The knowledge index's entries, the branch, and a confined reader of the repository's files. */
async function readKnowledge(ctx: AppContext): Promise<Knowledge> {
  const root = await openRoot(ctx);
  return withRootLock(root, async () => {
    const entries = (await readKnowledgeIndex(root)).entries.filter(isRecord);
    return { branch: currentBranch(root), entries, readFile: (rel) => readFileIfExists(root, rel) };
  });
}

export async function runTypeCommand(
  ctx: AppContext,
  type: ProjectType,
  command: TypeCommandDef,
  args: readonly string[],
  opts: TypeOptions,
): Promise<CommandResult> {
  const group = type.commands!.name;
  const checkType = (actual: string) => {
    if (actual !== type.name)
      throw new SowError(
        'WRONG_PROJECT_TYPE',
        'failed',
        `'sow ${group} ${command.name}' belongs to ${type.name} projects, and this project is ${actual}`,
        `run 'sow project types' to see what each type does; 'sow project status' shows this project's next step`,
        { owner: type.name, type: actual },
      );
  };
  let root: string | undefined;
  const github: TypeCommandContext['github'] = {
    repo: async () => githubRepo((root ??= await openRoot(ctx))),
    createIssue: async ({ title, body }) => {
      const dir = (root ??= await openRoot(ctx));
      const repo = await githubRepo(dir);
      const out = gh({ cwd: dir, env: ctx.env }, GH_ARGS.issueCreate(repo, { title }), repo, body);
      const url = out.trim().split('\n').filter(Boolean).at(-1) ?? '';
      const number = Number(/\/issues\/(\d+)/.exec(url)?.[1]);
      if (!Number.isInteger(number) || number < 1)
        throw new SowError(
          'GH_FAILED',
          'external',
          `gh created an issue but sow could not read its number from '${url}'`,
          "look for it with 'gh issue list', then record it on the task",
        );
      return { number, url };
    },
  };
  const context: TypeCommandContext = {
    read: (fn) =>
      Reader.read(ctx, (r) => {
        checkType(r.project.type);
        return fn(sessionOf(r));
      }),
    update: (fn) => {
      if (!command.writes) throw new Error(`bug: ${group} ${command.name} is declared read-only but writes`);
      return update(ctx, async (uow) => {
        checkType((await uow.project()).type);
        return fn(sessionOf(uow));
      });
    },
    knowledge: () => readKnowledge(ctx),
    github,
    // On the PATH of whoever runs the command, as every other tool it looks for.
    hasGh: () => ghInstalled(ctx.env),
  };
  const result = await command.run(context, args, opts);
  for (const w of result.warnings ?? []) warn(w);
  return result;
}
