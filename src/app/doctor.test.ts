/**
 * What `sow doctor` looks up in an agent CLI's --help, checked against the help texts of the
 * pinned CLI versions (test/fixtures/agent-help): a CLI of that version is never reported as
 * lacking a flag, and a flag it does not have is.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXECUTORS } from '../adapters/executors/registry.js';
import type { ExecutorConfig, ExecutorType } from '../domain/schemas.js';
import { helpChecks, helpListsFlag, invocationShape } from './doctor.js';

const FIXTURES = new URL('../../test/fixtures/agent-help/', import.meta.url);
/** The pinned help text of each subcommand path sow runs. */
const HELP: Record<string, Record<string, string>> = {
  claude: { '': 'claude@2.1.197__root.txt' },
  codex: { exec: 'codex@0.169.0__exec.txt', 'exec resume': 'codex@0.169.0__exec_resume.txt' },
  gemini: { '': 'gemini@0.61.0__root.txt' },
  copilot: { '': 'copilot@1.0.102__root.txt' },
  opencode: { run: 'opencode@1.18.33__run.txt' },
};
const help = (file: string) => readFileSync(new URL(file, FIXTURES), 'utf8');

describe('the flags doctor looks for', () => {
  it('the subcommand path and the flags of an argv', () => {
    expect(invocationShape(['exec', 'resume', '--json', '-m', 'M', 'SID', '-'])).toEqual({ path: ['exec', 'resume'], flags: ['--json', '-m'] });
    expect(invocationShape(['--resume=SID', '--output-format', 'json'])).toEqual({ path: [], flags: ['--resume', '--output-format'] });
  });

  const configs: Record<string, ExecutorConfig> = {};
  for (const type of Object.keys(HELP) as ExecutorType[]) {
    configs[`${type} safe`] = { type };
    configs[`${type} yolo, model`] = { type, settings: { permissions: 'yolo', model: 'M' }, custom_args: ['--not-checked'] };
  }
  for (const [name, config] of Object.entries(configs)) {
    it(`${name}: every flag is in the pinned help of the command it goes to`, () => {
      const checks = helpChecks(EXECUTORS[config.type], config, '/repo');
      expect(checks.length).toBeGreaterThan(0);
      for (const { path, flags } of checks) {
        const file = HELP[config.type]![path.join(' ')];
        expect(file, `a pinned help for '${config.type} ${path.join(' ')}'`).toBeDefined();
        expect(flags).not.toContain('--not-checked');
        for (const flag of flags) expect(helpListsFlag(help(file!), flag), `${config.type} ${path.join(' ')} ${flag}`).toBe(true);
      }
    });
  }

  it('the check can fail', () => {
    expect(helpListsFlag(help('claude@2.1.197__root.txt'), '--session-idd')).toBe(false);
    expect(helpListsFlag(help('codex@0.169.0__exec_resume.txt'), '-C')).toBe(false);
    expect(helpListsFlag('  -m, --model <m>  the model', '--model')).toBe(true);
    expect(helpListsFlag('  --model-name <m>', '--model')).toBe(false);
  });
});
