#!/usr/bin/env node
/**
 * `npm run test:real-agents`: sow against the REAL agent CLIs at their pinned versions (not part
 * of `npm test`; needs the npm registry once, nothing else on the network).
 *
 *  1. installs the pinned CLIs into REAL_AGENTS_DIR (reused when already there) or a temp dir;
 *  2. checks every flag each sow executor passes against the live CLI's --help;
 *  3. runs each CLI end to end through `sow agent spawn` and `sow agent resume` against a scripted
 *     model on 127.0.0.1 (Anthropic Messages for claude, copilot and opencode; OpenAI Responses
 *     for codex; Gemini generateContent for gemini), in a temp git repo with an isolated HOME;
 *  4. the integrations with the real Claude Code: `sow install claude --plugin` passes
 *     `claude plugin validate --strict`; with `--plugin-dir` the SessionStart hook's
 *     `sow project continue` text is in the first request, and the model's call of /sow:status
 *     runs sow; with `--mcp-config` naming `sow mcp`, the model's call of `status` gets the state;
 *  5. a real orchestrator, unattended (test/real-agents/orchestra.mjs): Claude Code set up by
 *     `sow install claude`, its Bash limit at 4 s, takes a standard project from
 *     ImplementationExecuting to FinalizeDelete with three detached real Claude Code workers;
 *  6. over ACP (test/real-agents/acp.mjs): each agent as a `transport: acp` worker with the safe
 *     profile — gemini --acp, copilot --acp, opencode acp, Claude Code and Codex through Zed's
 *     adapters — against the same scripted models: spawn, the model calls sow's `status` through
 *     the `sow mcp` server sow hands over, reports with `sow task set` (granted), tries a `touch`
 *     outside the repository (refused, and reported), then `sow agent resume` (session/load);
 *  7. an agent CLI's own settings (test/real-agents/settings.mjs): a repository whose settings
 *     would let the scripted model `touch` a file outside unasked (Claude Code: allow Bash(*),
 *     defaultMode bypassPermissions, a SessionStart hook, an .mcp.json server; Gemini CLI:
 *     tools.allowed; opencode: a permission for every command; Codex: an MCP server). A control run
 *     of the real CLI as sow started it before shows the settings widen it; through sow, a safe
 *     worker (Claude Code on both transports) is refused the command and sow reports it, or is not
 *     started (AGENT_SETTINGS_WIDEN).
 *
 *   npm run test:real-agents                      everything
 *   npm run test:real-agents -- claude codex      only these CLIs' end-to-end runs (CLI and ACP)
 *   npm run test:real-agents -- orchestra         only the orchestrator run (with the flag checks)
 *   npm run test:real-agents -- acp               only the ACP runs (all five); `acp claude` only claude's
 *   npm run test:real-agents -- cli claude        only claude's CLI-transport run
 *   npm run test:real-agents -- settings          only section 7 (all); `settings claude` only claude's
 *                                                 (both transports)
 *   REAL_AGENTS_DIR=/path  REAL_AGENTS_KEEP=1     reuse an install / keep the temp dirs
 *   REAL_AGENTS_YOLO=0 | both                     end to end with yolo_mode false (or both ways); a run
 *                                                 without yolo (permissions: safe) proves the safe profile:
 *                                                 an edit with the CLI's own tool, a declared check, a
 *                                                 refused command that sow reports, then sow task set
 *   REAL_AGENTS_TIMEOUT_MS=120000                 per sow agent run (killed after it)
 *   ACP_ADAPTERS_DIR=/path                        the ACP adapters from another install (else installed with the CLIs)
 *
 * Exit 1 if the claude run (its safe profile included), claude's ACP run, the integrations, the
 * orchestrator run or any flag check failed (the other CLIs' runs are reported only).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACP_ADAPTERS, ensureClis, PINNED } from '../test/real-agents/install.mjs';
import { ACP_RUNS, runAcpScenario } from '../test/real-agents/acp.mjs';
import { checkFlags, loadExecutors } from '../test/real-agents/flags.mjs';
import { runScenario, writeSowWrapper } from '../test/real-agents/scenario.mjs';
import { SETUPS } from '../test/real-agents/setups.mjs';
import { agentHomes } from '../test/real-agents/util.mjs';
import { runIntegrations } from '../test/real-agents/integrations.mjs';
import { runOrchestra } from '../test/real-agents/orchestra.mjs';
import { runSettingsScenario, SETTINGS_RUNS } from '../test/real-agents/settings.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOW_JS = process.env.SOW_TEST_BIN || join(ROOT, 'dist', 'sow.cjs');
const CLIS = Object.keys(PINNED);
const words = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const TRANSPORTS = ['cli', 'acp'];
for (const a of words)
  if (!CLIS.includes(a) && a !== 'orchestra' && a !== 'settings' && !TRANSPORTS.includes(a)) {
    process.stderr.write(
      `real-agents: unknown CLI '${a}' (one of ${CLIS.join(', ')}, or orchestra, settings, cli, acp)\n`,
    );
    process.exit(2);
  }
// `settings`: section 7 only (with CLIs named, only theirs).
const settingsOnly = words.includes('settings');
const only = words.filter((a) => CLIS.includes(a));
// `cli` / `acp` narrow the end-to-end runs to one transport (alone: every CLI's runs on it, and nothing else).
const transportsNamed = words.filter((a) => TRANSPORTS.includes(a));
const clisNamed = settingsOnly ? [] : only.length ? only : transportsNamed.length || !words.length ? CLIS : [];
// Section 7 runs with everything, with `settings`, or for the CLIs named alone (claude: both transports).
const selectedSettings = Object.keys(SETTINGS_RUNS).filter(
  (n) =>
    (settingsOnly || !words.length || (only.length && !transportsNamed.length)) &&
    (!only.length || only.includes(n.replace(/-acp$/, ''))),
);
const selectedCli = !transportsNamed.length || transportsNamed.includes('cli') ? clisNamed : [];
const selectedAcp = !transportsNamed.length || transportsNamed.includes('acp') ? clisNamed : [];
const selected = selectedCli;
const orchestraSelected = !words.length || words.includes('orchestra');
/** Section 7: one row per scenario ({ control, sow }: each an outcome's text). */
const settingsRuns = Object.keys(SETTINGS_RUNS).map((name) => ({ name, control: 'not run', sow: 'not run' }));
const KEEP = Boolean(process.env.REAL_AGENTS_KEEP);
const RUN_TIMEOUT_MS = Number(process.env.REAL_AGENTS_TIMEOUT_MS) || 120_000;
// The end-to-end runs use settings.yolo_mode true; REAL_AGENTS_YOLO=0 runs them with yolo_mode false
// (sow's default config) instead, =both runs both, to see which CLIs let a headless worker run
// `sow` without skipping every permission.
const MODES = { 0: [false], both: [true, false] }[process.env.REAL_AGENTS_YOLO ?? ''] ?? [true];

// Everything stops by itself: a hard cap on the whole run.
const HARD_LIMIT_MS = 40 * 60_000;
setTimeout(() => {
  process.stderr.write(`real-agents: gave up after ${HARD_LIMIT_MS / 60_000} minutes\n`);
  process.exit(3);
}, HARD_LIMIT_MS).unref();

const out = (s = '') => process.stdout.write(`${s}\n`);
const heading = (s) => out(`\n== ${s} ${'='.repeat(Math.max(3, 70 - s.length))}`);

/** The inherited environment without anything that could point a CLI at a real account. */
function cleanEnv() {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (
      /^(SOW_|ANTHROPIC_|CLAUDE_|OPENAI_|CODEX_|GEMINI_|GOOGLE_|COPILOT_|GH_|GITHUB_)/.test(k) ||
      /^(OPENCODE_|XDG_|AWS_|AZURE_|VERTEX)/.test(k) ||
      k === 'FORCE_COLOR'
    )
      delete env[k];
  }
  env.NO_COLOR = '1';
  return env;
}

/** An isolated home for one CLI: HOME, XDG dirs and each CLI's own home variable. */
function isolatedEnv(base, home, pathDirs) {
  const dirs = agentHomes(home);
  // Login shells (codex runs its commands with `bash -lc`) reset PATH from /etc/profile on Debian;
  // like a user's own profile, this one puts sow and the CLIs back on it.
  // (REAL_AGENTS_NO_PROFILE=1 leaves it out, to see which CLIs run their tools in a login shell.)
  if (pathDirs.length && !process.env.REAL_AGENTS_NO_PROFILE) {
    const profile =
      `# written by npm run test:real-agents\nexport ` + `PATH=${pathDirs.map((d) => `'${d}'`).join(':')}:"$PATH"\n`;
    for (const f of ['.bash_profile', '.profile']) writeFileSync(join(home, f), profile);
  }
  return { ...base, ...dirs, PATH: [...pathDirs, base.PATH].join(':'), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
}

const flagsResult = Object.fromEntries(CLIS.map((c) => [c, 'not run']));
/** One row per CLI and yolo mode: { cli, yolo, spawn, resume, safe }. */
const runs = CLIS.flatMap((cli) =>
  MODES.map((yolo) => ({ cli, yolo, spawn: 'not run', resume: 'not run', safe: yolo ? 'n/a (yolo)' : 'not run' })),
);
const rowName = (r) => `${r.cli} ${PINNED[r.cli].version}${r.yolo ? '' : ' (no yolo)'}`;
/** Section 6: one row per agent over ACP ({ spawn, granted, refused, mcp, resume }: each an outcome's text). */
const acpRuns = CLIS.map((cli) => ({
  cli,
  spawn: 'not run',
  granted: 'not run',
  refused: 'not run',
  mcp: 'not run',
  resume: 'not run',
  notes: [],
}));
const ACP_KEYS = ['spawn', 'granted', 'refused', 'mcp', 'resume'];
const acpName = (cli) =>
  cli === 'claude'
    ? `claude ${PINNED.claude.version} via claude-agent-acp ${ACP_ADAPTERS['claude-agent-acp'].version}`
    : cli === 'codex'
      ? `codex-acp ${ACP_ADAPTERS['codex-acp'].version}`
      : `${cli} ${PINNED[cli].version}`;
let flagFailure = false;
/** Section 4: each proof's outcome ('not run' until it runs). */
const integrations = { validate: 'not run', sessionStart: 'not run', slashCommand: 'not run', mcp: 'not run' };
/** Section 5's outcome. */
let orchestra = 'not run';
const work = mkdtempSync(join(tmpdir(), 'sow-real-agents-'));
// The safe-profile run's refused command writes here: outside the repository, and outside /tmp
// (which Codex's sandbox lets a worker write), so that only a real refusal keeps it empty.
const outsideDir = (() => {
  try {
    return mkdtempSync('/var/tmp/sow-real-agents-outside-');
  } catch {
    return mkdtempSync(join(work, 'outside-'));
  }
})();
const base = cleanEnv();

try {
  heading('1. install the pinned CLIs');
  const installDir = process.env.REAL_AGENTS_DIR ? resolve(process.env.REAL_AGENTS_DIR) : join(work, 'clis');
  const installHome = join(installDir, '.home');
  mkdirSync(installHome, { recursive: true });
  const installEnv = isolatedEnv(base, installHome, []);
  const { binDir, adapterBinDir, versions, reused } = await ensureClis(installDir, installEnv, out);
  out(
    `${reused ? 'reused' : 'installed'} ${installDir}: ${Object.entries(versions)
      .map(([c, v]) => `${c} ${v}`)
      .join(', ')}`,
  );

  const sowBin = join(work, 'bin');
  writeSowWrapper(sowBin, SOW_JS);

  heading('2. every flag sow passes vs the live --help');
  const EXECUTORS = await loadExecutors(ROOT);
  const helpEnv = isolatedEnv(base, join(work, 'help-home'), [sowBin, binDir]);
  for (const cli of CLIS) {
    const r = await checkFlags(EXECUTORS, cli, join(binDir, PINNED[cli].bin), helpEnv, work);
    out(`${cli}: ${r.ok ? 'ok' : 'FAILED'}`);
    for (const l of r.lines) out(`  ${l}`);
    flagsResult[cli] = r.ok ? 'ok' : `FAILED (${r.missing.map((m) => `${m.kind} ${m.flag}`).join(', ')})`;
    if (!r.ok) flagFailure = true;
  }

  heading('3. end to end through sow, against a scripted model on 127.0.0.1');
  for (const row of runs.filter((r) => selected.includes(r.cli))) {
    const { cli, yolo } = row;
    out(`\n-- ${rowName(row)}: settings.yolo_mode ${yolo}`);
    const dir = join(work, `${cli}${yolo ? '' : '-no-yolo'}`);
    const env = isolatedEnv(base, join(dir, 'home'), [sowBin, binDir]);
    const setup = SETUPS[cli];
    let server;
    try {
      server = await setup.startServer({ logFile: join(dir, 'requests.jsonl') });
      const prepared = await setup.prepare({ env, server, dir, yolo });
      const r = await runScenario({
        cli,
        dir,
        env: { ...env, ...prepared.env },
        executor: prepared.executor,
        server,
        sessionOf: setup.sessionOf,
        timeoutMs: RUN_TIMEOUT_MS,
        log: out,
        safe: !yolo,
        outsideDir,
      });
      for (const d of r.details) out(`  ${d}`);
      row.spawn = r.spawn.ok ? 'ok' : `FAILED: ${r.spawn.why.join('; ')}`;
      row.resume = r.resume.ok ? 'ok' : r.spawn.ok ? `FAILED: ${r.resume.why.join('; ')}` : 'not run (spawn failed)';
      if (r.safe) row.safeWhy = r.safe.why;
      if (r.safe)
        row.safe = r.safe.ok
          ? `ok${r.safe.notes.length ? ` (${r.safe.notes.join('; ')})` : ''}`
          : `FAILED: ${r.safe.why.join('; ')}`;
      if (setup.notes) for (const n of setup.notes) out(`  note: ${n}`);
    } catch (err) {
      out(`  FAILED: ${err.message}`);
      row.spawn = `FAILED: ${err.message.split('\n')[0]}`;
      row.resume = 'not run';
      if (!yolo) row.safe = 'not run';
    } finally {
      await server?.close();
    }
  }

  if (selected.includes('claude')) {
    heading('4. integrations with the real Claude Code (plugin, hooks, /sow:status, sow mcp)');
    const env = isolatedEnv(base, join(work, 'integrations-home'), [sowBin, binDir]);
    try {
      const r = await runIntegrations({
        claude: join(binDir, PINNED.claude.bin),
        sowJs: SOW_JS,
        sowBin,
        work,
        env,
        log: out,
      });
      for (const [k, v] of Object.entries(r)) integrations[k] = v.ok ? 'ok' : `FAILED: ${v.why.join('; ')}`;
    } catch (err) {
      out(`  FAILED: ${err.message}`);
      for (const k of Object.keys(integrations))
        if (integrations[k] === 'not run') integrations[k] = `FAILED: ${err.message.split('\n')[0]}`;
    }
    for (const [k, v] of Object.entries(integrations)) out(`  ${k}: ${v}`);
  }

  if (orchestraSelected) {
    heading('5. a real orchestrator, unattended (Claude Code, three detached Claude Code workers)');
    const odir = join(work, 'orchestra');
    const env = isolatedEnv(base, join(odir, 'home'), [sowBin, binDir]);
    try {
      const r = await runOrchestra({
        claude: join(binDir, PINNED.claude.bin),
        dir: odir,
        env,
        log: out,
        timeoutMs: 15 * 60_000,
      });
      for (const d of r.details) out(`  ${d}`);
      orchestra = r.ok ? 'ok' : `FAILED: ${r.why.join('; ')}`;
    } catch (err) {
      orchestra = `FAILED: ${err.message}`;
    }
    out(`  orchestra: ${orchestra}`);
  }

  if (selectedAcp.length) {
    heading('6. over ACP: transport acp, permissions safe, against the scripted model');
    for (const row of acpRuns.filter((r) => selectedAcp.includes(r.cli))) {
      const { cli } = row;
      out(`\n-- ${acpName(cli)}: transport acp`);
      const dir = join(work, `${cli}-acp`);
      const env = isolatedEnv(base, join(dir, 'home'), [sowBin, binDir, adapterBinDir]);
      const setup = SETUPS[cli];
      const how = ACP_RUNS[cli];
      let server;
      try {
        server = await setup.startServer({ logFile: join(dir, 'requests.jsonl') });
        const prepared = await setup.prepare({ env, server, dir, yolo: false });
        const r = await runAcpScenario({
          cli,
          dir,
          env: { ...env, ...prepared.env, ...(how.env?.({ prepared, binDir }) ?? {}) },
          executor: how.executor(prepared),
          server,
          timeoutMs: RUN_TIMEOUT_MS,
          log: out,
          outsideDir,
        });
        for (const d of r.details) out(`  ${d}`);
        for (const k of ACP_KEYS) row[k] = r[k].text;
        for (const n of how.notes) out(`  note: ${n}`);
      } catch (err) {
        out(`  FAILED: ${err.message}`);
        row.spawn = `FAILED: ${err.message.split('\n')[0]}`;
      } finally {
        await server?.close();
      }
    }
  }
  if (selectedSettings.length) {
    heading("7. an agent CLI's own settings in the repository, against a safe worker");
    for (const row of settingsRuns.filter((r) => selectedSettings.includes(r.name))) {
      const how = SETTINGS_RUNS[row.name];
      const cli = how.setup ?? row.name;
      out(`\n-- ${row.name} ${PINNED[cli].version}: transport ${how.transport}`);
      const dir = join(work, `settings-${row.name}`);
      const env = isolatedEnv(base, join(dir, 'home'), [sowBin, binDir, adapterBinDir]);
      let server;
      try {
        server = await SETUPS[cli].startServer({ logFile: join(dir, 'requests.jsonl') });
        const prepared = await SETUPS[cli].prepare({ env, server, dir, yolo: false });
        const executor =
          how.transport === 'acp'
            ? ACP_RUNS[cli].executor(prepared)
            : { ...prepared.executor, settings: { permissions: 'safe', model: prepared.executor.settings.model } };
        const r = await runSettingsScenario({
          name: row.name,
          dir,
          env: { ...env, ...prepared.env, ...(how.env?.({ binDir }) ?? {}) },
          executor,
          prepared,
          server,
          binDir,
          timeoutMs: RUN_TIMEOUT_MS,
          log: out,
          outsideDir,
          EXECUTORS,
        });
        for (const d of r.details) out(`  ${d}`);
        row.control = how.control ? r.control.text : 'n/a (the CLI transport shows it)';
        row.sow = r.sow.text;
      } catch (err) {
        out(`  FAILED: ${err.message}`);
        row.sow = `FAILED: ${err.message.split('\n')[0]}`;
      } finally {
        await server?.close();
      }
    }
  }
} catch (err) {
  out(`\nFAILED: ${err.stack ?? err}`);
  flagFailure = true;
} finally {
  heading('summary');
  const rows = [
    ['CLI', 'flags vs --help', 'spawn via sow', 'resume via sow', 'safe profile'],
    ...runs.map((r) => [rowName(r), flagsResult[r.cli], r.spawn, r.resume, r.safe]),
  ];
  const short = (s) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => short(r[i]).length)));
  for (const [i, r] of rows.entries()) {
    out(`| ${r.map((c, j) => short(c).padEnd(widths[j])).join(' | ')} |`);
    if (i === 0) out(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
  const longOnes = [
    ...CLIS.filter((c) => flagsResult[c].length > 60).map((c) => `  ${c} flags: ${flagsResult[c]}`),
    ...runs.flatMap((r) =>
      ['spawn', 'resume', 'safe'].filter((k) => r[k].length > 60).map((k) => `  ${rowName(r)} ${k}: ${r[k]}`),
    ),
  ];
  if (longOnes.length) out(`\n${longOnes.join('\n')}`);
  out(
    `\nintegrations (claude ${PINNED.claude.version}): plugin validate ${integrations.validate}; SessionStart ` +
      `hook ${integrations.sessionStart}; /sow:status ${integrations.slashCommand}; sow mcp ${integrations.mcp}`,
  );
  out(`orchestrator unattended (claude ${PINNED.claude.version}): ${orchestra}`);
  if (selectedAcp.length) {
    // Each CLI × transport: the CLI rows from section 3 (its safe-profile run, else its yolo run), the ACP rows from
    // section 6.
    out('\nCLI × transport (permissions safe where it says so):');
    // The safe-profile run's (a) edit, (b) check and (d) report were granted; (c) was refused.
    const safeColumns = (c) => {
      if (!c.safeWhy) return [c.safe, c.safe];
      const part = (re, ok) => {
        const why = c.safeWhy.filter((w) => re.test(w));
        return why.length ? `FAILED: ${why.join('; ')}` : ok;
      };
      // The notes (Codex names no command) are about the refusal.
      return [
        part(/^\((a|b|d)\)/, 'ok (edit, check, report)'),
        part(/^\(c\)/, c.safe.startsWith('ok') ? c.safe : 'ok'),
      ];
    };
    const cliRow = (cli) => runs.find((r) => r.cli === cli && !r.yolo) ?? runs.find((r) => r.cli === cli);
    const t = [['agent', 'transport', 'spawn', 'permission granted', 'permission refused', 'via sow mcp', 'resume']];
    for (const cli of CLIS) {
      const c = cliRow(cli);
      if (selected.includes(cli))
        t.push([
          `${cli} ${PINNED[cli].version}`,
          c.yolo ? 'cli (yolo)' : 'cli',
          c.spawn,
          ...(c.yolo ? ['n/a (yolo)', 'n/a (yolo)'] : safeColumns(c)),
          'n/a (not handed over)',
          c.resume,
        ]);
      const a = acpRuns.find((r) => r.cli === cli);
      if (selectedAcp.includes(cli)) t.push([acpName(cli), 'acp', a.spawn, a.granted, a.refused, a.mcp, a.resume]);
    }
    const w = t[0].map((_, i) => Math.max(...t.map((r) => short(r[i]).length)));
    for (const [i, r] of t.entries()) {
      out(`| ${r.map((c, j) => short(c).padEnd(w[j])).join(' | ')} |`);
      if (i === 0) out(`|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`);
    }
    const longAcp = acpRuns
      .filter((r) => selectedAcp.includes(r.cli))
      .flatMap((r) => ACP_KEYS.filter((k) => r[k].length > 60).map((k) => `  ${acpName(r.cli)} acp ${k}: ${r[k]}`));
    if (longAcp.length) out(`\n${longAcp.join('\n')}`);
  }
  if (selectedSettings.length) {
    out(
      "\nan agent CLI's own settings (section 7): control = the real CLI as sow started it before; sow = a safe " +
        'worker now',
    );
    for (const r of settingsRuns.filter((x) => selectedSettings.includes(x.name)))
      out(`  ${r.name}: control ${r.control}; sow ${r.sow}`);
  }
  if (KEEP) out(`\nkept ${work}${existsSync(outsideDir) ? ` and ${outsideDir}` : ''}`);
  else {
    rmSync(work, { recursive: true, force: true });
    rmSync(outsideDir, { recursive: true, force: true });
  }
}
const claudeRuns = runs.filter((r) => r.cli === 'claude' && selected.includes('claude'));
// Over ACP only claude's row gates, as in section 3; the others are reported.
const claudeAcp = acpRuns.find((r) => r.cli === 'claude');
const claudeAcpOk = !selectedAcp.includes('claude') || ACP_KEYS.every((k) => claudeAcp[k].startsWith('ok'));
const claudeOk = claudeRuns.every((r) => r.spawn === 'ok' && r.resume === 'ok' && (r.yolo || r.safe === 'ok'));
const integrationsOk = !selected.includes('claude') || Object.values(integrations).every((v) => v === 'ok');
const orchestraOk = !orchestraSelected || orchestra === 'ok';
// Section 7 gates on Claude Code's rows (both transports), as sections 3 and 6 do.
const settingsOk = settingsRuns
  .filter((r) => selectedSettings.includes(r.name) && r.name.startsWith('claude'))
  .every((r) => r.sow.startsWith('refused') || r.sow.startsWith('not started'));
const failed = !settingsOk || flagFailure || !claudeOk || !claudeAcpOk || !integrationsOk || !orchestraOk;
out(
  `\n${failed ? 'FAILED' : 'passed'}: flags ${flagFailure ? 'FAILED' : 'ok'}; claude end to ` +
    `end ${claudeRuns.length ? (claudeOk ? 'ok' : 'FAILED') : 'not selected'}; ` +
    `integrations ${selected.includes('claude') ? (integrationsOk ? 'ok' : 'FAILED') : 'not selected'}; ` +
    `orchestrator ${orchestraSelected ? (orchestraOk ? 'ok' : 'FAILED') : 'not selected'}; claude over ` +
    `ACP ${selectedAcp.includes('claude') ? (claudeAcpOk ? 'ok' : 'FAILED') : 'not selected'}; ` +
    `claude's own settings ` +
    `${selectedSettings.some((n) => n.startsWith('claude')) ? (settingsOk ? 'ok' : 'FAILED') : 'not selected'} ` +
    `(the other CLIs' runs are reported, not gating)`,
);
process.exit(failed ? 1 : 0);
