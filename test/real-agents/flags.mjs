/**
 * Every flag each sow executor passes, checked against the live CLI's own --help (the same check as
 * src/adapters/executors/argv.test.ts does against the captured help texts).
 */
import { join } from 'node:path';
import { importSource } from '../../scripts/import-source.mjs';
import { run, stripAnsi } from './util.mjs';

/** The executor registry of the source tree, as sow builds it. */
export async function loadExecutors(repoRoot) {
  return (await importSource(repoRoot, 'src/adapters/executors/registry.ts')).EXECUTORS;
}

/** Which help text documents each executor's spawn and resume command. */
export const HELP_COMMANDS = {
  claude: { spawn: ['--help'], resume: ['--help'] },
  codex: { spawn: ['exec', '--help'], resume: ['exec', 'resume', '--help'] },
  gemini: { spawn: ['--help'], resume: ['--help'] },
  copilot: { spawn: ['--help'], resume: ['--help'] },
  opencode: { spawn: ['run', '--help'], resume: ['run', '--help'] }, // printed on stderr
};

export const flagsOf = (args) =>
  args.filter((a) => a.startsWith('-') && a !== '-' && a !== '--').map((a) => a.split('=')[0]);
export const documented = (text, flag) =>
  new RegExp(`(^|[\\s,\\[])${flag.replace(/[-]/g, '\\-')}(?=[\\s,=\\]<]|$)`, 'm').test(text);

/** The configurations whose argv is checked: yolo with a model, and the defaults (safe) with a declared check. */
export const CONFIGS = [
  { label: 'yolo_mode+model', settings: { yolo_mode: true, model: 'some-model' }, permissions: 'yolo', checks: [] },
  { label: 'safe+check', settings: undefined, permissions: 'safe', checks: ['npm test'] },
];

export function invocations(EXECUTORS, type, cwd, { settings, permissions, checks } = CONFIGS[0]) {
  const ctx = {
    config: settings ? { type, settings } : { type },
    cwd,
    prompt: 'the prompt',
    promptFile: join(cwd, 'prompt.md'),
    sessionId: '11111111-2222-4333-8444-555555555555',
    runningAsRoot: process.getuid?.() === 0,
    permissions,
    checks,
    protect: ['.gemini/**'],
  };
  return { spawn: EXECUTORS[type].spawn(ctx), resume: EXECUTORS[type].resume(ctx) };
}

/**
 * For one CLI: runs the help commands, checks every flag. Returns
 * { ok, lines: [...report lines], missing: [{kind, flag, help}] }.
 */
export async function checkFlags(EXECUTORS, type, binary, env, cwd) {
  const lines = [];
  const missing = [];
  const helpCache = new Map();
  const helpOf = async (args) => {
    const key = args.join(' ');
    if (!helpCache.has(key)) {
      const r = await run(binary, args, { cwd, env, timeoutMs: 60_000 });
      const text = stripAnsi(`${r.stdout}\n${r.stderr}`);
      helpCache.set(key, { text, code: r.code, timedOut: r.timedOut });
    }
    return helpCache.get(key);
  };
  const show = (argv) => argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
  for (const config of CONFIGS) {
    const inv = invocations(EXECUTORS, type, cwd, config);
    for (const kind of ['spawn', 'resume']) {
      const label = `${kind} (${config.label})`;
      const helpArgs = HELP_COMMANDS[type][kind];
      const help = await helpOf(helpArgs);
      const where = `${type} ${helpArgs.join(' ')}`;
      if (help.timedOut || help.text.trim().length < 50) {
        missing.push({ kind: label, flag: '(help)', help: where });
        lines.push(`${label}: '${where}' printed no help (exit ${help.code}${help.timedOut ? ', timed out' : ''})`);
        continue;
      }
      const args = inv[kind].args;
      const flags = flagsOf(args);
      const bad = flags.filter((f) => !documented(help.text, f));
      for (const flag of bad) missing.push({ kind: label, flag, help: where });
      lines.push(`${label}: ${show([inv[kind].binary, ...args])}`);
      lines.push(
        `  ${flags.length - bad.length}/${flags.length} flags in ` +
          `'${where}'${bad.length ? ` — NOT documented: ${bad.join(', ')}` : ''}`,
      );
    }
  }
  // A control: a flag no CLI has must not pass the check (the help text really was read).
  const control = await helpOf(HELP_COMMANDS[type].spawn);
  if (documented(control.text, '--sow-no-such-flag'))
    missing.push({
      kind: 'control',
      flag: '--sow-no-such-flag',
      help: `${type} ${HELP_COMMANDS[type].spawn.join(' ')}`,
    });
  return { ok: missing.length === 0, lines, missing };
}
