/** `sow cost`: the project's ledger, summed, and the budget it is held to. */
import { budgetLeft, costOf, type CostGroup, type CostReport, type BudgetStanding } from '../domain/usage.js';
import { SowError } from '../domain/errors.js';
import type { AppContext } from './context.js';
import { Reader } from './workspace.js';

export async function projectCost(ctx: AppContext, by: CostGroup): Promise<CostReport & { budget: BudgetStanding }> {
  return Reader.read(ctx, async (reader) => {
    const report = costOf(reader.project.usage ?? [], by);
    return { ...report, budget: await standing(reader.root, report) };
  });
}

/** The budget of .sow/config.yaml and what is left of it; a file that is not valid holds none (said, not hidden). */
async function standing(root: string, report: CostReport): Promise<BudgetStanding> {
  const { readRepoConfig } = await import('../adapters/repo-config.js');
  try {
    return budgetLeft((await readRepoConfig(root)).config.budget, report.total);
  } catch (err) {
    if (!(err instanceof SowError) || err.code !== 'CONFIG_INVALID') throw err;
    return { in_force: false, problem: err.message };
  }
}
