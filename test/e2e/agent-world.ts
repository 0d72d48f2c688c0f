/**
 * A world for the agent tests: a bin dir with the strict fake agent CLIs (test/fakes) and a `sow`
 * wrapper, an isolated HOME and XDG_CONFIG_HOME, and a log of every fake call.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { acpEvents, logLines, type AcpEvent } from '../fakes/acp-log.js';
import { makeRepo, SOW, taskFile, TEST_ENV, toExecuting, type Repo } from './harness.js';

export const FAKE = fileURLToPath(new URL('../fakes/fake-agent.mjs', import.meta.url));
export const FAKE_CLIS = [
  'claude',
  'cursor-agent',
  'codex',
  'gemini',
  'copilot',
  'opencode',
  'windsurf',
  'my-agent',
  'claude-agent-acp',
  'codex-acp',
] as const;

export interface FakeCall {
  cli: string;
  /** The fake CLI's process id. */
  pid: number;
  argv: string[];
  stdin: string;
  /** What reached the model: stdin, or the prompt file / -p text the fake resolved. */
  prompt: string;
  cwd: string;
  resuming: boolean;
  session: string | null;
  env: Record<string, string>;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json?: { ok: boolean; data?: any; error?: { code: string; message: string; hint?: string } };
}

export interface World {
  root: string;
  bin: string;
  xdg: string;
  home: string;
  fakeHome: string;
  log: string;
  configPath: string;
  env: Record<string, string>;
  writeConfig(yaml: string): void;
  readConfig(): string;
  /** The runs of the fake CLIs (one each), without the fake ACP agents' events. */
  calls(): FakeCall[];
  /** What the fake ACP agents received and decided (test/fakes/fake-acp-agent.mjs). */
  acpEvents(): AcpEvent[];
  cleanup(): void;
}

export function makeWorld(opts: { omit?: string[]; prefix?: string } = {}): World {
  const root = realpathSync(mkdtempSync(join(tmpdir(), opts.prefix ?? 'sow-agents-')));
  const bin = join(root, 'bin');
  const xdg = join(root, 'xdg');
  const home = join(root, 'home');
  const fakeHome = join(root, 'fake-home');
  const log = join(root, 'fake-agent.log');
  for (const d of [bin, xdg, home, fakeHome]) mkdirSync(d, { recursive: true });
  for (const name of FAKE_CLIS) {
    if (opts.omit?.includes(name)) continue;
    writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" ${name} "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  writeFileSync(join(bin, 'sow'), `#!/bin/sh\nexec "${process.execPath}" "${SOW}" "$@"\n`);
  chmodSync(join(bin, 'sow'), 0o755);
  const configPath = join(xdg, 'sow', 'config.yaml');
  return {
    root,
    bin,
    xdg,
    home,
    fakeHome,
    log,
    configPath,
    env: {
      PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}`,
      XDG_CONFIG_HOME: xdg,
      HOME: home,
      FAKE_AGENT_HOME: fakeHome,
      FAKE_AGENT_LOG: log,
    },
    writeConfig(yaml) {
      mkdirSync(join(xdg, 'sow'), { recursive: true });
      writeFileSync(configPath, yaml);
    },
    readConfig: () => readFileSync(configPath, 'utf8'),
    calls: () => logLines(log).filter((l) => l.acp !== true) as FakeCall[],
    acpEvents: () => acpEvents(log),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The test process's environment without anything that could steer sow or the fakes (and without `unset`). */
export function cleanEnv(extra: Record<string, string>, unset: string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(SOW_|FAKE_AGENT_)/.test(k) || ['IS_SANDBOX', 'XDG_CONFIG_HOME', 'EDITOR', 'VISUAL'].includes(k)) continue;
    env[k] = v;
  }
  const out: NodeJS.ProcessEnv = { ...env, ...TEST_ENV, ...extra };
  for (const k of unset) delete out[k];
  return out;
}

export function runSow(
  cwd: string,
  world: World,
  args: string[],
  env: Record<string, string> = {},
  unset: string[] = [],
): Run {
  const r = spawnSync(process.execPath, [SOW, ...args], {
    cwd,
    env: cleanEnv({ ...world.env, ...env }, unset),
    encoding: 'utf8',
    input: '',
  });
  const out: Run = { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  try {
    out.json = JSON.parse(r.stdout);
  } catch {
    // not JSON
  }
  return out;
}

export const show = (r: Run) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

/** Splits a log.md into its entries: YAML front matter (parsed) and markdown body. */
export function parseLog(text: string): { front: any; body: string }[] {
  const entries: { front: any; body: string }[] = [];
  const re = /^---\n([\s\S]*?)^---\n\n?([\s\S]*?)(?=^---\n|(?![\s\S]))/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) entries.push({ front: parse(m[1]!), body: m[2]!.trim() });
  return entries;
}

/** A workspace for agent tests: a copy of a template repo, its own world of fake CLIs. */
export interface AgentFixture {
  repo: Repo;
  /** The repository root, symlinks resolved. */
  root: string;
  world: World;
  /** Runs sow in the root (or `cwd` below it). */
  sow(args: string[], env?: Record<string, string>, cwd?: string): Run;
  /** Runs sow and fails the test with its output unless it exits 0. */
  ok(args: string[], env?: Record<string, string>): Run;
  task(id?: string): any;
}

/**
 * Registers, in the calling test file, a template repository in ImplementationExecuting with
 * `tasks` (made once; `setup` finishes it), and returns a factory of per-test copies, each with
 * its own world (and `config` as its user configuration), removed after each test.
 */
export function agentFixtures(opts: {
  tasks: string[];
  prefix?: string;
  setup?: (template: Repo) => void;
}): (config?: string, world?: { omit?: string[] }) => AgentFixture {
  let template: Repo;
  beforeAll(() => {
    template = makeRepo();
    toExecuting(template, opts.tasks);
    opts.setup?.(template);
  });
  afterAll(() => template?.cleanup());
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    while (cleanups.length) cleanups.pop()!();
  });
  return (config, worldOpts = {}) => {
    const repo = makeRepo({ init: false });
    for (const name of readdirSync(repo.dir)) rmSync(join(repo.dir, name), { recursive: true, force: true });
    cpSync(template.dir, repo.dir, { recursive: true });
    const world = makeWorld({ ...worldOpts, ...(opts.prefix ? { prefix: opts.prefix } : {}) });
    if (config !== undefined) world.writeConfig(config);
    cleanups.push(
      () => repo.cleanup(),
      () => world.cleanup(),
    );
    const root = realpathSync(repo.dir);
    return {
      repo,
      root,
      world,
      sow: (args, env = {}, cwd) => runSow(cwd ? join(root, cwd) : root, world, args, env),
      ok(args, env = {}) {
        const r = runSow(root, world, args, env);
        expect(r.code, `sow ${args.join(' ')}\n${show(r)}`).toBe(0);
        return r;
      },
      task: (id = '010') => repo.yaml(taskFile(id)),
    };
  };
}

/** Waits (polling every 20 ms) until `check` holds; fails naming `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = 180_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
