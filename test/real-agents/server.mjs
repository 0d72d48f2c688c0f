/**
 * A bounded loopback HTTP server: listens on 127.0.0.1 only, records every request, answers at most
 * `maxRequests` (then 503), and closes itself after `lifetimeMs` at the latest.
 */
import { createServer } from 'node:http';
import { appendFileSync } from 'node:fs';

export async function startServer({ name, handle, onUpgrade, maxRequests = 150, lifetimeMs = 15 * 60_000, logFile }) {
  const requests = [];
  const sockets = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= 20_000_000) chunks.push(c);
    });
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const record = {
        n: requests.length + 1,
        at: new Date().toISOString(),
        method: req.method,
        url: req.url,
        headers: req.headers,
        body,
        note: '',
      };
      requests.push(record);
      const finish = () => {
        if (logFile) {
          const { body: b, ...rest } = record;
          appendFileSync(logFile, `${JSON.stringify({ ...rest, body: b })}\n`);
        }
      };
      if (requests.length > maxRequests) {
        record.note = 'over the request limit';
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { type: 'overloaded_error', message: `${name}: request limit ${maxRequests} reached` },
          }),
        );
        finish();
        return;
      }
      try {
        await handle(req, res, record, raw);
      } catch (err) {
        record.note = `handler error: ${err.stack ?? err}`;
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message: String(err) } }));
      }
      finish();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req, socket, head) => {
    const record = {
      n: requests.length + 1,
      at: new Date().toISOString(),
      method: req.method,
      url: req.url,
      headers: req.headers,
      upgrade: true,
      note: '',
    };
    requests.push(record);
    if (logFile) appendFileSync(logFile, `${JSON.stringify(record)}\n`);
    if (onUpgrade && requests.length <= maxRequests) onUpgrade(req, socket, head, record);
    else {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const lifetime = setTimeout(() => close(), lifetimeMs);
  lifetime.unref();
  let closed = false;
  function close() {
    if (closed) return Promise.resolve();
    closed = true;
    clearTimeout(lifetime);
    return new Promise((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  }
  const port = server.address().port;
  return { name, port, url: `http://127.0.0.1:${port}`, requests, close };
}

export function sendJson(res, status, obj, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(obj));
}

/** Writes Server-Sent Events: [{ event?, data }] (data objects are JSON-encoded). */
export function sendSse(res, events, headers = {}) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  for (const e of events) {
    const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
    res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${data}\n\n`);
  }
  res.end();
}
