/** `sow mcp`: sow served to an agent over stdio; its tools are the commands that declare an MCP exposure. */
import { command } from '../model/def.js';

declare const SOW_VERSION: string;

export const mcp = command({
  name: 'mcp',
  description:
    'Serve sow to an agent as an MCP server over stdio: its state, tasks, artifacts, advance, log, checks, workers ' +
    'and cost (twelve tools)',
  options: [
    { flags: '-C, --cwd <dir>', description: 'the repository to serve (default: the folder sow mcp starts in)' },
  ],
  help:
    'For Claude Code: claude mcp add sow -- sow mcp\nEach tool returns what the matching command prints under ' +
    '"data" with --json; a refusal is that command\'s error envelope, with its code and hint.',
  async run(ctx, { opts }) {
    if (!ctx.commands) throw new Error('sow mcp needs the registry of commands to serve');
    // The SDK loads here, and only here: no other command pays for it.
    const { serveMcp } = await import('../mcp/server.js');
    await serveMcp({
      cwd: opts.cwd,
      version: typeof SOW_VERSION === 'string' ? SOW_VERSION : '0.0.0-dev',
      commands: ctx.commands,
    });
    return undefined;
  },
});
