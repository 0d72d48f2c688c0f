// Whether this sow runs under a worker (some rights are the person's only). A worker can unset SOW_AGENT_ID, but
// /proc/<pid>/environ keeps each ancestor's initial environment, so the chain up to pid 1 still shows the agent CLI.
import { readFileSync } from 'node:fs';
import { quietly } from './io-errors.js';

/** The variables `sow agent spawn` gives every worker, and nothing else sets. */
export const WORKER_MARKERS = ['SOW_AGENT_ID', 'SOW_SESSION_ID'] as const;

/** How far up the chain of parents to look; real chains are a few processes deep. */
const MAX_DEPTH = 256;

const read = (path: string) => quietly(() => readFileSync(path));

/** What is read of a process (undefined where it cannot be), from Linux's /proc; tests pass their own. */
const PROC = {
  parent(pid: number): number | undefined {
    const stat = read(`/proc/${pid}/stat`)?.toString('utf8');
    if (stat === undefined) return undefined;
    // After the command name in parentheses (which may hold anything): state, then ppid.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) && ppid >= 0 ? ppid : undefined;
  },
  /** Its initial environment. */
  environ(pid: number): ReadonlyMap<string, string> | undefined {
    const raw = read(`/proc/${pid}/environ`);
    if (raw === undefined) return undefined;
    const env = new Map<string, string>();
    for (const entry of raw.toString('utf8').split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
    }
    return env;
  },
  name: (pid: number) => read(`/proc/${pid}/comm`)?.toString('utf8').trim(),
};
export type ProcessTable = typeof PROC;

/** A process carrying a worker marker: its name (`sow` for this one), the marker, its SOW_ALLOW_CHECKS. */
function marked(pid: number, command: string, get: (key: string) => string | undefined) {
  const variable: string | undefined = WORKER_MARKERS.find((k) => Boolean(get(k)));
  return variable ? { pid, command, variable, allowChecks: get('SOW_ALLOW_CHECKS') } : undefined;
}

// The worker this sow runs under: its own environment, then each readable parent's initial one up to pid 1. `nearest`
// is this process or the nearest marked ancestor; `outermost`, the farthest (the outermost worker's agent CLI).
export function traceWorker(
  env: Readonly<Record<string, string | undefined>> = process.env,
  table: ProcessTable | undefined = process.platform === 'linux' ? PROC : undefined,
  self: { pid: number; ppid: number } = process,
) {
  const own = marked(self.pid, 'sow', (k) => env[k]);
  let outermost: ReturnType<typeof marked>;
  let nearestAncestor: ReturnType<typeof marked>;
  if (table) {
    const seen = new Set<number>([self.pid]);
    let pid: number | undefined = self.ppid;
    for (let depth = 0; pid !== undefined && pid > 0 && !seen.has(pid) && depth < MAX_DEPTH; depth++) {
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

export type WorkerTrace = NonNullable<ReturnType<typeof traceWorker>>;
