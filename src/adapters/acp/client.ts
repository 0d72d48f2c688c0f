// An ACP worker with sow as the client: permission requests answered by domain/acp-permissions.ts, anything else
// refused. The agent's process group is ended whole: wrappers (Codex's adapter, Gemini's relauncher) pass no signal on.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type {
  AnyMessage,
  LoadSessionResponse,
  NewSessionRequest,
  NewSessionResponse,
  PromptRequest,
  PromptResponse,
} from '@agentclientprotocol/sdk';
// The build turns this into a require of dist/acp-sdk.cjs, loaded only over ACP.
import { client, methods, PROTOCOL_VERSION } from './sdk.js';
import { followStderr, lineSplitter, type RunOutcome, type RunRequest } from '../process-runner.js';
import { usageOf } from '../executors/shared.js';
import type { Usage } from '../executors/types.js';
import {
  decidePermission,
  optionFor,
  type AskedToolCall,
  type PermissionDecision,
  type PermissionPolicy,
} from '../../domain/acp-permissions.js';
import { isRecord } from '../../domain/json.js';
import { quietly } from '../io-errors.js';

export interface AcpRunRequest extends Pick<RunRequest, 'binary' | 'args' | 'cwd' | 'env' | 'onStderrLine'> {
  prompt: string;
  /** Continue this session (`session/load`) instead of opening a new one. */
  load?: string;
  mcpServers: { name: string; command: string; args: string[]; env: { name: string; value: string }[] }[];
  /** The model to choose in a new session, where the agent offers a model option (opencode, the adapters). */
  model?: string;
  /** Something the person should know (a model the agent does not offer). */
  onNote?(text: string): void;
  policy: PermissionPolicy;
  /** What `session/new` and `session/load` carry in `_meta` (the agent's own options). */
  sessionMeta?: Record<string, unknown>;
  /** The modes (and option values) in which the agent asks first; another is switched, or the turn not run. */
  modes?: { asks: readonly string[]; options?: Readonly<Record<string, string>> };
  clientVersion: string;
  /** Each line the agent wrote on stdout, as it came. */
  onRaw(line: string): void;
  /** Each `session/update`'s `update`. */
  onUpdate(update: Record<string, unknown>): void;
  /** The session, once the agent has opened (or loaded) it. */
  onSession(id: string): void;
  /** Each permission request and what sow answered. */
  onPermission(call: AskedToolCall, decision: PermissionDecision): void;
}

export interface AcpRunOutcome extends Omit<RunOutcome, 'leftRunning'> {
  sessionId?: string;
  /** The prompt turn's `stopReason` (end_turn, cancelled, refusal, max_tokens, …). */
  stopReason?: string;
  /** What the turn used, when the agent says (the prompt answer's `usage`, not yet in the stable protocol). */
  usage?: Usage;
  /** Where the protocol failed, when it did: the agent refused a request or went away. */
  failure?: string;
  /** The session could not be continued: the agent cannot load sessions, or refused this one. */
  loadFailed?: string;
  /** The session was in (or went to) a mode that does not ask, and could not be kept asking. */
  notAsking?: { mode: string; why: string };
}

/** ACP's error code for "authentication required". */
const AUTH_REQUIRED = -32000;
/** How long an agent has to stop after `session/cancel`, and to exit once its stdin is closed, before it is ended. */
const GRACE_MS = 5_000;
/** How long an agent's group has to end after TERM before it is killed. */
const KILL_AFTER_MS = 2_000;
/** One message larger than this is not read (and the agent is ended): a flood must not fill memory. */
const MAX_LINE = 16 * 1024 * 1024;

export async function runAcp(req: AcpRunRequest): Promise<AcpRunOutcome> {
  const child = spawn(req.binary, [...req.args], {
    cwd: req.cwd,
    env: { ...req.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  // Rejects with the error when the program cannot be started.
  await once(child, 'spawn');
  let ended = false;
  void exited.then(() => (ended = true));
  const signalGroup = (signal: NodeJS.Signals) => {
    // Once its pipes are closed the group may be gone, and its number another's.
    if (!ended) quietly(() => process.kill(-child.pid!, signal));
  };
  let killTimer: NodeJS.Timeout | undefined;
  /** Ends the agent and all it started: TERM to its group, KILL to what is left of it a moment later. */
  const end = () => {
    signalGroup('SIGTERM');
    killTimer ??= setTimeout(() => signalGroup('SIGKILL'), KILL_AFTER_MS);
  };

  const stderr = followStderr(child.stderr, req.onStderrLine);

  // The agent's stdout, one JSON-RPC message per line; the SDK checks each object it is passed.
  let tooLong = false;
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      child.stdout.setEncoding('utf8');
      const take = (line: string) => {
        if (!line.trim()) return;
        req.onRaw(line);
        const message: unknown = quietly(() => JSON.parse(line));
        if (isRecord(message)) controller.enqueue(message as AnyMessage);
      };
      const lines = lineSplitter(take);
      child.stdout.on('data', (chunk: string) => {
        if (tooLong) return;
        if (lines.push(chunk).length > MAX_LINE) {
          tooLong = true;
          end();
        }
      });
      child.stdout.on('end', () => {
        if (!tooLong) lines.end();
        quietly(() => controller.close());
      });
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      return new Promise<void>((resolve) => {
        if (child.stdin.destroyed || !child.stdin.writable) return resolve();
        child.stdin.write(`${JSON.stringify(message)}\n`, () => resolve());
      });
    },
    close() {
      child.stdin.end();
    },
  });
  child.stdin.on('error', () => undefined); // an agent that exits without reading everything

  let sessionId: string | undefined;
  let interrupted: 'SIGINT' | 'SIGTERM' | undefined;
  let cancel: (() => void) | undefined;
  /** Stops the turn: cancelled once the session is prompted, else the agent is ended. */
  const stop = () => (cancel ?? end)();
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => () => {
    interrupted ??= signal;
    stop();
  };
  // sow going away cannot wait for the agent to end: it ends at once.
  const handlers = { SIGINT: onSignal('SIGINT'), SIGTERM: onSignal('SIGTERM'), exit: () => signalGroup('SIGKILL') };
  for (const [event, handler] of Object.entries(handlers)) process.on(event, handler);

  const outcome: Omit<AcpRunOutcome, 'code' | 'signal' | 'stderrTail'> = {};
  /** Once the session is set to ask, a change away from that ends the turn. */
  let watching = false;
  const app = client({ name: 'sow' })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      const call = (params.toolCall ?? {}) as AskedToolCall;
      const decision = decidePermission(call, req.policy);
      req.onPermission(call, decision);
      const optionId = optionFor(params.options ?? [], decision.allow);
      return optionId
        ? { outcome: { outcome: 'selected' as const, optionId } }
        : { outcome: { outcome: 'cancelled' as const } };
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      // Only the session sow opened: updates about another are not this worker's.
      if (sessionId !== undefined && params.sessionId !== sessionId) return;
      const update = params.update as unknown as Record<string, unknown>;
      if (req.modes && watching && !outcome.notAsking) {
        const away = notAsking(
          req.modes,
          update['sessionUpdate'] === 'current_mode_update' ? update['currentModeId'] : undefined,
          update['sessionUpdate'] === 'config_option_update' ? update['configOptions'] : undefined,
        );
        if (away) {
          outcome.notAsking = { mode: away.mode, why: `the agent went to ${away.what} during the turn` };
          stop();
        }
      }
      req.onUpdate(update);
    });

  const work = app.connectWith({ readable, writable }, async (agent) => {
    const init = await agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'sow', version: req.clientVersion },
    });
    const setOption = (configId: string, value: string) =>
      agent.request(methods.agent.session.setConfigOption, { sessionId: sessionId!, configId, value });
    /** The configured model, through the session's model option; said when the agent offers no such choice. */
    const chooseModel = async (opened: NewSessionResponse, model: string) => {
      const option = (opened.configOptions ?? []).find((o) => isSelect(o, 'model'));
      if (!option || option.type !== 'select' || option.currentValue === model) return;
      const flat = choicesOf(option);
      const match = flat.find((o) => o.value === model || o.name === model || o.value.split('/').at(-1) === model);
      if (!match) {
        const offered = flat.map((o) => o.value).slice(0, 12);
        req.onNote?.(
          `the agent offers no model '${model}' (it offers ${offered.join(', ')}); it keeps ${option.currentValue}`,
        );
        return;
      }
      await setOption(option.id, match.value);
    };
    /** A mode that does not ask (set by the repository's settings) is switched to one that does, or not prompted. */
    const keepAsking = async (
      opened: Pick<NewSessionResponse, 'modes' | 'configOptions'>,
      id: string,
    ): Promise<boolean> => {
      const want = req.modes;
      if (!want) return true;
      const refuse = (mode: string, why: string) => {
        outcome.notAsking = { mode, why };
        return false;
      };
      const options = opened.configOptions ?? [];
      const modeOption = options.find((o) => isSelect(o, 'mode'));
      const current = opened.modes?.currentModeId ?? modeOption?.currentValue;
      if (typeof current === 'string' && !want.asks.includes(current)) {
        const opening = `it opened the session in mode '${current}', which does not ask sow`;
        const offered = opened.modes
          ? opened.modes.availableModes.map((m) => m.id)
          : choicesOf(modeOption).map((o) => o.value);
        const target = want.asks.find((m) => offered.includes(m));
        if (target === undefined)
          return refuse(current, `${opening}, and offers no mode that does (${offered.join(', ') || 'none'})`);
        try {
          if (opened.modes) await agent.request(methods.agent.session.setMode, { sessionId: id, modeId: target });
          else await setOption(modeOption!.id, target);
        } catch (err) {
          return refuse(current, `${opening}, and refused to switch to '${target}': ${errorText(err)}`);
        }
        req.onNote?.(
          `the agent opened the session in mode '${current}', which does not ask sow before it acts; sow switched ` +
            `it to '${target}'`,
        );
      }
      for (const [configId, value] of Object.entries(want.options ?? {})) {
        const option = options.find((o) => o.id === configId);
        if (!option || option.type !== 'select' || option.currentValue === value) continue;
        try {
          await setOption(configId, value);
        } catch (err) {
          return refuse(
            `${configId}: ${String(option.currentValue)}`,
            `its option ${configId} is '${String(option.currentValue)}', and it refused to set it to ` +
              `'${value}': ${errorText(err)}`,
          );
        }
        req.onNote?.(
          `the agent opened the session with ${configId} '${String(option.currentValue)}'; sow set it to '${value}'`,
        );
      }
      watching = true;
      return true;
    };
    const params = { cwd: req.cwd, mcpServers: req.mcpServers, ...(req.sessionMeta ? { _meta: req.sessionMeta } : {}) };
    let opened: Pick<NewSessionResponse, 'modes' | 'configOptions'>;
    if (req.load !== undefined) {
      if (!init.agentCapabilities?.loadSession) {
        outcome.loadFailed = 'the agent cannot load sessions (its initialize answer has no loadSession)';
        return;
      }
      try {
        const load = { sessionId: req.load, ...params };
        opened = (await agent.request<LoadSessionResponse>(methods.agent.session.load, load)) ?? {};
      } catch (err) {
        outcome.loadFailed = errorText(err);
        return;
      }
      sessionId = req.load;
    } else {
      const open = () => agent.request<NewSessionResponse, NewSessionRequest>(methods.agent.session.new, params);
      let created: NewSessionResponse;
      try {
        created = await open();
      } catch (err) {
        // "Authentication required" (Codex's adapter): sign in with an API key from the environment, never a method
        // that would open a browser, and try once more.
        const keyMethods = (init.authMethods ?? []).map((m) => m.id).filter((id) => /api[-_]?key$/i.test(id));
        if ((err as { code?: unknown }).code !== AUTH_REQUIRED || !keyMethods.length) throw err;
        const signIn = (methodId: string) => agent.request(methods.agent.authenticate, { methodId }).then(() => true);
        let signedIn = false;
        for (const methodId of keyMethods) signedIn ||= await signIn(methodId).catch(() => false);
        if (!signedIn) throw err;
        created = await open();
      }
      sessionId = created.sessionId;
      opened = created;
      if (req.model !== undefined) await chooseModel(created, req.model);
    }
    req.onSession(sessionId!);
    outcome.sessionId = sessionId;
    const id = sessionId;
    if (!(await keepAsking(opened, id))) return;
    cancel = () => {
      cancel = end;
      void agent.notify(methods.agent.session.cancel, { sessionId: id }).catch(() => undefined);
      setTimeout(end, GRACE_MS).unref();
    };
    if (interrupted) cancel();
    const answer = await agent.request<PromptResponse, PromptRequest>(methods.agent.session.prompt, {
      sessionId: id,
      prompt: [{ type: 'text', text: req.prompt }],
    });
    outcome.stopReason = answer.stopReason;
    // Some agents tell the turn's tokens in the answer (a field of the unstable protocol).
    const usage = (answer as { usage?: { inputTokens?: unknown; outputTokens?: unknown } }).usage;
    if (usage && typeof usage === 'object') outcome.usage = usageOf(usage.inputTokens, usage.outputTokens);
  });
  // The agent may go away at any point: then the request it did not answer fails.
  const done = await Promise.race([
    work.then(
      () => undefined,
      (err: unknown) => errorText(err),
    ),
    exited.then(() => 'the agent exited before it answered'),
  ]);
  if (
    done !== undefined &&
    outcome.stopReason === undefined &&
    outcome.loadFailed === undefined &&
    outcome.notAsking === undefined
  )
    outcome.failure = tooLong ? `the agent wrote a line of more than ${MAX_LINE} bytes` : done;
  // Finished (or failed): the agent's stdin is closed, and it has a moment to exit on its own.
  quietly(() => child.stdin.end());
  const timer = setTimeout(end, GRACE_MS).unref();
  const { code, signal } = await exited;
  clearTimeout(timer);
  clearTimeout(killTimer);
  for (const [event, handler] of Object.entries(handlers)) process.off(event, handler);
  stderr.end();
  return { code, signal, stderrTail: stderr.tail(), ...outcome, ...(interrupted ? { interrupted } : {}) };
}

/** A select config option of this category (or, from an agent that gives none, this id). */
const isSelect = (o: { type?: unknown; category?: unknown; id?: unknown }, name: string) =>
  o.type === 'select' && (o.category === name || o.id === name);

type Choice = { value: string; name: string };
/** The choices a select config option offers, its groups flattened. */
function choicesOf(option: { type: string; options?: unknown } | undefined): Choice[] {
  if (!option || option.type !== 'select' || !Array.isArray(option.options)) return [];
  return (option.options as (Choice | { options: Choice[] })[]).flatMap((o) => ('options' in o ? o.options : [o]));
}

/** Whether an update shows the session left the modes (or option values) that ask: what it went to. */
function notAsking(
  want: NonNullable<AcpRunRequest['modes']>,
  mode: unknown,
  configOptions: unknown,
): { mode: string; what: string } | undefined {
  if (typeof mode === 'string' && !want.asks.includes(mode)) return { mode, what: `mode '${mode}'` };
  if (!Array.isArray(configOptions)) return undefined;
  for (const o of configOptions as { id?: unknown; category?: unknown; type?: unknown; currentValue?: unknown }[]) {
    if (typeof o?.currentValue !== 'string' || o.type !== 'select') continue;
    if (isSelect(o, 'mode') && !want.asks.includes(o.currentValue))
      return { mode: o.currentValue, what: `mode '${o.currentValue}'` };
    const must =
      typeof o.id === 'string' && want.options && Object.hasOwn(want.options, o.id) ? want.options[o.id] : undefined;
    if (must !== undefined && o.currentValue !== must)
      return { mode: `${String(o.id)}: ${o.currentValue}`, what: `${String(o.id)} '${o.currentValue}'` };
  }
  return undefined;
}

function errorText(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { message?: unknown; code?: unknown; data?: unknown };
    const data = e.data !== undefined ? ` (${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)})` : '';
    if (typeof e.message === 'string')
      return `${e.message}${typeof e.code === 'number' ? ` [${e.code}]` : ''}${data}`.slice(0, 500);
  }
  return String(err).slice(0, 500);
}
