/**
 * The mistakes a new user makes, one row each: where (a fixture), what they typed, and what sow
 * answers — the exit code (the rule in `sow help exit-codes`), the stable error code and a piece of
 * the message. `test/e2e/mistakes.test.ts` runs every row and checks it; `npm run mistakes` prints
 * the table with what the built sow answers (scripts/mistakes.mjs). Plain data, so both can read it.
 *
 * A fixture is the steps that make its repository, after `git init` and a first commit:
 * ['sow', ...args] runs sow (it must succeed), ['write', path, text] writes a file of the
 * repository, ['git', ...args] runs git. `init: false` leaves out `sow init`; `git: false` makes a
 * plain folder (no `git init`, no `sow init`).
 */

const PROJECT = ['sow', 'project', 'new', 'demo', '--description', 'A demo project'];
const TASK_LIST = ['write', '.sow/project/planning/tasks.md', '# Tasks\n\n- First task\n- Second task\n'];

/** @type {Record<string, { git?: boolean, init?: boolean, steps: (string[])[] }>} */
export const FIXTURES = {
  'not a repository': { git: false, init: false, steps: [] },
  'no sow': { init: false, steps: [] },
  'no project': { steps: [] },
  planning: {
    steps: [PROJECT, TASK_LIST, ['sow', 'output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md']],
  },
  'tasks not approved': {
    steps: [
      PROJECT, TASK_LIST,
      ['sow', 'output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true'],
      ['sow', 'advance'],
      ['sow', 'task', 'add', 'First task', '--agent', 'implementer'],
    ],
  },
  executing: {
    steps: [
      PROJECT, TASK_LIST,
      ['sow', 'output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'true'],
      ['sow', 'advance'],
      ['sow', 'task', 'add', 'First task', '--agent', 'implementer'],
      ['sow', 'task', 'add', 'Second task', '--agent', 'implementer', '--depends-on', '010'],
      ['sow', 'phase', 'set', 'tasks_approved', 'true'],
      ['sow', 'advance'],
    ],
  },
  'checks declared': {
    steps: [
      ['write', '.sow/config.yaml', 'checks:\n  - name: lint\n    run: "true"\n'],
      PROJECT,
    ],
  },
  exploration: { steps: [['sow', 'project', 'new', 'caching', '--type', 'exploration', '--description', 'How to cache']] },
  design: { steps: [['sow', 'project', 'new', 'auth-design', '--type', 'design', '--description', 'The auth design']] },
  breakdown: { steps: [['sow', 'project', 'new', 'billing', '--type', 'breakdown', '--description', 'Split billing']] },
  iterative: { steps: [['sow', 'project', 'new', 'report', '--type', 'iterative', '--description', 'A research report']] },
  'iterative plan': {
    steps: [
      ['sow', 'project', 'new', 'report', '--type', 'iterative', '--description', 'A research report'],
      ['write', '.sow/project/brief.md', '# A research report\n\n**Domain:** research\n\n## Outcome Needed\nA short report on caching.\n\n## Done When\n- It names three options.\n\n## Constraints\n- Two pages.\n\n## Notes\nNone.\n'],
      ['sow', 'output', 'set', '--index', '0', 'approved', 'true'],
      ['sow', 'advance'],
    ],
  },
};

/**
 * @typedef {object} Mistake
 * @property {string} mistake what the user meant to do, or got wrong
 * @property {string} at the fixture it is made in
 * @property {string[]} args what they typed after `sow`
 * @property {number} exit the exit code
 * @property {string} code the error code of the --json envelope
 * @property {string} message a piece of the message (the offending word, the near miss, …)
 * @property {string} [hint] a piece of the hint
 * @property {Record<string, string>} [env] environment; `$REPO` stands for the repository's folder
 * @property {(string[])[]} [setup] more steps after the fixture's, for this row alone
 */

/** @type {Mistake[]} */
export const MISTAKES = [
  // Words sow does not know: 2
  { mistake: 'a typo in a command', at: 'no project', args: ['stauts'], exit: 2, code: 'USAGE', message: "did you mean 'status'", hint: 'commands:' },
  { mistake: 'a typo in a subcommand', at: 'executing', args: ['task', 'lsit'], exit: 2, code: 'USAGE', message: "did you mean 'list'", hint: 'add, set, get' },
  { mistake: 'a typo in a flag', at: 'planning', args: ['advance', '--dryrun'], exit: 2, code: 'USAGE', message: "did you mean '--dry-run'", hint: '--list' },
  { mistake: 'a flag of another command', at: 'executing', args: ['task', 'list', '--claim'], exit: 2, code: 'USAGE', message: "'--claim'", hint: '--status' },
  { mistake: 'a typo in a help topic', at: 'no project', args: ['help', 'exit-code'], exit: 2, code: 'USAGE', message: "did you mean 'exit-codes'", hint: 'exit-codes' },
  { mistake: 'a command group without its command', at: 'executing', args: ['task'], exit: 2, code: 'USAGE', message: 'add, set, get', hint: "'sow task --help'" },
  { mistake: 'an argument too many', at: 'no project', args: ['project', 'types', 'standard'], exit: 2, code: 'USAGE', message: "'standard'", hint: 'sow project types' },
  { mistake: 'a missing argument', at: 'executing', args: ['task', 'set', '--id', '010', 'status'], exit: 2, code: 'USAGE', message: "'value'", hint: '<field> <value>' },
  { mistake: 'a missing required flag', at: 'planning', args: ['output', 'add', '--type', 'task_list'], exit: 2, code: 'USAGE', message: '--path', hint: 'relative to' },
  { mistake: 'a flag without its value', at: 'executing', args: ['task', 'get', '--id'], exit: 2, code: 'USAGE', message: '--id', hint: 'sow task list' },
  { mistake: 'a task command without --id', at: 'executing', args: ['task', 'set', 'status', 'completed'], exit: 2, code: 'USAGE', message: '--id', hint: 'SOW_TASK_ID' },
  { mistake: 'a stray word after an artifact', at: 'executing', args: ['input', 'add', '--type', 'context', '--path', 'a.md', 'stray'], exit: 2, code: 'USAGE', message: "'stray'", hint: '--name value' },

  // Values of flags and arguments that are not of their form or not in their fixed list: 2
  { mistake: 'a typo in the project type', at: 'no project', args: ['project', 'new', 'demo', '--type', 'standrd'], exit: 2, code: 'USAGE', message: "did you mean 'standard'", hint: 'exploration' },
  { mistake: 'a project type that does not exist', at: 'no project', args: ['graph', 'lifecycle', '--type', 'agile'], exit: 2, code: 'USAGE', message: "'agile'", hint: 'standard, exploration' },
  { mistake: 'a project name with capitals and a space', at: 'no project', args: ['project', 'new', 'Add Auth'], exit: 2, code: 'INVALID_NAME', message: "'Add Auth'", hint: 'add-auth' },
  { mistake: 'a project without a name', at: 'no project', args: ['project', 'new', '--description', 'x'], exit: 2, code: 'USAGE', message: 'needs a name', hint: '--issue' },
  { mistake: 'a branch name git refuses', at: 'no project', args: ['project', 'new', 'demo', '--branch', 'feat/..x'], exit: 2, code: 'INVALID_NAME', message: "'feat/..x'", hint: 'feat/' },
  { mistake: 'skipping planning where the type cannot', at: 'no project', args: ['project', 'new', 'demo', '--type', 'iterative', '--no-planning'], exit: 2, code: 'USAGE', message: 'cannot skip planning', hint: '--no-planning' },
  { mistake: 'a task id that is not a number', at: 'executing', args: ['task', 'set', '--id', 'abc', 'status', 'completed'], exit: 2, code: 'USAGE', message: "'abc'", hint: 'sow task list' },
  { mistake: 'a new task id that is not a number', at: 'executing', args: ['task', 'add', 'Third', '--id', '1a'], exit: 2, code: 'USAGE', message: "'1a'", hint: 'sow task list' },
  { mistake: 'a dependency that is not a task id', at: 'executing', args: ['task', 'add', 'Third', '--depends-on', 'first'], exit: 2, code: 'USAGE', message: "'first'", hint: '010,020' },
  { mistake: 'a negative index', at: 'planning', args: ['output', 'set', '--index', '-1', 'approved', 'true'], exit: 2, code: 'USAGE', message: "'-1'", hint: 'sow output list' },
  { mistake: 'an index that is a word', at: 'planning', args: ['output', 'remove', '--index', 'first'], exit: 2, code: 'USAGE', message: "'first'", hint: 'sow output list' },
  { mistake: 'a typo in an agent role', at: 'executing', args: ['task', 'add', 'Third', '--agent', 'implementor'], exit: 2, code: 'USAGE', message: "did you mean 'implementer'", hint: 'reviewer' },
  { mistake: 'spawning an agent role that does not exist', at: 'executing', args: ['agent', 'spawn', 'coder', '010'], exit: 2, code: 'USAGE', message: "'coder'", hint: 'implementer' },
  { mistake: 'a task status filter that is no status', at: 'executing', args: ['task', 'list', '--status', 'done'], exit: 2, code: 'USAGE', message: "'done'", hint: 'completed' },
  { mistake: 'approving with a word that is not true or false', at: 'planning', args: ['output', 'add', '--type', 'task_list', '--path', 'planning/tasks.md', '--approved', 'yes'], exit: 2, code: 'USAGE', message: "'yes'", hint: 'true' },
  { mistake: 'a lease that is no duration', at: 'executing', args: ['task', 'next', '--claim', '--owner', 'ana', '--lease', 'soon'], exit: 2, code: 'USAGE', message: "'soon'", hint: '45m' },
  { mistake: 'an owner without --claim', at: 'executing', args: ['task', 'next', '--owner', 'ana'], exit: 2, code: 'USAGE', message: '--claim', hint: 'sow task next --claim' },
  { mistake: 'a typo in a graph format', at: 'no project', args: ['graph', 'lifecycle', '--format', 'mermid'], exit: 2, code: 'USAGE', message: "did you mean 'mermaid'", hint: 'dot' },
  { mistake: 'a typo in an install target', at: 'no project', args: ['install', 'claud'], exit: 2, code: 'USAGE', message: "did you mean 'claude'", hint: 'cursor' },
  { mistake: 'an editor sow has no integration for', at: 'no project', args: ['uninstall', 'vscode'], exit: 2, code: 'USAGE', message: "'vscode'", hint: 'claude, codex' },
  { mistake: 'a plugin for a target that has none', at: 'no project', args: ['install', 'codex', '--plugin', 'out'], exit: 2, code: 'USAGE', message: '--plugin', hint: 'claude' },
  { mistake: 'a shell sow has no completion for', at: 'no project', args: ['completion', 'zhs'], exit: 2, code: 'USAGE', message: "did you mean 'zsh'", hint: 'bash, zsh, fish' },
  { mistake: 'a typo in a prompt name', at: 'no project', args: ['prompt', 'guidance/implementor/base'], exit: 2, code: 'PROMPT_NOT_FOUND', message: "did you mean 'guidance/implementer/base'", hint: 'sow prompt --list' },
  { mistake: 'a typo in a schema name', at: 'no project', args: ['schema', 'projet'], exit: 2, code: 'USAGE', message: "did you mean 'project'", hint: 'repo-config' },
  { mistake: 'a typo in a log action', at: 'executing', args: ['log', '--task', '010', '--action', 'test-run', '--result', 'success', 'ran the tests'], exit: 2, code: 'USAGE', message: "did you mean 'test_run'", hint: 'started_task' },
  { mistake: 'logging to a task and the project at once', at: 'executing', args: ['log', '--task', '010', '--project', '--action', 'research', '--result', 'success', 'a note'], exit: 2, code: 'USAGE', message: '--project', hint: 'whole project' },
  { mistake: 'logging without saying where', at: 'executing', args: ['log', '--action', 'research', '--result', 'success', 'a note'], exit: 2, code: 'USAGE', message: '--task', hint: 'SOW_TASK_ID' },
  { mistake: 'an issue number that is not a number', at: 'no project', args: ['issue', 'show', 'abc'], exit: 2, code: 'USAGE', message: "'abc'", hint: '#42' },
  { mistake: 'a typo in an issue state', at: 'no project', args: ['issue', 'list', '--state', 'close'], exit: 2, code: 'USAGE', message: "did you mean 'closed'", hint: 'open, closed, all' },
  { mistake: 'starting a project from an issue that is not a number', at: 'no project', args: ['project', 'new', '--issue', 'the-login-bug'], exit: 2, code: 'USAGE', message: "'the-login-bug'", hint: '#42' },
  { mistake: 'a worktree branch with a space', at: 'no project', args: ['worktree', 'add', 'my branch'], exit: 2, code: 'INVALID_NAME', message: "'my branch'", hint: 'feat/' },
  { mistake: 'a typo in a breakdown destination', at: 'breakdown', args: ['breakdown', 'publish', '--to', 'file'], exit: 2, code: 'USAGE', message: "did you mean 'files'", hint: 'github' },
  { mistake: 'an iteration maximum that is no number', at: 'iterative', args: ['iter', 'extend', 'R1', '--max', 'many'], exit: 2, code: 'USAGE', message: "'many'", hint: '--max 5' },
  { mistake: 'a work phase id in lower case', at: 'iterative plan', args: ['iter', 'phase', 'add', 'r1', '--title', 'Sources'], exit: 2, code: 'USAGE', message: "'r1'", hint: 'R1' },
  { mistake: 'verifying without saying pass or fail', at: 'iterative plan', args: ['iter', 'verify', 'R1', '--pass', '--fail'], exit: 2, code: 'USAGE', message: '--pass or --fail', hint: '--note' },
  { mistake: 'an empty task name', at: 'executing', args: ['task', 'add', '  '], exit: 2, code: 'USAGE', message: 'task name', hint: 'sow task add "' },
  { mistake: 'an empty artifact path', at: 'planning', args: ['output', 'add', '--type', 'task_list', '--path', ''], exit: 2, code: 'USAGE', message: '--path', hint: '.sow/project/' },
  { mistake: 'a reference link name with a space', at: 'no project', args: ['refs', 'add', 'https://example.invalid/a.git', '--link', 'my docs'], exit: 2, code: 'USAGE', message: "'my docs'", hint: '--link auth-service' },
  { mistake: 'a typo in a doctor flag', at: 'no project', args: ['doctor', '--fixx'], exit: 2, code: 'USAGE', message: "did you mean '--fix'", hint: '--fix' },
  { mistake: 'a typo in a migrate flag', at: 'no project', args: ['migrate', '--dryrun'], exit: 2, code: 'USAGE', message: "did you mean '--dry-run'", hint: '--dry-run' },
  { mistake: 'a hook sow does not have', at: 'no project', args: ['hook', 'start'], exit: 2, code: 'USAGE', message: "'start'", hint: 'stop' },
  { mistake: 'deleting the project without a terminal to ask on', at: 'planning', args: ['project', 'delete'], exit: 2, code: 'CONFIRMATION_REQUIRED', message: "'demo'", hint: '--yes' },
  { mistake: 'a lock timeout that is no number', at: 'executing', args: ['task', 'list'], env: { SOW_LOCK_TIMEOUT: 'soon' }, exit: 2, code: 'USAGE', message: 'SOW_LOCK_TIMEOUT', hint: 'SOW_LOCK_TIMEOUT=60' },

  // Well formed, refused by what is there: 1
  { mistake: 'sow init outside a git repository', at: 'not a repository', args: ['init'], exit: 1, code: 'NOT_A_GIT_REPOSITORY', message: 'not inside a git repository', hint: 'git init' },
  { mistake: 'sow before sow init', at: 'no sow', args: ['task', 'list'], exit: 1, code: 'NOT_INITIALIZED', message: 'not initialised', hint: 'sow init' },
  { mistake: 'a command that needs a project, with none', at: 'no project', args: ['status'], exit: 1, code: 'NO_PROJECT', message: 'no project', hint: 'sow project new' },
  { mistake: 'a second project on the branch', at: 'planning', args: ['project', 'new', 'other'], exit: 1, code: 'PROJECT_EXISTS', message: "'demo'", hint: 'sow project continue' },
  { mistake: 'a task id that does not exist', at: 'executing', args: ['task', 'set', '--id', '990', 'status', 'completed'], exit: 1, code: 'TASK_NOT_FOUND', message: "'990'", hint: 'sow task list' },
  { mistake: 'a task id already used', at: 'executing', args: ['task', 'add', 'Third', '--id', '10'], exit: 1, code: 'TASK_ID_TAKEN', message: "'010'", hint: 'omit --id' },
  { mistake: 'a dependency on a task that does not exist', at: 'executing', args: ['task', 'add', 'Third', '--depends-on', '970'], exit: 1, code: 'TASK_NOT_FOUND', message: "'970'", hint: 'sow task list' },
  { mistake: 'a task status that is no status', at: 'executing', args: ['task', 'set', '--id', '010', 'status', 'done'], exit: 1, code: 'INVALID_VALUE', message: "'done'", hint: 'completed' },
  { mistake: 'a typo in a task status', at: 'executing', args: ['task', 'set', '--id', '010', 'status', 'complete'], exit: 1, code: 'INVALID_VALUE', message: "did you mean 'completed'", hint: 'pending' },
  { mistake: 'a typo in a task field', at: 'executing', args: ['task', 'set', '--id', '010', 'stauts', 'completed'], exit: 1, code: 'DID_YOU_MEAN', message: "did you mean 'status'", hint: 'metadata.stauts' },
  { mistake: 'reading a field with a typo', at: 'executing', args: ['task', 'get', '--id', '010', 'dependecies'], exit: 1, code: 'DID_YOU_MEAN', message: "did you mean 'dependencies'", hint: "'dependencies'" },
  { mistake: 'a typo in an agent role, as a task field', at: 'executing', args: ['task', 'set', '--id', '010', 'agent', 'reviwer'], exit: 1, code: 'UNKNOWN_AGENT', message: "did you mean 'reviewer'", hint: 'implementer' },
  { mistake: 'a task that depends on itself', at: 'executing', args: ['task', 'set', '--id', '010', 'dependencies', '010'], exit: 1, code: 'INVALID_VALUE', message: "'dependencies'", hint: 'other tasks' },
  { mistake: 'dependencies that go round in a circle', at: 'executing', args: ['task', 'set', '--id', '010', 'dependencies', '020'], exit: 1, code: 'DEPENDENCY_CYCLE', message: '010 → 020 → 010', hint: 'drop one' },
  { mistake: 'changing a task id', at: 'executing', args: ['task', 'set', '--id', '010', 'id', '030'], exit: 1, code: 'READ_ONLY_FIELD', message: "'id'", hint: 'metadata' },
  { mistake: 'setting a phase status by hand', at: 'executing', args: ['phase', 'set', 'status', 'completed'], exit: 1, code: 'READ_ONLY_FIELD', message: "'status'", hint: 'sow advance' },
  { mistake: 'a phase iteration that is a word', at: 'executing', args: ['phase', 'set', 'iteration', 'two'], exit: 1, code: 'INVALID_VALUE', message: "'two'", hint: 'an integer' },
  { mistake: 'a typo in a phase flag', at: 'executing', args: ['phase', 'set', 'tasks_aproved', 'true'], exit: 1, code: 'DID_YOU_MEAN', message: "did you mean 'tasks_approved'", hint: 'metadata.tasks_aproved' },
  { mistake: "approving the tasks in the planning phase", at: 'planning', args: ['phase', 'set', 'tasks_approved', 'true'], exit: 1, code: 'WRONG_PHASE', message: 'implementation', hint: '--phase implementation' },
  { mistake: 'disabling review', at: 'planning', args: ['phase', 'set', 'enabled', 'false', '--phase', 'review'], exit: 1, code: 'READ_ONLY_FIELD', message: 'review', hint: 'only planning can be skipped' },
  { mistake: 'a typo in a phase name', at: 'executing', args: ['output', 'list', '--phase', 'reveiw'], exit: 1, code: 'PHASE_NOT_FOUND', message: "did you mean 'review'", hint: 'planning, implementation' },
  { mistake: 'a phase of another project type', at: 'exploration', args: ['phase', 'get', 'enabled', '--phase', 'implementation'], exit: 1, code: 'PHASE_NOT_FOUND', message: "'implementation'", hint: 'exploration' },
  { mistake: 'a typo in an artifact type', at: 'planning', args: ['output', 'add', '--type', 'task_lis', '--path', 'planning/tasks.md'], exit: 1, code: 'UNKNOWN_ARTIFACT_TYPE', message: "did you mean 'task_list'", hint: 'task_list' },
  { mistake: 'a typo in a task artifact type', at: 'executing', args: ['task', 'output', 'add', '--id', '010', '--type', 'modifed', '--path', 'src/a.ts'], exit: 1, code: 'UNKNOWN_ARTIFACT_TYPE', message: "did you mean 'modified'", hint: 'modified' },
  { mistake: 'an artifact type of another phase', at: 'executing', args: ['output', 'add', '--phase', 'planning', '--type', 'review', '--path', 'review.md'], exit: 1, code: 'UNKNOWN_ARTIFACT_TYPE', message: "'review'", hint: 'task_list' },
  { mistake: 'an index past the end of the list', at: 'planning', args: ['output', 'set', '--index', '3', 'approved', 'true'], exit: 1, code: 'INDEX_OUT_OF_RANGE', message: '0–0', hint: 'sow output list --phase planning' },
  { mistake: 'approving with a word that is not true or false, as a field', at: 'planning', args: ['output', 'set', '--index', '0', 'approved', 'yes'], exit: 1, code: 'INVALID_VALUE', message: "'yes'", hint: 'true' },
  { mistake: 'a review assessment that is neither pass nor fail', at: 'executing', args: ['input', 'add', '--type', 'review', '--path', 'review/r.md', '--assessment', 'ok'], exit: 1, code: 'INVALID_VALUE', message: "'ok'", hint: 'pass' },
  { mistake: 'approving a file that does not exist', at: 'planning', args: ['output', 'add', '--type', 'task_list', '--path', 'planning/missing.md', '--approved', 'true'], exit: 1, code: 'ARTIFACT_FILE_MISSING', message: 'planning/missing.md', hint: 'write the file' },
  { mistake: 'an artifact path outside the repository', at: 'planning', args: ['output', 'add', '--type', 'task_list', '--path', '../../../etc/passwd'], exit: 1, code: 'PATH_OUTSIDE_REPOSITORY', message: "'../../../etc/passwd'", hint: '.sow/project/' },
  { mistake: 'an event that does not exist', at: 'planning', args: ['advance', 'finish'], exit: 1, code: 'INVALID_EVENT', message: "no event 'finish'", hint: 'complete_planning' },
  { mistake: 'a typo in an event', at: 'planning', args: ['advance', 'complete_plannig'], exit: 1, code: 'INVALID_EVENT', message: "did you mean 'complete_planning'", hint: 'complete_planning' },
  { mistake: 'an event of a later state', at: 'executing', args: ['advance', 'review_pass'], exit: 1, code: 'INVALID_EVENT', message: 'ReviewActive', hint: 'all_tasks_complete' },
  { mistake: 'renaming the project with capitals and an underscore', at: 'planning', args: ['project', 'set', 'name', 'Bad_Name'], exit: 1, code: 'INVALID_VALUE', message: "'Bad_Name'", hint: 'add-auth' },
  { mistake: 'a base branch git refuses', at: 'planning', args: ['project', 'set', 'base_branch', 'main..x'], exit: 1, code: 'INVALID_VALUE', message: "'main..x'", hint: "'main'" },
  { mistake: 'a typo in a review assessment', at: 'executing', args: ['input', 'add', '--type', 'review', '--path', 'review/r.md', '--assessment', 'pas'], exit: 1, code: 'INVALID_VALUE', message: "did you mean 'pass'", hint: 'fail' },
  { mistake: 'a field path with an empty part', at: 'executing', args: ['task', 'set', '--id', '010', 'metadata..note', 'x'], exit: 1, code: 'INVALID_FIELD', message: "'metadata..note'", hint: 'metadata.owner.name' },
  { mistake: 'moving the project to a branch that is not checked out', at: 'planning', args: ['project', 'set', 'branch', 'nosuch'], exit: 1, code: 'INVALID_VALUE', message: "'nosuch'", hint: 'git checkout' },
  { mistake: 'a command of another project type', at: 'planning', args: ['iter', 'status'], exit: 1, code: 'WRONG_PROJECT_TYPE', message: 'iterative', hint: 'sow project status' },
  { mistake: 'a work phase that does not exist', at: 'iterative plan', args: ['iter', 'phase', 'set', 'R9', 'title', 'Sources'], exit: 1, code: 'WORK_PHASE_NOT_FOUND', message: "'R9'", hint: 'sow iter phase add' },
  { mistake: 'a reference to a folder that does not exist', at: 'no project', args: ['refs', 'add', '../no-such-folder', '--link', 'docs'], exit: 1, code: 'INVALID_VALUE', message: "'../no-such-folder'", hint: 'git URL' },
  { mistake: 'serving a folder that does not exist over MCP', at: 'no project', args: ['mcp', '--cwd', 'no-such-folder'], exit: 1, code: 'NOT_A_FOLDER', message: "'no-such-folder'", hint: 'start sow mcp in it' },
  { mistake: 'a check that is not declared', at: 'checks declared', args: ['check', 'run', 'lnt'], exit: 1, code: 'CHECK_NOT_FOUND', message: "did you mean 'lint'", hint: 'lint' },
  { mistake: 'removing a worktree that does not exist', at: 'no project', args: ['worktree', 'remove', 'feat/nosuch'], exit: 1, code: 'WORKTREE_NOT_FOUND', message: "'feat/nosuch'", hint: 'sow worktree add' },
  { mistake: 'removing a reference that does not exist', at: 'no project', args: ['refs', 'remove', 'nosuch'], exit: 1, code: 'REF_NOT_FOUND', message: "'nosuch'", hint: 'sow refs add' },

  { mistake: 'resuming a task no worker ever ran', at: 'executing', args: ['agent', 'resume', '010', 'carry on'], exit: 1, code: 'NO_SESSION', message: '010', hint: 'sow agent spawn' },
  { mistake: 'agent log outside a worker', at: 'executing', args: ['agent', 'log', 'did a thing'], exit: 2, code: 'USAGE', message: 'SOW_AGENT_ID', hint: 'sow log' },
  // The lifecycle is not there yet: 3
  { mistake: 'advancing before the task list is approved', at: 'planning', args: ['advance'], exit: 3, code: 'TRANSITION_BLOCKED', message: 'task_list', hint: 'approved true' },
  { mistake: 'adding a task while planning', at: 'planning', args: ['task', 'add', 'Too early'], exit: 3, code: 'PHASE_NOT_ACTIVE', message: 'PlanningActive', hint: 'sow advance' },
  { mistake: 'starting a task before its dependency is done', at: 'executing', args: ['task', 'set', '--id', '020', 'status', 'in_progress'], exit: 3, code: 'TASK_BLOCKED', message: '010 (pending)', hint: '--force' },
  { mistake: 'spawning a worker before the tasks are approved', at: 'tasks not approved', args: ['agent', 'spawn', 'implementer', '010'], exit: 3, code: 'NOT_EXECUTING', message: 'ImplementationPlanning', hint: 'sow advance' },
  { mistake: 'opening the pull request while planning', at: 'planning', args: ['pr', 'create'], exit: 3, code: 'TASK_BLOCKED', message: 'PlanningActive', hint: 'FinalizeDocumentation' },
  { mistake: 'advancing an exploration with no topic done', at: 'exploration', args: ['advance'], exit: 3, code: 'TRANSITION_BLOCKED', message: 'topic', hint: 'sow task add' },
  { mistake: 'advancing a design with no document', at: 'design', args: ['advance'], exit: 3, code: 'TRANSITION_BLOCKED', message: 'document', hint: 'sow task add' },
  { mistake: 'publishing a breakdown during discovery', at: 'breakdown', args: ['breakdown', 'publish'], exit: 3, code: 'NOT_PUBLISHING', message: 'Discovery', hint: 'sow advance' },
  { mistake: 'logging an iteration before the plan', at: 'iterative', args: ['iter', 'log', 'R1', '--did', 'read two papers', '--remaining', 'three more'], exit: 3, code: 'WORK_PHASE_BLOCKED', message: 'DiscoverActive', hint: 'brief' },

  // A state file that cannot be read: 4
  { mistake: 'a project state file edited into nonsense', at: 'planning', setup: [['write', '.sow/project/state.yaml', 'name: [unclosed\n']], args: ['status'], exit: 4, code: 'STATE_FILE_INVALID', message: '.sow/project/state.yaml', hint: 'git checkout --' },
  { mistake: 'a typo in a key of the configuration', at: 'no project', setup: [['write', '.xdg/sow/config.yaml', 'agents:\n  bindngs:\n    implementer: claude-code\n']], env: { XDG_CONFIG_HOME: '$REPO/.xdg' }, args: ['config', 'show'], exit: 4, code: 'CONFIG_INVALID', message: "did you mean 'bindings'", hint: 'sow config edit' },
  { mistake: 'a typo in an executor type', at: 'no project', setup: [['write', '.xdg/sow/config.yaml', 'agents:\n  executors:\n    mine:\n      type: claud\n']], env: { XDG_CONFIG_HOME: '$REPO/.xdg' }, args: ['config', 'show'], exit: 4, code: 'CONFIG_INVALID', message: "did you mean 'claude'", hint: 'sow config edit' },
];
