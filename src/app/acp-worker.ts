// `runWorker` over ACP: sow answers each permission by the executor's profile, hands the agent `sow mcp`, and keeps the
// raw messages and its events.
import { relative, sep } from 'node:path';
import { runAcp, type AcpRunRequest } from '../adapters/acp/client.js';
import { repoArea, wherePathLands, withinArea } from '../adapters/confine.js';
import { EVENT_MARKS, usageEvent, type RunFiles, type WorkerEvent } from '../adapters/agent-outputs.js';
import type { Denial } from '../adapters/executors/types.js';
import { agentSettingsFiles } from '../adapters/executors/registry.js';
import { str, usageOf } from '../adapters/executors/shared.js';
import type { PermissionProfile } from '../domain/config-schemas.js';
import type { PermissionPolicy } from '../domain/acp-permissions.js';

// `root`: the repository (a worker's own checkout, when it has one), against which paths the agent names are judged;
// `cwd`: where it works (a relative path it names is relative to it).
export interface AcpWorkerRun
  extends
    Pick<AcpRunRequest, 'prompt' | 'model' | 'load' | 'sessionMeta' | 'cwd' | 'env' | 'modes'>,
    Partial<Pick<AcpRunRequest, 'mcpServers'>> {
  binaryPath: string;
  args: string[];
  files: RunFiles;
  root: string;
  /** What sow adds for the worker (its id, task, the sow to run); the MCP server gets it too. */
  workerEnv: Record<string, string>;
  permissions: PermissionProfile;
  checks: readonly string[];
  now: () => string;
  say: (line: string) => void;
  quiet: boolean;
  onSession: (id: string) => Promise<void>;
  version: string;
}

/** sow's own tools for the worker: `sow mcp`, run by this very sow in the worker's environment. */
export function sowMcpServer(
  workerEnv: Record<string, string>,
): { name: string; command: string; args: string[] } | undefined {
  const sow = workerEnv['SOW_BIN'];
  return sow ? { name: 'sow', command: process.execPath, args: [sow, 'mcp'] } : undefined;
}

// Worker permissions: paths land where the system takes them (links followed) in `root`, `.git/` included so changing
// it is refused as protected; relative ones from `cwd`.
export function workerPolicy(
  profile: PermissionProfile,
  checks: readonly string[],
  root: string,
  cwd: string,
): PermissionPolicy {
  const base = repoArea(root).base;
  const area = { base, name: 'the repository' };
  return {
    profile,
    checks,
    // Every CLI's settings files, whichever CLI this is: writing one would widen the next worker of that CLI.
    protected: agentSettingsFiles(),
    locate: (path) => {
      const places = wherePathLands(cwd, path);
      if (!places?.every((real) => withinArea(area, real))) return undefined;
      return places.map((real) => relative(base, real).split(sep).join('/'));
    },
  };
}

/** The run's outcome, its denials, and what it used as far as the agent said (the turn's tokens, the cost so far). */
export async function runAcpWorker(run: AcpWorkerRun) {
  const { binaryPath, files, root, env, workerEnv, mcpServers, permissions, checks, version, ...passed } = run;
  const { now, say, quiet, onSession, ...request } = passed;
  const denials: Denial[] = [];
  let message = '';
  const flush = () => {
    const text = message.trim();
    message = '';
    if (!text) return;
    emit({ kind: 'message', text: text.replace(/\s+/g, ' ').slice(0, 2_000) });
  };
  const emit = (event: Omit<WorkerEvent, 'at'>) => {
    const e = { at: now(), ...event };
    files.appendWorkerEvents([e]);
    if (quiet) return;
    say(`  ${EVENT_MARKS[e.kind] ?? '◦'} ${e.text}`);
  };
  let persisting: Promise<void> = Promise.resolve();
  let cost: number | undefined;
  const outcome = await runAcp({
    ...request,
    binary: binaryPath,
    env: { ...env, ...workerEnv },
    onNote: (text) => say(`warning: ${text}`),
    // sow's own tools, as the worker itself: the same environment a command it runs would have.
    mcpServers: mcpServers ?? [],
    policy: workerPolicy(permissions, checks, root, run.cwd),
    clientVersion: version,
    onRaw: (line) => files.appendEvent(line),
    onSession: (id) => {
      const how = run.load !== undefined ? 'continued' : 'started';
      emit({ kind: 'session', text: `session ${id} ${how} (Agent Client Protocol)` });
      persisting = persisting.then(() => onSession(id));
    },
    onUpdate: (update) => {
      const kind = update['sessionUpdate'];
      if (kind === 'agent_message_chunk') {
        const content = update['content'] as { type?: string; text?: unknown } | undefined;
        if (content?.type === 'text' && typeof content.text === 'string') message += content.text;
        // A flood of chunks is one message, written once it ends: never a line per chunk.
        if (message.length > 64_000) flush();
        return;
      }
      if (kind === 'usage_update') {
        // The session's cost so far, in dollars when the agent counts in them.
        const c = update['cost'] as { amount?: unknown; currency?: unknown } | undefined;
        if (c && typeof c.amount === 'number' && Number.isFinite(c.amount) && c.currency === 'USD') cost = c.amount;
        return;
      }
      flush();
      if (kind === 'tool_call') {
        const text = (str(update['title']) ?? 'a tool').slice(0, 500);
        emit({ kind: 'tool_call', text, tool: str(update['kind']) ?? 'other' });
      } else if (kind === 'tool_call_update' && update['status'] === 'failed') {
        const tool = str(update['title']) ?? String(update['toolCallId'] ?? 'a tool call');
        emit({ kind: 'error', text: `${tool} failed`.slice(0, 500) });
      } else if (kind === 'plan' && Array.isArray(update['entries'])) {
        const entries = (update['entries'] as { content?: unknown; status?: unknown }[]).filter(
          (e) => typeof e?.content === 'string',
        );
        emit({
          kind: 'agent_plan',
          text: entries
            .map((e) => `${e.status === 'completed' ? '[x]' : '[ ]'} ${String(e.content)}`)
            .join('; ')
            .slice(0, 2_000),
        });
      }
    },
    onPermission: (call, decision) => {
      flush();
      if (decision.allow) return;
      const tool = typeof call.title === 'string' && call.title ? call.title.slice(0, 200) : (call.kind ?? 'tool');
      denials.push({ tool, input: decision.what, kind: decision.kind, reason: decision.reason });
      emit({ kind: 'error', text: `refused ${decision.what}: ${decision.reason}` });
    },
  });
  flush();
  await persisting;
  const usage = usageOf(outcome.usage?.input_tokens, outcome.usage?.output_tokens, cost);
  if (Object.keys(usage).length) emit(usageEvent(now(), usage));
  const end = outcome.signal ? `ended by ${outcome.signal}` : `exited with code ${outcome.code}`;
  files.appendWorkerEvents([
    {
      at: now(),
      kind: 'exit',
      text: outcome.stopReason ? `${end} (the turn ended: ${outcome.stopReason})` : end,
      code: outcome.code,
    },
  ]);
  return { ...outcome, denials, usage };
}
