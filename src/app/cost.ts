/** `sow cost`: the project's ledger, summed. */
import { costOf, type CostGroup, type CostReport } from '../domain/usage.js';
import type { Where } from './context.js';
import { Reader } from './workspace.js';

export async function projectCost(where: Where, by: CostGroup): Promise<CostReport> {
  return Reader.read(where, async (reader) => costOf(reader.project.usage ?? [], by));
}
