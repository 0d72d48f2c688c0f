/**
 * User configuration (spec 003): which executor runs which agent role. Resolution order:
 * environment (SOW_AGENTS_<ROLE>) over the config file over the defaults (Claude Code for every
 * role). Every resolved value remembers where it came from, for `config show` and `--verbose`.
 */
import { ROLES } from './agents.js';
import { EXECUTOR_TYPES, type ExecutorConfig, type ExecutorType, type PermissionProfile, type UserConfig } from './schemas.js';

export const DEFAULT_EXECUTOR = 'claude-code';
export const DEFAULT_EXECUTORS: Readonly<Record<string, ExecutorConfig>> = {
  [DEFAULT_EXECUTOR]: { type: 'claude', settings: { yolo_mode: false } },
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
}

export const envVariableFor = (role: string) => `SOW_AGENTS_${role.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

const isType = (name: string): name is ExecutorType => (EXECUTOR_TYPES as readonly string[]).includes(name);

export function resolveConfig(file: UserConfig | undefined, env: Readonly<Record<string, string | undefined>>): EffectiveConfig {
  // Null-prototype tables: a name the user chose (`toString`) finds only what the user defined.
  const executors: Record<string, ResolvedExecutor> = Object.create(null) as Record<string, ResolvedExecutor>;
  for (const [name, config] of Object.entries(DEFAULT_EXECUTORS)) executors[name] = { name, config, source: 'default' };
  for (const [name, config] of Object.entries(file?.agents?.executors ?? {})) executors[name] = { name, config, source: 'file' };

  const bindings: Record<string, ResolvedBinding> = Object.create(null) as Record<string, ResolvedBinding>;
  const roles = new Set([...ROLES, ...Object.keys(file?.agents?.bindings ?? {})]);
  const overrides: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const role of roles) {
    const variable = envVariableFor(role);
    const fromEnv = env[variable];
    const fromFile = file?.agents?.bindings && Object.hasOwn(file.agents.bindings, role) ? file.agents.bindings[role] : undefined;
    if (fromEnv) {
      bindings[role] = { role, executor: fromEnv, source: 'environment', variable };
      overrides[variable] = fromEnv;
    } else if (fromFile) bindings[role] = { role, executor: fromFile, source: 'file' };
    else bindings[role] = { role, executor: DEFAULT_EXECUTOR, source: 'default' };
  }
  // A binding may name an executor type directly (SOW_AGENTS_IMPLEMENTER=cursor): that executor
  // exists implicitly, with default settings.
  for (const b of Object.values(bindings)) {
    if (!executors[b.executor] && isType(b.executor)) executors[b.executor] = { name: b.executor, config: { type: b.executor }, source: 'implicit' };
  }
  return { executors, bindings, overrides };
}

export interface ConfigReport {
  errors: string[];
  warnings: string[];
}

/** Checks beyond the schema: bindings name defined executors, roles exist, settings fit the type. */
export function checkConfig(effective: EffectiveConfig): ConfigReport {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const b of Object.values(effective.bindings)) {
    if (!effective.executors[b.executor]) {
      const where = b.source === 'environment' ? `${b.variable}` : `agents.bindings.${b.role}`;
      errors.push(`${where} names executor '${b.executor}', which is not defined (defined: ${Object.keys(effective.executors).join(', ')})`);
    }
    if (!ROLES.includes(b.role)) warnings.push(`agents.bindings.${b.role}: '${b.role}' is not an agent role (roles: ${ROLES.join(', ')})`);
  }
  for (const e of Object.values(effective.executors)) {
    const s = e.config.settings;
    if (s?.permissions !== undefined && s.yolo_mode !== undefined && (s.permissions === 'yolo') !== s.yolo_mode) {
      errors.push(`agents.executors.${e.name}.settings: permissions: ${s.permissions} and yolo_mode: ${s.yolo_mode} disagree; keep one (yolo_mode: true is permissions: yolo)`);
    }
    if (e.config.type === 'command' && !e.config.spawn?.length) errors.push(`agents.executors.${e.name}: a 'command' executor needs a 'spawn' argv list`);
    if (e.config.type !== 'command' && (e.config.spawn || e.config.resume)) warnings.push(`agents.executors.${e.name}: 'spawn'/'resume' are used only by type 'command'`);
    if (e.config.type === 'windsurf' && e.config.settings?.model) warnings.push(`agents.executors.${e.name}: the windsurf executor ignores 'model'`);
  }
  return { errors, warnings };
}
