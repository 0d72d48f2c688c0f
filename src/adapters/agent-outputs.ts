/** What a worker run leaves for a person: its prompt and raw events, in the runtime folder's `agent-outputs/`. */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureRuntimeDir } from './runtime.js';
import type { Usage } from './executors/types.js';

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

/** One event of a worker, as `sow agent events` shows it, whatever CLI (or protocol) it came from. */
export interface WorkerEvent extends Usage {
  at: string;
  kind: 'session' | 'message' | 'tool_call' | 'finished' | 'error' | 'usage' | 'text' | 'exit' | 'agent_plan';
  text: string;
  /** tool_call: the CLI's name for the tool (Bash, shell, Write, …). */
  tool?: string;
  /** exit: the CLI's exit code. */
  code?: number | null;
}

/** How a worker's event is marked on the terminal. */
export const EVENT_MARKS: Partial<Record<WorkerEvent['kind'], string>> = {
  message: '›',
  tool_call: '●',
  error: '✗',
  agent_plan: '☐',
};

/** The event of what a run used, said as `1200 in, 300 out, $0.01`. */
export function usageEvent(at: string, used: Usage): WorkerEvent {
  const parts = [
    used.input_tokens !== undefined ? `${used.input_tokens} in` : '',
    used.output_tokens !== undefined ? `${used.output_tokens} out` : '',
    used.cost_usd !== undefined ? `$${used.cost_usd}` : '',
  ];
  return { at, kind: 'usage', text: parts.filter(Boolean).join(', '), ...used };
}

export class RunFiles {
  readonly dir: string;
  readonly prefix: string;
  readonly eventsFile: string;
  /** The run's events as sow reads them, one JSON object a line, each with the time it arrived. */
  readonly workerEventsFile: string;
  readonly promptFile: string;

  constructor(
    root: string,
    owner: string,
    readonly kind: 'spawn' | 'resume',
  ) {
    this.dir = ensureRuntimeDir(root, join('agent-outputs', owner));
    this.prefix = join(this.dir, `${stamp()}-${kind}`);
    this.eventsFile = `${this.prefix}.jsonl`;
    this.workerEventsFile = `${this.prefix}.events.jsonl`;
    this.promptFile = `${this.prefix}.prompt.md`;
  }

  writePrompt(text: string): string {
    writeFileSync(this.promptFile, text);
    return this.promptFile;
  }

  startEvents(): void {
    writeFileSync(this.eventsFile, '');
    writeFileSync(this.workerEventsFile, '');
  }

  appendWorkerEvents(events: readonly object[]): void {
    if (events.length) appendFileSync(this.workerEventsFile, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }

  appendEvent(line: string): void {
    appendFileSync(this.eventsFile, `${line}\n`);
  }
}

/** Files an executor needs beside the run (a Gemini policy), written before the worker starts. */
export function writeRunFiles(files: readonly { path: string; text: string }[]): void {
  for (const file of files) writeFileSync(file.path, file.text);
}
