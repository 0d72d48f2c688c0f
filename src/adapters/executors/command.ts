// A command of the user's own (type `command`): spawn and resume argv with {placeholders} filled in each word, never
// through a shell; it grants whatever that argv grants.
import { custom, NO_ACP, viaStdin } from './shared.js';
import type { ExecutorModule, InvocationContext } from './types.js';

/** Replaces {placeholders} in one argv word; unknown placeholders are left for the user to see. */
function fill(word: string, ctx: InvocationContext): string {
  const values: Record<string, string | undefined> = {
    prompt_file: ctx.promptFile,
    prompt: ctx.prompt,
    session_id: ctx.sessionId,
    model: ctx.config.settings?.model ?? '',
    cwd: ctx.cwd,
  };
  return word.replace(/\{(prompt_file|prompt|session_id|model|cwd)\}/g, (_m, key: string) => values[key] ?? '');
}

const invoke = (argv: string[] | undefined, ctx: InvocationContext) => {
  const [binary = '', ...args] = (argv ?? []).map((w) => fill(w, ctx));
  return viaStdin(binary, ctx, { args: [...args, ...custom(ctx.config)] });
};

const OWN_PERMISSIONS = 'your own spawn/resume argv decides what the agent may do';

export const command: ExecutorModule = {
  type: 'command',
  title: 'a command of your own',
  install: "set agents.executors.<name>.spawn to the argv of your agent CLI (see 'sow config init')",
  sessionIds: 'caller',
  binary: (c) => c.spawn?.[0] ?? '',
  supportsResumption: (c) => Boolean(c.resume?.length),
  spawn: (ctx) => invoke(ctx.config.spawn, ctx),
  resume: (ctx) => invoke(ctx.config.resume, ctx),
  // Its events, if it prints any, are read in whichever dialect they are; it has no refusals sow can read.
  ignores: { permissions: OWN_PERMISSIONS, yolo_mode: OWN_PERMISSIONS, transport: NO_ACP },
  doctor: 'on-path',
  // A command of the user's own: sow cannot know what it reads, so there is nothing to install.
  integration: null,
};
