/** `sow advance`: the one command that moves the state machine. */
import { command } from '../model/def.js';
import { paintFor } from '../cli/colour.js';

export const advance = command({
  name: 'advance',
  examples: [
    'sow advance --dry-run   # what the next transition needs, nothing written',
    'sow advance             # move on when the guard holds (exit 3 names what is missing)',
  ],
  description: 'Move the project to its next state, if the guard holds (the only command that does)',
  args: [{ name: 'event', description: 'fire this event instead of the automatic one', optional: true }],
  options: [
    { flags: '-l, --list', description: 'list the transitions out of this state, with their guards' },
    { flags: '-n, --dry-run', description: 'check the guard, write nothing' },
  ],
  mcp: {
    tool: 'advance',
    description: "Move to the next state if its guard holds; a refusal's hint says what is missing.",
    omit: ['list'],
  },
  async run(ctx, { args, opts }) {
    const event = args[0] as string | undefined;
    const app = await import('../app/advance.js');
    if (opts.list) {
      const r = await app.listAdvanceOptions(ctx.app);
      const { renderTransitions } = await import('../cli/render.js');
      return { data: r, text: renderTransitions(r.state, r.transitions, paintFor()) };
    }
    const r = await app.advanceProject(ctx.app, event, opts.dryRun === true);
    const arrow = `${r.from} → ${r.to} (${r.event})`;
    return {
      data: r,
      text: r.to,
      message: r.dryRun
        ? `Would advance: ${arrow}; nothing written`
        : r.projectRemoved
          ? `Advanced: ${arrow}. The project is complete and .sow/project/ was removed; commit, then start the next ` +
            `with 'sow project new'`
          : [`Advanced: ${arrow}`, ...(r.notes ?? []), 'Next: sow project continue'].join('\n'),
    };
  },
});
