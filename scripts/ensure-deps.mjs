#!/usr/bin/env node
/**
 * Runs before `npm test`, `npm run demo` and `npm pack` (npm's pre-scripts): on a fresh clone,
 * where nothing is installed yet, it installs exactly what package-lock.json pins (`npm ci`), so
 * either command works as the very first one typed. Once installed, it does nothing (it compares
 * npm's own record of the installed tree, node_modules/.package-lock.json, with
 * package-lock.json).
 *
 * When something is missing — a Node.js too old for sow, npm, a package-lock.json, or an `npm ci`
 * that fails — it says in a sentence what to run instead, and exits 1: never a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const NODE_MAJOR = 20;

/** Says what went wrong and what to do, then stops. */
function stop(problem, next) {
  process.stderr.write(`sow: ${problem}\n  ${next}\n`);
  process.exit(1);
}

const major = Number(process.versions.node.split('.')[0]);
if (!(major >= NODE_MAJOR)) {
  stop(
    `sow needs Node.js ${NODE_MAJOR} or newer, and this is Node.js ${process.versions.node}.`,
    `Install Node.js ${NODE_MAJOR} or newer (https://nodejs.org, or 'nvm install ${NODE_MAJOR}'), then run the ` +
      `command again.`,
  );
}

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

let wanted;
try {
  wanted = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')).packages ?? {};
} catch (err) {
  stop(
    `cannot read ${root}package-lock.json ` +
      `(${err.code === 'ENOENT' ? 'it is missing' : err.message.split('\n')[0]}), which pins what to install.`,
    "Restore it ('git checkout -- package-lock.json'), then run 'npm ci' and the command again.",
  );
}
// npm's hidden lockfile lists the same packages as package-lock.json, minus the root entry.
delete wanted[''];
// Optional packages (esbuild's binaries for other platforms) are not installed here: only the rest must be.
const upToDate =
  packagesOf(installed) !== undefined &&
  Object.entries(wanted).every(([name, pkg]) => pkg.optional === true || existsSync(`${root}${name}/package.json`));

if (!upToDate) {
  process.stderr.write('Installing the dependencies package-lock.json pins (npm ci) …\n');
  // The npm that runs this pre-script, when npm runs it; else the one on PATH.
  const viaNpm = process.env.npm_execpath && /npm-cli\.[cm]?js$/.test(process.env.npm_execpath);
  const [command, args] = viaNpm
    ? [process.execPath, [process.env.npm_execpath, 'ci', '--no-audit', '--no-fund']]
    : [process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund']];
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (r.error) {
    stop(
      r.error.code === 'ENOENT'
        ? 'npm is not on PATH, so the dependencies cannot be installed.'
        : `npm could not be started (${r.error.message}).`,
      `Install Node.js ${NODE_MAJOR} or newer with its npm (https://nodejs.org), then run 'npm ci' in ${root} and ` +
        `the command again.`,
    );
  }
  if (r.status !== 0) {
    stop(
      `'npm ci' failed${r.status === null ? ` (stopped by ${r.signal})` : ` (exit ${r.status})`}; npm said why above.`,
      `Fix what it names (often the network, or a proxy: 'npm config get registry'), then run 'npm ci' in ${root} ` +
        `and the command again.`,
    );
  }
}
