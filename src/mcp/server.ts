/**
 * `sow mcp`: the tools of tools.ts served over stdio with the official MCP SDK. stdout carries the
 * protocol and nothing else (sow's warnings and notices go to stderr); the server ends when the
 * client closes stdin, after answering the calls still running.
 *
 * The SDK's low-level Server, not McpServer: McpServer answers arguments that fail the schema with
 * its own plain text, and we want every refusal to be the envelope the CLI prints with --json
 * (`{"ok":false,"error":{"code","message","hint"}}`), so an agent handles one kind of error.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CallToolResult, Tool as ToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { CallToolRequestSchema, ListToolsRequestSchema, Server, StdioServerTransport, z } from './sdk.js';
import { errorEnvelope, SowError, UsageError } from '../domain/errors.js';
import { nearMiss } from '../domain/suggest.js';
import { environmentError } from '../adapters/io-errors.js';
import { TOOLS, type Tool, type ToolContext } from './tools.js';

const INSTRUCTIONS = "sow keeps this repository's project (plan → implement → review → finalize) in .sow/. " +
  "'continue' says what to do now; only 'advance' changes the state. A refusal carries a code and a hint: the next step.";

/** The envelope the CLI prints for an error with --json (main.ts, renderError). */
export function errorResult(err: SowError): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(errorEnvelope(err)) }], isError: true };
}

/** Any failure as the CLI reports it: sow's own, the machine's (no permission, a full disk), else a bug. */
export function asSowError(err: unknown): SowError {
  if (err instanceof SowError) return err;
  const environment = environmentError(err);
  if (environment) return environment;
  if (process.env['SOW_DEBUG']) process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
  return new SowError('INTERNAL', 'internal', `internal error: ${err instanceof Error ? err.message : String(err)}`,
    'this is a bug in sow; rerun with SOW_DEBUG=1 NODE_OPTIONS=--enable-source-maps for the stack trace, and report it');
}

/** Arguments the schema refuses, said as the CLI says a usage error. */
function argumentsError(tool: Tool, error: z.ZodError): UsageError {
  const known = Object.keys(tool.input.shape);
  const problems = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const suggestion = nearMiss(key, known);
        return `unknown argument '${key}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`;
      }).join('; ');
    }
    const at = issue.path.length ? `'${issue.path.join('.')}'` : 'the arguments';
    return `${at}: ${issue.message}`;
  });
  return new UsageError(`invalid arguments for ${tool.name}: ${problems.join('; ')}`,
    known.length ? `${tool.name} takes ${known.join(', ')} (its input schema says which and of what type)` : `${tool.name} takes no arguments`);
}

/** A tool's entry in tools/list: its JSON Schema, without the `$schema` line every client knows. */
function listing(tool: Tool): ToolInfo {
  const { $schema: _, ...schema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: schema as ToolInfo['inputSchema'],
    ...(tool.readOnly ? { annotations: { readOnlyHint: true } } : {}),
  };
}

export async function callTool(name: string, args: unknown, ctx: ToolContext): Promise<CallToolResult> {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) return errorResult(new UsageError(`unknown tool '${name}'`, `the tools: ${TOOLS.map((t) => t.name).join(', ')}`));
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) return errorResult(argumentsError(tool, parsed.error));
  try {
    const data = await tool.run(parsed.data, ctx);
    return { content: [{ type: 'text', text: JSON.stringify(data ?? null) }] };
  } catch (err) {
    return errorResult(asSowError(err));
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export interface ServeOptions {
  /** The workspace every tool works in (default: the current folder). */
  cwd?: string;
  version: string;
}

/** Serves until the client closes stdin (or the connection), then resolves once every call has been answered. */
export async function serveMcp(opts: ServeOptions): Promise<void> {
  const cwd = resolve(opts.cwd ?? process.cwd());
  if (!isFolder(cwd)) throw new UsageError(`--cwd '${opts.cwd ?? cwd}' is not a folder`, 'pass the folder of the repository to serve, or start sow mcp in it');
  const server = new Server({ name: 'sow', version: opts.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.onerror = (err) => void process.stderr.write(`sow mcp: ${err.message}\n`);
  const tools = TOOLS.map(listing);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  const running = new Set<Promise<unknown>>();
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const token = request.params._meta?.progressToken;
    const call = callTool(request.params.name, request.params.arguments, {
      cwd,
      signal: extra.signal,
      progress(progress, total, message) {
        if (token === undefined) return;
        extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }).catch(() => undefined);
      },
    });
    // Answered once the SDK has written the reply, which it does in the microtasks after `call`
    // settles: closing the server before that would drop it.
    const answered = call.then(() => new Promise<void>((written) => setImmediate(written)));
    running.add(answered);
    void answered.finally(() => running.delete(answered));
    return call;
  });

  const closed = new Promise<void>((ended) => {
    server.onclose = ended;
  });
  // The SDK's transport does not end on end of input; we do, once the calls in flight are answered.
  const inputEnded = new Promise<void>((ended) => {
    process.stdin.once('end', ended);
    process.stdin.once('close', ended);
  });
  await server.connect(new StdioServerTransport(process.stdin, process.stdout));
  await Promise.race([closed, inputEnded]);
  await Promise.allSettled([...running]);
  await server.close();
}
