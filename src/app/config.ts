/** `sow config …`: the user configuration file, its validation and its effective value. */
import { ROLES } from '../domain/agents.js';
import { checkConfig, DEFAULT_EXECUTOR, resolveConfig, type EffectiveConfig } from '../domain/config.js';
import { AbortedError, ConfirmationRequiredError, SowError } from '../domain/errors.js';
import { EXECUTOR_TYPES } from '../domain/schemas.js';
import { runEditor } from '../adapters/editor.js';
import { executorOf } from '../adapters/executors/table.js';
import { findOnPath } from '../adapters/process-runner.js';
import { emitString } from '../adapters/yaml/emit.js';
import { backupAndRemoveUserConfig, readUserConfig, userConfigExists, userConfigPath, writeUserConfig, ConfigFileError } from '../adapters/user-config.js';

export function configTemplate(path: string): string {
  return `# sow agent configuration
# Location: ${path}
#
# Which agent CLI (executor) runs which agent role. Without this file every role uses Claude Code.
# Priority: 1. environment (SOW_AGENTS_IMPLEMENTER=cursor)  2. this file  3. built-in defaults.
# Check it with 'sow config validate'; see the merged result with 'sow config show'.

agents:
  executors:
    # Claude Code (the default). Uncomment to change its settings.
    # claude-code:
    #   type: claude
    #   settings:
    #     yolo_mode: true     # skip permission prompts (--dangerously-skip-permissions)
    #     model: sonnet       # or opus, haiku
    #   custom_args: []       # extra flags, added last

    # Cursor (cursor-agent):
    # cursor:
    #   type: cursor
    #   settings:
    #     yolo_mode: true

    # Other built-in types: ${EXECUTOR_TYPES.filter((t) => t !== 'claude' && t !== 'cursor' && t !== 'command').join(', ')}.
    # Any other agent CLI, with argv templates ({prompt_file} {prompt} {session_id} {model} {cwd}):
    # my-agent:
    #   type: command
    #   spawn: [my-agent, --session, "{session_id}", --prompt-file, "{prompt_file}"]
    #   resume: [my-agent, --resume, "{session_id}", --prompt-file, "{prompt_file}"]

  # Which executor handles which role.
  bindings:
${ROLES.map((r) => `    ${r}: ${DEFAULT_EXECUTOR}`).join('\n')}
`;
}

export function configPath(): { path: string; exists: boolean } {
  const path = userConfigPath();
  return { path, exists: userConfigExists(path) };
}

/** Writes the template; over an existing file only when the person says yes (a question, or --yes). */
export async function initConfig(yes: boolean, interactive: boolean, confirm: (q: string) => Promise<boolean>): Promise<{ path: string; overwritten: boolean }> {
  const path = userConfigPath();
  const exists = userConfigExists(path);
  if (exists && !yes) {
    if (!interactive) throw new ConfirmationRequiredError(`replacing ${path} with the template`, '--yes');
    if (!(await confirm(`${path} exists. Replace it with the template?`))) throw new AbortedError('config init');
  }
  writeUserConfig(path, configTemplate(path));
  return { path, overwritten: exists };
}

export interface ValidationLine { level: 'ok' | 'warning' | 'error'; text: string }
export interface ValidationReport { path: string; exists: boolean; valid: boolean; lines: ValidationLine[] }

export async function validateConfig(): Promise<ValidationReport> {
  const path = userConfigPath();
  const lines: ValidationLine[] = [];
  if (!userConfigExists(path)) {
    lines.push({ level: 'ok', text: `no configuration file; the built-in defaults are used (every role: ${DEFAULT_EXECUTOR})` });
    // Environment overrides still apply, and can still be wrong.
    const report = checkConfig(resolveConfig(undefined, process.env));
    for (const e of report.errors) lines.push({ level: 'error', text: e });
    for (const w of report.warnings) lines.push({ level: 'warning', text: w });
    return { path, exists: false, valid: report.errors.length === 0, lines };
  }
  let loaded;
  try {
    loaded = await readUserConfig(path);
  } catch (err) {
    if (!(err instanceof ConfigFileError)) throw err;
    const syntax = /not valid YAML/.test(err.message);
    if (!syntax) lines.push({ level: 'ok', text: 'YAML syntax valid' });
    lines.push({ level: 'error', text: `${syntax ? 'YAML syntax' : 'schema'}: ${err.message.replace(`${path}: `, '')}` });
    return { path, exists: true, valid: false, lines };
  }
  lines.push({ level: 'ok', text: 'YAML syntax valid' }, { level: 'ok', text: 'schema valid' });
  const effective = resolveConfig(loaded.config, process.env);
  const types = [...new Set(Object.values(effective.executors).map((e) => e.config.type))];
  lines.push({ level: 'ok', text: `executor types valid (${types.join(', ')})` });
  const report = checkConfig(effective);
  if (report.errors.length === 0) lines.push({ level: 'ok', text: 'all bindings reference defined executors' });
  for (const e of report.errors) lines.push({ level: 'error', text: e });
  for (const w of report.warnings) lines.push({ level: 'warning', text: w });
  const used = new Set(Object.values(effective.bindings).map((b) => b.executor));
  for (const name of used) {
    const executor = effective.executors[name];
    if (!executor) continue;
    const spec = executorOf(executor.config.type);
    if (!spec) continue;
    const binary = spec.binary(executor.config);
    if (!findOnPath(binary)) lines.push({ level: 'warning', text: `${binary || '(no binary)'} not found on PATH\n  The '${name}' executor requires it. Install: ${spec.install}` });
  }
  return { path, exists: true, valid: report.errors.length === 0, lines };
}

const note = (source: string, variable?: string) =>
  source === 'environment' ? `(from environment: ${variable})` : source === 'file' ? '(from config file)' : source === 'implicit' ? '(implied by a binding)' : '(default)';

export async function showConfig(): Promise<{ path: string; exists: boolean; effective: EffectiveConfig; text: string }> {
  const loaded = await readUserConfig();
  const effective = resolveConfig(loaded.config, process.env);
  const overrides = Object.entries(effective.overrides).map(([k, v]) => `${k}=${v}`);
  const out = [
    '# Effective configuration (merged from defaults + file + environment)',
    `# Config file: ${loaded.path} (${loaded.exists ? 'exists' : 'not found'})`,
    `# Environment overrides: ${overrides.length ? overrides.join(', ') : 'none'}`,
    '',
    'agents:',
    '  executors:',
  ];
  for (const e of Object.values(effective.executors)) {
    const src = note(e.source);
    out.push(`    ${emitString(e.name)}:  # ${src}`, `      type: ${e.config.type}`, '      settings:');
    out.push(`        yolo_mode: ${e.config.settings?.yolo_mode ?? false}  ${e.config.settings?.yolo_mode === undefined ? '# (default)' : `# ${src}`}`);
    if (e.config.settings?.model) out.push(`        model: ${emitString(e.config.settings.model)}  # ${src}`);
    if (e.config.custom_args?.length) out.push(`      custom_args: ${JSON.stringify(e.config.custom_args)}  # ${src}`);
    if (e.config.spawn) out.push(`      spawn: ${JSON.stringify(e.config.spawn)}  # ${src}`);
    if (e.config.resume) out.push(`      resume: ${JSON.stringify(e.config.resume)}  # ${src}`);
  }
  out.push('  bindings:');
  for (const b of Object.values(effective.bindings)) out.push(`    ${emitString(b.role)}: ${emitString(b.executor)}  # ${note(b.source, b.variable)}`);
  return { path: loaded.path, exists: loaded.exists, effective, text: out.join('\n') };
}

export async function editConfig(): Promise<{ path: string; created: boolean; report: ValidationReport }> {
  const path = userConfigPath();
  const editor = process.env['VISUAL'] || process.env['EDITOR'];
  if (!editor) throw new SowError('NO_EDITOR', 'failed', 'no editor is set', `set EDITOR (e.g. export EDITOR="code -w"), or edit ${path} directly`);
  const created = !userConfigExists(path);
  if (created) writeUserConfig(path, configTemplate(path));
  runEditor(editor, path);
  return { path, created, report: await validateConfig() };
}

export async function resetConfig(yes: boolean, interactive: boolean, confirm: (q: string) => Promise<boolean>): Promise<{ path: string; backup?: string; removed: boolean }> {
  const path = userConfigPath();
  if (!userConfigExists(path)) return { path, removed: false };
  if (!yes) {
    if (!interactive) throw new ConfirmationRequiredError(`removing ${path}`, '--yes');
    if (!(await confirm(`Remove ${path} and go back to the defaults? A backup is kept.`))) throw new AbortedError('config reset');
  }
  return { path, backup: backupAndRemoveUserConfig(path), removed: true };
}

