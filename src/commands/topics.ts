/** The help topics that are not commands: reference, environment, json (exit-codes is a command's page). */
import type { CommandDef } from '../model/def.js';
import { columns } from '../cli/render.js';
import { argUsage } from '../cli/build.js';

/** `sow task add [options] <name>`, as `--help` writes the usage line (every command takes -h, so [options] always). */
export const usageOf = (def: CommandDef): string =>
  ['sow', def.name, '[options]', ...(def.args ?? []).map(argUsage)].join(' ');

/** The reference entry of one command: what `--json` prints (an undefined member is left out), and what the text is
 * made of. */
function referenceOf(def: CommandDef) {
  return {
    command: `sow ${def.name}`,
    usage: usageOf(def),
    description: def.description,
    writes: def.writes !== false,
    arguments: (def.args ?? []).map(({ name, description, optional, variadic, choices }) => {
      return { name, description, optional, variadic, choices };
    }),
    options: (def.options ?? []).map(({ flags, description, required, choices, default: value }) => {
      return { flags, description, required, choices, default: value };
    }),
    mcp_tool: def.mcp?.tool,
    notes: typeof def.help === 'string' ? def.help : undefined,
    examples: def.examples?.length ? def.examples : undefined,
  };
}

export const reference: Pick<CommandDef, 'run'> = {
  async run(ctx) {
    const all = ctx.commands ? await ctx.commands() : [];
    const entries = all.map(referenceOf);
    const text = entries.map((e) => {
      const rows = [
        ...e.arguments.filter((a) => a.description).map((a) => [`    ${argUsage(a)}`, a.description!]),
        ...e.options.map((o) => [`    ${o.flags}`, o.description + (o.required ? ' (required)' : '')]),
      ];
      return [e.usage, `  ${e.description}`, ...(rows.length ? [columns(rows)] : [])].join('\n');
    });
    return {
      data: entries,
      text:
        `${text.join('\n\n')}\n\nEvery command also takes --json (one JSON document on stdout), --no-color and ` +
        `-h, --help.\nsow help <command> shows one command's help with its notes and examples.`,
    };
  },
};

/** The variables sow reads, and what each does. */
const VARIABLES: Readonly<Record<string, string>> = {
  'SOW_AGENTS_<ROLE>': 'which agent CLI runs a role (SOW_AGENTS_IMPLEMENTER=codex), over your configuration file',
  SOW_OWNER: 'the name a claim is recorded under (task next --claim); without it, on a terminal, git config user.name',
  SOW_LOCK_TIMEOUT:
    'seconds a command waits for another sow command to finish with the project (default 15, at most 86400)',
  SOW_ALLOW_CHECKS:
    "1: run the repository's declared checks without 'sow check allow' (for CI, where the repository is trusted)",
  SOW_DEBUG: '1: print the stack trace of an internal error',
  SOW_NO_COMPILE_CACHE: "1: do not keep sow's compiled code in the cache folder",
  SOW_NO_RAW_STAT: "1: check task files with Node's fs.lstatSync only, not its faster fs binding",
  SOW_AGENT_ID: 'set by sow for a worker it spawns: who acts (implementer-1); its claims and log lines carry it',
  SOW_AGENT: 'set with SOW_AGENT_ID: the agent role (implementer)',
  SOW_TASK_ID: 'set for a worker spawned on a task: the task it reports on (sow agent report, sow agent log)',
  SOW_SESSION_ID: 'an agent session; alone, it is an identity for claims (agent CLIs outside sow can set it)',
  SOW_PROJECT_ROOT:
    'set for a worker: the project checkout; a worker in a checkout of its own (agent spawn --worktree) acts on ' +
    "the project's state there",
  CI: 'set (as CI services do): no progress spinner, even on a terminal',
  NO_COLOR: 'no colour, even on a terminal (as --no-color); TERM=dumb does the same',
  'VISUAL, EDITOR': "the editor of 'sow config edit'",
  XDG_CONFIG_HOME: 'where your configuration is: $XDG_CONFIG_HOME/sow/config.yaml, else ~/.config/sow/config.yaml',
  XDG_CACHE_HOME: 'where the reference cache and compiled code are: $XDG_CACHE_HOME/sow, else ~/.cache/sow',
  XDG_STATE_HOME: 'where the checks you allowed are recorded: $XDG_STATE_HOME/sow, else ~/.local/state/sow',
};
export const ENVIRONMENT = Object.entries(VARIABLES).map(([name, meaning]) => ({ name, meaning }));

export const environment: Pick<CommandDef, 'run'> = {
  async run() {
    return {
      data: ENVIRONMENT,
      text:
        `${columns(Object.entries(VARIABLES))}\n\ngh and the agent CLIs read their own ` +
        `variables (GH_TOKEN, GH_HOST, ANTHROPIC_API_KEY, …); sow passes them on.`,
    };
  },
};

export const json: Pick<CommandDef, 'run'> = {
  async run() {
    const text = `With --json every command prints exactly one JSON document on stdout, and nothing else:

  {"ok":true,"data":…}                                  the command's result
  {"ok":false,"error":{"code","message","hint"}}        a refusal, with the same exit code

code is stable (TASK_NOT_FOUND, TRANSITION_BLOCKED, …): branch on it, never on the message.
Warnings still go to stderr. Values are printed as the state files hold them: .inf, -.inf and .nan
as the strings ".inf", "-.inf", ".nan"; an integer beyond 2^53 with every digit (parse it as a big
integer); !!set as a list, !!omap as a map, !!binary as its base64 text. Text from files keeps its
exact characters (human output escapes control characters).

'sow help reference --json' describes every command; 'sow schema' gives the JSON Schema of each state file.`;
    return { data: { topic: 'json', text }, text };
  },
};
