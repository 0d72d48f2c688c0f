#!/usr/bin/env node
// Fails when a line of sow's code is wider than printWidth: prettier breaks code at 120 characters but leaves
// comments and string literals as they are, so `npm run format:check` runs this beside it. Checks what
// `npm run format` formats (test fixtures are data, byte for byte, and are not ours to wrap).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { printWidth } = JSON.parse(readFileSync(join(root, '.prettierrc.json'), 'utf8'));
const files = ['vitest.config.ts'];
const walk = (dir) => {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory() && path !== 'test/fixtures') walk(path);
    else if (e.isFile() && /\.(ts|mjs)$/.test(e.name)) files.push(path);
  }
};
for (const dir of ['src', 'test', 'scripts', 'bench']) walk(dir);
const over = [];
for (const file of files.sort())
  readFileSync(join(root, file), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      // Characters, not UTF-16 units: '—' and '→' count one, as prettier counts them.
      const width = [...line].length;
      if (width > printWidth) over.push(`${file}:${i + 1}: ${width} characters`);
    });
if (over.length) {
  console.error(`${over.join('\n')}\n${over.length} line(s) over ${printWidth} characters: wrap them.`);
  process.exitCode = 1;
}
