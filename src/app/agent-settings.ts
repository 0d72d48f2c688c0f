/** A safe worker does not start while its CLI's own settings in its folders widen it (yolo may do anything). */
import { wideningSettings } from '../adapters/agent-settings.js';
import type { ExecutorModule } from '../adapters/executors/types.js';
import { AgentSettingsWidenError } from './agent-errors.js';

/** Refuses (AGENT_SETTINGS_WIDEN, exit 1) to start a safe worker whose CLI's own settings widen it. */
export function refuseWideningSettings(
  spec: ExecutorModule,
  run: { transport: 'cli' | 'acp'; permissions: 'safe' | 'yolo'; executor: string; configPath: string },
  folders: readonly string[],
): void {
  if (run.permissions !== 'safe') return;
  const found = wideningSettings(spec, run.transport, folders);
  if (found.length) throw new AgentSettingsWidenError(spec.title, run.executor, run.configPath, found);
}
