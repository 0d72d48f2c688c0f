/** The configuration files as valibot schemas: the user's (executors) and the repository's (checks). */
import * as v from 'valibot';
import { builtWhenUsed } from './schema-check.js';
import { isRemoteName } from './git-names.js';

const d = v.description;

/** What a worker may do without asking: see settings.permissions. */
export const PERMISSION_PROFILES = ['safe', 'yolo'] as const;
export type PermissionProfile = (typeof PERMISSION_PROFILES)[number];

/** User configuration (~/.config/sow/config.yaml), spec 003. Read by the agent commands. */
export const EXECUTOR_TYPES = [
  'claude',
  'cursor',
  'windsurf',
  'codex',
  'gemini',
  'copilot',
  'opencode',
  'command',
] as const;
export type ExecutorType = (typeof EXECUTOR_TYPES)[number];
export const ExecutorConfigSchema = builtWhenUsed(() =>
  v.looseObject({
    type: v.pipe(v.picklist(EXECUTOR_TYPES), d('Executor implementation')),
    settings: v.optional(
      v.looseObject({
        permissions: v.optional(
          v.pipe(
            v.picklist(PERMISSION_PROFILES),
            d(
              'What a worker may do unasked. safe (the default): read and edit files in the repository, run sow ' +
                'and the checks the repository declares that you allowed (sow check allow); yolo: anything (each ' +
                "CLI's skip-permissions flag)",
            ),
          ),
        ),
        yolo_mode: v.optional(v.pipe(v.boolean(), d('true is permissions: yolo'))),
        model: v.optional(v.pipe(v.string(), d('Model name passed to the CLI'))),
      }),
    ),
    custom_args: v.optional(v.pipe(v.array(v.string()), d('Extra arguments, added last'))),
    transport: v.optional(
      v.pipe(
        v.picklist(['cli', 'acp']),
        d(
          'How sow talks to the agent: cli (the default) runs its command line and reads its events; acp speaks ' +
            'the Agent Client Protocol with it, and sow answers each permission it asks by the profile (claude, ' +
            'codex, gemini, copilot, opencode)',
        ),
      ),
    ),
    spawn: v.optional(
      v.pipe(
        v.array(v.string()),
        d('type command: argv of a new session; placeholders {prompt_file} {prompt} {session_id} {model} {cwd}'),
      ),
    ),
    resume: v.optional(
      v.pipe(v.array(v.string()), d('type command: argv to resume a session; without it the executor cannot resume')),
    ),
  }),
);
export type ExecutorConfig = v.InferOutput<typeof ExecutorConfigSchema>;
export const UserConfigSchema = builtWhenUsed(() =>
  v.pipe(
    v.looseObject({
      // A section whose entries are all commented out reads as null: that means "none".
      agents: v.nullish(
        v.looseObject({
          executors: v.nullish(v.record(v.string(), ExecutorConfigSchema)),
          bindings: v.nullish(v.record(v.string(), v.pipe(v.string(), v.minLength(1)))),
        }),
      ),
    }),
    d('~/.config/sow/config.yaml'),
  ),
);
export type UserConfig = v.InferOutput<typeof UserConfigSchema>;

/** When a declared check runs by itself: before a task is completed, and for the finalize guard. */
export const CHECK_MOMENTS = ['task_complete', 'finalize'] as const;
export type CheckMoment = (typeof CHECK_MOMENTS)[number];
export const CHECK_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;
export const CheckSchema = builtWhenUsed(() =>
  v.looseObject({
    name: v.pipe(
      v.string(),
      v.regex(CHECK_NAME_PATTERN, 'must be a short name of lowercase letters, digits, - and _ (e.g. unit)'),
      d("The check's name: sow check run <name>"),
    ),
    run: v.pipe(v.string(), v.minLength(1), d('Your shell command; it runs in the repository root, e.g. npm test')),
    when: v.optional(
      v.pipe(
        v.array(v.picklist(CHECK_MOMENTS)),
        d(
          'Run by itself: task_complete (before a task is completed), finalize (its passing evidence is needed to ' +
            'leave FinalizeChecks)',
        ),
      ),
    ),
    timeout: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.maxValue(86_400),
        d('Seconds before the check is stopped and fails (default 600)'),
      ),
    ),
  }),
);
export type Check = v.InferOutput<typeof CheckSchema>;
/** Where the repository configuration lives, committed with the repository. */
export const REPO_CONFIG = '.sow/config.yaml';
/** Repository configuration (.sow/config.yaml), committed with the repository. */
export const RepoConfigSchema = builtWhenUsed(() =>
  v.pipe(
    v.looseObject({
      checks: v.nullish(v.pipe(v.array(CheckSchema), d("The repository's checks: tests, lint, build"))),
      budget: v.nullish(
        v.pipe(
          v.strictObject({
            usd: v.nullish(
              v.pipe(v.number(), v.minValue(0), d('At most this many US dollars, as the agent CLIs report cost')),
            ),
            tokens: v.nullish(
              v.pipe(v.number(), v.integer(), v.minValue(0), d('At most this many tokens, input and output together')),
            ),
          }),
          d(
            "What this project's workers may use: at the limit sow starts no worker and resumes none (exit 3); " +
              'workers already running go on',
          ),
        ),
      ),
      workers: v.nullish(
        v.pipe(
          v.strictObject({
            worktree: v.nullish(
              v.pipe(
                v.boolean(),
                d(
                  'true: a worker spawned on a task marked parallel works in a checkout of its own (as with ' +
                    "--worktree), merged back with 'sow task merge'",
                ),
              ),
            ),
          }),
          d("The project's workers"),
        ),
      ),
      github: v.nullish(
        v.pipe(
          v.strictObject({
            repo: v.pipe(
              v.string(),
              v.regex(/^([\w.-]+\/)?[\w.-]+\/[\w.-]+$/, 'owner/name, or host/owner/name'),
              d("The GitHub repository sow's gh calls name (default: from the origin remote)"),
            ),
          }),
          d('GitHub (through the gh CLI)'),
        ),
      ),
      claims: v.nullish(
        v.pipe(
          v.strictObject({
            remote: v.pipe(
              v.string(),
              v.check(
                isRemoteName,
                "must be the name of a git remote of this repository (as 'git remote' lists them), e.g. origin",
              ),
              d('The git remote whose refs/sow/claims/ refs say who works on which task, across machines'),
            ),
          }),
          d(
            'Claims through the git remote: task next --claim also claims the task on the remote, so two machines ' +
              'never take the same task',
          ),
        ),
      ),
      knowledge: v.nullish(
        v.pipe(
          v.strictObject({
            places: v.nullish(
              v.pipe(
                v.record(
                  v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*$/, 'an artifact type, e.g. adr')),
                  v.pipe(
                    v.string(),
                    v.regex(
                      /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[\w.-]+(\/[\w.-]+)*$/,
                      'a folder under .sow/knowledge/, e.g. adrs or docs/designs (no .., not absolute)',
                    ),
                  ),
                ),
                d(
                  "Where a completed project's documents go, by artifact type, as folders under .sow/knowledge/ " +
                    '(e.g. adr: adrs)',
                ),
              ),
            ),
          }),
          d("The repository's knowledge: what completed projects leave in .sow/knowledge/"),
        ),
      ),
    }),
    d(REPO_CONFIG),
  ),
);
export type RepoConfig = v.InferOutput<typeof RepoConfigSchema>;
