/** `sow prompt`: embedded guidance for agents, and the orchestrator prompts. */
import { UsageError } from '../domain/errors.js';
import { command } from '../model/def.js';

export const prompt = command({
  name: 'prompt',
  description: 'Print embedded guidance for agents (e.g. guidance/implementer/base) or an orchestrator prompt',
  args: [{ name: 'path', description: 'the prompt to print (see --list)', optional: true }],
  options: [{ flags: '-l, --list', description: 'list every prompt' }],
  writes: false,
  async run(ctx, { args, opts }) {
    const path = args[0] as string | undefined;
    const { listPrompts, readPrompt } = await import('../app/prompts.js');
    if (opts.list) {
      const all = listPrompts();
      return { data: all, text: all.join('\n') };
    }
    if (path === undefined) throw new UsageError('which prompt?', "run 'sow prompt --list', then 'sow prompt <path>'");
    const r = await readPrompt(ctx.app, path);
    const left = r.unfilled.map((k) => `{{${k}}}`).join(', ');
    return {
      data: r,
      text: r.text,
      message: !r.unfilled.length
        ? undefined
        : r.filled_from === null
          ? `Left unfilled: ${left} (there is no project here; inside one, sow fills them from it)`
          : `Left unfilled: ${left} (this project has no value for ${r.unfilled.length === 1 ? 'it' : 'them'})`,
    };
  },
});
