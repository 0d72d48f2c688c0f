/** A one-line-per-step view of an agent CLI's JSON events for stderr; each CLI's module is offered every stream. */
import { EXECUTORS } from './executors/registry.js';
import { isObj, oneLine, text, toolDetail } from './executors/shared.js';

const DIALECTS = Object.values(EXECUTORS).flatMap((e) => (e.progress ? [e.progress] : []));

export function describeEvent(event: unknown): string[] {
  if (!isObj(event)) return [];
  for (const dialect of DIALECTS) {
    const lines = dialect(event);
    if (lines) return lines;
  }
  // Generic: a message with text, or a tool call.
  const said =
    text(event['text']) ?? text(event['content']) ?? (isObj(event['part']) ? text(event['part']['text']) : undefined);
  if (said && (event['role'] === undefined || event['role'] === 'assistant')) return [`› ${oneLine(said)}`];
  const tool =
    text(event['tool_name']) ?? text(event['tool']) ?? (isObj(event['part']) ? text(event['part']['tool']) : undefined);
  if (tool) {
    const state = isObj(event['part']) ? event['part']['state'] : undefined;
    return [`● ${tool}${toolDetail(event['parameters'] ?? event['input'] ?? state)}`];
  }
  return [];
}
