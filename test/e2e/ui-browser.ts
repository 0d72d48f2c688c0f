/**
 * Helpers of the `sow ui` browser tests: the built sow serving a repository, Chromium (the Debian
 * package, driven by playwright-core), and the checks every view gets — screenshots at 1100 px
 * and 390 px, no horizontal scrolling at 390 px, axe-core with no serious or critical violation
 * in light and in dark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { SOW, TEST_ENV } from './harness.js';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
/** Where the screenshots go (gitignored); the test run prints it. */
export const SHOTS = fileURLToPath(new URL('../../test-artifacts/ui/', import.meta.url));

export const servers: ChildProcess[] = [];

export interface Served {
  url: string;
  token: string;
  port: number;
  base: string;
  child: ChildProcess;
  stderr: () => string;
}

/** Starts `sow ui --json --no-open` in `dir`; resolves with its url, token and port once it serves. */
export async function serve(
  dir: string,
  env: NodeJS.ProcessEnv = { ...process.env, ...TEST_ENV },
  args: string[] = [],
): Promise<Served> {
  const child = spawn(process.execPath, [SOW, 'ui', '--json', '--no-open', ...args], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const first = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`sow ui exited ${code}: ${err}`)));
  });
  const { url, token, port } = JSON.parse(first).data as { url: string; token: string; port: number };
  return { url, token, port, base: `http://127.0.0.1:${port}`, child, stderr: () => err };
}

/** Stops a server started by `serve`, and waits until it has. */
export async function stop(s: Served): Promise<void> {
  if (s.child.exitCode !== null) return;
  const gone = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  s.child.kill('SIGINT');
  await gone;
}

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu'] });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now: rule, impact and where. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: unknown,
            opts: unknown,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return found;
}

/**
 * Every view gets the same checks: a screenshot at 1100 px (light), then at 390 px (light and
 * dark): nothing wider than the window, axe-core with no serious or critical violation in either
 * scheme. The page is left as it was (1100 px, light).
 */
export async function inspectView(page: Page, name: string, opts: { full?: boolean } = {}): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const full = opts.full ?? true;
  const size = page.viewportSize() ?? { width: 1100, height: 900 };
  await page.waitForFunction(() => Number(document.body.dataset.drawn) > 0);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: full });
  expect([name, 'light', await axeViolations(page)]).toEqual([name, 'light', []]);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.dispatchEvent(new Event('resize')));
  const wide = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    wider: [...document.querySelectorAll('body *')]
      .filter(
        (e) =>
          e.getBoundingClientRect().right > window.innerWidth + 1 &&
          getComputedStyle(e).position !== 'absolute' &&
          !e.closest('.sr-only'),
      )
      .slice(0, 5)
      .map((e) => e.tagName + '.' + e.className),
  }));
  expect([name, '390 px wide', wide]).toEqual([name, '390 px wide', { page: 390, wider: [] }]);
  await page.screenshot({ path: join(SHOTS, `${name}-390.png`), fullPage: full });
  await page.emulateMedia({ colorScheme: 'dark' });
  expect([name, 'dark', await axeViolations(page)]).toEqual([name, 'dark', []]);
  await page.screenshot({ path: join(SHOTS, `${name}-390-dark.png`), fullPage: full });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(size);
  await page.evaluate(() => window.dispatchEvent(new Event('resize')));
}
