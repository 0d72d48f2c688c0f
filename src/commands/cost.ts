/** `sow cost`: tokens and cost of the project's workers. */
import { choiceOf } from '../model/args.js';
import { command } from '../model/def.js';
import { COST_GROUPS as GROUPS, type CostGroup } from '../domain/usage.js';

export const cost = command({
  name: 'cost',
  description:
    "What the project's workers used: tokens and cost (as each agent CLI reports them), summed by task, role, " +
    'session or executor',
  options: [
    {
      flags: '--by <group>',
      description: 'what to sum by (default: task)',
      choices: GROUPS,
      parse: choiceOf<CostGroup>('grouping', GROUPS),
    },
  ],
  help:
    'Every spawn and resume is counted when its worker stops. Claude Code and OpenCode report a cost in USD; ' +
    'Codex and Gemini CLI only tokens; the others nothing (their runs are counted as unreported).',
  writes: false,
  mcp: { tool: 'cost', description: "The tokens and cost the project's workers used." },
  async run(ctx, { opts }) {
    const { projectCost } = await import('../app/cost.js');
    const report = await projectCost(ctx.app, opts.by ?? 'task');
    const { renderCost } = await import('../cli/render.js');
    return { data: report, text: renderCost(report) };
  },
});
