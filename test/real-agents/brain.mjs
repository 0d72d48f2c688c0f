/**
 * The scripted "model" behind every fake endpoint. It sees the conversation (normalised by each
 * API adapter) and answers with the next step of its script — a shell command, or a file written
 * with the CLI's own edit tool, or a call of one of sow's MCP tools — or a closing text once every
 * step has a result. Four scripts: the spawn prompt, the resume prompt (RESUME_MARKER), the
 * safe-profile spawn prompt (SAFE_MARKER, followed by a JSON line naming the file to write, the
 * check and the forbidden command), and the ACP spawn prompt (ACP_MARKER, followed by a JSON line
 * naming the forbidden command).
 */
export const RESUME_MARKER = 'Please also log your work';
export const SPAWN_COMMANDS = ['sow task set --id 010 status needs_review'];
export const RESUME_COMMANDS = [
  'sow log --action completed_task --result success "hello"',
  'sow task set --id 010 status needs_review',
];
export const FINAL_TEXT = 'Done: task 010 is ready for review.';
export const SAFE_MARKER = 'REAL-AGENTS SAFE PROFILE RUN:';
export const ACP_MARKER = 'REAL-AGENTS ACP RUN:';
/** The MCP tool of `sow mcp` the ACP script calls. */
export const MCP_TOOL = 'status';

/**
 * The safe-profile script: write a file with the edit tool, run the declared check, try a command
 * the profile does not allow, report back. `plan`: { file (absolute), relFile, text, check, forbidden }.
 */
export const safeSteps = (plan) => [
  { kind: 'edit', path: plan.file, relPath: plan.relFile, content: plan.text },
  { kind: 'shell', command: plan.check },
  // `escalate`: where the CLI has a sandbox to ask out of (Codex), the model asks, as real ones do.
  { kind: 'shell', command: plan.forbidden, escalate: true },
  { kind: 'shell', command: SPAWN_COMMANDS[0] },
];
/** The line the scenario appends to the spawn prompt to ask for the safe-profile script. */
export const safePrompt = (plan) => `${SAFE_MARKER} ${JSON.stringify(plan)}`;

/**
 * The ACP script: sow's `status` through the `sow mcp` server sow handed over (left out where the
 * agent offers no such tool), the report (a command the safe profile allows), then a command it
 * refuses — last, because a refusal ends Codex's turn. `plan`: { forbidden }.
 */
export const acpSteps = (plan) => [
  { kind: 'mcp', name: MCP_TOOL },
  { kind: 'shell', command: SPAWN_COMMANDS[0] },
  { kind: 'shell', command: plan.forbidden, escalate: true },
];
export const acpPrompt = (plan) => `${ACP_MARKER} ${JSON.stringify(plan)}`;

/**
 * sow's MCP tool `name` among the tools an agent declares: `status`, or prefixed with the server's name
 * (`mcp__sow__status`, `sow_status`, …).
 */
export function mcpTool(tools, name) {
  return tools.find((t) => t.name === name) ?? tools.find((t) => new RegExp(`sow[^a-z0-9]+${name}$`, 'i').test(t.name));
}

function markedPlan(texts, marker) {
  for (const t of texts) {
    const i = t.indexOf(marker);
    if (i < 0) continue;
    const rest = t.slice(i + marker.length).trim();
    const end = rest.indexOf('}');
    try {
      return JSON.parse(rest.slice(0, end + 1));
    } catch {
      // a prompt that only mentions the marker
    }
  }
  return undefined;
}

/**
 * messages: [{ role: 'user'|'assistant'|'tool', texts: string[], toolCalls: [{name, input}], toolResults: string[] }]
 * Returns { kind: 'tool', step: { kind: 'shell', command } | { kind: 'edit', path, relPath, content }, command, n,
 * script } or { kind: 'text', text, script }. `command` is the shell command (or a description of the edit).
 */
export function decide(messages, tools = []) {
  const hasText = (m, needle) => m.role === 'user' && m.texts.some((t) => t.includes(needle));
  let start = -1;
  let script = 'spawn';
  for (let i = messages.length - 1; i >= 0; i--) {
    if (hasText(messages[i], RESUME_MARKER)) {
      start = i;
      script = 'resume';
      break;
    }
  }
  if (start < 0) start = messages.findIndex((m) => m.role === 'user' && m.texts.some((t) => t.trim()));
  let steps = (script === 'resume' ? RESUME_COMMANDS : SPAWN_COMMANDS).map((command) => ({ kind: 'shell', command }));
  if (script === 'spawn') {
    const userTexts = messages.filter((m) => m.role === 'user').flatMap((m) => m.texts);
    const plan = markedPlan(userTexts, SAFE_MARKER);
    const acp = !plan && markedPlan(userTexts, ACP_MARKER);
    if (plan) {
      script = 'safe';
      steps = safeSteps(plan);
    } else if (acp) {
      script = 'acp';
      // Where the agent offers no sow tool (Copilot refuses the server), the script goes on without it.
      steps = acpSteps(acp).filter((s) => s.kind !== 'mcp' || mcpTool(tools, s.name));
    }
  }
  const results = messages.slice(start + 1).flatMap((m) => m.toolResults);
  const done = results.length;
  if (done < steps.length) {
    const step = steps[done];
    return {
      kind: 'tool',
      step,
      command: step.kind === 'shell' ? step.command : step.kind === 'mcp' ? `mcp ${step.name}` : `edit ${step.path}`,
      n: done,
      script,
      results,
    };
  }
  return { kind: 'text', text: FINAL_TEXT, script, results, steps };
}

/** Picks the shell tool among the tools a CLI declares: [{ name, schema }]. */
export function shellTool(tools) {
  const order = [
    'Bash',
    'bash',
    'shell',
    'run_shell_command',
    'exec_command',
    'shell_command',
    'local_shell',
    'powershell',
  ];
  for (const name of order) {
    const t = tools.find((x) => x.name === name);
    if (t) return t;
  }
  return tools.find((x) => /bash|shell/i.test(x.name));
}

/** Picks the tool that writes a whole file among the tools a CLI declares. */
export function writeTool(tools) {
  const order = ['Write', 'write_file', 'write', 'create', 'apply_patch'];
  for (const name of order) {
    const t = tools.find((x) => x.name === name);
    if (t) return t;
  }
  return undefined;
}

function defaultFor(name, schema) {
  if (!schema || typeof schema !== 'object') return 'x';
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum.includes('sync') ? 'sync' : schema.enum[0];
  if ('default' in schema) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'string')
    return /desc|title|summary|reason|justification/i.test(name) ? 'Mark task 010 for review' : 'x';
  if (type === 'number' || type === 'integer') return /timeout|wait/i.test(name) ? 60 : 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'object') return {};
  return 'x';
}

/** Builds the tool input for `command` from the tool's declared JSON schema. */
export function shellInput(tool, command) {
  const schema = tool?.schema ?? {};
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const input = {};
  const commandKey = ['command', 'cmd', 'commandLine', 'script'].find((k) => k in props) ?? 'command';
  const commandSchema = props[commandKey] ?? { type: 'string' };
  const commandType = Array.isArray(commandSchema.type)
    ? commandSchema.type.find((t) => t !== 'null')
    : commandSchema.type;
  input[commandKey] = commandType === 'array' ? ['bash', '-lc', command] : command;
  for (const key of required) if (!(key in input)) input[key] = defaultFor(key, props[key]);
  if ('description' in props && !('description' in input)) input.description = 'Run a command';
  return input;
}

/** Builds the input of a whole-file write tool from its declared JSON schema. */
export function writeInput(tool, step) {
  const props = tool?.schema?.properties ?? {};
  const required = new Set(tool?.schema?.required ?? []);
  const pathKey = ['file_path', 'filePath', 'path', 'absolute_path'].find((k) => k in props) ?? 'file_path';
  const contentKey = ['content', 'file_text', 'contents', 'text'].find((k) => k in props) ?? 'content';
  const input = { [pathKey]: step.path, [contentKey]: step.content };
  for (const key of required) if (!(key in input)) input[key] = defaultFor(key, props[key]);
  return input;
}

/** Codex's apply_patch grammar: a new file, relative to the workspace. */
export const addFilePatch = (step) =>
  `*** Begin Patch\n*** Add File: ${step.relPath}\n${step.content
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `+${l}`)
    .join('\n')}\n*** End Patch\n`;

/** A request without a shell tool is a side request (a title, a summary): note what was offered. */
export function recordSide(record, tools) {
  record.kind = 'side';
  if (tools.length)
    record.note = `no shell tool among the ${tools.length} declared: ${tools.map((t) => t.name).join(', ')}`;
}

/**
 * A main-loop turn: decide the next step and record what was seen and decided. For an edit step,
 * `tool` is the CLI's write tool (undefined when it offers none: record.note says so).
 */
export function planTurn(record, messages, shell, tools = []) {
  const d = decide(messages, tools);
  Object.assign(record, {
    kind: 'main',
    messages,
    decision: d,
    shellTool: shell.name,
    toolNames: tools.map((t) => t.name),
  });
  if (d.kind === 'tool' && d.step.kind === 'mcp') {
    d.tool = mcpTool(tools, d.step.name);
    record.mcpTool = d.tool?.name;
  }
  if (d.kind === 'tool' && d.step.kind === 'edit') {
    d.tool = writeTool(tools);
    record.editTool = d.tool?.name;
    if (!d.tool)
      record.note = `no write tool among the ${tools.length} declared: ${tools.map((t) => t.name).join(', ')}`;
  }
  return d;
}
