#!/usr/bin/env node
/**
 * Runs before `npm test` and `npm run demo` (npm's pre-scripts): on a fresh clone, where nothing is
 * installed yet, it installs exactly what package-lock.json pins (`npm ci`), so either command
 * works as the very first one typed. Once installed, it does nothing (it compares npm's own record
 * of the installed tree, node_modules/.package-lock.json, with package-lock.json).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const installed = `${root}node_modules/.package-lock.json`;

/** The packages npm recorded as installed, or undefined when it recorded none. */
function packagesOf(path) {
  try {
    return JSON.stringify(JSON.parse(readFileSync(path, 'utf8')).packages ?? {});
  } catch {
    return undefined;
  }
}

// npm's hidden lockfile lists the same packages as package-lock.json, minus the root entry.
const wanted = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')).packages ?? {};
delete wanted[''];
// Optional packages (esbuild's binaries for other platforms) are not installed here: only the rest must be.
const upToDate = packagesOf(installed) !== undefined
  && Object.entries(wanted).every(([name, pkg]) => pkg.optional === true || existsSync(`${root}${name}/package.json`));

if (!upToDate) {
  process.stderr.write('Installing the dependencies package-lock.json pins (npm ci) …\n');
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
