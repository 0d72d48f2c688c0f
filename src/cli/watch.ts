// `--watch`: the view again on each change until Ctrl-C; redrawn at a terminal, appended when piped, a JSON document
// per line with `--json`. A view that fails shows its error and the watch goes on.
import { errorEnvelope, SowError } from '../domain/errors.js';
import { toJson } from '../domain/json.js';
import type { CommandContext, CommandResult } from '../model/def.js';
import { writeText } from './output.js';
import { stdout } from './stdio.js';

export async function watchView(
  ctx: CommandContext,
  what: string,
  view: () => Promise<CommandResult>,
  opts: { all?: boolean } = {},
): Promise<undefined> {
  const { followWorkspace } = await import('../app/feed.js');
  const tty = stdout.isTTY === true && !ctx.json;
  let last: string | undefined;
  const show = async () => {
    let out: string;
    try {
      const r = await view();
      out = ctx.json ? toJson({ ok: true, data: r.data ?? null }) : [r.text, r.message].filter(Boolean).join('\n');
    } catch (err) {
      if (!(err instanceof SowError)) throw err;
      out = ctx.json ? toJson(errorEnvelope(err)) : `error: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}`;
    }
    if (out === last) return;
    const first = last === undefined;
    last = out;
    if (ctx.json) return void stdout.write(`${out}\n`);
    if (tty) {
      stdout.write('\x1b[H\x1b[2J');
      writeText(stdout, `${what} — ${new Date().toTimeString().slice(0, 8)}, follows every change (Ctrl-C to stop)\n`);
    } else if (!first) stdout.write('\n');
    writeText(stdout, out || '(nothing)');
  };
  // One view at a time; changes while one waits to start are one view.
  let running: Promise<void> = Promise.resolve();
  let queued = false;
  const queue = () => {
    if (queued) return;
    queued = true;
    running = running.then(() => {
      queued = false;
      return show();
    });
  };
  await show();
  await new Promise<void>((resolve, reject) => {
    let feed: { close(): void } | undefined;
    const stop = () => {
      feed?.close();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      running.then(() => resolve(), reject);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    feed = followWorkspace(
      ctx.app,
      () => {
        queue();
        running.catch((err: unknown) => {
          feed?.close();
          reject(err);
        });
      },
      opts,
    );
  });
  return undefined;
}
