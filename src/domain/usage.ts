/** What the workers used, summed from the project ledger (`usage` in state.yaml), by task, role, session, executor. */
import type { UsageEntry } from './schemas.js';
import type { RepoConfig } from './config-schemas.js';

export const COST_GROUPS = ['task', 'role', 'session', 'executor'] as const;
export type CostGroup = (typeof COST_GROUPS)[number];

/** Runs of one group and what they used; a figure is absent when no run of the group reported it. */
export interface CostRow {
  key: string;
  runs: number;
  /** Runs whose CLI reported no tokens and no cost. */
  unreported: number;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
}

const KEY_OF: Record<CostGroup, (e: UsageEntry) => string> = {
  task: (e) => e.task ?? '(project)',
  role: (e) => e.agent,
  session: (e) => e.session ?? `(${e.agent_id}, no session id)`,
  executor: (e) => e.executor,
};

const FIGURES = ['input_tokens', 'output_tokens', 'cost_usd'] as const;

/** Two figures added; dollars rounded to a billionth, so binary fractions sum to 0.007095, not 0.007095000000000001. */
export function addFigure(
  figure: (typeof FIGURES)[number],
  a: number | undefined,
  b: number | undefined,
): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return figure === 'cost_usd' ? Math.round((a + b) * 1e9) / 1e9 : a + b;
}

function add(row: Omit<CostRow, 'key'>, e: UsageEntry): void {
  row.runs += 1;
  if (FIGURES.every((f) => e[f] === undefined)) row.unreported += 1;
  for (const f of FIGURES) {
    const v = addFigure(f, row[f], e[f]);
    if (v !== undefined) row[f] = v;
  }
}

/** The ledger summed by `by`, rows in the order their first run ended. */
export function costOf(entries: readonly UsageEntry[], by: CostGroup) {
  const rows = new Map<string, CostRow>();
  const total: Omit<CostRow, 'key'> = { runs: 0, unreported: 0 };
  for (const e of entries) {
    const key = KEY_OF[by](e);
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { key, runs: 0, unreported: 0 }));
    add(row, e);
    add(total, e);
  }
  return { by, rows: [...rows.values()], total };
}
export type CostReport = ReturnType<typeof costOf>;

/** What is spent against the budget, when a limit is reached: the figure, the limit, and its unit. */
export function budgetReached(
  budget: RepoConfig['budget'],
  total: Omit<CostRow, 'key'>,
): { spent: string; limit: string; field: string } | undefined {
  const standing = budgetLeft(budget, total);
  if (!standing.in_force) return undefined;
  const { usd, tokens } = standing;
  if (usd && usd.used >= usd.limit)
    return { spent: `$${usd.used.toFixed(2)}`, limit: `$${usd.limit.toFixed(2)}`, field: 'budget.usd' };
  if (tokens && tokens.used >= tokens.limit)
    return {
      spent: `${tokens.used.toLocaleString('en-US')} tokens`,
      limit: `${tokens.limit.toLocaleString('en-US')} tokens`,
      field: 'budget.tokens',
    };
  return undefined;
}

/** The budget as `sow cost` shows it: each limit, used and left; `in_force: false` without limits or with a problem. */
type Left = { limit: number; used: number; left: number };
export type BudgetStanding = { in_force: true; usd?: Left; tokens?: Left } | { in_force: false; problem?: string };

export function budgetLeft(budget: RepoConfig['budget'], total: Omit<CostRow, 'key'>): BudgetStanding {
  const usdLimit = budget?.usd ?? undefined;
  const tokenLimit = budget?.tokens ?? undefined;
  if (usdLimit === undefined && tokenLimit === undefined) return { in_force: false };
  const usd = total.cost_usd ?? 0;
  const tokens = (total.input_tokens ?? 0) + (total.output_tokens ?? 0);
  return {
    in_force: true,
    ...(usdLimit !== undefined
      ? { usd: { limit: usdLimit, used: usd, left: Math.max(0, Math.round((usdLimit - usd) * 1e9) / 1e9) } }
      : {}),
    ...(tokenLimit !== undefined
      ? { tokens: { limit: tokenLimit, used: tokens, left: Math.max(0, tokenLimit - tokens) } }
      : {}),
  };
}
