// `sow ui`: a local HTTP server whose views and actions are sow commands. Trust: a random token on every request (else
// 403), `Host` and `Origin` must be this server's (no DNS rebinding or cross-site request), actions only by POST with
// the token in a header, no file served: documents come only through sow's confined reads.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import type { CommandContext, CommandDef } from '../model/def.js';
import { errorEnvelope, SowError } from '../domain/errors.js';
import { ActionRefused, parseAction, parseJson, type Call } from './actions.js';
import { PAGE } from './page.js';
import { VIEWS } from './views.js';

/** The longest request body read (an action's JSON: a task id, an index, a feedback text), in bytes. */
const MAX_BODY_BYTES = 64 * 1024;
/** How long a restarted server accepts the tokens of earlier ones (their pages may still be open). */
const KEEP_TOKENS_MS = 30 * 24 * 3600 * 1000;

/** commander's key for an option: '--depends-on <ids>' → dependsOn, '--no-open' → open. */
function optionKey(flags: string): string {
  const long = /--([\w-]+)/.exec(flags)?.[1] ?? '';
  return long.replace(/^no-/, '').replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
}

/** `token`: tests give one; otherwise 32 random bytes. */
export async function startUi(
  ctx: CommandContext,
  opts: { port: number; commands: () => Promise<readonly CommandDef[]>; token?: string },
) {
  const token = opts.token ?? randomBytes(32).toString('hex');
  const defs = new Map((await opts.commands()).map((d) => [d.name, d]));
  const { checkoutsWithProject, holdsProject } = await import('../app/worktree.js');
  const { followWorkspace } = await import('../app/feed.js');
  // Like sow mcp, the page's server lives for many requests: each rereads only the state files that changed.
  const { keepParsedStateFiles } = await import('../adapters/state-files.js');
  const { keepTaskIndex } = await import('../adapters/task-index.js');
  keepParsedStateFiles();
  keepTaskIndex();
  let port = 0;
  const listeners = new Set<ServerResponse>();

  // The main checkout, once a request found it with a project: then the default needs no `git worktree list`.
  let main: string | undefined;
  /** The checkout a request names (its path relative to the main one) among those with a project; default the first. */
  const checkout = (rel: string | null): string => {
    const byDefault = rel === null || rel === '';
    if (byDefault && main !== undefined && holdsProject(main)) return main;
    const all = checkoutsWithProject(ctx.app.cwd);
    main = all.find((c) => c.rel === '.')?.path;
    if (byDefault) return main ?? all[0]?.path ?? ctx.app.cwd;
    const found = all.find((c) => c.rel === rel);
    if (!found)
      throw new SowError(
        'NO_SUCH_CHECKOUT',
        'failed',
        `no checkout '${rel}' with a project`,
        'the page lists the checkouts that have one',
      );
    return found.path;
  };

  /** Runs a command as commander would after parsing its line: each argument and option read by its own parser. */
  const runCommand = async ({ name, args, opts: options }: Call, cwd: string): Promise<unknown> => {
    const def = defs.get(name);
    if (!def) throw new Error(`sow ui: no command ${name}`);
    const parsedArgs = args.map((a, i) => def.args?.[i]?.parse?.(a) ?? a);
    const parsedOpts = Object.fromEntries(
      Object.entries(options).map(([k, v]) => {
        const od = def.options?.find((o) => optionKey(o.flags) === k);
        return [k, od?.parse && typeof v === 'string' ? od.parse(v, undefined) : v];
      }),
    );
    const r = await def.run({ ...ctx, app: { ...ctx.app, cwd }, json: true }, { args: parsedArgs, opts: parsedOpts });
    return r?.data ?? null;
  };

  const envelope = (err: unknown) => {
    if (err instanceof SowError) return errorEnvelope(err);
    return { ok: false, error: { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) } };
  };

  // A restarted server takes the last one's port and accepts its tokens (their hashes), so an open page carries on.
  const { readUiRecord, writeUiRecord } = await import('../adapters/ui-record.js');
  const { findRepoRoot } = await import('../adapters/repo.js');
  const here = findRepoRoot(ctx.app.cwd);
  const record = readUiRecord(here);
  const sha = (t: string) => createHash('sha256').update(t).digest();
  let earlier: Buffer[] = [];
  const sameToken = (given: string | null | undefined): boolean => {
    if (typeof given !== 'string' || given.length !== token.length) return false;
    if (timingSafeEqual(Buffer.from(given), Buffer.from(token))) return true;
    const h = sha(given);
    return earlier.some((e) => timingSafeEqual(e, h));
  };

  /** Whether a Host (or, with its scheme, an Origin) names this server. */
  const ours = (value: string | undefined, scheme = '') =>
    value === `${scheme}127.0.0.1:${port}` || value === `${scheme}localhost:${port}`;

  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, {
      'content-type': type,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'content-security-policy':
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src " +
        "'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    });
    res.end(body);
  };
  const json = (res: ServerResponse, status: number, body: unknown) =>
    send(res, status, 'application/json', JSON.stringify(body));
  const refuse = (res: ServerResponse) => {
    res.writeHead(403, { 'content-length': '0', 'cache-control': 'no-store' });
    res.end();
  };

  /** The body, or 'too large' past MAX_BODY_BYTES: then nothing more of it is kept (the rest is read and dropped). */
  const readBody = (req: IncomingMessage): Promise<string | 'too large' | undefined> =>
    new Promise((resolve) => {
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
        req.resume();
        return resolve('too large');
      }
      let size = 0;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) {
          chunks.length = 0;
          resolve('too large');
        } else chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', () => resolve(undefined));
    });

  const server = createServer(async (req, res) => {
    // The gate: this server's Host, a same-origin Origin when one is sent, and the token.
    const host = req.headers.host ?? '';
    const origin = req.headers.origin;
    if (!ours(host) || (origin !== undefined && !ours(origin, 'http://'))) return refuse(res);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${host}`);
    } catch {
      return refuse(res);
    }
    const method = req.method ?? 'GET';
    const given = method === 'POST' ? req.headers['x-sow-token'] : url.searchParams.get('token');
    if (!sameToken(Array.isArray(given) ? given[0] : given)) return refuse(res);

    if (method === 'GET' && url.pathname === '/') return send(res, 200, 'text/html; charset=utf-8', PAGE);
    if (method === 'GET' && url.pathname === '/api/view') {
      const view = VIEWS.get(url.searchParams.get('name') ?? '');
      if (!view) return json(res, 404, { ok: false, error: { code: 'NO_SUCH_VIEW', message: 'no such view' } });
      try {
        const cwd = view.where === 'main' ? ctx.app.cwd : checkout(url.searchParams.get('checkout'));
        // One after the other: each takes the workspace's lock, as the command would.
        const parts = new Map<string, unknown>();
        const read = async (c: Call, at = cwd) => {
          try {
            const data = await runCommand(c, at);
            parts.set(c.label ?? c.name, { ok: true, data });
            return data;
          } catch (err) {
            parts.set(c.label ?? c.name, envelope(err));
          }
        };
        await view.read(url.searchParams, read);
        return json(res, 200, { ok: true, data: Object.fromEntries(parts) });
      } catch (err) {
        return json(res, 200, envelope(err));
      }
    }
    if (method === 'GET' && url.pathname === '/api/changes') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      // Reconnect within a second when the server comes back (a restart).
      res.write(': sow\nretry: 1000\n\n');
      listeners.add(res);
      req.on('close', () => listeners.delete(res));
      return;
    }
    if (method === 'POST' && url.pathname === '/api/action') {
      if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return refuse(res);
      const raw = await readBody(req);
      let action: ReturnType<typeof parseAction>;
      try {
        // Said at once; the rest of the body is read and dropped, never kept.
        if (raw === 'too large')
          throw new ActionRefused('UI_BODY_TOO_LARGE', `the body is larger than ${MAX_BODY_BYTES / 1024} KiB`, 413);
        action = parseAction(parseJson(raw));
      } catch (err) {
        if (!(err instanceof ActionRefused)) throw err;
        return json(res, err.status, { ok: false, error: { code: err.code, message: err.message } });
      }
      // The action's commands, in order; the first that fails ends it, and the answer says what ran before.
      const steps: { command: string; data: unknown }[] = [];
      try {
        const cwd = checkout(action.checkout);
        for (const c of action.calls) steps.push({ command: c.name, data: await runCommand(c, cwd) });
        return json(res, 200, { ok: true, data: steps.at(-1)?.data ?? null, ...(steps.length > 1 ? { steps } : {}) });
      } catch (err) {
        const failed = action.calls[steps.length]?.name;
        return json(res, 200, { ...envelope(err), ...(action.calls.length > 1 ? { steps, failed } : {}) });
      }
    }
    return json(res, 404, { ok: false, error: { code: 'NOT_FOUND', message: 'no such page' } });
  });

  // Rejects on an 'error' before it listens (a port taken).
  const listen = (at: number) => once(server.listen(at, '127.0.0.1'), 'listening');
  const wanted = opts.port || record?.port || 0;
  try {
    await listen(wanted);
  } catch (err) {
    // The last server's port is taken now: a free one (the old page then says what to open).
    if (opts.port || !record || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    await listen(0);
  }
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : opts.port;
  const now = new Date().toISOString();
  const kept =
    record && record.port === port
      ? record.tokens.filter((t) => Date.parse(now) - Date.parse(t.at) < KEEP_TOKENS_MS)
      : [];
  earlier = kept.map((t) => Buffer.from(t.sha256, 'hex'));
  try {
    writeUiRecord(here, { port, tokens: [{ sha256: sha(token).toString('hex'), at: now }, ...kept].slice(0, 8) });
  } catch {
    // Not remembered: a restart then takes a new address, and an open page says what to open.
  }
  // Every change the page shows is told to every open page; it fetches its view again.
  const feed = followWorkspace(
    ctx.app,
    () => {
      for (const res of listeners) res.write('event: change\ndata: {}\n\n');
    },
    { all: true },
  );
  const url = `http://127.0.0.1:${port}/?token=${token}`;
  return {
    url,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        feed.close();
        for (const res of listeners) res.end();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
