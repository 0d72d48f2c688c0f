/** A one-line-per-step view of an agent CLI's JSON events for stderr; each CLI's module is offered every stream. */
import { EXECUTORS } from './executors/registry.js';
import { oneLine, text, toolDetail } from './executors/shared.js';
import { isRecord } from '../domain/json.js';

const DIALECTS = Object.values(EXECUTORS).flatMap((e) => (e.progress ? [e.progress] : []));

export function describeEvent(event: unknown): string[] {
  if (!isRecord(event)) return [];
  for (const dialect of DIALECTS) {
    const lines = dialect(event);
    if (lines) return lines;
  }
  // Generic: a message with text, or a tool call.
  const part = isRecord(event['part']) ? event['part'] : {};
  const said = text(event['text']) ?? text(event['content']) ?? text(part['text']);
  if (said && (event['role'] === undefined || event['role'] === 'assistant')) return [`› ${oneLine(said)}`];
  const tool = text(event['tool_name']) ?? text(event['tool']) ?? text(part['tool']);
  if (tool) {
    const state = part['state'];
    return [`● ${tool}${toolDetail(event['parameters'] ?? event['input'] ?? state)}`];
  }
  return [];
}
