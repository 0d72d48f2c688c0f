/** Which executor a worker runs with, and what it may do, resolved before anything is written. */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import {
  checkConfig,
  executorChoices,
  executorIssues,
  issueText,
  permissionProfile,
  resolveConfig,
  type ResolvedExecutor,
} from '../../domain/config.js';
import type { Session } from '../../domain/schemas.js';
import { ExternalToolError } from '../../domain/errors.js';
import { EXECUTORS, executorOf, IGNORED_SETTINGS, startedFor } from '../../adapters/executors/registry.js';
import { findOnPath, runProcess } from '../../adapters/process-runner.js';
import { ConfigFileError, readUserConfig, userConfigPath } from '../../adapters/user-config.js';
import { readRepoConfig, REPO_CONFIG } from '../../adapters/repo-config.js';
import { wideningSettings } from '../../adapters/agent-settings.js';
import { AgentSettingsWidenError, ExecutorBinaryNotFoundError, UnknownExecutorError } from '../agent-errors.js';
import type { Resolution, Speaker } from './types.js';

type Env = AppContext['env'];

export async function resolveFor(
  agentName: string,
  recordedExecutor: Pick<Session, 'executor' | 'type' | 'transport'> | undefined,
  opts: Pick<Speaker, 'verbose' | 'say'>,
  env: Env,
): Promise<Resolution> {
  // Strict: an unknown key or a mistyped role in the file is CONFIG_INVALID (exit 4) before anything runs.
  const loaded = await readUserConfig(userConfigPath(env));
  const effective = resolveConfig(loaded.config, env);
  const verbose = (line: string) => opts.verbose && opts.say(line);
  verbose('Loading agent configuration...');
  verbose(`  Config file: ${loaded.path} (${loaded.exists ? 'found' : 'not found, using defaults'})`);
  verbose(`  Agent: ${agentName}`);
  let executor: ResolvedExecutor | undefined;
  if (recordedExecutor) {
    // A session belongs to the CLI that started it: resume with that executor.
    executor = effective.executors[recordedExecutor.executor] ?? {
      name: recordedExecutor.executor,
      config: { type: recordedExecutor.type as never },
      source: 'implicit',
    };
    verbose(`  Executor: ${executor.name} (type ${executor.config.type}; recorded with the session)`);
  } else {
    const binding = effective.bindings[agentName] ?? {
      role: agentName,
      executor: 'claude-code',
      source: 'default' as const,
    };
    executor = effective.executors[binding.executor];
    if (!executor) {
      throw new UnknownExecutorError(
        binding.executor,
        executorChoices(effective, binding.executor),
        binding.source === 'environment' && binding.variable
          ? { kind: 'environment', variable: binding.variable, configPath: loaded.path }
          : { kind: 'file', field: `agents.bindings.${binding.role}`, configPath: loaded.path },
      );
    }
    const { source, variable } = binding;
    const from =
      source === 'environment' ? `from environment: ${variable}` : source === 'file' ? 'from config file' : source;
    verbose(`  Executor: ${executor.name} (type ${executor.config.type}; ${from})`);
  }
  const spec = executorOf(executor.config.type);
  if (!spec)
    throw new UnknownExecutorError(
      executor.config.type,
      { defined: [], types: Object.keys(EXECUTORS) },
      { kind: 'session' },
    );
  // The executor's own mistakes refuse the run (exit 4); overrides nothing reads are said once and the run goes on.
  const error = executor.source === 'file' ? executorIssues(executor, IGNORED_SETTINGS)[0] : undefined;
  if (error) throw new ConfigFileError(loaded.path, error.problem, error.field);
  const stray = checkConfig(effective, IGNORED_SETTINGS).warnings.filter((w) => w.field.startsWith('SOW_'));
  for (const w of stray) opts.say(`warning: ${issueText(w)}`);
  const settingsSource = executor.source === 'file' ? 'from config file' : 'default';
  const profileSet =
    executor.config.settings?.permissions !== undefined || executor.config.settings?.yolo_mode !== undefined;
  verbose(
    `  Settings: permissions=${permissionProfile(executor.config)} (${profileSet ? settingsSource : 'default'})` +
      `${executor.config.settings?.model ? `, model=${executor.config.settings.model} (${settingsSource})` : ''}` +
      `${executor.config.custom_args?.length ? `, custom_args=${JSON.stringify(executor.config.custom_args)}` : ''}`,
  );
  const transport =
    (recordedExecutor ? recordedExecutor.transport : executor.config.transport) === 'acp' ? 'acp' : 'cli';
  if (transport === 'acp' && !spec.acp)
    throw new ConfigFileError(
      loaded.path,
      `sow has no way to start ${spec.title} over the Agent Client Protocol`,
      `agents.executors.${executor.name}.transport`,
    );
  const { binary, install } = startedFor(spec, executor.config, transport);
  // Looked up on the context's PATH: the worker runs in the context's environment.
  const binaryPath = findOnPath(binary, env);
  if (!binaryPath) throw new ExecutorBinaryNotFoundError(binary || '(none configured)', executor.name, install);
  verbose(`  Binary: ${binaryPath}${transport === 'acp' ? ' (Agent Client Protocol)' : ''}`);
  return { loaded, effective, executor, spec, binaryPath, transport };
}

/** What the worker may do unasked: the executor's profile and the declared checks the person allowed here. `widening`
 * refuses a folder whose CLI settings would widen a safe worker (AGENT_SETTINGS_WIDEN). */
export async function workerRights(root: string, resolution: Resolution, say: (line: string) => void, env: Env) {
  const { config } = await readRepoConfig(root);
  const permissions = permissionProfile(resolution.executor.config);
  const { standingsOf } = await import('../check-allowance.js');
  const standings = standingsOf(root, config.checks ?? [], env);
  const refused = standings.checks.filter((s) => !s.allowed).map((s) => s.check.name);
  if (refused.length && permissions === 'safe') {
    say(
      `warning: ${refused.length === 1 ? 'the check' : 'the checks'} ${refused.join(', ')} ` +
        `in ${REPO_CONFIG} ${refused.length === 1 ? 'is' : 'are'} not allowed to run on this machine, so the ` +
        `worker may not run ${refused.length === 1 ? 'it' : 'them'}; ` +
        `review ${refused.length === 1 ? 'it' : 'them'} ('sow check list') and run 'sow check allow'`,
    );
  }
  const { transport, spec, executor, loaded } = resolution;
  // A safe worker does not start while its CLI's own settings in its folders widen it (AGENT_SETTINGS_WIDEN).
  const widening = (folders: readonly string[]) => {
    const found = permissions === 'safe' ? wideningSettings(spec, transport, folders) : [];
    if (found.length) throw new AgentSettingsWidenError(spec.title, executor.name, loaded.path, found);
  };
  widening([root]);
  return {
    permissions,
    checks: standings.checks.filter((s) => s.allowed).map((s) => s.check.run),
    withheld: standings.checks.filter((s) => !s.allowed).map((s) => s.check.run),
    widening,
  };
}

export type Rights = Awaited<ReturnType<typeof workerRights>>;

export async function createSessionId(resolution: Resolution, cwd: string, env: Env): Promise<string | undefined> {
  const { spec } = resolution;
  if (spec.sessionIds === 'caller') return randomUUID();
  if (spec.sessionIds !== 'precreated' || !spec.createSession) return undefined;
  const cmd = spec.createSession(resolution.executor.config);
  const lines: string[] = [];
  const outcome = await runProcess({
    binary: resolution.binaryPath,
    args: cmd.args,
    cwd,
    env,
    onLine: (l) => l.trim() && lines.push(l.trim()),
  });
  const id = lines.at(-1);
  if (outcome.code !== 0 || !id)
    throw new ExternalToolError(
      cmd.binary,
      `'${cmd.binary} ${cmd.args.join(' ')}' did not print a session id (exit ${outcome.code})`,
      outcome.stderrTail.trim().split('\n').at(-1),
    );
  return id;
}
