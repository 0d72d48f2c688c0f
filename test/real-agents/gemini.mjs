/**
 * Enough of the Gemini API (generativelanguage v1beta) for Gemini CLI:
 * POST /v1beta/models/<model>:streamGenerateContent?alt=sse → SSE chunks of GenerateContentResponse,
 * :generateContent → one JSON GenerateContentResponse, :countTokens → a count. A request that
 * declares the shell tool is answered by the scripted brain with a functionCall; side requests
 * (routing, next-speaker checks, summaries) get text, or JSON shaped by the requested schema.
 */
import { planTurn, recordSide, shellInput, shellTool, writeInput } from './brain.mjs';
import { sendJson, sendSse, startServer } from './server.mjs';

/** Gemini contents → the brain's shape. */
export function normaliseGemini(contents = []) {
  return contents.map((c) => {
    const parts = c.parts ?? [];
    return {
      role: c.role === 'model' ? 'assistant' : 'user',
      texts: parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text),
      toolCalls: parts
        .filter((p) => p.functionCall)
        .map((p) => ({ name: p.functionCall.name, input: p.functionCall.args })),
      toolResults: parts
        .filter((p) => p.functionResponse)
        .map((p) => JSON.stringify(p.functionResponse.response ?? {})),
    };
  });
}

/** A value that satisfies a (Gemini or JSON) schema; prefers "user" in enums (next-speaker checks end the turn). */
export function sample(schema, name = '') {
  if (!schema || typeof schema !== 'object') return 'ok';
  const type = String(
    Array.isArray(schema.type)
      ? schema.type.find((t) => t !== 'null')
      : (schema.type ?? (schema.properties ? 'object' : 'string')),
  ).toLowerCase();
  if (Array.isArray(schema.enum) && schema.enum.length)
    return schema.enum.includes('user') ? 'user' : schema.enum[schema.enum.length - 1];
  if (type === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = sample(v, k);
    return out;
  }
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'number' || type === 'integer') return /confidence|score|probab/i.test(name) ? 0.1 : 1;
  return /reason/i.test(name) ? 'The task is done.' : 'ok';
}

function declaredTools(body) {
  const out = [];
  for (const t of body.tools ?? [])
    for (const f of t.functionDeclarations ?? [])
      out.push({ name: f.name, schema: f.parametersJsonSchema ?? f.parameters });
  return out;
}

const usageMetadata = { promptTokenCount: 50, candidatesTokenCount: 20, totalTokenCount: 70 };

export function answerGemini(body, record, model) {
  record.model = model;
  const tools = declaredTools(body);
  const shell = shellTool(tools);
  const candidate = (parts) => ({
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
    modelVersion: model,
  });
  if (!shell) {
    recordSide(record, tools);
    const cfg = body.generationConfig ?? {};
    const schema = cfg.responseJsonSchema ?? cfg.responseSchema;
    const text = cfg.responseMimeType === 'application/json' || schema ? JSON.stringify(sample(schema)) : 'Say hello';
    return candidate([{ text }]);
  }
  const messages = normaliseGemini(body.contents);
  const d = planTurn(record, messages, shell, tools);
  if (d.kind === 'tool' && d.step.kind === 'edit' && !d.tool)
    return candidate([{ text: `I cannot write ${d.step.path}: no file-writing tool was offered.` }]);
  if (d.kind === 'tool') {
    const tool = d.step.kind === 'shell' ? shell : d.tool;
    const input =
      d.step.kind === 'edit' ? writeInput(tool, d.step) : d.step.kind === 'mcp' ? {} : shellInput(shell, d.command);
    record.toolInput = input;
    return candidate([{ functionCall: { name: tool.name, args: input } }]);
  }
  return candidate([{ text: d.text }]);
}

export function startGeminiServer(opts = {}) {
  return startServer({
    name: 'gemini',
    ...opts,
    async handle(req, res, record) {
      const path = (req.url ?? '/').split('?')[0];
      const m = /\/models\/([^/:]+):(\w+)$/.exec(path);
      if (req.method === 'POST' && m && record.body) {
        const [, model, method] = m;
        if (method === 'countTokens') return sendJson(res, 200, { totalTokens: 100 });
        if (method === 'streamGenerateContent')
          return sendSse(res, [{ data: answerGemini(record.body, record, model) }]);
        if (method === 'generateContent') return sendJson(res, 200, answerGemini(record.body, record, model));
        if (method === 'embedContent') return sendJson(res, 200, { embedding: { values: [0, 0, 0] } });
      }
      if (req.method === 'GET' && /\/models$/.test(path)) return sendJson(res, 200, { models: [] });
      record.note = 'not handled';
      return sendJson(res, 404, {
        error: { code: 404, message: `no route ${req.method} ${path}`, status: 'NOT_FOUND' },
      });
    },
  });
}
