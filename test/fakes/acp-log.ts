/**
 * Reading the log the fake ACP agent (fake-acp-agent.mjs) writes: one JSON line per event, in the
 * same file as the fake CLIs' calls, told apart by `acp: true`. Its header lists every event.
 */
import { existsSync, readFileSync } from 'node:fs';

export interface AcpEvent {
  cli: string;
  pid: number;
  acp: true;
  argv: string[];
  /** The agent process's working directory (a session's is in its session/new params). */
  cwd: string;
  event:
    | 'start'
    | 'initialize'
    | 'authenticate'
    | 'session/new'
    | 'session/load'
    | 'session/opened'
    | 'session/set_mode'
    | 'prompt'
    | 'permission'
    | 'step'
    | 'cancel'
    | 'stop'
    | 'exit'
    | 'linger'
    | 'ignored';
  session?: string;
  params?: any;
  text?: string;
  step?: any;
  result?: any;
  toolCall?: any;
  outcome?: { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };
  /**
   * Why the agent ran a tool without asking (opencode, unless its configuration says "ask"; a mode that does not
   * ask).
   */
  notAsked?: string;
  /**
   * The session's mode when it was opened (session/new, session/opened), or before a switch (session/set_mode:
   * `from`).
   */
  mode?: string | null;
  from?: string | null;
  error?: { code: number | null; message: string };
  known?: boolean;
  stopReason?: string;
  code?: number;
  reason?: string;
  env?: Record<string, string>;
}

/** Every line of the log `path`, parsed (none if it does not exist). */
export function logLines(path: string): any[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

/** The fake ACP agents' events in the log `path`, in the order written. */
export const acpEvents = (path: string): AcpEvent[] => logLines(path).filter((l) => l.acp === true);
