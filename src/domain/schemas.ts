// Every state file's shape as valibot schemas (types, validation, `sow schema`'s JSON Schema); objects are loose, so
// keys a newer sow or a person added are kept.
import * as v from 'valibot';
import { builtWhenUsed, isIsoTimestamp } from './schema-check.js';
import { storedPathInside } from './paths.js';
import { isRemoteName } from './git-names.js';

export const TASK_STATUSES = [
  'pending',
  'in_progress',
  'needs_review',
  'paused',
  'failed',
  'completed',
  'abandoned',
] as const;
export const PHASE_STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

const d = v.description;
const text = (description: string) => v.pipe(v.string(), d(description));
const nonEmpty = (description: string) => v.pipe(v.string(), v.minLength(1), d(description));
const optional = <T extends v.GenericSchema>(schema: T, description: string) =>
  v.optional(v.pipe(schema, d(description)));
// valibot's isoTimestamp action (so the JSON Schema still says `format: date-time`), checking with isIsoTimestamp.
const isoTimestamp = {
  ...v.isoTimestamp('must be an ISO 8601 timestamp'),
  requirement: { test: isIsoTimestamp } as unknown as RegExp,
};
const timestamp = v.pipe(v.string(), isoTimestamp, d('ISO 8601 timestamp (UTC)'));
const metadata = v.pipe(v.record(v.string(), v.unknown()), d('Free-form, type-specific fields'));
/** Three or more digits, without a leading zero past three: 010, 990, 1000. */
export const TASK_ID_PATTERN = /^(?:\d{3}|[1-9]\d{3,8})$/;
const taskId = v.pipe(
  v.string(),
  v.regex(TASK_ID_PATTERN, 'must be a task id of three or more digits, e.g. "010" or "1000"'),
  d('Gap-numbered task id: 010, 020, …, 990, 1000, …'),
);

/** A session id goes to an agent CLI as an argv word: one beginning with '-' would be read as an option. */
const notAnOption = v.check(
  (s: string) => !s.startsWith('-'),
  "must not begin with '-' (an agent CLI would read it as an option)",
);

export const ArtifactSchema = v.looseObject({
  type: nonEmpty(
    'Artifact type, defined by the project type (context, task_list, review, reference, feedback, modified, …)',
  ),
  path: v.pipe(
    v.string(),
    v.minLength(1),
    // Checked when read, not only when added: a committed file may name any path.
    v.check(storedPathInside, "must be a path inside the repository (relative, no '..' leading out of it)"),
    d('Documents: relative to .sow/project/; files of the code base (modified): relative to the repository root'),
  ),
  approved: optional(v.boolean(), 'Approval flag (task lists and reviews)'),
  approved_sha256: optional(
    v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'a sha256 hash in hex')),
    "The hash of the file's content when it was approved: the approval counts only while the file still has " +
      'that content',
  ),
  created_at: timestamp,
  metadata: v.optional(metadata),
});
export type Artifact = v.InferOutput<typeof ArtifactSchema>;

/** What lists and guards need of a task; derived from its state file, never stored by itself. */
export type TaskSummary = Pick<TaskState, 'id' | 'name' | 'status' | 'parallel' | 'dependencies' | 'assigned_agent'> & {
  /** Who works on it, as its file records it (whether they still do is judged when shown). */
  owner?: Owner;
  /** The agent id of its worker's recorded session, if one is. */
  session_agent?: string;
};

/** What a worker without a task (a planner, an orchestrator) reports with `sow agent report`. */
export const PROJECT_REPORT_STATUSES = ['working', 'done', 'blocked', 'failed'] as const;
export type ProjectReportStatus = (typeof PROJECT_REPORT_STATUSES)[number];

/** A worker session (spec 003, "Session Management Protocol"), written before the worker starts. */
export const SessionSchema = v.looseObject({
  executor: text('Executor name from the user configuration, e.g. claude-code'),
  type: text('Executor type: claude, cursor, codex, …'),
  agent: v.string(),
  agent_id: text('e.g. implementer-2; workers see it as SOW_AGENT_ID'),
  cwd: text('Where the session runs; resumes run there too'),
  transport: optional(
    v.literal('acp'),
    'The session was opened over the Agent Client Protocol: it is continued over it too',
  ),
  branch: v.optional(v.string()),
  started_at: timestamp,
  resumed_at: v.optional(timestamp),
  resumes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  report: optional(
    v.looseObject({
      status: v.picklist(PROJECT_REPORT_STATUSES),
      message: v.optional(v.string()),
      at: timestamp,
    }),
    'What a worker without a task last reported (sow agent report)',
  ),
});
export type Session = v.InferOutput<typeof SessionSchema>;

/** Who works on a task: a spawned worker (alive while its `sow agent` process runs) or a claim with a lease. */
export const OwnerSchema = builtWhenUsed(() =>
  v.looseObject({
    kind: v.pipe(
      v.picklist(['worker', 'claim']),
      d('worker: a spawned worker, owned while its sow agent process runs; claim: owned until the lease runs out'),
    ),
    by: nonEmpty('The agent id (implementer-2) or the owner name (--owner) that works on the task'),
    session: v.optional(text('The owning session (SOW_SESSION_ID)')),
    pid: v.optional(v.pipe(v.number(), v.integer(), d('worker: the sow agent process that waits for it'))),
    host: v.optional(v.string()),
    boot: v.optional(v.string()),
    pstart: v.optional(v.number()),
    pidns: v.optional(
      text("worker: the pid namespace of pid (Linux); in another one than the reader's, the pid is never looked up"),
    ),
    since: timestamp,
    lease_until: optional(timestamp, 'claim: owned until then; each write from the owner renews it'),
    lease_seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    remote: optional(
      v.pipe(v.string(), v.check(isRemoteName, 'must be the name of a git remote, e.g. origin')),
      'The git remote the task is claimed on too (claims.remote, --remote), by a claim or a spawned worker',
    ),
    remote_claim: optional(
      v.pipe(v.string(), v.regex(/^[0-9a-f]{40,64}$/, 'a commit id')),
      "The commit the claim's ref on the remote points at; finishing or letting go of the task deletes the ref " +
        'if it still does',
    ),
    remote_lease_until: optional(
      timestamp,
      'The lease the claim on the remote records; a write of the owner (for a worker, also the process that ' +
        'waits for it) renews it there once half of it has passed',
    ),
  }),
);
export type Owner = v.InferOutput<typeof OwnerSchema>;

export const PhaseSchema = v.looseObject({
  // Optional: projects started before sow wrote it have none, and the key under phases says it.
  name: v.optional(text('The phase name, the same as its key under phases (planning, implementation, …)')),
  status: v.picklist(PHASE_STATUSES),
  enabled: v.boolean(),
  iteration: v.pipe(v.number(), v.integer(), v.minValue(1)),
  created_at: timestamp,
  started_at: v.optional(timestamp),
  completed_at: v.optional(timestamp),
  metadata: metadata,
  inputs: v.array(ArtifactSchema),
  outputs: v.array(ArtifactSchema),
});
export type Phase = v.InferOutput<typeof PhaseSchema>;

/** What one worker run used, as its agent CLI reported it (a figure it did not report is absent). */
export const UsageEntrySchema = v.looseObject({
  at: v.pipe(timestamp, d('When the run ended')),
  agent_id: text('The worker, e.g. implementer-2'),
  agent: text('Its role, e.g. implementer'),
  executor: text('The executor from the user configuration that ran it'),
  task: optional(taskId, 'The task it worked on; absent for a worker of the project (planner, orchestrator)'),
  session: v.optional(text("The agent CLI's session")),
  run: v.picklist(['spawn', 'resume']),
  input_tokens: v.optional(v.pipe(v.number(), v.minValue(0))),
  output_tokens: v.optional(v.pipe(v.number(), v.minValue(0))),
  cost_usd: v.optional(v.pipe(v.number(), v.minValue(0), d('As the CLI counted it; only some CLIs report a cost'))),
});
export type UsageEntry = v.InferOutput<typeof UsageEntrySchema>;

/** One transition of the lifecycle, as `statechart.history` records it. */
export const HistoryEntrySchema = v.looseObject({
  from: v.string(),
  to: v.string(),
  event: v.string(),
  at: timestamp,
  by: text("Who fired it: a worker's agent id (SOW_AGENT_ID), else 'user'"),
  session: v.optional(text("The worker's session (SOW_SESSION_ID)")),
});
export type HistoryEntry = v.InferOutput<typeof HistoryEntrySchema>;

export const ProjectStateSchema = v.pipe(
  v.looseObject({
    name: v.pipe(v.string(), v.minLength(1)),
    type: text("Project type: one of 'sow project types'"),
    description: v.string(),
    branch: nonEmpty('The git branch this project lives on (one project per branch)'),
    base_branch: v.optional(nonEmpty('The branch the project was started from; reviews diff against it')),
    created_at: timestamp,
    updated_at: timestamp,
    metadata: v.optional(metadata),
    statechart: v.looseObject({
      current_state: text('Current state of the lifecycle state machine; only `sow advance` changes it'),
      updated_at: timestamp,
      history: optional(v.array(HistoryEntrySchema), 'Every transition, oldest first'),
    }),
    phases: v.record(v.string(), PhaseSchema),
    sessions: optional(
      v.record(
        v.string(),
        v.looseObject({ session_id: v.optional(v.pipe(v.string(), notAnOption)), ...SessionSchema.entries }),
      ),
      'Sessions of agents spawned without a task (planner, architect, orchestrator), by agent',
    ),
    spawn_counts: optional(
      v.record(v.string(), v.pipe(v.number(), v.integer())),
      'Workers spawned per agent; numbers the agent ids',
    ),
    usage: optional(
      v.array(UsageEntrySchema),
      'What each worker run used (tokens, cost), one entry per spawn or resume, oldest first: sow cost sums them',
    ),
  }),
  d('.sow/project/state.yaml'),
);
export type ProjectState = v.InferOutput<typeof ProjectStateSchema>;

export const TaskStateSchema = builtWhenUsed(() =>
  v.pipe(
    v.looseObject({
      id: taskId,
      name: v.pipe(v.string(), v.minLength(1)),
      phase: v.string(),
      status: v.picklist(TASK_STATUSES),
      iteration: v.pipe(v.number(), v.integer(), v.minValue(1)),
      assigned_agent: v.optional(v.string()),
      parallel: v.boolean(),
      dependencies: v.array(taskId),
      created_at: timestamp,
      started_at: v.optional(timestamp),
      updated_at: timestamp,
      completed_at: v.optional(timestamp),
      inputs: v.array(ArtifactSchema),
      outputs: v.array(ArtifactSchema),
      metadata: metadata,
      session_id: optional(
        v.pipe(v.string(), notAnOption),
        'Resumable session of the worker; cleared when the task is completed or abandoned',
      ),
      session: v.optional(SessionSchema),
      owner: v.optional(OwnerSchema),
      retired_owners: optional(
        v.array(v.string()),
        'Sessions and agent ids that no longer own this task (it was completed or taken over): their writes to ' +
          'it are refused',
      ),
      worktree: optional(
        v.looseObject({
          branch: nonEmpty("The worker's branch, made from the project branch: <project branch>--task-<id>"),
          path: nonEmpty("The worker's checkout, relative to the project checkout (under .sow/worktrees/.workers/)"),
          from: nonEmpty('The project branch it was made from, and is merged back into'),
          created_at: timestamp,
        }),
        "The worker's own checkout (sow agent spawn --worktree), until 'sow task merge' merges it back and " +
          'removes it',
      ),
      handoffs: optional(
        v.array(
          v.looseObject({
            at: timestamp,
            from_agent_id: v.string(),
            from_session: v.optional(v.string()),
            to_agent_id: v.string(),
            reason: v.pipe(
              v.picklist(['asked', 'session_gone']),
              d("asked: 'sow agent resume --fresh'; session_gone: the agent CLI could not resume the session"),
            ),
            cli_said: v.optional(text('What the agent CLI said when it could not resume')),
          }),
        ),
        'Sessions that could not (or were not to) be continued, and the fresh session that took over with a ' +
          'handoff brief',
      ),
    }),
    d('.sow/project/phases/implementation/tasks/<id>/state.yaml'),
  ),
);
export type TaskState = v.InferOutput<typeof TaskStateSchema>;

/** The layout of `.sow/` this sow reads and writes (`.sow/.version`); `sow migrate` converts version 1. */
export const LAYOUT_VERSION = 2;
