#!/usr/bin/env node
/**
 * A fake `gh` for the end-to-end tests: strict about the subcommands and flags sow may use (the
 * ones the pinned gh 2.23.0 has, test/fixtures/gh-help), records every call, and answers from a
 * state file the test writes (issues, linked branches, pull requests), which it updates as gh
 * would (links, new issues, new pull requests, ready).
 *
 *   FAKE_GH_LOG    a JSON line per call: { argv, cwd }
 *   FAKE_GH_STATE  JSON { repo, issues: [{number, title, state, labels: [{name}], url, body}],
 *                  linked: {n: [branch]}, prs: [...] }
 *   FAKE_GH_FAIL   auth: exit 4 as gh does without a login; error: exit 1 with an API error;
 *                  develop: only linking a branch to an issue fails (as without the permission);
 *                  create-after:N: `issue create` fails once N issues were created through it
 *                  (counted in the state file), as when the API gives out midway
 *   FAKE_GH_REPLY  printed instead of the answer of a --json command (a reply of the wrong shape)
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (process.env.FAKE_GH_LOG)
  appendFileSync(process.env.FAKE_GH_LOG, `${JSON.stringify({ argv, cwd: process.cwd() })}\n`);

const die = (code, message) => {
  process.stderr.write(`${message}\n`);
  process.exit(code);
};
// What `sow doctor` asks: the version (answered even without a login, as gh does), and the login.
if (argv[0] === '--version') {
  process.stdout.write('gh version 2.23.0 (fake)\n');
  process.exit(0);
}
if (process.env.FAKE_GH_FAIL === 'auth')
  die(
    4,
    'To get started with GitHub CLI, please run:  gh auth login\nAlternatively, populate the GH_TOKEN environment ' +
      'variable with a GitHub API authentication token.',
  );
if (process.env.FAKE_GH_FAIL === 'error') die(1, 'HTTP 502: Bad Gateway (https://api.github.com/graphql)');

if (process.env.FAKE_GH_REPLY !== undefined && argv.some((a) => a === '--json' || a.startsWith('--json='))) {
  process.stdout.write(process.env.FAKE_GH_REPLY);
  process.exit(0);
}

if (argv[0] === 'auth' && argv[1] === 'status') {
  process.stderr.write('github.com\n  ✓ Logged in to github.com as fake (GH_TOKEN)\n');
  process.exit(0);
}

/** Flags each command accepts (value-taking ones true), as gh 2.23.0's help lists them. */
const SPECS = {
  'issue list': { '--repo': true, '--state': true, '--label': true, '--limit': true, '--json': true },
  'issue view': { '--repo': true, '--json': true },
  'issue develop': { '--repo': true, '--list': false, '--name': true, '--base': true },
  'issue create': { '--repo': true, '--title': true, '--body-file': true },
  'pr list': { '--repo': true, '--head': true, '--state': true, '--json': true },
  'pr create': {
    '--repo': true,
    '--head': true,
    '--base': true,
    '--title': true,
    '--body-file': true,
    '--draft': false,
  },
  'pr ready': { '--repo': true },
};
const command = argv.slice(0, 2).join(' ');
const spec = SPECS[command];
if (!spec) die(1, `unknown command "${command}" for "gh" (fake)`);
const flags = {};
const args = [];
// As gh's flag parser (pflag) reads them: `--flag value`, `--flag=value`, `--` ends the flags; any
// other word beginning with '-' is a flag (so a value sow passed as its own word would show here).
for (let i = 2; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--') {
    args.push(...argv.slice(i + 1));
    break;
  }
  if (!a.startsWith('-') || a === '-') {
    args.push(a);
    continue;
  }
  const eq = a.indexOf('=');
  const name = eq < 0 ? a : a.slice(0, eq);
  if (!(name in spec)) die(1, `unknown flag: ${name}\n\nUsage:  gh ${command} [flags]`);
  if (eq >= 0) {
    if (!spec[name]) die(1, `flag ${name} takes no value`);
    flags[name] = a.slice(eq + 1);
  } else if (spec[name]) {
    if (i + 1 >= argv.length) die(1, `flag needs an argument: ${name}`);
    flags[name] = argv[++i];
  } else flags[name] = true;
}
if (!flags['--repo']) die(1, 'fake gh: every call must name the repository with --repo');

const statePath = process.env.FAKE_GH_STATE;
const state =
  statePath && existsSync(statePath)
    ? JSON.parse(readFileSync(statePath, 'utf8'))
    : { issues: [], linked: {}, prs: [] };
state.issues ??= [];
state.linked ??= {};
state.prs ??= [];
const save = () => statePath && writeFileSync(statePath, JSON.stringify(state, null, 2));
if (state.repo && flags['--repo'] !== state.repo)
  die(1, `GraphQL: Could not resolve to a Repository with the name '${flags['--repo']}'. (repository)`);

const pick = (obj, fields) => Object.fromEntries(fields.split(',').map((f) => [f, obj[f] ?? null]));
const out = (x) => process.stdout.write(typeof x === 'string' ? `${x}\n` : `${JSON.stringify(x)}\n`);
const issue = (n) =>
  state.issues.find((i) => i.number === Number(n)) ??
  die(1, `GraphQL: Could not resolve to an issue or pull request with the number of ${n}. (repository.issue)`);

switch (command) {
  case 'issue list': {
    const want = flags['--state'] ?? 'open';
    const list = state.issues
      .filter((i) => want === 'all' || i.state.toLowerCase() === want)
      .filter((i) => !flags['--label'] || i.labels.some((l) => l.name === flags['--label']))
      .slice(0, Number(flags['--limit'] ?? 30));
    out(list.map((i) => pick(i, flags['--json'])));
    break;
  }
  case 'issue view':
    out(pick(issue(args[0]), flags['--json']));
    break;
  case 'issue develop': {
    const n = args[0];
    issue(n);
    if (!flags['--list'] && process.env.FAKE_GH_FAIL === 'develop')
      die(1, 'GraphQL: Resource not accessible by integration (createLinkedBranch)');
    if (flags['--list']) {
      for (const b of state.linked[n] ?? []) out(`${b}\thttps://github.com/${flags['--repo']}/tree/${b}`);
      break;
    }
    state.linked[n] = [...(state.linked[n] ?? []), flags['--name']];
    save();
    out(`github.com/${flags['--repo']}/tree/${flags['--name']}`);
    break;
  }
  case 'issue create': {
    if (flags['--title'] === undefined)
      die(1, 'must provide `--title` and `--body` (or `--body-file`) when not running interactively');
    if (flags['--body-file'] === undefined)
      die(1, 'must provide `--title` and `--body` (or `--body-file`) when not running interactively');
    const from = flags['--body-file'];
    if (from !== '-' && !existsSync(from)) die(1, `open ${from}: no such file or directory`);
    const body = readFileSync(from === '-' ? 0 : from, 'utf8');
    state.issues_created ??= 0;
    const failAfter = /^create-after:(\d+)$/.exec(process.env.FAKE_GH_FAIL ?? '');
    if (failAfter && state.issues_created >= Number(failAfter[1]))
      die(1, 'HTTP 502: Bad Gateway (https://api.github.com/graphql)');
    const number = state.issues.reduce((m, i) => Math.max(m, i.number), 0) + 1;
    const url = `https://github.com/${flags['--repo']}/issues/${number}`;
    state.issues.push({ number, title: flags['--title'], state: 'OPEN', labels: [], url, body });
    state.issues_created += 1;
    save();
    process.stderr.write(`\nCreating issue in ${flags['--repo']}\n\n`);
    out(url);
    break;
  }
  case 'pr list':
    out(
      state.prs
        .filter((p) => p.headRefName === flags['--head'] && p.state === 'OPEN')
        .map((p) => pick(p, flags['--json'])),
    );
    break;
  case 'pr create': {
    if (!existsSync(flags['--body-file'])) die(1, `open ${flags['--body-file']}: no such file or directory`);
    const number = 100 + state.prs.length + 1;
    const url = `https://github.com/${flags['--repo']}/pull/${number}`;
    state.prs.push({
      number,
      url,
      isDraft: flags['--draft'] === true,
      state: 'OPEN',
      headRefName: flags['--head'],
      baseRefName: flags['--base'],
      title: flags['--title'],
      body: readFileSync(flags['--body-file'], 'utf8'),
    });
    save();
    process.stderr.write(
      `\nCreating pull request for ${flags['--head']} into ${flags['--base']} in ${flags['--repo']}\n\n`,
    );
    out(url);
    break;
  }
  case 'pr ready': {
    const pr =
      state.prs.find((p) => p.number === Number(args[0])) ??
      die(1, `GraphQL: Could not resolve to a PullRequest with the number of ${args[0]}.`);
    pr.isDraft = false;
    save();
    process.stderr.write(`✓ Pull request #${pr.number} is marked as "ready for review"\n`);
    break;
  }
}
