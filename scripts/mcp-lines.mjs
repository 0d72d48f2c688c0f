/**
 * A JSON-RPC client over a `sow mcp` child's stdin and stdout, one message a line (the bench and
 * `npm run tokens` talk to the server this way). `request` resolves with the answer's whole
 * message; each waits at most 60 s, naming what the server wrote on stderr.
 */
export function lineClient(child) {
  let buffer = '';
  let stderr = '';
  const waiting = new Map();
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      const timer = setTimeout(
        () => reject(new Error(`sow mcp did not answer ${method} within 60 s: ${stderr}`)),
        60_000,
      );
      waiting.set(mine, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
    });
  return { request, stderr: () => stderr };
}
