/** What a project type defines: phases, artifact types, the lifecycle as data, prompts; the CLI is the same for all. */
import type { TaskApprovalDef, Withdrawal } from './approvals.js';
import type { ArtifactTypeDef } from './artifacts.js';
import type { FieldSpec } from './fields.js';
import type { CheckMoment, RepoConfig } from './config-schemas.js';
import type { ProjectState, TaskState } from './schemas.js';
import type { TypeCommandGroup } from './type-commands.js';

export type { CheckState, CheckStatus, ProjectView, ReadDoc } from './project-view.js';
import type { ProjectView, ReadDoc } from './project-view.js';

export interface GuardDef {
  /** Shown by `advance --list` and when the guard blocks. */
  readonly description: string;
  readonly check: (view: ProjectView) => boolean;
  /** How to satisfy it, given the current project. */
  readonly hint: (view: ProjectView) => string;
  /** The guard reads `view.checks`: the checks of `moment` judged by the evidence in the outputs of `phase`. */
  readonly evidence?: { readonly moment: CheckMoment; readonly phase: string };
  /** The guard reads `view.taskStates` (the tasks' outputs or metadata), which the app then loads. */
  readonly readsTasks?: boolean;
  // What of the guard must still hold in the state it led to (default: the guard): a state whose every way in fails it
  // was set by hand. For guards whose condition may rightly lapse afterwards.
  readonly standing?: (view: ProjectView) => boolean;
  /** Approvals the guard reads that no longer count (the tasks changed since), to name what changed. */
  readonly withdrawals?: (view: ProjectView) => readonly Withdrawal[];
}

export interface ActionRef<A extends string = string> {
  readonly type: A;
  readonly params?: Readonly<Record<string, string>>;
}

/** A transition; typed with a type's state, guard and action names (S, G, A) so a typo fails to compile. */
export interface TransitionDef<S extends string = string, G extends string = string, A extends string = string> {
  readonly from: S;
  readonly event: string;
  readonly to: S;
  readonly guard?: G;
  readonly actions?: readonly ActionRef<A>[];
  /** Events that `sow advance` without an event may pick (all but project_init). */
  readonly automatic: boolean;
}

export interface StateDef {
  readonly phase: string | null;
  /** Who leads the state's work: the human (the agent asks and drafts) or the AI (the human approves at gates). */
  readonly lead: 'human' | 'ai' | null;
  /** One line: what this state is for. */
  readonly purpose: string;
  readonly final?: boolean;
  /** Workers are spawned on tasks in this state (and in no other, without --force). */
  readonly executesTasks?: boolean;
  /** The command that starts the state's work, for the state card, where neither tasks nor guard say it. */
  readonly next?: string;
}

export type ActionImpl = (project: ProjectState, params: Readonly<Record<string, string>>, now: string) => ProjectState;

export interface PhaseDef {
  readonly name: string;
  readonly canDisable: boolean;
  /** Why a phase that cannot be disabled always runs, said when someone tries to. */
  readonly whyRequired?: string;
  readonly inputs: readonly ArtifactTypeDef[];
  readonly outputs: readonly ArtifactTypeDef[];
  /** Typed metadata keys of the phase, e.g. implementation.tasks_approved: boolean. */
  readonly metadata?: Readonly<Record<string, FieldSpec>>;
  /** The phase whose folder holds the tasks (phases/<name>/tasks/<id>/). One per type. */
  readonly hasTasks?: boolean;
}

/** What a completed project leaves in `.sow/knowledge/`: documents copied there and an entry for its index.yaml. */
export interface ArchivePlan {
  /** Each document's path under .sow/project/ and where it goes (a place taken gets -2, -3 …: never overwritten). */
  readonly files: readonly { readonly from: string; readonly to: string }[];
  /** Files the type writes from the project itself, placed as `files` are. */
  readonly written?: readonly { readonly to: string; readonly text: string }[];
  /** The entry for the index; sow adds `files`, where the documents went (repository-relative). */
  readonly entry: Readonly<Record<string, unknown>>;
}

/** What an archive step reads: the project as it completes, every task, the repository's configuration. */
export interface ArchiveInput {
  readonly project: ProjectState;
  readonly tasks: readonly TaskState[];
  readonly config: RepoConfig;
  /** The documents under .sow/project/ (relative to it; the state files and logs left out). */
  readonly documents?: readonly string[];
  readonly readDoc?: ReadDoc;
}

/** How a type's project becomes a pull request (`sow pr create`). */
export interface PullRequestCapability {
  /** The phase whose approved `review` output the body cites. */
  readonly reviewPhase: string;
  /** The phase that records the `pull_request` output and whose evidence the body lists. */
  readonly recordPhase: string;
  /** The states the pull request is opened in (without --force), and the first of them. */
  readonly states: readonly string[];
}

export interface ProjectType {
  readonly name: string;
  readonly description: string;
  /** The branch prefix of its projects (`feat/`): `project new` makes `<prefix><name>`; a branch with it implies it. */
  readonly branchPrefix: string;
  /** Run when the project reaches a final state, before its folder is removed. */
  readonly archive?: (input: ArchiveInput, now: string) => ArchivePlan | undefined;
  /** Run once by `project new`: the documents the type starts with (under .sow/project/) and the project. */
  readonly scaffold?: (
    project: ProjectState,
    now: string,
  ) => { project: ProjectState; files: Readonly<Record<string, string>> };
  /** Documents rendered from the project (under .sow/project/), rewritten in every transaction that changes it. */
  readonly renders?: (project: ProjectState, readDoc: ReadDoc) => Readonly<Record<string, string>>;
  /** What `sow advance` adds after moving by `event` (a reopened phase that needs more iterations first). */
  readonly advanceNotes?: (event: string, project: ProjectState) => readonly string[];
  /** Checks of the project file the schema cannot make (the type's own metadata); a problem is exit 4. */
  readonly validate?: (project: ProjectState) => { path: string; message: string } | undefined;
  /** The type's own command group (`sow <name> …`), run through the generic app layer. */
  readonly commands?: TypeCommandGroup;
  /** A section `project continue` adds after the state's prompt (recovery notes, the next step). */
  readonly continueNotes?: (view: ProjectView, readDoc: ReadDoc) => string | undefined;
  /** `sow agent spawn <agent> --iteration`: the prompt of a fresh worker for the next iteration. */
  readonly iterationPrompt?: (view: ProjectView, readDoc: ReadDoc) => string;
  /** Types that end in a change to merge: what `sow pr create` needs to know (none: it refuses). */
  readonly pullRequest?: PullRequestCapability;
  /** Variables the type adds to the state prompts (a review's round), beside the general ones. */
  readonly promptVariables?: (project: ProjectState) => Readonly<Record<string, string>>;
  readonly phases: readonly PhaseDef[];
  /** The person's approval of the tasks before work starts (`sow phase set tasks_approved true`), if any. */
  readonly taskApproval?: TaskApprovalDef;
  readonly taskInputs: readonly ArtifactTypeDef[];
  readonly taskOutputs: readonly ArtifactTypeDef[];
  readonly initialState: string;
  readonly states: Readonly<Record<string, StateDef>>;
  readonly transitions: readonly TransitionDef[];
  readonly guards: Readonly<Record<string, GuardDef>>;
  readonly actions: Readonly<Record<string, ActionImpl>>;
}
