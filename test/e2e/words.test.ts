/**
 * What sow says to people: every hint names a command or flag that exists, no text cites a
 * document users do not have, one confirmation flag (--yes) for every question, and the small
 * conveniences of a well-made CLI (`sow status`, `help <unknown>`, `--json --help`, telling whom a
 * command waits for).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  allFlags,
  checkCommand,
  fillPlaceholders,
  help,
  subcommands,
  taskStatuses,
  tokenize,
  type CommandProblem,
} from './cli-surface.js';
import { ok, SOW, TEST_ENV, toExecuting, useRepos } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const fresh = useRepos();

function files(dir: string, keep: (rel: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      const p = join(abs, e.name);
      if (e.isDirectory()) walk(p);
      else if (keep(relative(ROOT, p))) out.push(p);
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/**
 * The text of every string and template literal of sow's own code (not tests, not the executor
 * tables, which hold other CLIs' flags), with each `${…}` of a template read as `<x>`.
 */
function sourceStrings(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const file of files(
    'src',
    (rel) => rel.endsWith('.ts') && !rel.endsWith('.test.ts') && !rel.includes('adapters/executors/'),
  )) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node) => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
        out.push({ file: relative(ROOT, file), text: node.text });
      else if (ts.isTemplateExpression(node)) {
        out.push({
          file: relative(ROOT, file),
          text: node.head.text + node.templateSpans.map((s) => `<x>${s.literal.text}`).join(''),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

const GROUPS = new Set(subcommands(help([]).text));

/**
 * `'sow task list'` and `` `sow agent resume 010 "<prompt>"` `` quoted inside a text, and texts
 * that are a whole command (a resume command handed to an error). Commands whose words are
 * computed (`sow task <x>` from `sow task ${direction}`) are left out: their parts are checked
 * where they are written.
 */
function quotedCommands(text: string): string[] {
  const found = [...text.matchAll(/'(sow [^'\n]+)'/g), ...text.matchAll(/`(sow [^`\n]+)`/g)].map((m) => m[1]!);
  const words = text.split(' ');
  if (words[0] === 'sow' && GROUPS.has(words[1] ?? '') && !/[\n()]/.test(text)) found.push(text);
  return found.filter((c) => !c.split(' ').slice(1, 3).includes('<x>'));
}

describe('hints name commands and flags that exist', () => {
  it('every `sow …` command quoted in the source is one the CLI accepts, with flags it has', () => {
    const statuses = taskStatuses();
    const problems: CommandProblem[] = [];
    const seen = new Set<string>();
    for (const { file, text } of sourceStrings()) {
      for (const command of quotedCommands(text)) {
        // Placeholders: `<x>` from templates and `<id>`-style words; a `|` offers choices, take the first.
        const concrete = command.replace(/(\w+)(?:\|\w+)+/g, '$1');
        if (seen.has(`${file}:${concrete}`)) continue;
        seen.add(`${file}:${concrete}`);
        const args = tokenize(concrete).slice(1);
        if (args[0] === 'help' || args[0] === '--help') {
          // `sow help`, `sow --help`, `sow help exit-codes`: the help must be there.
          const r = spawnSync(process.execPath, [SOW, ...args], { encoding: 'utf8' });
          if (r.status !== 0) problems.push({ file, command, problem: `'${concrete}' exited ${r.status}` });
          continue;
        }
        problems.push(...checkCommand(file, concrete, statuses));
      }
    }
    expect(seen.size, 'the walk finds the hints').toBeGreaterThan(60);
    expect(problems).toEqual([]);
  });

  it('every flag a message tells people to pass exists on some sow command', () => {
    const flags = allFlags();
    const named = new Map<string, string>();
    for (const { file, text } of sourceStrings()) {
      for (const m of text.matchAll(/\b(?:pass|with|add|use|or)\s+(--[a-z][a-z-]*)/g)) named.set(m[1]!, file);
    }
    expect(named.size, 'the walk finds flags in hints').toBeGreaterThan(5);
    const missing = [...named].filter(([flag]) => !flags.has(flag)).map(([flag, file]) => `${file}: ${flag}`);
    expect(missing).toEqual([]);
  });

  it('the checks can fail', () => {
    expect(quotedCommands("run 'sow task lst' now")).toEqual(['sow task lst']);
    expect(checkCommand('t', fillPlaceholders('sow task lst'), taskStatuses())).toHaveLength(1);
    expect(tokenize('sow agent resume 010 "a b"')).toEqual(['sow', 'agent', 'resume', '010', 'a b']);
    expect(allFlags().has('--yes')).toBe(true);
    expect(allFlags().has('--frobnicate')).toBe(false);
  });
});

describe('no text cites documents users do not have', () => {
  const CITATION = /\bADR-0\d\d\b|\bspec 0\d\d\b|\bspec \d{3}\b|DESIGN §|\(spec\b|spec's\b/;

  it('the built CLI (what users see: messages, hints, help, schema descriptions)', () => {
    const bundle = readFileSync(join(ROOT, 'dist/core.cjs'), 'utf8');
    const hits = [...bundle.matchAll(new RegExp(CITATION.source, 'g'))].map((m) =>
      bundle.slice(Math.max(0, m.index! - 60), m.index! + 40),
    );
    expect(hits).toEqual([]);
  });

  it('the templates sow ships (prompts, agent prompts, guidance)', () => {
    const hits = files('templates', (rel) => rel.endsWith('.md')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => CITATION.test(line))
        .map((line) => `${relative(ROOT, file)}: ${line}`),
    );
    expect(hits).toEqual([]);
  });
});

describe('one confirmation flag', () => {
  it('--yes answers every question sow asks; without a terminal each names --yes (exit 2)', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'x']);
    const home = join(TEST_ENV.XDG_CONFIG_HOME!, '..', 'yes-test');
    const env = { XDG_CONFIG_HOME: home };
    ok(repo, ['config', 'init'], { env });
    for (const args of [
      ['project', 'delete'],
      ['config', 'init'],
      ['config', 'reset'],
    ]) {
      const r = repo.sow([...args, '--json'], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.json?.error?.code).toBe('CONFIRMATION_REQUIRED');
      expect(r.json?.error?.hint).toContain('--yes');
    }
    ok(repo, ['config', 'init', '--yes'], { env });
    ok(repo, ['config', 'reset', '--yes'], { env });
    ok(repo, ['project', 'delete', '--yes']);
    // --force overrides a refusal, it answers no question.
    expect(repo.sow(['config', 'reset', '--force'], { env }).code).toBe(2);
  });
});

describe('small things a well-made CLI does', () => {
  it('`sow status` is `sow project status`', () => {
    const repo = fresh();
    ok(repo, ['project', 'new', 'demo', '--description', 'x']);
    const a = ok(repo, ['status', '--json']).json!.data;
    const b = ok(repo, ['project', 'status', '--json']).json!.data;
    expect(a).toEqual(b);
    expect(ok(repo, ['status']).stdout).toBe(ok(repo, ['project', 'status']).stdout);
  });

  it('`sow help <unknown>` says the topic is unknown; `help <command>` shows its help', () => {
    const repo = fresh();
    const r = repo.sow(['help', 'frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown help topic 'frobnicate'");
    expect(r.stderr).toContain('sow --help');
    const task = repo.sow(['help', 'task']);
    expect(task.code).toBe(0);
    expect(task.stdout).toContain('Usage: sow task');
  });

  it(
    'help topics: listed by `sow --help`, each a page (its data with --json), completed after `sow help`, and ' +
      'nothing after the topic',
    () => {
      const repo = fresh();
      const listed = ok(repo, ['--help']).stdout;
      for (const topic of ['environment', 'exit-codes', 'json', 'reference']) {
        expect(listed).toMatch(new RegExp(`^  ${topic} `, 'm'));
        const page = ok(repo, ['help', topic]);
        expect(page.stdout.length, topic).toBeGreaterThan(100);
        expect(ok(repo, ['help', topic, '--json']).json!.ok).toBe(true);
      }
      expect(ok(repo, ['help', 'environment']).stdout).toMatch(/^SOW_LOCK_TIMEOUT +seconds a command waits/m);
      const ref = ok(repo, ['help', 'reference', '--json']).json!.data as { command: string; usage: string }[];
      expect(ref.find((e) => e.command === 'sow task add')?.usage).toBe('sow task add [options] <name>');
      expect(ok(repo, ['task', 'add', '--help']).stdout).toContain('Usage: sow task add [options] <name>');
      const extra = repo.sow(['help', 'environment', 'more']);
      expect([extra.code, extra.stderr]).toEqual([
        2,
        "error: unexpected argument 'more': 'sow help environment' takes only --json\nhint: run 'sow help " +
          "environment'\n",
      ]);
      const typo = repo.sow(['help', 'enviroment']);
      expect(typo.code).toBe(2);
      expect(typo.stderr).toContain("unknown help topic 'enviroment'; did you mean 'environment'?");
      const r = spawnSync(process.execPath, [SOW, '__complete', '--', 'sow', 'help', 'e'], {
        cwd: repo.dir,
        encoding: 'utf8',
        env: { ...process.env, ...TEST_ENV },
      });
      expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['environment', 'exit-codes']);
    },
  );

  it('`--json --help` prints the help', () => {
    const repo = fresh();
    for (const args of [
      ['--json', '--help'],
      ['task', 'add', '--help', '--json'],
      ['--json', 'advance', '--help'],
    ]) {
      const r = repo.sow(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toContain('Usage: sow');
    }
  });

  it('a command waiting for the lock says whom it waits for, after a second', async () => {
    const repo = fresh();
    toExecuting(repo);
    // A live process (this test) holds the lock, as a long write of another sow would.
    writeFileSync(
      join(repo.dir, '.git/sow/lock'),
      JSON.stringify({ pid: process.pid, host: hostname(), started: Date.now(), command: 'sow task set' }),
    );
    const child = spawn(process.execPath, [SOW, 'phase', 'set', 'metadata.x', 'y'], {
      cwd: repo.dir,
      env: { ...process.env, ...TEST_ENV },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // Waits on what it says (no clock: how soon it speaks depends on the machine's load).
    for (let waited = 0; !stderr.includes('waiting for') && waited < 120_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    expect(stderr).toContain(`waiting for pid ${process.pid} (sow task set)`);
    readFileSync(join(repo.dir, '.git/sow/lock'));
    const { rmSync } = await import('node:fs');
    rmSync(join(repo.dir, '.git/sow/lock'));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(0);
    expect(repo.yaml('.sow/project/state.yaml').phases.implementation.metadata.x).toBe('y');
  });
});
