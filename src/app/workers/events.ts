/** A worker's events read back: sow's own kinds from a CLI's stream, what a run did last and used, and the last thing
 * it said (for a handoff brief). */
import { EVENT_MARKS, usageEvent, type WorkerEvent } from '../../adapters/agent-outputs.js';
import { executorOf } from '../../adapters/executors/registry.js';
import type { ExecutorModule, Usage } from '../../adapters/executors/types.js';
import { addUsage, usageOfLines } from '../../adapters/executors/shared.js';
import { describeEvent } from '../../adapters/progress.js';

/** One event of a worker, as `sow agent events` shows it (the events file's shape: adapters/agent-outputs.ts). */
export type { WorkerEvent } from '../../adapters/agent-outputs.js';

/** An event of the CLI's stream as sow's own kinds, read by its module (progress lines and usage). */
export function workerEvents(spec: ExecutorModule, event: unknown, at: string): WorkerEvent[] {
  const out: WorkerEvent[] = [];
  for (const line of describeEvent(event)) {
    if (line.startsWith('› ')) out.push({ at, kind: 'message', text: line.slice(2) });
    else if (line.startsWith('● '))
      out.push({ at, kind: 'tool_call', text: line.slice(2), tool: line.slice(2).split(/[: ]/)[0]! });
    else if (line.startsWith('■ ')) out.push({ at, kind: 'finished', text: line.slice(2) });
    else if (line.startsWith('✗ ')) out.push({ at, kind: 'error', text: line.slice(2) });
    else if (/^session .* started/.test(line)) out.push({ at, kind: 'session', text: line });
    else out.push({ at, kind: 'text', text: line });
  }
  const used = typeof event === 'object' && event ? spec.usage?.(event as Record<string, unknown>) : undefined;
  if (used && Object.keys(used).length) out.push(usageEvent(at, used));
  return out;
}

/** What a run's events say so far: the last thing it did (as its progress line), and what it used. */
export function activityOf(type: string, lines: readonly string[]): { last?: string; usage: Usage } {
  const last = lastOf(lines, (event) => describeEvent(event).at(-1));
  return { ...(last !== undefined ? { last } : {}), usage: usageOfEvents(type, lines) };
}

/** The same from sow's own events of a run (an ACP run's raw stream is JSON-RPC). */
export function activityOfEvents(lines: readonly string[]): { last?: string; usage: Usage } {
  let last: string | undefined;
  let usage: Usage = {};
  for (const line of lines) {
    let e: WorkerEvent;
    try {
      e = JSON.parse(line) as WorkerEvent;
    } catch {
      continue;
    }
    if (!e || typeof e !== 'object') continue;
    const mark = EVENT_MARKS[e.kind];
    if (mark && typeof e.text === 'string') last = `${mark} ${e.text}`;
    if (e.kind === 'usage') usage = addUsage(usage, e);
  }
  return { ...(last !== undefined ? { last } : {}), usage };
}

/** What a run's events say it used, read with its CLI's own reader. */
export function usageOfEvents(type: string, lines: readonly string[]): Usage {
  const spec = executorOf(type);
  return spec ? usageOfLines(spec, lines) : {};
}

/** The last thing the worker said, from its events. */
export const lastMessageOf = (lines: readonly string[]): string | undefined =>
  lastOf(lines, (event) =>
    describeEvent(event)
      .find((l) => l.startsWith('› '))
      ?.slice(2),
  );

/** The first thing `pick` finds in the events, read from the last. */
function lastOf(lines: readonly string[], pick: (event: unknown) => string | undefined): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const found = pick(JSON.parse(lines[i]!));
      if (found !== undefined) return found;
    } catch {
      // not an event: a line the CLI printed as text
    }
  }
  return undefined;
}
