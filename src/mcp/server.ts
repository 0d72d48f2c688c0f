// `sow mcp`: the tools of tools.ts over stdio (stdout carries the protocol only). The SDK's low-level Server, so every
// refusal is the CLI's --json error envelope; stdin is read by transport.ts.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as sdk from './sdk.js';
import { errorEnvelope, SowError, UsageError } from '../domain/errors.js';
import { reservedNameError } from '../domain/fields.js';
import { environmentError } from '../adapters/io-errors.js';
import { keepParsedStateFiles } from '../adapters/state-files.js';
import { keepTaskIndex } from '../adapters/task-index.js';
import { processContext } from '../app/context.js';
import { findKey } from './json.js';
import { LineTransport, type MessageCheck } from './transport.js';
import { loadTools, type Tool, type ToolContext } from './tools.js';
import type { CommandDef } from '../model/def.js';
import { isRecord, toJson } from '../domain/json.js';

const INSTRUCTIONS =
  "sow keeps this repository's project (plan → implement → review → finalize) in .sow/. " +
  "'continue' says what to do now; only 'advance' changes the state. A refusal carries a code and a hint: the " +
  'next step.';

/** The envelope the CLI prints for an error with --json (main.ts, renderError). */
function errorResult(err: SowError): CallToolResult {
  return { content: [{ type: 'text', text: toJson(errorEnvelope(err)) }], isError: true };
}

/** Any failure as the CLI reports it: sow's own, the machine's (no permission, a full disk), else a bug. */
function asSowError(err: unknown): SowError {
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

// The data as JSON text and as `structuredContent`, which must be an object (a list goes under `listKey`); read back
// from the text so both hold the same values.
function resultOf(data: unknown, listKey?: string): CallToolResult {
  const text = toJson(data ?? null);
  const value: unknown = JSON.parse(text);
  const structured = isRecord(value) ? value : { [Array.isArray(value) ? (listKey ?? 'items') : 'value']: value };
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
  // __proto__ inside a value is refused in the command line's words; at the top it is an unknown argument.
  const reserved = findKey(args, '__proto__');
  if (reserved && reserved.length > 1) return errorResult(reservedNameError(reserved.slice(1).join('.'), '__proto__'));
  try {
    // An object or nothing: checkMessage refused any other `arguments` with the SDK's own schema.
    const r = await tool.run((args ?? {}) as Record<string, unknown>, ctx);
    return resultOf(r.data, r.listKey);
  } catch (err) {
    return errorResult(asSowError(err));
  }
}

/** Each method's schema by its name, from one of the SDK's unions (sdk.ClientRequestSchema, …). */
function byMethod(options: readonly sdk.z.ZodType[]): ReadonlyMap<string, sdk.z.ZodType> {
  return new Map(
    options.map((schema) => [((schema as sdk.z.ZodObject).shape['method'] as sdk.z.ZodLiteral<string>).value, schema]),
  );
}

const REQUESTS = byMethod(sdk.ClientRequestSchema.options);
const NOTIFICATIONS = byMethod(sdk.ClientNotificationSchema.options);

const shownPath = (path: readonly (string | number | symbol)[]): string => {
  const text = path.map(String).join('.');
  return text.length > 80 ? `…${text.slice(-80)}` : text;
};

// Params the SDK would refuse are refused first as invalid params (the SDK answers -32603 with zod's dump), and any
// `__proto__` member, which the SDK's schemas drop silently.
const checkMessage: MessageCheck = (message) => {
  const params = message.params;
  const args = message.method === 'tools/call' && isRecord(params) ? params['arguments'] : undefined;
  const reserved = findKey(params, '__proto__', isRecord(args) ? args : undefined);
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
  const more = issues.length > 3 ? `; and ${issues.length - 3} more` : '';
  return `invalid params for ${message.method}: ${said.join('; ')}${more}`;
};

// Serves the tools of the commands that declare an MCP exposure until the client closes stdin (or the connection);
// then resolves once every call has been answered.
export async function serveMcp(opts: {
  cwd?: string;
  version: string;
  commands: () => Promise<readonly CommandDef[]>;
}): Promise<void> {
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
  const server = new sdk.Server(
    { name: 'sow', version: opts.version },
    { capabilities: { tools: {}, prompts: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  server.onerror = (err) => void process.stderr.write(`sow mcp: ${err.message}\n`);
  const tools = await loadTools(opts.commands);
  const listed = tools.map(({ run: _, ...listing }) => listing);
  server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: listed }));

  const transport = new LineTransport(process.stdin, process.stdout, checkMessage);
  server.setRequestHandler(sdk.CallToolRequestSchema, (request, extra) => {
    const token = request.params._meta?.progressToken;
    // The arguments as the client sent them: the SDK's copy has lost any member called __proto__.
    const sent = transport.sentParams(extra.requestId);
    const args = isRecord(sent) && Object.hasOwn(sent, 'arguments') ? sent['arguments'] : request.params.arguments;
    return callTool(tools, request.params.name, args, {
      cwd,
      signal: extra.signal,
      progress(progress, total, message) {
        if (token === undefined) return;
        const params = { progressToken: token, progress, total, message };
        extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
      },
    });
  });

  servePromptsAndResources(server, cwd);

  await server.connect(transport);
  await transport.inputEnded;
  await transport.settled();
  await server.close();
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A refusal of a prompt or resource request: a JSON-RPC error whose data is the CLI's envelope. */
function requestError(err: unknown, code: number): sdk.McpError {
  const sow = asSowError(err);
  return new sdk.McpError(code, sow.message, errorEnvelope(sow));
}

/** MCP's resource-not-found code (the spec's -32002). */
const RESOURCE_NOT_FOUND = -32002;

/** Prompts: `continue` and sow's embedded prompts (as `sow prompt` fills them); resources: .sow/project/'s files. */
function servePromptsAndResources(server: sdk.Server, cwd: string): void {
  server.setRequestHandler(sdk.ListPromptsRequestSchema, async () => {
    const { listPrompts } = await import('../app/prompts.js');
    const now =
      "What to do now: the prompt of the project's current state, with the steps out of it (as 'sow project " +
      "continue --full')";
    const filled = (name: string) =>
      `sow's ${name.replace('/', ' prompt ')}, ` + `filled with what the project knows (as 'sow prompt ${name}')`;
    return {
      prompts: [
        { name: 'continue', description: now },
        ...listPrompts().map((name) => ({ name, description: filled(name) })),
      ],
    };
  });
  server.setRequestHandler(sdk.GetPromptRequestSchema, async (request) => {
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
      throw requestError(err, sdk.ErrorCode.InvalidParams);
    }
  });
  server.setRequestHandler(sdk.ListResourcesRequestSchema, async () => {
    try {
      const { listResources } = await import('../app/resources.js');
      return { resources: (await listResources(processContext(cwd))).resources };
    } catch (err) {
      // Outside a project (or a repository) there is nothing to show: an empty list, not an error.
      if (asSowError(err).kind !== 'internal') return { resources: [] };
      throw requestError(err, sdk.ErrorCode.InternalError);
    }
  });
  server.setRequestHandler(sdk.ListResourceTemplatesRequestSchema, async () => {
    const { RESOURCE_SCHEME } = await import('../app/resources.js');
    const description = "state.yaml, log.md, a task's phases/<phase>/tasks/<id>/state.yaml, a document";
    return {
      resourceTemplates: [
        { uriTemplate: `${RESOURCE_SCHEME}{+path}`, name: 'A file under .sow/project/', description },
      ],
    };
  });
  server.setRequestHandler(sdk.ReadResourceRequestSchema, async (request) => {
    try {
      const { readResource } = await import('../app/resources.js');
      return { contents: [await readResource(processContext(cwd), request.params.uri)] };
    } catch (err) {
      const notFound = asSowError(err).code === 'RESOURCE_NOT_FOUND';
      throw requestError(err, notFound ? RESOURCE_NOT_FOUND : sdk.ErrorCode.InvalidParams);
    }
  });
}
