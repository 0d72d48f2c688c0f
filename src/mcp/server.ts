/**
 * `sow mcp`: the tools of tools.ts served over stdio with the official MCP SDK. stdout carries the
 * protocol and nothing else (sow's warnings and notices go to stderr); the server ends when the
 * client closes stdin, after answering the calls still running.
 *
 * The SDK's low-level Server, not McpServer: McpServer answers arguments that fail the schema with
 * its own plain text, and we want every refusal to be the envelope the CLI prints with --json
 * (`{"ok":false,"error":{"code","message","hint"}}`), so an agent handles one kind of error.
 *
 * The SDK handles the protocol; the lines on stdin are read by sow's own transport (transport.ts),
 * which answers every request, however malformed, and survives any line.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  CallToolRequestSchema,
  ClientNotificationSchema,
  ClientRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  Server,
  z,
} from './sdk.js';
import { errorEnvelope, SowError, UsageError } from '../domain/errors.js';
import { reservedNameError } from '../domain/fields.js';
import { environmentError } from '../adapters/io-errors.js';
import { keepParsedStateFiles } from '../adapters/state-files.js';
import { keepTaskIndex } from '../adapters/task-index.js';
import { processContext } from '../app/context.js';
import { findKey, isObject } from './json.js';
import { LineTransport, type MessageCheck } from './transport.js';
import { loadTools, type Tool, type ToolContext } from './tools.js';
import type { CommandDef } from '../model/def.js';
import { toJson } from '../domain/json.js';

const INSTRUCTIONS =
  "sow keeps this repository's project (plan → implement → review → finalize) in .sow/. " +
  "'continue' says what to do now; only 'advance' changes the state. A refusal carries a code and a hint: the " +
  'next step.';

/** The envelope the CLI prints for an error with --json (main.ts, renderError). */
export function errorResult(err: SowError): CallToolResult {
  return { content: [{ type: 'text', text: toJson(errorEnvelope(err)) }], isError: true };
}

/** Any failure as the CLI reports it: sow's own, the machine's (no permission, a full disk), else a bug. */
export function asSowError(err: unknown): SowError {
  if (err instanceof SowError) return err;
  const environment = environmentError(err);
  if (environment) return environment;
  if (process.env['SOW_DEBUG']) process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
  return new SowError(
    'INTERNAL',
    'internal',
    `internal error: ${err instanceof Error ? err.message : String(err)}`,
    'this is a bug in sow; rerun with SOW_DEBUG=1 NODE_OPTIONS=--enable-source-maps for the stack trace, and report it',
  );
}

/**
 * A result as the current MCP spec has it: the data as JSON text (what the CLI prints under
 * `data` with --json, as before) and as `structuredContent`, which must be an object: a list goes
 * under the tool's member for it. Read back from the text, so both hold the same values (.inf as
 * the string the text has).
 */
function resultOf(data: unknown, listKey?: string): CallToolResult {
  const text = toJson(data ?? null);
  const value: unknown = JSON.parse(text);
  const structured =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { [Array.isArray(value) ? (listKey ?? 'items') : 'value']: value };
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export async function callTool(
  tools: readonly Tool[],
  name: string,
  args: unknown,
  ctx: ToolContext,
): Promise<CallToolResult> {
  const tool = tools.find((t) => t.name === name);
  if (!tool)
    return errorResult(new UsageError(`unknown tool '${name}'`, `the tools: ${tools.map((t) => t.name).join(', ')}`));
  // A member called __proto__ inside a value (metadata) is refused as the command line refuses
  // `--__proto__ x`, in the same words, whatever its value; at the top it is an unknown argument.
  const reserved = findKey(args, '__proto__');
  if (reserved && reserved.length > 1) return errorResult(reservedNameError(reserved.slice(1).join('.'), '__proto__'));
  if (!isObject(args ?? {}))
    return errorResult(
      new UsageError(`invalid arguments for ${name}: expected an object`, 'pass the arguments by name'),
    );
  try {
    const r = await tool.run((args ?? {}) as Record<string, unknown>, ctx);
    return resultOf(r.data, r.listKey);
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

/** Each method's schema by its name, from one of the SDK's unions (ClientRequestSchema, …). */
function byMethod(options: readonly z.ZodType[]): ReadonlyMap<string, z.ZodType> {
  return new Map(
    options.map((schema) => [((schema as z.ZodObject).shape['method'] as z.ZodLiteral<string>).value, schema]),
  );
}

const REQUESTS = byMethod(ClientRequestSchema.options);
const NOTIFICATIONS = byMethod(ClientNotificationSchema.options);

const shownPath = (path: readonly (string | number | symbol)[]): string => {
  const text = path.map(String).join('.');
  return text.length > 80 ? `…${text.slice(-80)}` : text;
};

/**
 * Params the SDK would refuse, refused before it sees them, as invalid params (-32602): the SDK
 * 1.32 answers them with -32603, an internal error, and a dump of zod's issues. And a member
 * called __proto__, which the SDK's schemas drop without a word (in a tool's arguments the tool
 * refuses it, as the command line does).
 */
export const checkMessage: MessageCheck = (message) => {
  const params = message.params;
  const args = message.method === 'tools/call' && isObject(params) ? params['arguments'] : undefined;
  const reserved = findKey(params, '__proto__', isObject(args) ? args : undefined);
  if (reserved)
    return (
      `invalid params: '${shownPath(['params', ...reserved])}': a member may not be called '__proto__' (it ` +
      `names a part of every JavaScript object, so sow cannot read it faithfully); rename or remove it`
    );
  const schema = ('id' in message ? REQUESTS : NOTIFICATIONS).get(message.method);
  const checked = schema?.safeParse(message);
  if (!checked || checked.success) return undefined;
  const issues = checked.error.issues;
  const said = issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? shownPath(issue.path) : 'the message'}: ${issue.message}`);
  return (
    `invalid params ` +
    `for ${message.method}: ${said.join('; ')}${issues.length > 3 ? `; and ${issues.length - 3} more` : ''}`
  );
};

export interface ServeOptions {
  /** The workspace every tool works in (default: the current folder). */
  cwd?: string;
  version: string;
  /** Every command: the tools are those that declare an MCP exposure. */
  commands: () => Promise<readonly CommandDef[]>;
}

/** Serves until the client closes stdin (or the connection), then resolves once every call has been answered. */
export async function serveMcp(opts: ServeOptions): Promise<void> {
  const cwd = resolve(opts.cwd ?? process.cwd());
  if (!isFolder(cwd))
    throw new SowError(
      'NOT_A_FOLDER',
      'failed',
      `--cwd '${opts.cwd ?? cwd}' is not a folder`,
      'pass the folder of the repository to serve, or start sow mcp in it',
    );
  // A server lives for many calls: each rereads only the state files that changed since the last.
  keepParsedStateFiles();
  keepTaskIndex();
  const server = new Server(
    { name: 'sow', version: opts.version },
    { capabilities: { tools: {}, prompts: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  server.onerror = (err) => void process.stderr.write(`sow mcp: ${err.message}\n`);
  const tools = await loadTools(opts.commands);
  const listed = tools.map(({ run: _, ...listing }) => listing);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));

  const transport = new LineTransport(process.stdin, process.stdout, { check: checkMessage });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const token = request.params._meta?.progressToken;
    // The arguments as the client sent them: the SDK's copy has lost any member called __proto__.
    const sent = transport.sentParams(extra.requestId);
    const args = isObject(sent) && Object.hasOwn(sent, 'arguments') ? sent['arguments'] : request.params.arguments;
    return callTool(tools, request.params.name, args, {
      cwd,
      signal: extra.signal,
      progress(progress, total, message) {
        if (token === undefined) return;
        extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress, total, message },
          })
          .catch(() => undefined);
      },
    });
  });

  servePromptsAndResources(server, cwd);

  await server.connect(transport);
  // The end of input ends the server, once every request read has been answered.
  await transport.inputEnded;
  await transport.settled();
  await server.close();
}

/** A refusal of a prompt or resource request: a JSON-RPC error whose data is the CLI's envelope. */
function requestError(err: unknown, code: number): McpError {
  const sow = asSowError(err);
  return new McpError(code, sow.message, errorEnvelope(sow));
}

/** MCP's resource-not-found code (the spec's -32002). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * Prompts: `continue` (what to do now) and sow's embedded prompts, filled as `sow prompt` fills
 * them. Resources: the files under .sow/project/ (app/resources.ts), so a client shows the state
 * without a tool call.
 */
function servePromptsAndResources(server: Server, cwd: string): void {
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    const { listPrompts } = await import('../app/prompts.js');
    return {
      prompts: [
        {
          name: 'continue',
          description:
            "What to do now: the prompt of the project's current state, with the steps out of it (as 'sow project " +
            "continue --full')",
        },
        ...listPrompts().map((name) => ({
          name,
          description:
            `sow's ${name.replace('/', ' prompt ')}, ` + `filled with what the project knows (as 'sow prompt ${name}')`,
        })),
      ],
    };
  });
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const name = request.params.name;
    try {
      const text =
        name === 'continue'
          ? (await (await import('../app/status.js')).continueProject(processContext(cwd))).prompt
          : (await (await import('../app/prompts.js')).readPrompt(processContext(cwd), name)).text;
      return {
        description: name === 'continue' ? 'What to do now' : name,
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
      };
    } catch (err) {
      throw requestError(err, ErrorCode.InvalidParams);
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    try {
      const { listResources } = await import('../app/resources.js');
      return { resources: (await listResources(processContext(cwd))).resources };
    } catch (err) {
      // Outside a project (or a repository) there is nothing to show: an empty list, not an error.
      if (asSowError(err).kind !== 'internal') return { resources: [] };
      throw requestError(err, ErrorCode.InternalError);
    }
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    const { RESOURCE_SCHEME } = await import('../app/resources.js');
    return {
      resourceTemplates: [
        {
          uriTemplate: `${RESOURCE_SCHEME}{+path}`,
          name: 'A file under .sow/project/',
          description: "state.yaml, log.md, a task's phases/<phase>/tasks/<id>/state.yaml, a document",
        },
      ],
    };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      const { readResource } = await import('../app/resources.js');
      return { contents: [await readResource(processContext(cwd), request.params.uri)] };
    } catch (err) {
      throw requestError(
        err,
        asSowError(err).code === 'RESOURCE_NOT_FOUND' ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams,
      );
    }
  });
}
