/**
 * Refused tool calls ("denials") in an agent CLI's output, and the advice sow prints about them.
 * Pure: fed the worker's parsed JSON events (and its stderr lines) one by one, it keeps what each
 * CLI says when it refuses a call under its permission settings. The shapes were captured from the
 * pinned CLIs against a scripted model (test/fixtures/denials/README.md says how):
 *
 * - Claude Code: the closing `result` event lists them in `permission_denials` [{tool_name, tool_input}].
 * - Gemini CLI: a `tool_result` with `status: "error"` and `error.type: "policy_violation"`; the
 *   call itself is the earlier `tool_use` with the same `tool_id`.
 * - Copilot CLI: a `tool.execution_complete` with `success: false` and `error.code: "denied"`; the
 *   call is the earlier `tool.execution_start` with the same `toolCallId`.
 * - opencode: a `tool_use` whose `part.state.status` is "error" with one of opencode's permission
 *   errors (it has no error code, only these fixed texts).
 * - Codex: nothing in `--json` (a command its sandbox refuses leaves no event at all); its stderr
 *   logs a refused escalation or patch as `ERROR codex_core::tools::router: error=… reject…`,
 *   without the command.
 * - Cursor (from its documentation and public reports; not captured here): a `tool_call` event,
 *   subtype `completed`, whose `<kind>ToolCall.result` is `{rejected: {command, reason}}`.
 */
import type { ExecutorType, PermissionProfile } from '../domain/schemas.js';

export interface Denial {
  /** The CLI's own name for the tool: Bash, run_shell_command, bash, shell, Write, apply_patch, … */
  tool: string;
  /** The shell command or the file the call was about; null when the CLI does not say. */
  input: string | null;
  kind: 'command' | 'edit' | 'other';
  /** Why, in the CLI's words, when it gives a reason. */
  reason?: string;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** The command, or the file, a tool call's input is about; else its JSON, shortened. */
function inputText(input: unknown): string | null {
  if (typeof input === 'string') return input;
  if (!isObj(input)) return null;
  const command = input['command'] ?? input['cmd'];
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.every((c) => typeof c === 'string')) return command.join(' ');
  const path = str(input['file_path']) ?? str(input['filePath']) ?? str(input['path']) ?? str(input['absolute_path']);
  if (path) return path;
  const json = JSON.stringify(input);
  return json.length > 200 ? `${json.slice(0, 199)}…` : json;
}

function denial(tool: string, input: unknown, kinds: { command: readonly string[]; edit: readonly string[] }, reason?: string): Denial {
  const kind = kinds.command.includes(tool) ? 'command' : kinds.edit.includes(tool) ? 'edit' : 'other';
  return { tool, input: inputText(input), kind, ...(reason ? { reason } : {}) };
}

/** One CLI's reader: what each event (or stderr line) adds to the denials. */
interface Reader {
  event(event: Obj): Denial[];
  stderr(line: string): Denial[];
}
const none = (): Denial[] => [];

const CLAUDE_TOOLS = { command: ['Bash'], edit: ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'] };
export function claudeReader(): Reader {
  return {
    event(e) {
      if (e['type'] !== 'result' || !Array.isArray(e['permission_denials'])) return [];
      return e['permission_denials'].filter(isObj).map((d) => denial(str(d['tool_name']) ?? 'unknown', d['tool_input'], CLAUDE_TOOLS));
    },
    stderr: none,
  };
}

const GEMINI_TOOLS = { command: ['run_shell_command'], edit: ['write_file', 'replace'] };
export function geminiReader(): Reader {
  const calls = new Map<string, Obj>();
  return {
    event(e) {
      const id = str(e['tool_id']);
      if (!id) return [];
      if (e['type'] === 'tool_use') calls.set(id, e);
      if (e['type'] !== 'tool_result' || e['status'] !== 'error' || !isObj(e['error']) || e['error']['type'] !== 'policy_violation') return [];
      const call = calls.get(id);
      return [denial(str(call?.['tool_name']) ?? 'unknown', call?.['parameters'], GEMINI_TOOLS, str(e['error']['message']))];
    },
    stderr: none,
  };
}

const COPILOT_TOOLS = { command: ['bash', 'shell', 'powershell'], edit: ['create', 'edit', 'write', 'str_replace_editor'] };
export function copilotReader(): Reader {
  const calls = new Map<string, Obj>();
  return {
    event(e) {
      const data = e['data'];
      if (!isObj(data)) return [];
      const id = str(data['toolCallId']);
      if (!id) return [];
      if (e['type'] === 'tool.execution_start') calls.set(id, data);
      if (e['type'] !== 'tool.execution_complete' || data['success'] !== false || !isObj(data['error']) || data['error']['code'] !== 'denied') return [];
      const call = calls.get(id);
      return [denial(str(call?.['toolName']) ?? 'unknown', call?.['arguments'], COPILOT_TOOLS, str(data['error']['message']))];
    },
    stderr: none,
  };
}

const OPENCODE_TOOLS = { command: ['bash'], edit: ['write', 'edit', 'patch', 'multiedit'] };
/** opencode's permission errors (PermissionRejectedError, PermissionCorrectedError, PermissionDeniedError). */
const OPENCODE_REFUSED = /^The user (rejected permission to use this specific tool call|has specified a rule which prevents you from using this specific tool call)/;
export function opencodeReader(): Reader {
  return {
    event(e) {
      const part = e['part'];
      if (e['type'] !== 'tool_use' || !isObj(part) || !isObj(part['state'])) return [];
      const state = part['state'];
      const error = str(state['error']);
      if (state['status'] !== 'error' || !error || !OPENCODE_REFUSED.test(error)) return [];
      return [denial(str(part['tool']) ?? 'unknown', state['input'], OPENCODE_TOOLS, error)];
    },
    stderr: none,
  };
}

/** Codex logs a call it refused (an escalation, a patch outside the project) on stderr, at level ERROR. */
const CODEX_REFUSED = /codex_core::tools::router: error=(.*\breject(?:ed)?\b.*)$/;
export function codexReader(): Reader {
  return {
    event: none,
    stderr(line) {
      const m = CODEX_REFUSED.exec(line.trim());
      if (!m) return [];
      const reason = m[1]!.trim();
      const patch = /^patch rejected/.test(reason);
      return [{ tool: patch ? 'apply_patch' : 'shell', input: null, kind: patch ? 'edit' : 'command', reason }];
    },
  };
}

const CURSOR_TOOLS = { command: ['shell'], edit: ['edit', 'write', 'delete'] };
export function cursorReader(): Reader {
  const started = new Map<string, Obj>();
  return {
    event(e) {
      if (e['type'] !== 'tool_call' || !isObj(e['tool_call'])) return [];
      const [key, call] = Object.entries(e['tool_call'])[0] ?? [];
      if (!key || !isObj(call)) return [];
      const id = str(e['call_id']) ?? '';
      if (e['subtype'] === 'started') started.set(id, call);
      const result = call['result'];
      if (e['subtype'] !== 'completed' || !isObj(result) || !isObj(result['rejected'])) return [];
      const rejected = result['rejected'];
      const args = call['args'] ?? started.get(id)?.['args'];
      const tool = key.replace(/ToolCall$/, '');
      const input = str(rejected['command']) ? rejected : args;
      return [denial(tool, input, CURSOR_TOOLS, str(rejected['reason']) || undefined)];
    },
    stderr: none,
  };
}

const READERS: Partial<Record<ExecutorType, () => Reader>> = {
  claude: claudeReader,
  gemini: geminiReader,
  copilot: copilotReader,
  opencode: opencodeReader,
  codex: codexReader,
  cursor: cursorReader,
};

export interface DenialCollector {
  /** One parsed JSON event of the worker's stdout. */
  event(event: unknown): void;
  /** One line of the worker's stderr. */
  stderr(line: string): void;
  readonly denials: readonly Denial[];
}

/** Collects the denials of one run of a CLI of this type (none for types sow cannot read). */
export function denialCollector(type: string): DenialCollector {
  const reader = (READERS as Record<string, (() => Reader) | undefined>)[type]?.();
  const denials: Denial[] = [];
  return {
    event(event) {
      if (reader && isObj(event)) denials.push(...reader.event(event));
    },
    stderr(line) {
      if (reader) denials.push(...reader.stderr(line));
    },
    denials,
  };
}

export interface AdviceContext {
  type: string;
  /** The CLI's name for people: Claude Code, Codex CLI, … */
  title: string;
  /** The executor's name in the user configuration, and that file. */
  executor: string;
  configPath: string;
  /** The repository configuration that declares the checks. */
  repoConfig: string;
  checks: readonly string[];
  /** Declared checks not granted: the person has not allowed them on this machine. */
  notAllowed?: readonly string[];
  profile: PermissionProfile;
}

/** Why a declared check can still be refused, per CLI. */
const CHECK_REFUSED: Record<string, string> = {
  copilot: 'Copilot CLI matches a shell command by its name (plus the first subcommand for tools such as npm or git), not by the whole line, so it may not see this command as the one granted; declare the check as a package script and run it by that name (`npm run <script>`)',
  gemini: 'Gemini CLI checks each part of a chained command (&&, ;, |) on its own; declare each part as a check too',
};
/** The CLIs whose safe profile is a sandbox: a declared check gets no more than any other command. */
const SANDBOXED: Record<string, string> = {
  codex: 'Codex runs every command in its workspace-write sandbox (writes only in the repository and /tmp, no network), checks too',
  cursor: 'Cursor runs shell commands in its sandbox (--sandbox enabled), checks too',
};

const quoted = (s: string) => JSON.stringify(s);

/**
 * What to tell the user about refused calls: which, and how to allow them — declare a shell
 * command as a check in the repository configuration, or give the executor permissions: yolo.
 * Lines for stderr; empty when nothing was refused.
 */
export function denialAdvice(denials: readonly Denial[], ctx: AdviceContext): string[] {
  if (!denials.length) return [];
  const seen = new Set<string>();
  // The same command refused twice is said once; refusals that name no command (Codex) are each their own.
  const unique = denials.filter((d, i) => {
    const key = d.input === null ? `#${i}` : `${d.tool}\0${d.input}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  const lines = [`${ctx.title} refused ${unique.length === 1 ? 'a tool call' : `${unique.length} tool calls`} (permissions: ${ctx.profile}):`];
  for (const d of unique) {
    const what = d.input ?? (d.kind === 'command' ? '(a command; codex does not say which)' : '(not named)');
    lines.push(`  ${d.tool}: ${what}${d.reason && d.input === null ? ` — ${d.reason}` : ''}`);
  }
  const checks = new Set(ctx.checks.map((c) => c.trim()));
  const commands = unique.filter((d) => d.kind === 'command' && d.input !== null);
  const withheld = new Set((ctx.notAllowed ?? []).map((c) => c.trim()));
  const declared = commands.filter((d) => checks.has(d.input!.trim()));
  const notAllowed = commands.filter((d) => !checks.has(d.input!.trim()) && withheld.has(d.input!.trim()));
  const undeclared = commands.filter((d) => !checks.has(d.input!.trim()) && !withheld.has(d.input!.trim()));
  if (ctx.profile === 'safe' && SANDBOXED[ctx.type]) {
    lines.push(`${SANDBOXED[ctx.type]}; declaring a check does not widen it.`);
  } else if (ctx.profile === 'safe') {
    if (undeclared.length) {
      lines.push(`To let a worker run ${undeclared.length === 1 ? 'that command' : 'those commands'}, declare ${undeclared.length === 1 ? 'it as a check' : 'each as a check'} in ${ctx.repoConfig}:`);
      lines.push('  checks:');
      undeclared.forEach((d, i) => lines.push(`    - name: ${undeclared.length === 1 ? 'allowed' : `allowed-${i + 1}`}`, `      run: ${quoted(d.input!.trim())}`));
      lines.push(`then allow ${undeclared.length === 1 ? 'it' : 'them'} on this machine: 'sow check allow'.`);
    }
    for (const d of notAllowed) lines.push(`\`${d.input!.trim()}\` is declared as a check, but you have not allowed it on this machine: review it ('sow check list') and run 'sow check allow'.`);
    for (const d of declared) lines.push(`\`${d.input!.trim()}\` is declared as a check, but ${ctx.title} refused it: ${CHECK_REFUSED[ctx.type] ?? 'its own settings deny it'}.`);
    if (unique.some((d) => d.kind === 'edit')) lines.push('A safe worker edits files only inside the repository.');
  } else {
    lines.push(`${ctx.title} refused ${unique.length === 1 ? 'it' : 'them'} even with permissions: yolo: its own configuration denies ${unique.length === 1 ? 'it' : 'them'}.`);
    return lines;
  }
  lines.push(`To let executor ${quoted(ctx.executor)} do anything unasked, set permissions: yolo in ${ctx.configPath}:`);
  lines.push('  agents:', '    executors:', `      ${ctx.executor}:`, `        type: ${ctx.type}`, '        settings:', '          permissions: yolo');
  return lines;
}
