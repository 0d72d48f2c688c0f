/** `sow ui`: the work, live, in a browser (src/ui/server.ts). */
import { UsageError } from '../domain/errors.js';
import { command } from '../model/def.js';
import { stdout } from '../cli/stdio.js';
import { writeText } from '../cli/output.js';
import { toJson } from '../domain/json.js';

export const ui = command({
  name: 'ui',
  description:
    'Show the projects, their tasks and workers live in a browser (a local server on 127.0.0.1, with a token)',
  options: [
    {
      flags: '--port <n>',
      description: 'the port to listen on (default: a free one)',
      parse: (raw: string) => {
        const n = Number(raw);
        if (!/^\d+$/.test(raw) || n > 65535)
          throw new UsageError(
            `invalid --port '${raw}': expected a port number (1–65535), or 0 for a free one`,
            'sow ui --port 8787',
          );
        return n;
      },
    },
    { flags: '--no-open', description: 'do not open a browser (the URL is printed either way)' },
  ],
  help:
    'The URL carries a random token: every request needs it, so keep it to yourself. Every view is what sow ' +
    'commands show (status, task list, task board, task changes, output show, agent events…) and every button runs ' +
    'them (advance, output set, phase set, task set, task feedback, agent spawn, agent resume, agent stop): the ' +
    'page cannot disagree with the terminal. Ctrl-C stops the server. With --json: one document with the url, ' +
    'token and port, then it serves until stopped.',
  async run(ctx, { opts }) {
    if (!ctx.commands) throw new Error('sow ui needs the registry of commands');
    const { startUi } = await import('../ui/server.js');
    const server = await startUi(ctx, { port: opts.port ?? 0, commands: ctx.commands });
    if (ctx.json)
      stdout.write(`${toJson({ ok: true, data: { url: server.url, token: server.token, port: server.port } })}\n`);
    else
      writeText(
        stdout,
        `sow ui is serving ${server.url}\n(keep the link to yourself: its token lets anyone with it act on this ` +
          `repository; Ctrl-C stops the server)`,
      );
    if (opts.open !== false && !ctx.json && stdout.isTTY) {
      const { openBrowser } = await import('../ui/open.js');
      openBrowser(server.url, ctx.app.env);
    }
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await server.close();
    return undefined;
  },
});
