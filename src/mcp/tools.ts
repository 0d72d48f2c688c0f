/**
 * The tools of `sow mcp`, built from the commands that declare an MCP exposure (commands/*.ts):
 * few on purpose (each costs every user context tokens), each a call of the same definition the
 * CLI runs, returning the data that command prints under `data` with `--json`. Descriptions are
 * short: the input and output schemas say the rest.
 */
import { processContext } from '../app/context.js';
import type { CommandContext, CommandDef, ToolAnnotations } from '../cli/def.js';
import { z } from './sdk.js';

/** What a call runs with: the workspace, the client's cancellation, and progress for long calls. */
export interface ToolContext {
  cwd: string;
  signal?: AbortSignal;
  /** Reports progress when the client asked for it (a check ended); else does nothing. */
  progress(done: number, total: number, message: string): void;
}

export interface Tool {
  name: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  annotations?: ToolAnnotations;
  /** The member of `structuredContent` a list result goes under. */
  listKey?: string;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

function toolOf(def: CommandDef): Tool {
  const exposure = def.mcp!;
  return {
    name: exposure.tool,
    description: exposure.description,
    input: exposure.input(z),
    output: exposure.output(z),
    // A command that changes nothing is a read for the client too: said once, by `writes`.
    ...(!def.writes || exposure.annotations
      ? { annotations: { ...(def.writes ? {} : { readOnlyHint: true }), ...exposure.annotations } }
      : {}),
    ...(exposure.listKey ? { listKey: exposure.listKey } : {}),
    async run(args, ctx) {
      const context: CommandContext = {
        app: processContext(ctx.cwd),
        json: true,
        progress: ctx.progress,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      };
      if (exposure.call) return exposure.call(context, args);
      return (await def.run(context, exposure.toInput ? exposure.toInput(args) : { args: [], opts: args }))?.data;
    },
  };
}

/** Every command's tool, in the registry's order. */
export async function loadTools(commands: () => Promise<readonly CommandDef[]>): Promise<readonly Tool[]> {
  return (await commands()).filter((def) => def.mcp).map(toolOf);
}
