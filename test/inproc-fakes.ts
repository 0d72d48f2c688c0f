/**
 * The fake agent CLIs and the fake gh of test/fakes for in-process tests: a folder of
 * executables that the test puts on the PATH of the context it passes (never on this process's
 * PATH), and the log of what each fake was given.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { acpEvents, logLines, type AcpEvent } from './fakes/acp-log.js';

const FAKE_AGENT = fileURLToPath(new URL('./fakes/fake-agent.mjs', import.meta.url));
const FAKE_GH = fileURLToPath(new URL('./fakes/fake-gh.mjs', import.meta.url));
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

/** What a fake agent CLI was given (test/fakes/fake-agent.mjs logs one line per run). */
export interface FakeCall {
  cli: string;
  argv: string[];
  stdin: string;
  prompt: string;
  cwd: string;
  resuming: boolean;
  session: string | null;
  env: Record<string, string>;
}

export interface Fakes {
  dir: string;
  bin: string;
  /** The user configuration file the context's XDG_CONFIG_HOME points at. */
  configPath: string;
  /** The environment to add to a context: PATH with the fakes first, the fakes' homes and log. */
  env: Record<string, string>;
  writeConfig(yaml: string): void;
  /** The runs of the fake CLIs (one each), without the fake ACP agents' events. */
  calls(): FakeCall[];
  /** What the fake ACP agents received and decided (test/fakes/fake-acp-agent.mjs). */
  acpEvents(): AcpEvent[];
  /** What the fake gh was asked, in order. */
  ghCalls(): { argv: string[]; cwd: string }[];
  /** The fake gh's world (issues, linked branches, pull requests), as it answers from and updates it. */
  ghState(): any;
  setGhState(state: object): void;
}

/** A folder of fake CLIs for one test (removed after it), without the names in `omit`. */
export function fakes(opts: { omit?: readonly string[] } = {}): Fakes {
  const dir = mkdtempSync(join(tmpdir(), 'sow-inproc-fakes-'));
  // Removed when the test that made it ends (a hook of this module would only serve the first test file of a shared
  // process).
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const bin = join(dir, 'bin');
  const xdg = join(dir, 'xdg');
  for (const d of [bin, xdg, join(dir, 'home'), join(dir, 'fake-home')]) mkdirSync(d, { recursive: true });
  const put = (name: string, script: string, ...args: string[]) => {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${script}" ${args.join(' ')} "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  };
  for (const name of FAKE_CLIS) if (!opts.omit?.includes(name)) put(name, FAKE_AGENT, name);
  if (!opts.omit?.includes('gh')) put('gh', FAKE_GH);
  const log = join(dir, 'fake-agent.log');
  const ghLog = join(dir, 'fake-gh.log');
  const ghState = join(dir, 'fake-gh-state.json');
  writeFileSync(ghState, JSON.stringify({ repo: 'acme/api', issues: [] }));
  const configPath = join(xdg, 'sow', 'config.yaml');
  return {
    dir,
    bin,
    configPath,
    env: {
      // The fakes need only the shell tools (sh, sleep); sow itself is not on it: a fake worker here reports nothing
      // unless its script says so.
      PATH: `${bin}${delimiter}/usr/local/bin${delimiter}/usr/bin${delimiter}/bin`,
      XDG_CONFIG_HOME: xdg,
      HOME: join(dir, 'home'),
      FAKE_AGENT_HOME: join(dir, 'fake-home'),
      FAKE_AGENT_LOG: log,
      FAKE_AGENT_SCRIPT: '[]',
      FAKE_GH_LOG: ghLog,
      FAKE_GH_STATE: ghState,
    },
    writeConfig(yaml) {
      mkdirSync(join(xdg, 'sow'), { recursive: true });
      writeFileSync(configPath, yaml);
    },
    calls: () => logLines(log).filter((l) => l.acp !== true) as FakeCall[],
    acpEvents: () => acpEvents(log),
    ghCalls: () =>
      existsSync(ghLog)
        ? readFileSync(ghLog, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { argv: string[]; cwd: string })
        : [],
    ghState: () => JSON.parse(readFileSync(ghState, 'utf8')),
    setGhState: (state) => writeFileSync(ghState, JSON.stringify(state)),
  };
}
