/**
 * A readable one-line-per-step view of an agent CLI's JSON event stream, for stderr. It knows the
 * shapes of Claude Code's and Codex's events and falls back to generic fields for the others.
 */
type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown): string | undefined => (typeof x === 'string' && x.trim() ? x : undefined);
const oneLine = (s: string, max = 110) => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function toolDetail(input: unknown): string {
  if (!isObj(input)) return '';
  const detail = str(input['command']) ?? str(input['file_path']) ?? str(input['path']) ?? str(input['pattern']) ?? str(input['description']) ?? str(input['url']);
  return detail ? `: ${oneLine(detail, 90)}` : '';
}

export function describeEvent(event: unknown): string[] {
  if (!isObj(event)) return [];
  const type = str(event['type']) ?? '';
  // Claude Code stream-json
  if (type === 'system' && event['subtype'] === 'init') return [`session ${String(event['session_id'] ?? '?')} started${str(event['model']) ? ` (${String(event['model'])})` : ''}`];
  if (type === 'assistant' && isObj(event['message']) && Array.isArray(event['message']['content'])) {
    return (event['message']['content'] as unknown[]).flatMap((part) => {
      if (!isObj(part)) return [];
      if (part['type'] === 'text' && str(part['text'])) return [`› ${oneLine(String(part['text']))}`];
      if (part['type'] === 'tool_use') return [`● ${String(part['name'] ?? 'tool')}${toolDetail(part['input'])}`];
      return [];
    });
  }
  if (type === 'result') {
    const failed = event['is_error'] === true || event['subtype'] === 'error';
    const turns = typeof event['num_turns'] === 'number' ? ` after ${event['num_turns']} turn(s)` : '';
    return [`${failed ? '✗ ended with an error' : '✓ finished'}${turns}`];
  }
  // Codex --json
  if (type === 'thread.started') return [`session ${String(event['thread_id'] ?? '?')} started`];
  if ((type === 'item.completed' || type === 'item.started') && isObj(event['item'])) {
    const item = event['item'];
    if (item['type'] === 'agent_message' && str(item['text'])) return type === 'item.completed' ? [`› ${oneLine(String(item['text']))}`] : [];
    if (item['type'] === 'command_execution' && str(item['command'])) return type === 'item.started' ? [`● shell: ${oneLine(String(item['command']), 90)}`] : [];
    if (item['type'] === 'file_change') return type === 'item.completed' ? ['● file change'] : [];
    return [];
  }
  if (type === 'turn.failed' || type === 'error') return [`✗ ${oneLine(str(event['message']) ?? JSON.stringify(event['error'] ?? event))}`];
  // Generic: a message with text, or a tool call.
  const text = str(event['text']) ?? str(event['content']) ?? (isObj(event['part']) ? str(event['part']['text']) : undefined);
  if (text && (event['role'] === undefined || event['role'] === 'assistant')) return [`› ${oneLine(text)}`];
  const tool = str(event['tool_name']) ?? str(event['tool']) ?? (isObj(event['part']) ? str(event['part']['tool']) : undefined);
  if (tool) return [`● ${tool}${toolDetail(event['parameters'] ?? event['input'] ?? (isObj(event['part']) ? event['part']['state'] : undefined))}`];
  return [];
}
