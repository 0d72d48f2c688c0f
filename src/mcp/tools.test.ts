/**
 * The tools of `sow mcp`, derived from the commands: a tool's schema follows its command (an option
 * added to a command is an argument of its tool, in the command's words), a call checks values with
 * the command line's own parsers (the same error), and its answer is the command's data. And
 * tools/call's answer, in-process: `structuredContent` is an object (a list goes under the tool's
 * member for it); a refusal is the error envelope with no structured content.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../domain/errors.js';
import { callTool } from './server.js';
import { loadTools, paramsOf, type Tool } from './tools.js';
import { allCommands } from '../commands/index.js';
import { choiceOf } from '../model/args.js';
import type { CommandDef } from '../model/def.js';

const fixed = (name: string, data: unknown, listKey?: string): Tool => ({
  name,
  description: name,
  inputSchema: { type: 'object', properties: {} },
  run: async () => {
    if (data instanceof Error) throw data;
    return { data, ...(listKey ? { listKey } : {}) };
  },
});
const ctx = { cwd: '.', progress: () => undefined };

/** A command that answers with what it was given. */
const echo = (name: string, extra: Partial<CommandDef> = {}): CommandDef => ({
  name,
  description: `does ${name}`,
  writes: false,
  mcp: { tool: 'echo' },
  run: async (_ctx, input) => ({ data: { name, ...input } }),
  ...extra,
});
const toolsOf = (...defs: CommandDef[]) => loadTools(async () => defs);
const refusal = async (tool: Tool, args: Record<string, unknown>) => {
  const r = await callTool([tool], tool.name, args, ctx);
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return JSON.parse((r.content as { text: string }[])[0]!.text).error;
};

describe('callTool', () => {
  const tools = [
    fixed('obj', { a: 1, n: Infinity }),
    fixed('list', [{ id: '010' }], 'tasks'),
    fixed('bare', [1]),
    fixed('text', 'hi'),
    fixed('no', new UsageError('not so', 'do this')),
  ];

  it('an object is the structured content itself, the same values as the text (.inf as the text has it)', async () => {
    const r = await callTool(tools, 'obj', {}, ctx);
    expect(r.content).toEqual([{ type: 'text', text: '{"a":1,"n":".inf"}' }]);
    expect(r.structuredContent).toEqual({ a: 1, n: '.inf' });
  });

  it('a list goes under the member the tool names (items without one); another value under value', async () => {
    expect((await callTool(tools, 'list', {}, ctx)).structuredContent).toEqual({ tasks: [{ id: '010' }] });
    expect((await callTool(tools, 'list', {}, ctx)).content).toEqual([{ type: 'text', text: '[{"id":"010"}]' }]);
    expect((await callTool(tools, 'bare', {}, ctx)).structuredContent).toEqual({ items: [1] });
    expect((await callTool(tools, 'text', {}, ctx)).structuredContent).toEqual({ value: 'hi' });
  });

  it('a refusal: isError and the envelope, no structured content', async () => {
    const r = await callTool(tools, 'no', {}, ctx);
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(JSON.parse((r.content as { text: string }[])[0]!.text)).toEqual({
      ok: false,
      error: { code: 'USAGE', message: 'not so', hint: 'do this' },
    });
  });
});

describe('tools derived from their commands', () => {
  it('an argument or option added to a command is an argument of its tool, typed and in its words', async () => {
    const base = echo('thing do', { args: [{ name: 'what-for', description: 'the reason' }] });
    const [before] = await toolsOf(base);
    expect(Object.keys(before!.inputSchema.properties)).toEqual(['what_for']);
    const [after] = await toolsOf({
      ...base,
      options: [
        { flags: '-n, --dry-run', description: 'write nothing' },
        { flags: '--by <group>', description: 'sum by', choices: ['a', 'b'] },
        { flags: '--file <path>', description: 'a file (repeatable)', default: [], parse: (w, p) => [...(p as []), w] },
        { flags: '-w, --watch', description: 'again and again', terminal: true },
      ],
    });
    expect(after!.inputSchema).toEqual({
      type: 'object',
      properties: {
        what_for: { type: 'string', description: 'the reason' },
        dry_run: { type: 'boolean', description: 'write nothing' },
        by: { enum: ['a', 'b'], description: 'sum by' },
        file: { type: 'array', items: { type: 'string' }, description: 'a file (repeatable)' },
      },
      required: ['what_for'],
    });
    // Called: the command's own input, as commander gives it (camel-cased options, defaults, parsed words).
    expect((await after!.run({ what_for: 'x', dry_run: true, file: ['a', 'b'] }, ctx)).data).toEqual({
      name: 'thing do',
      args: ['x'],
      opts: { dryRun: true, file: ['a', 'b'] },
    });
  });

  it("a bad value is refused by the command line's own parser: the same code and message", async () => {
    const groups = ['task', 'role'] as const;
    const [tool] = await toolsOf(
      echo('cost', {
        options: [
          { flags: '--by <group>', description: 'sum by', choices: groups, parse: choiceOf('grouping', groups) },
        ],
      }),
    );
    let cli: UsageError | undefined;
    try {
      choiceOf('grouping', groups)('tasks');
    } catch (err) {
      cli = err as UsageError;
    }
    expect(await refusal(tool!, { by: 'tasks' })).toEqual({ code: cli!.code, message: cli!.message, hint: cli!.hint });
    // A choice without a parser of its own: refused as commander refuses it.
    const [plain] = await toolsOf(echo('x', { options: [{ flags: '--by <g>', description: 'by', choices: groups }] }));
    expect(await refusal(plain!, { by: 'nope' })).toMatchObject({
      code: 'USAGE',
      message: "option '--by <g>' argument 'nope' is invalid. Allowed choices are task, role.",
    });
  });

  it('words as the command line has them: a number is its text, one word where a list goes a list', async () => {
    const [tool] = await toolsOf(
      echo('x', {
        args: [{ name: 'names', description: 'n', optional: true, variadic: true }],
        options: [{ flags: '--index <n>', description: 'i' }],
      }),
    );
    expect((await tool!.run({ index: 0, names: 'unit' }, ctx)).data).toMatchObject({
      args: [['unit']],
      opts: { index: '0' },
    });
    expect((await tool!.run({}, ctx)).data).toMatchObject({ args: [[]], opts: {} });
    expect(await refusal(tool!, { index: { a: 1 } })).toMatchObject({
      message: "invalid arguments for echo: 'index': expected a string",
    });
    expect(await refusal(tool!, { indx: 1 })).toMatchObject({
      message: "invalid arguments for echo: unknown argument 'indx'; did you mean 'index'?",
      hint: 'echo takes names, index (its input schema says which and of what type)',
    });
  });

  it("a tool's own defaults and omissions; --name value words as a map", async () => {
    const [tool] = await toolsOf(
      echo('x', {
        options: [
          { flags: '--timeout <d>', description: 'at most', parse: (w) => `${w}!` },
          { flags: '--fields <f>', description: 'trim' },
        ],
        passThrough: { name: 'metadata', description: 'more' },
        mcp: { tool: 'echo', defaults: { timeout: '30s' }, omit: ['fields'] },
      }),
    );
    expect(Object.keys(tool!.inputSchema.properties)).toEqual(['timeout', 'metadata']);
    expect(tool!.inputSchema.properties['timeout']).toEqual({ type: 'string', default: '30s', description: 'at most' });
    expect((await tool!.run({ metadata: { a: 1 } }, ctx)).data).toMatchObject({
      opts: { timeout: '30s!' },
      rest: ['--a', '1'],
    });
  });

  it('an omitted option with a default of the tool is not offered, and every call passes that default', async () => {
    const [tool] = await toolsOf(
      echo('x', {
        options: [{ flags: '--limit <n>', description: 'at most', parse: (w) => Number(w) }],
        mcp: { tool: 'echo', defaults: { limit: '10' }, omit: ['limit'] },
      }),
    );
    expect(tool!.inputSchema.properties).toEqual({});
    expect((await tool!.run({}, ctx)).data).toMatchObject({ opts: { limit: 10 } });
    await expect(tool!.run({ limit: 3 }, ctx)).rejects.toThrow(/unknown argument 'limit'/);
  });

  it('several commands, one tool: action picks the command, the arguments one of an action', async () => {
    const owner = (flags: string) => ({ flags, description: 'whose' });
    const defs = [
      echo('task thing add', {
        options: [owner('--id <id>'), { flags: '--path <p>', description: 'p', required: true }],
        mcp: { tool: 't', action: 'add' },
      }),
      echo('thing add', {
        options: [owner('--phase <p>'), { flags: '--path <p>', description: 'p', required: true }],
        mcp: { tool: 't', action: 'add', description: 'Things.' },
      }),
      echo('thing list', { options: [owner('--phase <p>')], writes: true, mcp: { tool: 't', action: 'list' } }),
    ];
    const [tool] = await toolsOf(...defs);
    expect(tool!.description).toBe('Things.');
    expect(tool!.annotations).toBeUndefined();
    expect(tool!.inputSchema.properties['action']).toEqual({ enum: ['add', 'list'], description: 'add: path' });
    // The plainest command first, unless an argument only another takes is given.
    expect((await tool!.run({ action: 'add', path: 'a' }, ctx)).data).toMatchObject({ name: 'thing add' });
    expect((await tool!.run({ action: 'add', path: 'a', id: '1' }, ctx)).data).toMatchObject({
      name: 'task thing add',
    });
    expect(await refusal(tool!, { action: 'add' })).toMatchObject({ code: 'USAGE', message: 't add needs path' });
    expect(await refusal(tool!, { action: 'list', path: 'a' })).toMatchObject({ message: 't list does not take path' });
    expect(await refusal(tool!, { action: 'add', path: 'a', id: '1', phase: 'p' })).toMatchObject({
      message: 't add does not take id',
    });
    expect(await refusal(tool!, { action: 'remove' })).toMatchObject({
      message: "invalid arguments for t: 'action': expected one of add, list",
    });
  });

  it("the tools of the registry: twelve at most, each argument of its command in the command's words", async () => {
    const commands = await allCommands();
    const tools = await loadTools(async () => commands);
    expect(tools.map((t) => t.name).sort()).toEqual([
      'advance',
      'agent_ps',
      'agent_wait',
      'artifact',
      'check',
      'continue',
      'cost',
      'log',
      'status',
      'task',
      'task_next',
      'task_update',
    ]);
    for (const def of commands.filter((d) => d.mcp)) {
      const tool = tools.find((t) => t.name === def.mcp!.tool)!;
      for (const p of paramsOf(def).filter((q) => !q.hidden)) {
        const listed = tool.inputSchema.properties[p.name] as { description: string };
        expect(listed, `${def.name}: ${p.name}`).toBeDefined();
        expect(listed.description, `${def.name}: ${p.name}`).toContain(p.description);
      }
      // Only what the exposure names is left out, and a terminal's options (--watch).
      const offered = (def.options ?? []).length + (def.args ?? []).length + (def.passThrough ? 1 : 0);
      const left = (def.options ?? []).filter((o) => o.terminal).length + (def.mcp!.omit ?? []).length;
      expect(paramsOf(def).filter((q) => !q.hidden).length, def.name).toBe(offered - left);
      expect(tool.annotations?.readOnlyHint === true, def.name).toBe(
        commands.filter((d) => d.mcp?.tool === tool.name).every((d) => d.writes === false),
      );
    }
  });
});
