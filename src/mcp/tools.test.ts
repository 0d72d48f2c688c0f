/**
 * tools/call's answer, in-process: the data as JSON text, and as `structuredContent`, which the
 * MCP spec wants an object: an object is itself, a list goes under the tool's member for it, any
 * other value under `value`. A refusal is the error envelope with no structured content.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../domain/errors.js';
import { callTool } from './server.js';
import { loadTools, type Tool } from './tools.js';
import { allCommands } from '../commands/index.js';
import { z } from './sdk.js';

const tool = (name: string, data: unknown, listKey?: string): Tool => ({
  name,
  description: name,
  input: z.strictObject({}),
  output: z.looseObject({}),
  ...(listKey ? { listKey } : {}),
  run: async () => {
    if (data instanceof Error) throw data;
    return data;
  },
});
const ctx = { cwd: '.', progress: () => undefined };

describe('callTool', () => {
  const tools = [
    tool('obj', { a: 1, n: Infinity }),
    tool('list', [{ id: '010' }], 'tasks'),
    tool('bare', [1]),
    tool('text', 'hi'),
    tool('no', new UsageError('not so', 'do this')),
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

  it('the tools of the registry: twelve, the most a person reads through, each with an input and an output schema', async () => {
    const all = await loadTools(allCommands);
    expect(all.map((t) => t.name).sort()).toEqual([
      'advance',
      'agent_ps',
      'agent_wait',
      'artifact',
      'check_run',
      'continue',
      'cost',
      'log',
      'status',
      'task',
      'task_next',
      'task_update',
    ]);
    for (const t of all) expect(z.toJSONSchema(t.output, { io: 'output' }), t.name).toMatchObject({ type: 'object' });
  });
});
