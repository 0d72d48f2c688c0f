// User configuration: each agent role's executor from SOW_AGENTS_<ROLE>, the config file, then defaults; each value
// remembers its source for `config show`.
import { ROLES } from './agents.js';
import {
  EXECUTOR_TYPES,
  UserConfigSchema,
  type ExecutorConfig,
  type ExecutorType,
  type PermissionProfile,
  type UserConfig,
} from './config-schemas.js';
import { describeUnknownKey, findUnknownKey } from './strict-keys.js';
import { isRecord } from './json.js';
import { nearMiss } from './suggest.js';

export const DEFAULT_EXECUTOR = 'claude-code';
export const DEFAULT_EXECUTORS: Readonly<Record<string, ExecutorConfig>> = {
  [DEFAULT_EXECUTOR]: { type: 'claude', settings: { permissions: 'safe' } },
};

export type Source = 'default' | 'file' | 'environment' | 'implicit';

/** The executor's permission profile: settings.permissions, else yolo_mode (true is yolo), else safe. */
export function permissionProfile(config: ExecutorConfig): PermissionProfile {
  return config.settings?.permissions ?? (config.settings?.yolo_mode === true ? 'yolo' : 'safe');
}

export interface ResolvedExecutor {
  name: string;
  config: ExecutorConfig;
  source: Source;
}

export interface ResolvedBinding {
  role: string;
  executor: string;
  source: Source;
  /** The environment variable, when source is 'environment'. */
  variable?: string;
}

export interface EffectiveConfig {
  executors: Record<string, ResolvedExecutor>;
  bindings: Record<string, ResolvedBinding>;
  overrides: Record<string, string>;
  /** SOW_AGENTS_* variables that name no role, so nothing reads them (a typo, mostly). */
  strayVariables: string[];
}

const ENV_PREFIX = 'SOW_AGENTS_';
export const envVariableFor = (role: string) => `${ENV_PREFIX}${role.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/** The types a binding may name directly (not `command`: it has no argv without a definition). */
export const TYPES_BY_NAME: readonly ExecutorType[] = EXECUTOR_TYPES.filter((t) => t !== 'command');
const isTypeByName = (name: string): name is ExecutorType => (TYPES_BY_NAME as readonly string[]).includes(name);

export function resolveConfig(
  file: UserConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
): EffectiveConfig {
  // Null-prototype tables: a name the user chose (`toString`) finds only what the user defined.
  const executors: Record<string, ResolvedExecutor> = Object.create(null) as Record<string, ResolvedExecutor>;
  for (const [name, config] of Object.entries(DEFAULT_EXECUTORS)) executors[name] = { name, config, source: 'default' };
  for (const [name, config] of Object.entries(file?.agents?.executors ?? {}))
    executors[name] = { name, config, source: 'file' };

  const bindings: Record<string, ResolvedBinding> = Object.create(null) as Record<string, ResolvedBinding>;
  const roles = new Set([...ROLES, ...Object.keys(file?.agents?.bindings ?? {})]);
  const overrides: Record<string, string> = Object.create(null) as Record<string, string>;
  const read = new Set<string>();
  for (const role of roles) {
    const variable = envVariableFor(role);
    read.add(variable);
    const fromEnv = env[variable];
    const fromFile =
      file?.agents?.bindings && Object.hasOwn(file.agents.bindings, role) ? file.agents.bindings[role] : undefined;
    if (fromEnv) {
      bindings[role] = { role, executor: fromEnv, source: 'environment', variable };
      overrides[variable] = fromEnv;
    } else if (fromFile) bindings[role] = { role, executor: fromFile, source: 'file' };
    else bindings[role] = { role, executor: DEFAULT_EXECUTOR, source: 'default' };
  }
  // A binding may name an executor type directly (SOW_AGENTS_IMPLEMENTER=cursor), with default settings.
  for (const b of Object.values(bindings)) {
    if (!executors[b.executor] && isTypeByName(b.executor))
      executors[b.executor] = { name: b.executor, config: { type: b.executor }, source: 'implicit' };
  }
  const strayVariables = Object.keys(env)
    .filter((k) => k.startsWith(ENV_PREFIX) && k.length > ENV_PREFIX.length && env[k] && !read.has(k))
    .sort();
  return { executors, bindings, overrides, strayVariables };
}

/** One finding about the configuration: the field (or environment variable) and what is wrong. */
export interface ConfigIssue {
  field: string;
  problem: string;
  /** The executor it concerns, when it concerns one. */
  executor?: string;
}

export const issueText = (i: ConfigIssue): string => `${i.field}: ${i.problem}`;

/** What a binding may name (executors defined or defaulted, then types by name), and `name`'s near miss. */
export function executorChoices(
  effective: EffectiveConfig,
  name: string,
): { defined: string[]; types: string[]; suggestion?: string } {
  const defined = Object.values(effective.executors)
    .filter((e) => e.source !== 'implicit')
    .map((e) => e.name);
  const types = TYPES_BY_NAME.filter((t) => !defined.includes(t));
  const suggestion = nearMiss(name, [...defined, ...types]);
  return { defined, types, ...(suggestion ? { suggestion } : {}) };
}

/** A binding's role that is a near miss of a real one (`implementr`): its binding would never apply. */
function mistypedRole(role: string): string | undefined {
  return ROLES.includes(role) ? undefined : nearMiss(role, ROLES);
}

/** Mistakes in how the file is written (unknown keys, a mistyped role), checked on the parsed YAML. */
export function typosIn(data: unknown): ConfigIssue[] {
  const found: ConfigIssue[] = [];
  const unknown = findUnknownKey(UserConfigSchema, data);
  if (unknown) found.push({ field: unknown.path, problem: describeUnknownKey(unknown) });
  const bindings = (data as { agents?: { bindings?: unknown } } | null | undefined)?.agents?.bindings;
  if (isRecord(bindings)) {
    for (const role of Object.keys(bindings)) {
      const suggestion = mistypedRole(role);
      if (suggestion)
        found.push({
          field: `agents.bindings.${role}`,
          problem: `'${role}' is not an agent role; did you mean '${suggestion}'?`,
        });
    }
  }
  return found;
}

export type ExecutorSetting = 'permissions' | 'yolo_mode' | 'model' | 'spawn' | 'resume' | 'transport';

/** The settings each executor type does not take, with why: handed in from adapters/executors. */
export type IgnoredSettings = Readonly<Record<ExecutorType, Readonly<Partial<Record<ExecutorSetting, string>>>>>;

/** The errors of one executor: settings that disagree, a missing argv, settings its type would silently drop. */
export function executorIssues(e: ResolvedExecutor, ignored: IgnoredSettings): ConfigIssue[] {
  const errors: ConfigIssue[] = [];
  const base = `agents.executors.${e.name}`;
  const c = e.config;
  const s = c.settings;
  if (s?.permissions !== undefined && s.yolo_mode !== undefined && (s.permissions === 'yolo') !== s.yolo_mode) {
    errors.push({
      field: `${base}.settings`,
      problem:
        `permissions: ${s.permissions} and yolo_mode: ${s.yolo_mode} disagree; keep one (yolo_mode: true is ` +
        `permissions: yolo)`,
      executor: e.name,
    });
  }
  if (c.type === 'command' && !c.spawn?.length)
    errors.push({ field: base, problem: "a 'command' executor needs a 'spawn' argv list", executor: e.name });
  const present: [ExecutorSetting, string, boolean][] = [
    ['permissions', `${base}.settings.permissions`, s?.permissions !== undefined],
    ['yolo_mode', `${base}.settings.yolo_mode`, s?.yolo_mode !== undefined],
    ['model', `${base}.settings.model`, s?.model !== undefined],
    ['spawn', `${base}.spawn`, c.spawn !== undefined],
    ['resume', `${base}.resume`, c.resume !== undefined],
    // transport: cli is every type's; acp only where the CLI speaks it.
    ['transport', `${base}.transport`, c.transport === 'acp'],
  ];
  for (const [setting, field, set] of present) {
    const why = set ? ignored[c.type]?.[setting] : undefined;
    if (why)
      errors.push({
        field,
        problem: `the ${c.type} executor type does not take '${setting}' (${why}); remove it, or pick a type that does`,
        executor: e.name,
      });
  }
  return errors;
}

/** Checks beyond the schema: bindings name defined executors, roles exist, settings fit the type. */
export function checkConfig(
  effective: EffectiveConfig,
  ignored: IgnoredSettings,
): { errors: ConfigIssue[]; warnings: ConfigIssue[] } {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  for (const b of Object.values(effective.bindings)) {
    if (!effective.executors[b.executor]) {
      const field = b.source === 'environment' ? `${b.variable} (environment variable)` : `agents.bindings.${b.role}`;
      const { defined, types, suggestion } = executorChoices(effective, b.executor);
      errors.push({
        field,
        problem:
          `executor '${b.executor}' is not defined (defined: ${defined.join(', ')}; built-in types, usable by ` +
          `name: ${types.join(', ')})${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
      });
    }
    // A near miss of a role is a typo, reported (and refused) with the other typos of the file.
    if (!ROLES.includes(b.role) && !mistypedRole(b.role)) {
      warnings.push({
        field: `agents.bindings.${b.role}`,
        problem: `'${b.role}' is not an agent role, so this binding is never used (roles: ${ROLES.join(', ')})`,
      });
    }
  }
  for (const variable of effective.strayVariables) {
    const role = variable.slice(ENV_PREFIX.length).toLowerCase();
    const suggestion = nearMiss(role, ROLES);
    warnings.push({
      field: `${variable} (environment variable)`,
      problem:
        `'${role}' is not an agent role, so nothing reads ` +
        `it${suggestion ? `; did you mean ${envVariableFor(suggestion)}?` : ` (roles: ${ROLES.join(', ')})`}`,
    });
  }
  for (const e of Object.values(effective.executors)) errors.push(...executorIssues(e, ignored));
  return { errors, warnings };
}
