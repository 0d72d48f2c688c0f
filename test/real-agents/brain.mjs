/**
 * The scripted "model" behind every fake endpoint. It sees the conversation (normalised by each
 * API adapter) and answers with the next shell command of its script, or a closing text once every
 * command has a result. Two scripts: the spawn prompt, and the resume prompt (RESUME_MARKER).
 */
export const RESUME_MARKER = 'Please also log your work';
export const SPAWN_COMMANDS = ['sow task set --id 010 status needs_review'];
export const RESUME_COMMANDS = ['sow log --action completed_task --result success "hello"', 'sow task set --id 010 status needs_review'];
export const FINAL_TEXT = 'Done: task 010 is ready for review.';

/**
 * messages: [{ role: 'user'|'assistant'|'tool', texts: string[], toolCalls: [{name, input}], toolResults: string[] }]
 * Returns { kind: 'tool', command, step, script } or { kind: 'text', text, script }.
 */
export function decide(messages) {
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
  const commands = script === 'resume' ? RESUME_COMMANDS : SPAWN_COMMANDS;
  const done = messages.slice(start + 1).reduce((n, m) => n + m.toolResults.length, 0);
  if (done < commands.length) return { kind: 'tool', command: commands[done], step: done, script };
  return { kind: 'text', text: FINAL_TEXT, script };
}

/** Picks the shell tool among the tools a CLI declares: [{ name, schema }]. */
export function shellTool(tools) {
  const order = ['Bash', 'bash', 'shell', 'run_shell_command', 'exec_command', 'shell_command', 'local_shell', 'powershell'];
  for (const name of order) {
    const t = tools.find((x) => x.name === name);
    if (t) return t;
  }
  return tools.find((x) => /bash|shell/i.test(x.name));
}

function defaultFor(name, schema) {
  if (!schema || typeof schema !== 'object') return 'x';
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum.includes('sync') ? 'sync' : schema.enum[0];
  if ('default' in schema) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'string') return /desc|title|summary|reason|justification/i.test(name) ? 'Mark task 010 for review' : 'x';
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
  const commandType = Array.isArray(commandSchema.type) ? commandSchema.type.find((t) => t !== 'null') : commandSchema.type;
  input[commandKey] = commandType === 'array' ? ['bash', '-lc', command] : command;
  for (const key of required) if (!(key in input)) input[key] = defaultFor(key, props[key]);
  if ('description' in props && !('description' in input)) input.description = 'Run a sow command';
  return input;
}

/** A request without a shell tool is a side request (a title, a summary): note what was offered. */
export function recordSide(record, tools) {
  record.kind = 'side';
  if (tools.length) record.note = `no shell tool among the ${tools.length} declared: ${tools.map((t) => t.name).join(', ')}`;
}

/** A main-loop turn: decide the next step and record what was seen and decided. */
export function planTurn(record, messages, shell) {
  const d = decide(messages);
  Object.assign(record, { kind: 'main', messages, decision: d, shellTool: shell.name });
  return d;
}
