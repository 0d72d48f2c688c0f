/** `sow exit-codes` (also `sow help exit-codes`): the exit code table and the rule for 1, 2 and 3. */
import { EXIT_CODES } from '../domain/errors.js';
import { command } from '../model/def.js';

const EXIT_MEANINGS: Record<keyof typeof EXIT_CODES, string> = {
  ok: 'success (an empty list too)',
  failed:
    'refused: the command is well formed, but what it names is not there, a field does not take the value, or it ' +
    'conflicts with what exists',
  usage:
    'the command line cannot be parsed: an unknown command or flag, a missing or extra argument, a value not of ' +
    'its form or not in its fixed list',
  blocked:
    'blocked by a guard: the project is not yet where this lifecycle step can happen; the hint names the step; ' +
    'nothing was written',
  state:
    'a state file or your configuration is unreadable or invalid (a typo, an unknown key, an executor that does ' +
    'not exist); nothing was changed',
  external: 'an external tool (git, gh, an agent CLI) is missing or failed',
  timeout:
    "the time given ran out first ('sow agent wait --timeout', 'sow check wait --timeout'), as timeout(1) says it",
  internal: 'internal error: a bug in sow',
  interrupted: 'interrupted (Ctrl-C)',
};

/** Which of 1, 2 and 3 a refusal is: the one rule every command follows (kept by test/e2e/mistakes.test.ts). */
const EXIT_RULE = `
Which of 1, 2 and 3:
  2  The words of the command are wrong, whatever the repository holds: a command, help topic or
     flag sow does not know; an argument or a required flag missing, or one too many; flags that
     exclude each other; a question that needs --yes where there is no terminal. The same goes for
     the value of a flag or an argument that is not of its form (a number: --id abc, --index -1; a
     duration; a name; true or false) or not in the fixed list sow has for it (--type standrd,
     --format svg, install vscode, --agent implementor, task list --status done). Settings read
     from the environment (SOW_LOCK_TIMEOUT) count as part of the command line. sow checks the
     command line before it reads anything, so these come first.
  1  The command line is right and the request is refused: it names what is not there in this
     repository, project or state (a task id, an index, a phase, an event, an artifact type of the
     phase, a check, a worktree), conflicts with what exists (a project on the branch, a task id in
     use), or gives a field a value it does not take. The <field> <value> of a set command is data
     for a state file, so status done given to task set is 1, like any field check.
  3  The request is right, but the lifecycle is not there yet: a guard of 'sow advance', a task's
     dependencies, feedback or checks, or the state or phase a command works in (adding a task
     while planning, spawning a worker before the tasks are approved); or someone else holds the
     task it would change (a live worker or claim here, a claim on the claims remote).`;

export const exitCodes = command({
  name: 'exit-codes',
  description: 'Explain the exit codes (also: sow help exit-codes)',
  writes: false,
  async run() {
    const rows = (Object.keys(EXIT_CODES) as (keyof typeof EXIT_CODES)[]).map((k) => ({
      code: EXIT_CODES[k],
      kind: k,
      meaning: EXIT_MEANINGS[k],
    }));
    return {
      data: rows,
      text: `${rows.map((r) => `${String(r.code).padStart(3)}  ${r.meaning}`).join('\n')}\n${EXIT_RULE}`,
    };
  },
});
