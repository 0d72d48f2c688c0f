// Whether this sow runs under a worker (some rights are the person's only). A worker can unset SOW_AGENT_ID, but
// /proc/<pid>/environ keeps each ancestor's initial environment, so the chain up to pid 1 still shows the agent CLI.
import { readFileSync } from 'node:fs';
import { quietly } from './io-errors.js';

/** The variables `sow agent spawn` gives every worker, and nothing else sets. */
export const WORKER_MARKERS = ['SOW_AGENT_ID', 'SOW_SESSION_ID'] as const;

/** How far up the chain of parents to look; real chains are a few processes deep. */
const MAX_DEPTH = 256;

/** A process seen carrying a worker marker. */
export interface MarkedProcess {
  pid: number;
  /** Its name (/proc/<pid>/comm), or `sow` for this process. */
  command: string;
  /** The marker it carries. */
  variable: string;
  /** SOW_ALLOW_CHECKS in its environment (its initial one, for an ancestor). */
  allowChecks: string | undefined;
}

export interface WorkerTrace {
  /** The nearest process carrying a marker: this one, when its own environment does. */
  nearest: MarkedProcess;
  /** The farthest ancestor carrying one: the outermost worker's agent CLI; undefined when none is known. */
  outermost?: MarkedProcess;
}

/** What is read of a process; replaceable for tests. */
export interface ProcessTable {
  /** Its parent's pid; undefined when it cannot be read. */
  parent(pid: number): number | undefined;
  /** Its initial environment; undefined when it cannot be read. */
  environ(pid: number): ReadonlyMap<string, string> | undefined;
  name(pid: number): string | undefined;
}

const read = (path: string) => quietly(() => readFileSync(path));

/** Linux's /proc. */
export const PROC: ProcessTable = {
  parent(pid) {
    const stat = read(`/proc/${pid}/stat`)?.toString('utf8');
    if (stat === undefined) return undefined;
    // After the command name in parentheses (which may hold anything): state, then ppid.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) && ppid >= 0 ? ppid : undefined;
  },
  environ(pid) {
    const raw = read(`/proc/${pid}/environ`);
    if (raw === undefined) return undefined;
    const env = new Map<string, string>();
    for (const entry of raw.toString('utf8').split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
    }
    return env;
  },
  name: (pid) => read(`/proc/${pid}/comm`)?.toString('utf8').trim(),
};

function marked(pid: number, command: string, get: (key: string) => string | undefined): MarkedProcess | undefined {
  const variable = WORKER_MARKERS.find((k) => Boolean(get(k)));
  return variable ? { pid, command, variable, allowChecks: get('SOW_ALLOW_CHECKS') } : undefined;
}

/** The worker this sow runs under: its own environment, then each readable parent's initial one up to pid 1. */
export function traceWorker(
  env: Readonly<Record<string, string | undefined>> = process.env,
  table: ProcessTable | undefined = process.platform === 'linux' ? PROC : undefined,
  self: { pid: number; ppid: number } = process,
): WorkerTrace | undefined {
  const own = marked(self.pid, 'sow', (k) => env[k]);
  let outermost: MarkedProcess | undefined;
  let nearestAncestor: MarkedProcess | undefined;
  if (table) {
    const seen = new Set<number>([self.pid]);
    for (
      let pid: number | undefined = self.ppid, depth = 0;
      pid !== undefined && pid > 0 && !seen.has(pid) && depth < MAX_DEPTH;
      depth++
    ) {
      seen.add(pid);
      const environ = table.environ(pid);
      const found = environ && marked(pid, table.name(pid) ?? '?', (k) => environ.get(k));
      if (found) {
        nearestAncestor ??= found;
        outermost = found;
      }
      pid = table.parent(pid);
    }
  }
  const nearest = own ?? nearestAncestor;
  if (!nearest) return undefined;
  return { nearest, ...(outermost ? { outermost } : {}) };
}
