/**
 * Installs the pinned agent CLIs, and the ACP adapters of the two that speak the Agent Client
 * Protocol only through one (Zed's, for Claude Code and Codex), from npm into a directory
 * (REAL_AGENTS_DIR, or a temp dir), and reuses an existing install when every pinned version is
 * already there. ACP_ADAPTERS_DIR names another install of the adapters to use instead.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './util.mjs';

export const PINNED = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  copilot: { pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
};

/** The ACP adapters (the agents `transport: acp` starts for claude and codex), installed with the CLIs. */
export const ACP_ADAPTERS = {
  'claude-agent-acp': { pkg: '@zed-industries/claude-agent-acp', version: '0.23.1', bin: 'claude-agent-acp' },
  'codex-acp': { pkg: '@zed-industries/codex-acp', version: '0.16.0', bin: 'codex-acp' },
};

function installedVersion(dir, pkg) {
  try {
    return JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** Returns { binDir, adapterBinDir, versions, reused } or throws with npm's output. */
export async function ensureClis(dir, env, log) {
  mkdirSync(dir, { recursive: true });
  // The adapters come from ACP_ADAPTERS_DIR when it is set (never installed there), else with the CLIs.
  const adapterDir = process.env.ACP_ADAPTERS_DIR || dir;
  const wanted = [
    ...Object.values(PINNED).map((p) => [dir, p]),
    ...Object.values(ACP_ADAPTERS).map((p) => [adapterDir, p]),
  ];
  const missing = wanted.filter(
    ([d, p]) => installedVersion(d, p.pkg) !== p.version || !existsSync(join(d, 'node_modules', '.bin', p.bin)),
  );
  let reused = true;
  if (missing.length) {
    if (missing.some(([d]) => d !== dir))
      throw new Error(
        `ACP_ADAPTERS_DIR=${adapterDir} lacks ${missing
          .filter(([d]) => d !== dir)
          .map(([, p]) => `${p.pkg}@${p.version}`)
          .join(', ')}`,
      );
    reused = false;
    if (!existsSync(join(dir, 'package.json')))
      writeFileSync(
        join(dir, 'package.json'),
        `${JSON.stringify({ name: 'sow-real-agents-clis', private: true }, null, 2)}\n`,
      );
    const specs = wanted.filter(([d]) => d === dir).map(([, p]) => `${p.pkg}@${p.version}`);
    log(`installing ${specs.join(' ')} into ${dir} (this takes a minute or two)…`);
    const r = await run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--save-exact', ...specs], {
      cwd: dir,
      env,
      timeoutMs: 600_000,
    });
    if (r.code !== 0)
      throw new Error(
        `npm install failed (exit ${r.code}${r.timedOut ? ', timed out' : ''}):\n${r.stderr.slice(-3000)}`,
      );
  }
  const versions = {};
  for (const [cli, p] of Object.entries(PINNED)) {
    versions[cli] = installedVersion(dir, p.pkg);
    if (versions[cli] !== p.version)
      throw new Error(`${p.pkg}: installed ${versions[cli] ?? 'nothing'}, pinned ${p.version}`);
  }
  for (const [name, p] of Object.entries(ACP_ADAPTERS)) {
    versions[name] = installedVersion(adapterDir, p.pkg);
    if (versions[name] !== p.version)
      throw new Error(`${p.pkg}: installed ${versions[name] ?? 'nothing'}, pinned ${p.version}`);
  }
  return {
    binDir: join(dir, 'node_modules', '.bin'),
    adapterBinDir: join(adapterDir, 'node_modules', '.bin'),
    versions,
    reused,
  };
}
