/**
 * Enough of the Anthropic Messages API for Claude Code, opencode and Copilot (provider type
 * anthropic): HEAD / → 200, POST /v1/messages (streaming SSE or plain JSON), count_tokens. Main-loop
 * requests (those declaring a shell tool) are answered by the scripted brain; any other request
 * (a title, a summary) gets a short text.
 */
import { randomUUID } from 'node:crypto';
import { planTurn, recordSide, shellInput, shellTool, writeInput } from './brain.mjs';
import { sendJson, sendSse, startServer } from './server.mjs';

const textOf = (content) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((b) => (typeof b === 'string' ? b : (b?.text ?? ''))).join('\n')
      : '';

/** Anthropic messages → the brain's shape. */
export function normaliseAnthropic(messages = []) {
  return messages.map((m) => {
    const blocks =
      typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
    return {
      role: m.role,
      texts: blocks.filter((b) => b.type === 'text').map((b) => b.text ?? ''),
      toolCalls: blocks.filter((b) => b.type === 'tool_use').map((b) => ({ name: b.name, input: b.input })),
      toolResults: blocks.filter((b) => b.type === 'tool_result').map((b) => textOf(b.content)),
    };
  });
}

/** `usage`: what the response reports it used ({ input, output } tokens). */
export function messageStream(model, blocks, stopReason, usage = { input: 50, output: 20 }) {
  const id = `msg_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const events = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      },
    },
  ];
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      });
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } },
      });
    } else {
      events.push({
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        },
      });
      events.push({
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
        },
      });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return { id, events };
}

/** The brain's answer for one request body, as Anthropic content blocks + stop reason. */
export function answerAnthropic(body, record) {
  record.model = body.model;
  const tools = (body.tools ?? []).filter((t) => t && t.name).map((t) => ({ name: t.name, schema: t.input_schema }));
  const shell = shellTool(tools);
  if (!shell) {
    // A side request: a session title (Claude Code asks for JSON by schema), a summary, …
    const wantsJson =
      body.output_config?.format ||
      body.output_format ||
      /json/i.test(JSON.stringify(body.system ?? '').slice(0, 4000));
    recordSide(record, tools);
    return {
      blocks: [
        { type: 'text', text: wantsJson ? JSON.stringify({ title: 'Say hello', isNewTopic: true }) : 'Say hello' },
      ],
      stop: 'end_turn',
    };
  }
  const messages = normaliseAnthropic(body.messages);
  const d = planTurn(record, messages, shell, tools);
  if (d.kind === 'tool' && d.step.kind === 'edit' && !d.tool)
    return {
      blocks: [{ type: 'text', text: `I cannot write ${d.step.path}: no file-writing tool was offered.` }],
      stop: 'end_turn',
    };
  if (d.kind === 'tool') {
    const tool = d.step.kind === 'shell' ? shell : d.tool;
    const input =
      d.step.kind === 'edit' ? writeInput(tool, d.step) : d.step.kind === 'mcp' ? {} : shellInput(shell, d.command);
    record.toolInput = input;
    return {
      blocks: [
        { type: 'tool_use', id: `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`, name: tool.name, input },
      ],
      stop: 'tool_use',
    };
  }
  return { blocks: [{ type: 'text', text: d.text }], stop: 'end_turn' };
}

export function startAnthropicServer(opts = {}) {
  return startServer({
    name: 'anthropic',
    ...opts,
    async handle(req, res, record) {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'HEAD' || (req.method === 'GET' && (path === '/' || path === ''))) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(req.method === 'HEAD' ? undefined : 'ok');
        return;
      }
      if (req.method === 'POST' && /\/messages\/count_tokens$/.test(path))
        return sendJson(res, 200, { input_tokens: 100 });
      if (req.method === 'POST' && /\/messages$/.test(path) && record.body) {
        const body = record.body;
        const { blocks, stop } = answerAnthropic(body, record);
        const model = body.model ?? 'claude-fake';
        if (body.stream) {
          const { events } = messageStream(model, blocks, stop);
          return sendSse(res, events, { 'request-id': `req_${record.n}` });
        }
        return sendJson(res, 200, {
          id: `msg_${record.n}`,
          type: 'message',
          role: 'assistant',
          model,
          content: blocks.map((b) =>
            b.type === 'text'
              ? { type: 'text', text: b.text }
              : { type: 'tool_use', id: b.id, name: b.name, input: b.input },
          ),
          stop_reason: stop,
          stop_sequence: null,
          usage: { input_tokens: 50, output_tokens: 20 },
        });
      }
      record.note = 'not handled';
      return sendJson(res, 404, {
        type: 'error',
        error: { type: 'not_found_error', message: `no route ${req.method} ${path}` },
      });
    },
  });
}
