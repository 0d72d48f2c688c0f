/** `sow config …`: the user configuration file, its validation and its effective value. */
import { ROLES } from '../domain/agents.js';
import {
  checkConfig,
  DEFAULT_EXECUTOR,
  issueText,
  permissionProfile,
  resolveConfig,
  type ConfigIssue,
  type EffectiveConfig,
  type ExecutorSetting,
  type ResolvedExecutor,
} from '../domain/config.js';
import { AbortedError, ConfirmationRequiredError, errorClass, SowError } from '../domain/errors.js';
import { EXECUTOR_TYPES } from '../domain/config-schemas.js';
import { runEditor } from '../adapters/editor.js';
import { readTemplate, renderTemplate } from '../adapters/templates.js';
import { executorOf, IGNORED_SETTINGS, startedFor, typeRefuses } from '../adapters/executors/registry.js';
import { findOnPath } from '../adapters/process-runner.js';
import { findWorkspaceRoot } from '../adapters/repo.js';
import type { AppContext } from './context.js';
import { readRepoConfig, REPO_CONFIG } from '../adapters/repo-config.js';
import { emitString } from '../adapters/yaml/emit.js';
import {
  backupAndRemoveUserConfig,
  inspectUserConfig,
  readUserConfig,
  userConfigExists,
  userConfigPath,
  writeUserConfig,
} from '../adapters/user-config.js';

/** The commented user configuration `config init` and `config edit` write (templates/config/user-config.yaml). */
export function configTemplate(path: string): string {
  return renderTemplate(readTemplate('config/user-config.yaml'), {
    path,
    types: EXECUTOR_TYPES.filter((t) => t !== 'claude' && t !== 'cursor' && t !== 'command').join(', '),
    bindings: ROLES.map((r) => `    ${r}: ${DEFAULT_EXECUTOR}`).join('\n'),
  });
}

/** The user configuration file of whoever runs the command: where their environment (XDG_CONFIG_HOME, HOME) puts it. */
const pathOf = (ctx: AppContext): string => userConfigPath(ctx.env);

export function configPath(ctx: AppContext): { path: string; exists: boolean } {
  const path = pathOf(ctx);
  return { path, exists: userConfigExists(path) };
}

/** Writes the template; over an existing file only when the person says yes (a question, or --yes). */
export async function initConfig(
  ctx: AppContext,
  yes: boolean,
  interactive: boolean,
  confirm: (q: string) => Promise<boolean>,
): Promise<{ path: string; overwritten: boolean }> {
  const path = pathOf(ctx);
  const exists = userConfigExists(path);
  if (exists && !yes) {
    if (!interactive) throw new ConfirmationRequiredError(`replacing ${path} with the template`, '--yes');
    if (!(await confirm(`${path} exists. Replace it with the template?`))) throw new AbortedError('config init');
  }
  writeUserConfig(path, configTemplate(path));
  return { path, overwritten: exists };
}

export interface ValidationLine {
  level: 'ok' | 'warning' | 'error';
  text: string;
  /** Where an error line comes from, so the refusal can name the file (or variable) and its fix. */
  source?: 'file' | 'environment' | 'repository';
}
export interface ValidationReport {
  path: string;
  exists: boolean;
  valid: boolean;
  lines: ValidationLine[];
  /** The repository's .sow/config.yaml, when run inside a sow workspace. */
  repository?: { root: string; path: string; exists: boolean; valid: boolean };
}

const isEnvironmentIssue = (i: ConfigIssue) => i.field.startsWith('SOW_');
const issueLines = (level: 'error' | 'warning', issues: ConfigIssue[]): ValidationLine[] =>
  issues.map((i) => ({
    level,
    text: issueText(i),
    ...(level === 'error' ? { source: isEnvironmentIssue(i) ? ('environment' as const) : ('file' as const) } : {}),
  }));

/** The user configuration (with the environment's overrides), then, inside a workspace, .sow/config.yaml. */
export async function validateConfig(ctx: AppContext, opts: { repository?: boolean } = {}): Promise<ValidationReport> {
  const user = await validateUserConfig(ctx);
  const repository = opts.repository === false ? undefined : await validateRepoConfig(ctx);
  if (!repository) return user;
  return {
    ...user,
    valid: user.valid && repository.report.valid,
    lines: [...user.lines, ...repository.lines],
    repository: repository.report,
  };
}

/** The user configuration and the environment's overrides; `binaries: false` does not look for the CLIs. */
export async function validateUserConfig(
  ctx: AppContext,
  opts: { binaries?: boolean } = {},
): Promise<ValidationReport> {
  const inspected = await inspectUserConfig(pathOf(ctx));
  const path = inspected.path;
  const lines: ValidationLine[] = [];
  const ok = (text: string) => lines.push({ level: 'ok', text });
  const done = () => ({ path, exists: inspected.exists, valid: !lines.some((l) => l.level === 'error'), lines });
  if (!inspected.exists) {
    ok(`no configuration file; the built-in defaults are used (every role: ${DEFAULT_EXECUTOR})`);
    // Environment overrides still apply, and can still be wrong.
    const report = checkConfig(resolveConfig(undefined, ctx.env), IGNORED_SETTINGS);
    lines.push(...issueLines('error', report.errors), ...issueLines('warning', report.warnings));
    return done();
  }
  if (inspected.syntax !== undefined) {
    const syntax = /not valid YAML/.test(inspected.syntax);
    if (!syntax) ok('YAML syntax valid');
    lines.push({ level: 'error', text: `${syntax ? 'YAML syntax' : 'schema'}: ${inspected.syntax}`, source: 'file' });
    return done();
  }
  ok('YAML syntax valid');
  // Every typo, then the schema: a typo is often why the schema fails (`typ:` leaves `type` missing).
  lines.push(...issueLines('error', inspected.typos));
  if (inspected.schema) {
    lines.push({ level: 'error', text: `schema: ${issueText(inspected.schema)}`, source: 'file' });
    return done();
  }
  if (inspected.typos.length === 0) ok('schema valid');
  const effective = resolveConfig(inspected.config, ctx.env);
  const types = [...new Set(Object.values(effective.executors).map((e) => e.config.type))];
  ok(`executor types valid (${types.join(', ')})`);
  const report = checkConfig(effective, IGNORED_SETTINGS);
  if (report.errors.length === 0) ok('all bindings reference defined executors');
  lines.push(...issueLines('error', report.errors), ...issueLines('warning', report.warnings));
  if (opts.binaries !== false) {
    for (const cli of agentClis(effective, ctx.env)) {
      if (!cli.found)
        lines.push({
          level: MISSING_CLI_LEVEL,
          text:
            `${cli.binary || '(no binary)'} not found on PATH\n  The '${cli.executor}' executor requires it. ` +
            `Install: ${cli.install}`,
        });
    }
  }
  return done();
}

/** The CLI of each defined executor a binding names, and where it is on `env`'s PATH (`found`, when it is). */
export function agentClis(effective: EffectiveConfig, env: AppContext['env']) {
  const named = new Set(Object.values(effective.bindings).map((b) => b.executor));
  return [...named].flatMap((name) => {
    const executor = effective.executors[name];
    const spec = executor && executorOf(executor.config.type);
    if (!executor || !spec) return [];
    const { binary, install } = startedFor(spec, executor.config, executor.config.transport);
    const found = binary ? findOnPath(binary, env) : undefined;
    return [{ executor: name, config: executor.config, spec, binary, install, found }];
  });
}

/** A bound CLI missing from PATH is a warning: the configuration is right, and spawn says how to install it. */
export const MISSING_CLI_LEVEL = 'warning' as const;

/** The repository configuration, when the folder is inside a sow workspace; undefined outside one. */
export async function validateRepoConfig(ctx: AppContext) {
  let root: string;
  try {
    root = findWorkspaceRoot(ctx.cwd);
  } catch (err) {
    // Not in a repository, or sow is not initialised there: there is no repository configuration.
    if (err instanceof SowError && err.kind === 'failed') return undefined;
    throw err;
  }
  const said = (exists: boolean, line: ValidationLine) => ({
    report: { root, path: REPO_CONFIG, exists, valid: line.level !== 'error' },
    lines: [line],
  });
  try {
    const { exists, config } = await readRepoConfig(root);
    if (!exists)
      return said(false, { level: 'ok', text: `${REPO_CONFIG}: none in this repository (it declares no checks)` });
    const checks = (config.checks ?? []).map((c) => c.name);
    const declared = checks.length ? `checks: ${checks.join(', ')}` : 'no checks declared';
    return said(true, { level: 'ok', text: `${REPO_CONFIG} valid (${declared})` });
  } catch (err) {
    if (!(err instanceof SowError) || err.code !== 'CONFIG_INVALID') throw err;
    return said(true, { level: 'error', text: err.message, source: 'repository' });
  }
}

/** The refusal after a report with errors (exit 4): each error with its file or variable, and each place's fix. */
export class ConfigInvalidError extends errorClass(
  'CONFIG_INVALID',
  'state',
  (report: ValidationReport, again: string) => {
    const errors = report.lines.filter((l) => l.level === 'error');
    const where = new Set(errors.map((l) => l.source ?? 'file'));
    const fixes = [
      ...(where.has('file') ? [`fix ${report.path} with 'sow config edit'`] : []),
      ...(where.has('environment') ? ['change or unset the environment variable named'] : []),
      ...(where.has('repository') ? [`fix ${REPO_CONFIG} (its fields: 'sow schema repo-config')`] : []),
    ];
    return [
      errors.map((l) => ((l.source ?? 'file') === 'file' ? `${report.path}: ${l.text}` : l.text)).join('; '),
      `${fixes.join('; ')}; then run '${again}' again`,
      { file: report.path, lines: report.lines, ...(report.repository ? { repository: report.repository } : {}) },
    ];
  },
) {}

const NOTES: Readonly<Record<string, string>> = {
  file: '(from config file)',
  implicit: '(implied by a binding)',
  default: '(default)',
};
const note = (source: string, variable?: string) =>
  source === 'environment' ? `(from environment: ${variable})` : NOTES[source]!;

/** One executor's lines in `config show`: each setting with its source, the permission profile first. */
function executorLines(e: ResolvedExecutor): string[] {
  const src = note(e.source);
  const { type, settings: s, custom_args: custom, spawn, resume } = e.config;
  const said = (setting: ExecutorSetting, value: unknown) =>
    `${setting}: ${String(value)}  # ${src}` +
    (typeRefuses(type, setting) ? `, the ${type} executor type does not take it: run 'sow config validate'` : '');
  const out = [`    ${emitString(e.name)}:  # ${src}`, `      type: ${type}`, '      settings:'];
  if (typeRefuses(type, 'permissions')) {
    if (s?.permissions !== undefined) out.push(`        ${said('permissions', s.permissions)}`);
    if (s?.yolo_mode !== undefined) out.push(`        ${said('yolo_mode', s.yolo_mode)}`);
    out.push(
      `        # permissions do not ` +
        `apply: ${type === 'command' ? 'your own spawn/resume argv decides' : 'its custom_args decide'} what the ` +
        `agent may do`,
    );
  } else {
    const how =
      s?.permissions !== undefined
        ? src
        : s?.yolo_mode !== undefined
          ? `${src.replace(/\)$/, '')}: yolo_mode: ${s.yolo_mode})`
          : '(default)';
    // Both set and disagreeing: spawn refuses it (exit 4); say so here rather than pick one silently.
    const conflict =
      s?.permissions !== undefined && s.yolo_mode !== undefined && (s.permissions === 'yolo') !== s.yolo_mode;
    const disagrees = conflict
      ? `; but yolo_mode: ${s.yolo_mode} disagrees, so workers will not start: run 'sow config validate'`
      : '';
    out.push(`        permissions: ${permissionProfile(e.config)}  # ${how}${disagrees}`);
  }
  if (s?.model) out.push(`        ${said('model', emitString(s.model))}`);
  if (custom?.length) out.push(`      custom_args: ${JSON.stringify(custom)}  # ${src}`);
  if (spawn) out.push(`      ${said('spawn', JSON.stringify(spawn))}`);
  if (resume) out.push(`      ${said('resume', JSON.stringify(resume))}`);
  return out;
}

export async function showConfig(
  ctx: AppContext,
): Promise<{ path: string; exists: boolean; effective: EffectiveConfig; text: string }> {
  const loaded = await readUserConfig(pathOf(ctx));
  const effective = resolveConfig(loaded.config, ctx.env);
  const overrides = Object.entries(effective.overrides).map(([k, v]) => `${k}=${v}`);
  const out = [
    '# Effective configuration (merged from defaults + file + environment)',
    `# Config file: ${loaded.path} (${loaded.exists ? 'exists' : 'not found'})`,
    `# Environment overrides: ${overrides.length ? overrides.join(', ') : 'none'}`,
    '# permissions: safe (the default) reads and edits files in the repository and runs sow and the',
    "#   repository's declared checks; yolo allows anything. (yolo_mode: true means permissions: yolo.)",
    '',
    'agents:',
    '  executors:',
  ];
  for (const e of Object.values(effective.executors)) out.push(...executorLines(e));
  out.push('  bindings:');
  for (const b of Object.values(effective.bindings))
    out.push(`    ${emitString(b.role)}: ${emitString(b.executor)}  # ${note(b.source, b.variable)}`);
  return { path: loaded.path, exists: loaded.exists, effective, text: out.join('\n') };
}

export async function editConfig(
  ctx: AppContext,
): Promise<{ path: string; created: boolean; report: ValidationReport }> {
  const path = pathOf(ctx);
  const editor = ctx.env['VISUAL'] || ctx.env['EDITOR'];
  if (!editor)
    throw new SowError(
      'NO_EDITOR',
      'failed',
      'no editor is set',
      `set EDITOR (e.g. export EDITOR="code -w"), or edit ${path} directly`,
    );
  const created = !userConfigExists(path);
  if (created) writeUserConfig(path, configTemplate(path));
  runEditor(editor, path, ctx.env);
  return { path, created, report: await validateConfig(ctx, { repository: false }) };
}

export async function resetConfig(
  ctx: AppContext,
  yes: boolean,
  interactive: boolean,
  confirm: (q: string) => Promise<boolean>,
): Promise<{ path: string; backup?: string; removed: boolean }> {
  const path = pathOf(ctx);
  if (!userConfigExists(path)) return { path, removed: false };
  if (!yes) {
    if (!interactive) throw new ConfirmationRequiredError(`removing ${path}`, '--yes');
    if (!(await confirm(`Remove ${path} and go back to the defaults? A backup is kept.`)))
      throw new AbortedError('config reset');
  }
  return { path, backup: backupAndRemoveUserConfig(path), removed: true };
}
