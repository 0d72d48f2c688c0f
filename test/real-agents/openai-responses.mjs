/**
 * Enough of the OpenAI Responses API for Codex: POST /v1/responses with stream:true → SSE
 * (response.created, response.output_item.added/done, response.completed). A function call from the
 * scripted brain becomes a `function_call` item on the shell tool Codex declares; its output comes
 * back as a `function_call_output` input item. GET /v1/models answers an empty list. A WebSocket
 * upgrade is refused with 404 unless the provider is configured without websockets.
 */
import { randomUUID } from 'node:crypto';
import { addFilePatch, planTurn, recordSide, shellInput, shellTool } from './brain.mjs';
import { sendJson, sendSse, startServer } from './server.mjs';

const textOf = (content) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((c) => (typeof c === 'string' ? c : (c?.text ?? ''))).join('\n')
      : '';

/** Responses input items → the brain's shape. */
export function normaliseResponses(input = []) {
  const items = typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;
  const out = [];
  for (const it of items) {
    const type = it.type ?? (it.role ? 'message' : undefined);
    if (type === 'message') {
      const role = it.role === 'assistant' ? 'assistant' : it.role === 'user' ? 'user' : 'system';
      out.push({ role, texts: [textOf(it.content)], toolCalls: [], toolResults: [] });
    } else if (type === 'function_call' || type === 'custom_tool_call' || type === 'local_shell_call') {
      let args = it.arguments ?? it.input ?? it.action;
      try {
        args = typeof args === 'string' ? JSON.parse(args) : args;
      } catch {
        // keep the string
      }
      out.push({ role: 'assistant', texts: [], toolCalls: [{ name: it.name ?? type, input: args }], toolResults: [] });
    } else if (
      type === 'function_call_output' ||
      type === 'custom_tool_call_output' ||
      type === 'local_shell_call_output'
    ) {
      const o = it.output;
      const text =
        typeof o === 'string'
          ? o
          : Array.isArray(o)
            ? o.map((p) => (typeof p === 'string' ? p : (p?.text ?? JSON.stringify(p)))).join('')
            : JSON.stringify(o);
      out.push({ role: 'tool', texts: [], toolCalls: [], toolResults: [text] });
    }
  }
  return out;
}

const usage = {
  input_tokens: 50,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 20,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 70,
};

/**
 * The tools a request declares: `tools`, and (Codex 0.169's "responses lite") `additional_tools`
 * input items whose namespaces nest them. Flattened to [{ name, schema, type, description }].
 */
export function declaredTools(body) {
  const flat = [];
  const walk = (list, namespace) => {
    for (const t of list ?? []) {
      if (!t) continue;
      if (t.type === 'namespace') walk(t.tools, t.name);
      else if (t.name || t.type === 'local_shell')
        flat.push({
          name: t.name ?? t.type,
          schema: t.parameters,
          type: t.type,
          description: t.description ?? '',
          ...(namespace ? { namespace } : {}),
        });
    }
  };
  walk(body.tools);
  for (const it of Array.isArray(body.input) ? body.input : []) if (it?.type === 'additional_tools') walk(it.tools);
  return flat;
}

/**
 * Codex's code mode: one freeform `exec` tool that runs JavaScript, with the shell as the nested
 * `tools.exec_command({ cmd })`.
 */
const execScript = (command) =>
  `const r = await tools.exec_command({ cmd: ${JSON.stringify(command)}, tty: false, yield_time_ms: 30000 ` +
  `});\ntext(typeof r === 'string' ? r : \`exit \${r.exit_code}: \${r.output}\`);\n`;
/**
 * A command the sandbox refuses, as a Codex model handles it: run it; if it fails, ask to run it
 * outside the sandbox (`sandbox_permissions: "require_escalated"`), which `codex exec` refuses.
 */
const escalatingScript = (command) =>
  `const r = await tools.exec_command({ cmd: ${JSON.stringify(command)}, tty: false, yield_time_ms: 30000 ` +
  `});\ntext(\`exit \${r.exit_code}: \${r.output}\`);\n` +
  `if (r.exit_code !== 0) {\n  const again = await tools.exec_command({ cmd: ${JSON.stringify(command)}, ` +
  `sandbox_permissions: 'require_escalated', justification: 'The sandbox refused it; it must run outside.', tty: ` +
  `false, yield_time_ms: 30000 });\n  text(\`escalated: exit \${again.exit_code}: \${again.output}\`);\n}\n`;
/** The same mode's file edit: the nested freeform `tools.apply_patch(patch)`. */
const patchScript = (patch) =>
  `const r = await tools.apply_patch(${JSON.stringify(patch)});\ntext(typeof r === 'string' ? r : ` +
  `JSON.stringify(r));\n`;

export function answerResponses(body, record) {
  record.model = body.model;
  const tools = declaredTools(body);
  const codeMode = tools.find(
    (t) => t.type === 'custom' && t.name === 'exec' && /tools\.exec_command|exec_command\(/.test(t.description),
  );
  const shell = codeMode ?? shellTool(tools.filter((t) => t.type !== 'custom'));
  const messages = normaliseResponses(body.input);
  if (!shell) {
    recordSide(record, tools);
    return [
      {
        type: 'message',
        id: `msg_${record.n}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Say hello', annotations: [] }],
      },
    ];
  }
  // Codex edits files with apply_patch: nested in code mode, else a freeform tool of its own.
  const patchTool = tools.find((t) => t.name === 'apply_patch');
  const d = planTurn(record, messages, shell, [
    ...(codeMode || patchTool ? [{ name: 'apply_patch' }] : []),
    ...tools.filter((t) => t.name !== 'apply_patch'),
  ]);
  if (d.kind === 'tool') {
    const callId = `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    if (d.step.kind === 'mcp') {
      // A tool of an MCP server: a plain function call by the name Codex declared it under.
      record.toolInput = {};
      return [
        {
          type: 'function_call',
          id: `fc_${record.n}`,
          call_id: callId,
          name: d.tool.name,
          ...(d.tool.namespace ? { namespace: d.tool.namespace } : {}),
          arguments: '{}',
          status: 'completed',
        },
      ];
    }
    if (d.step.kind === 'edit') {
      const patch = addFilePatch(d.step);
      if (shell === codeMode) {
        const input = patchScript(patch);
        record.toolInput = input;
        return [
          {
            type: 'custom_tool_call',
            id: `ctc_${record.n}`,
            call_id: callId,
            name: 'exec',
            input,
            status: 'completed',
          },
        ];
      }
      if (patchTool) {
        record.toolInput = patch;
        return patchTool.type === 'custom'
          ? [
              {
                type: 'custom_tool_call',
                id: `ctc_${record.n}`,
                call_id: callId,
                name: 'apply_patch',
                input: patch,
                status: 'completed',
              },
            ]
          : [
              {
                type: 'function_call',
                id: `fc_${record.n}`,
                call_id: callId,
                name: 'apply_patch',
                arguments: JSON.stringify({ input: patch }),
                status: 'completed',
              },
            ];
      }
      return [
        {
          type: 'message',
          id: `msg_${record.n}`,
          role: 'assistant',
          status: 'completed',
          content: [
            {
              type: 'output_text',
              text: `I cannot write ${d.step.path}: no file-writing tool was offered.`,
              annotations: [],
            },
          ],
        },
      ];
    }
    if (shell === codeMode) {
      const input = d.step.escalate ? escalatingScript(d.command) : execScript(d.command);
      record.toolInput = input;
      return [
        { type: 'custom_tool_call', id: `ctc_${record.n}`, call_id: callId, name: 'exec', input, status: 'completed' },
      ];
    }
    if (shell.type === 'local_shell') {
      record.toolInput = { command: ['bash', '-lc', d.command] };
      return [
        {
          type: 'local_shell_call',
          id: `lsh_${record.n}`,
          call_id: callId,
          status: 'completed',
          action: { type: 'exec', command: ['bash', '-lc', d.command], env: {} },
        },
      ];
    }
    const input = shellInput(shell, d.command);
    record.toolInput = input;
    return [
      {
        type: 'function_call',
        id: `fc_${record.n}`,
        call_id: callId,
        name: shell.name,
        arguments: JSON.stringify(input),
        status: 'completed',
      },
    ];
  }
  return [
    {
      type: 'message',
      id: `msg_${record.n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: d.text, annotations: [] }],
    },
  ];
}

export function responseEvents(body, items, n) {
  const id = `resp_${n}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const model = body.model ?? 'gpt-fake';
  const events = [
    {
      event: 'response.created',
      data: {
        type: 'response.created',
        sequence_number: 0,
        response: { id, object: 'response', model, status: 'in_progress', output: [] },
      },
    },
  ];
  let seq = 1;
  items.forEach((item, output_index) => {
    events.push({
      event: 'response.output_item.added',
      data: {
        type: 'response.output_item.added',
        sequence_number: seq++,
        output_index,
        item: { ...item, status: 'in_progress' },
      },
    });
    if (item.type === 'message') {
      const text = item.content[0].text;
      events.push({
        event: 'response.output_text.delta',
        data: {
          type: 'response.output_text.delta',
          sequence_number: seq++,
          item_id: item.id,
          output_index,
          content_index: 0,
          delta: text,
        },
      });
    }
    events.push({
      event: 'response.output_item.done',
      data: { type: 'response.output_item.done', sequence_number: seq++, output_index, item },
    });
  });
  events.push({
    event: 'response.completed',
    data: {
      type: 'response.completed',
      sequence_number: seq++,
      response: { id, object: 'response', model, status: 'completed', output: items, usage },
    },
  });
  return events;
}

export function startResponsesServer(opts = {}) {
  return startServer({
    name: 'openai-responses',
    ...opts,
    async handle(req, res, record) {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && /\/models$/.test(path))
        return sendJson(res, 200, { object: 'list', data: [], models: [] });
      if (req.method === 'POST' && /\/responses$/.test(path) && record.body) {
        const items = answerResponses(record.body, record);
        const events = responseEvents(record.body, items, record.n);
        if (record.body.stream === false) return sendJson(res, 200, events.at(-1).data.response);
        return sendSse(res, events, { 'x-request-id': `req_${record.n}` });
      }
      record.note = 'not handled';
      return sendJson(res, 404, {
        error: { type: 'invalid_request_error', code: 'not_found', message: `no route ${req.method} ${path}` },
      });
    },
  });
}
