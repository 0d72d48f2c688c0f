/** `sow config …` (spec 003): the user configuration file, its validation and its effective value. */
import { copyFileSync, existsSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { ROLES } from '../domain/agents.js';
import { checkConfig, DEFAULT_EXECUTOR, resolveConfig, type EffectiveConfig } from '../domain/config.js';
import { AbortedError, ConfirmationRequiredError, ExternalToolError, SowError } from '../domain/errors.js';
import { EXECUTOR_TYPES } from '../domain/schemas.js';
import { EXECUTORS } from '../adapters/executors/table.js';
import { findOnPath } from '../adapters/process-runner.js';
import { emitString } from '../adapters/yaml-emit.js';
import { readUserConfig, userConfigPath, ConfigFileError } from '../adapters/user-config.js';

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
  return { path, exists: existsSync(path) };
}

export async function initConfig(force: boolean, interactive: boolean, confirm: (q: string) => Promise<boolean>): Promise<{ path: string; overwritten: boolean }> {
  const path = userConfigPath();
  const exists = existsSync(path);
  if (exists && !force) {
    if (!interactive) throw new SowError('CONFIG_EXISTS', 'failed', `${path} already exists`, "edit it with 'sow config edit', or pass --force to replace it with the template");
    if (!(await confirm(`${path} exists. Replace it with the template?`))) throw new AbortedError('config init');
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, configTemplate(path));
  return { path, overwritten: exists };
}

export interface ValidationLine { level: 'ok' | 'warning' | 'error'; text: string }
export interface ValidationReport { path: string; exists: boolean; valid: boolean; lines: ValidationLine[] }

export async function validateConfig(): Promise<ValidationReport> {
  const path = userConfigPath();
  const lines: ValidationLine[] = [];
  if (!existsSync(path)) {
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
    const spec = EXECUTORS[executor.config.type];
    const binary = spec.binary(executor.config);
    if (!findOnPath(binary)) lines.push({ level: 'warning', text: `${binary || '(no binary)'} not found on PATH\n  The '${name}' executor requires it. Install: ${spec.install}` });
  }
  return { path, exists: true, valid: report.errors.length === 0, lines };
}

export function renderValidation(r: ValidationReport): string {
  const mark = { ok: '✓', warning: '⚠', error: '✗' } as const;
  const warnings = r.lines.filter((l) => l.level === 'warning').length;
  const errors = r.lines.filter((l) => l.level === 'error').length;
  const verdict = errors ? `Configuration is invalid: ${errors} error(s)${warnings ? `, ${warnings} warning(s)` : ''}.` : `Configuration is valid${warnings ? ` with ${warnings} warning(s)` : ''}.`;
  return [`Validating configuration at ${r.path}...`, '', ...r.lines.map((l) => `${mark[l.level]} ${l.level === 'warning' ? 'Warning: ' : ''}${l.text}`), '', verdict].join('\n');
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

/** Splits $EDITOR the way a shell would for simple cases: `code -w`, `"/my editor/bin" --wait`. */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(command))) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

export async function editConfig(): Promise<{ path: string; created: boolean; report: ValidationReport }> {
  const path = userConfigPath();
  const editor = process.env['VISUAL'] || process.env['EDITOR'];
  if (!editor) throw new SowError('NO_EDITOR', 'failed', 'no editor is set', `set EDITOR (e.g. export EDITOR="code -w"), or edit ${path} directly`);
  const created = !existsSync(path);
  if (created) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, configTemplate(path));
  }
  const [binary, ...args] = splitCommand(editor);
  const result = spawnSync(binary!, [...args, path], { stdio: 'inherit' });
  if (result.error) throw new ExternalToolError(binary!, (result.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found on PATH' : result.error.message, 'check the EDITOR variable');
  if (result.status !== 0) throw new ExternalToolError(binary!, `exited with code ${result.status}`, `the file is at ${path}`);
  return { path, created, report: await validateConfig() };
}

export async function resetConfig(force: boolean, interactive: boolean, confirm: (q: string) => Promise<boolean>): Promise<{ path: string; backup?: string; removed: boolean }> {
  const path = userConfigPath();
  if (!existsSync(path)) return { path, removed: false };
  if (!force) {
    if (!interactive) throw new ConfirmationRequiredError(`removing ${path}`, '--force');
    if (!(await confirm(`Remove ${path} and go back to the defaults? A backup is kept.`))) throw new AbortedError('config reset');
  }
  const backup = `${path}.backup`;
  copyFileSync(path, backup);
  unlinkSync(path);
  return { path, backup, removed: true };
}

