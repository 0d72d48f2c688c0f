// The agent CLIs sow drives, one module each (decision 0077): tsc wants a line for every EXECUTOR_TYPES name, the
// contract test wants them in that order.
import type { ExecutorSetting, IgnoredSettings } from '../../domain/config.js';
import type { ExecutorConfig, ExecutorType } from '../../domain/config-schemas.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { command } from './command.js';
import { copilot } from './copilot.js';
import { cursor } from './cursor.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';
import type { ExecutorModule } from './types.js';
import { windsurf } from './windsurf.js';

export const EXECUTORS: Readonly<Record<ExecutorType, ExecutorModule>> = {
  claude,
  cursor,
  windsurf,
  codex,
  gemini,
  copilot,
  opencode,
  command,
};

/** The executor of a type named in a file (a session records it): only a type sow has. */
export const executorOf = (type: string): ExecutorModule | undefined =>
  Object.hasOwn(EXECUTORS, type) ? EXECUTORS[type as ExecutorType] : undefined;

/** The settings each type does not take, with why: what config validation reports. */
export const IGNORED_SETTINGS: IgnoredSettings = Object.fromEntries(
  Object.values(EXECUTORS).map((e) => [e.type, e.ignores]),
) as IgnoredSettings;

/** Whether the executor type takes a setting at all (`config show` says so beside it). */
export const typeRefuses = (type: ExecutorType, setting: ExecutorSetting): boolean =>
  EXECUTORS[type].ignores[setting] !== undefined;

/** Every agent CLI's settings files, each once: no safe worker of any CLI may edit them (they widen the next). */
export const agentSettingsFiles = (): string[] => [
  ...new Set(Object.values(EXECUTORS).flatMap((e) => e.widening?.files ?? [])),
];

/** The program a transport starts, and its install: the ACP server (an adapter, or the CLI itself), or the CLI. */
export function startedFor(spec: ExecutorModule, config: ExecutorConfig, transport: 'cli' | 'acp' | undefined) {
  const acp = transport === 'acp' ? spec.acp : undefined;
  return { binary: (acp?.binary ?? spec.binary)(config), install: acp?.install ?? spec.install };
}

const typesWhere = (test: (e: ExecutorModule) => boolean): ExecutorType[] =>
  Object.values(EXECUTORS).flatMap((e) => (test(e) ? [e.type] : []));
/** The types that resume a session as they are, in the registry's order. */
export const resumableTypes = () => typesWhere((e) => e.supportsResumption({ type: e.type }));
/** The agent CLIs `sow install` has a target for, in the registry's order. */
export const installTargets = () => typesWhere((e) => e.integration !== null);
