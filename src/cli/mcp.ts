import type { Command } from 'commander';

export default function register(program: Command): void {
  program
    .command('mcp')
    .description('Serve sow to an agent as an MCP server over stdio: status, continue, task_next, task_update, artifact, advance, log, check_run')
    .option('-C, --cwd <dir>', 'the repository to serve (default: the folder sow mcp starts in)')
    .addHelpText('after', "\nFor Claude Code: claude mcp add sow -- sow mcp\nEach tool returns what the matching command prints under \"data\" with --json; a refusal is that command's error envelope, with its code and hint.")
    .action(async (opts: { cwd?: string }) => {
      // The SDK loads here, and only here: no other command pays for it.
      const { serveMcp } = await import('../mcp/server.js');
      await serveMcp({ ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}), version: program.version() ?? '0.0.0-dev' });
    });
}
