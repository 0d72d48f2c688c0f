/**
 * The tools of `sow mcp`: few on purpose (each costs every user context tokens), each a thin call
 * of the same use case the CLI command runs, returning the data that command prints under `data`
 * with `--json`. Descriptions are short: the input schemas say the rest.
 */
import { LOG_ACTIONS, LOG_RESULTS } from '../domain/agents.js';
import { parseIndex } from '../domain/artifacts.js';
import { UsageError } from '../domain/errors.js';
import { parseLease } from '../domain/ownership.js';
import { advanceProject } from '../app/advance.js';
import { addArtifact, listArtifacts, setArtifact, type Direction, type Owner } from '../app/artifacts.js';
import { checkRun, setTaskFieldChecked, type CheckProgress } from '../app/checks.js';
import { appendLog } from '../app/log.js';
import { artifactListData, claimData, taskSetData } from '../app/results.js';
import { continueProject, projectStatus } from '../app/status.js';
import { asksCompletion, claimNext, nextTasks, setTaskField } from '../app/task.js';
import { z } from './sdk.js';

/** What a call runs with: the workspace, the client's cancellation, and progress for long calls. */
export interface ToolContext {
  cwd: string;
  signal?: AbortSignal;
  /** Reports progress when the client asked for it (a check ended); else does nothing. */
  progress(done: number, total: number, message: string): void;
}

export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  input: S;
  /** Reads only: changes nothing in .sow/. */
  readOnly?: boolean;
  run(args: z.output<S>, ctx: ToolContext): Promise<unknown>;
}

const tool = <S extends z.ZodObject>(t: Tool<S>): Tool => t as unknown as Tool;

/** A value as the command line takes it: numbers and booleans are written as words. */
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const word = (v: string | number | boolean): string => String(v);

const TASK_ID = z.string().describe('task id, e.g. 010 (10 means 010)');
const OWNER = z.string().describe('the name to act under (renews its claim); default: SOW_OWNER, or a spawned worker\'s session');

/** Progress of running checks, as "2 of 3: unit passed". */
function checkProgress(ctx: ToolContext): (event: CheckProgress) => void {
  return (event) => {
    if (event.kind === 'end') ctx.progress(event.index + 1, event.all.length, `${event.run.name} ${event.run.passed ? 'passed' : 'failed'}`);
  };
}

const status = tool({
  name: 'status',
  description: 'The project dashboard: state, phases, task counts, and what advancing needs.',
  input: z.strictObject({}),
  readOnly: true,
  run: (_args, ctx) => projectStatus(ctx.cwd),
});

const continueTool = tool({
  name: 'continue',
  description: 'The prompt for the current state: what to do now (how to start a project when there is none).',
  input: z.strictObject({}),
  readOnly: true,
  run: (_args, ctx) => continueProject(ctx.cwd),
});

const taskNext = tool({
  name: 'task_next',
  description: 'The tasks ready to start (pending, dependencies finished, nobody on them); with claim, takes the first one atomically.',
  input: z.strictObject({
    claim: z.boolean().optional().describe('claim the first ready task: in_progress, owned by you with a lease'),
    owner: z.string().optional().describe('with claim: who claims it; default: SOW_OWNER, or a spawned worker\'s or session\'s own name'),
    agent: z.string().optional().describe('with claim: the agent role that works on it, e.g. implementer'),
    lease: z.string().optional().describe('with claim: how long the claim holds without a write from you: 30m (default), 2h, 90s'),
  }),
  async run(args, ctx) {
    if (!args.claim) {
      if (args.owner !== undefined || args.agent !== undefined || args.lease !== undefined) {
        throw new UsageError('owner, agent and lease go with claim', 'call task_next with claim: true to claim a task');
      }
      return nextTasks(ctx.cwd);
    }
    const r = await claimNext(ctx.cwd, {
      leaseSeconds: parseLease(args.lease ?? '30m'),
      ...(args.agent !== undefined ? { agent: args.agent } : {}),
      ...(args.owner !== undefined ? { owner: args.owner } : {}),
    });
    return claimData(r);
  },
});

const taskUpdate = tool({
  name: 'task_update',
  description: 'Set a task field (status, name, iteration, assigned_agent, parallel, dependencies, description) or metadata. Completing runs the task_complete checks first.',
  input: z.strictObject({
    id: TASK_ID,
    field: z.string().describe('a field, or metadata: any other name, or metadata.a.b'),
    value: scalar.describe('the new value, e.g. in_progress, completed; dependencies: ids separated by commas'),
    force: z.boolean().optional().describe('set the status although a dependency, pending feedback, another owner or its being completed blocks it; completing, skip the checks (recorded)'),
    owner: OWNER.optional(),
  }),
  async run(args, ctx) {
    const value = word(args.value);
    const opts = { force: args.force === true, ...(args.owner !== undefined ? { owner: args.owner } : {}) };
    if (!asksCompletion(args.field, value)) return taskSetData(await setTaskField(ctx.cwd, args.id, args.field, value, opts));
    const r = await setTaskFieldChecked(ctx.cwd, args.id, args.field, value, { ...opts, onProgress: checkProgress(ctx), ...(ctx.signal ? { signal: ctx.signal } : {}) });
    return taskSetData(r);
  },
});

/** Which arguments each action of `artifact` takes, besides action, direction, task and phase. */
const ARTIFACT_ARGS = {
  add: { needs: ['type', 'path'], takes: ['approved', 'metadata'] },
  set: { needs: ['index', 'field', 'value'], takes: [] },
  list: { needs: [], takes: [] },
} as const;
const ARTIFACT_OWN_ARGS = ['type', 'path', 'approved', 'metadata', 'index', 'field', 'value'] as const;

const artifact = tool({
  name: 'artifact',
  description: "Add, set or list the inputs or outputs of a phase (default: the one in progress) or of a task. Documents' paths are relative to .sow/project/, code files' (modified) to the repository root.",
  input: z.strictObject({
    action: z.enum(['add', 'set', 'list']).describe('add (type, path, approved?, metadata?), set (index, field, value) or list'),
    direction: z.enum(['input', 'output']).describe('inputs or outputs'),
    task: TASK_ID.optional().describe("the task whose artifacts these are, e.g. 010; without it, a phase's"),
    phase: z.string().optional().describe('the phase (default: the one in progress); not with task'),
    type: z.string().optional().describe('add: the artifact type, e.g. task_list, review, context, modified'),
    path: z.string().optional().describe('add: where its file is (it may not exist yet; approving needs it)'),
    approved: z.boolean().optional().describe('add: whether it is approved'),
    metadata: z.record(z.string(), scalar).optional().describe('add: metadata, e.g. {"assessment": "pass"} for a review, {"status": "pending"} for feedback'),
    index: z.number().optional().describe('set: the artifact index (0, 1, …), as list shows it'),
    field: z.string().optional().describe('set: approved, path, or metadata (any other name, or metadata.a.b)'),
    value: scalar.optional().describe('set: the new value'),
  }),
  async run(args, ctx) {
    const wanted = ARTIFACT_ARGS[args.action];
    const missing = wanted.needs.filter((k) => args[k] === undefined);
    if (missing.length) throw new UsageError(`artifact ${args.action} needs ${missing.join(' and ')}`, `pass ${missing.join(', ')} (see the artifact tool's input schema)`);
    const extra = ARTIFACT_OWN_ARGS.filter((k) => args[k] !== undefined && !(wanted.needs as readonly string[]).includes(k) && !(wanted.takes as readonly string[]).includes(k));
    if (extra.length) throw new UsageError(`artifact ${args.action} does not take ${extra.join(', ')}`, `leave ${extra.join(', ')} out, or use the action they go with (add: type, path, approved, metadata; set: index, field, value)`);
    if (args.task !== undefined && args.phase !== undefined) throw new UsageError('task and phase exclude each other', "name the task for a task's artifacts, or the phase for a phase's");
    const owner: Owner = args.task !== undefined ? { kind: 'task', id: args.task } : { kind: 'phase', ...(args.phase !== undefined ? { phase: args.phase } : {}) };
    const direction: Direction = args.direction === 'input' ? 'inputs' : 'outputs';
    switch (args.action) {
      case 'add': {
        // As the command line's extra --name value flags: no prototype, so '__proto__' arrives as a name.
        const extraFlags = Object.create(null) as Record<string, string>;
        for (const [k, v] of Object.entries(args.metadata ?? {})) extraFlags[k] = word(v);
        return addArtifact(ctx.cwd, owner, direction, {
          type: args.type!,
          path: args.path!,
          ...(args.approved !== undefined ? { approved: word(args.approved) } : {}),
          extra: extraFlags,
        });
      }
      case 'set':
        return setArtifact(ctx.cwd, owner, direction, parseIndex(word(args.index!)), args.field!, word(args.value!));
      case 'list':
        return artifactListData((await listArtifacts(ctx.cwd, owner, direction)).artifacts);
    }
  },
});

const advance = tool({
  name: 'advance',
  description: "Move the project to its next state if the guard holds (the only way the state changes); when blocked, the error's hint says what is missing.",
  input: z.strictObject({
    event: z.string().optional().describe('fire this event instead of the automatic one, e.g. review_fail'),
    dry_run: z.boolean().optional().describe('check the guard and show the transition without writing'),
  }),
  run: (args, ctx) => advanceProject(ctx.cwd, args.event, args.dry_run === true),
});

const log = tool({
  name: 'log',
  description: "Append an entry to a task's log (or the project's); with a task, its files become the task's modified outputs.",
  input: z.strictObject({
    action: z.string().describe(`one of ${LOG_ACTIONS.join(', ')}`),
    result: z.string().describe(`one of ${LOG_RESULTS.join(', ')}`),
    notes: z.string().optional().describe('markdown notes for the entry body'),
    files: z.array(z.string()).optional().describe('files this entry is about (relative to the folder sow mcp serves, or absolute)'),
    task: TASK_ID.optional().describe('log to this task (default: SOW_TASK_ID)'),
    project: z.boolean().optional().describe("log to the project's log instead of a task's"),
    agent: z.string().optional().describe('who is logging, e.g. implementer-1 (default: SOW_AGENT_ID, else user)'),
  }),
  run: (args, ctx) => appendLog(ctx.cwd, {
    action: args.action,
    result: args.result,
    files: args.files ?? [],
    notes: args.notes ?? '',
    project: args.project === true,
    ...(args.task !== undefined ? { task: args.task } : {}),
    ...(args.agent !== undefined ? { agent: args.agent } : {}),
  }),
});

const checkRunTool = tool({
  name: 'check_run',
  description: "Run the repository's declared checks (.sow/config.yaml) and record each run as evidence; a failed check is an error whose details hold the runs.",
  input: z.strictObject({
    names: z.array(z.string()).optional().describe('the checks to run (default: all declared)'),
    task: TASK_ID.optional().describe('record the evidence on this task (default: the outputs of the phase in progress)'),
  }),
  run: (args, ctx) => checkRun(ctx.cwd, args.names ?? [], {
    ...(args.task !== undefined ? { task: args.task } : {}),
    onProgress: checkProgress(ctx),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  }),
});

export const TOOLS: readonly Tool[] = [status, continueTool, taskNext, taskUpdate, artifact, advance, log, checkRunTool];
