/** The process boundary: parse argv, run one command, render its result or error, set the exit code. */
import { Command, CommanderError } from 'commander';
import { didYouMean, errorEnvelope, exitCodeFor, SowError, UsageError } from './domain/errors.js';
import { quoted } from './domain/display.js';
import { writeText } from './cli/output.js';
import { stderr, stdout, watchStream } from './cli/stdio.js';
import { environmentError } from './adapters/io-errors.js';
import { toJson } from './domain/json.js';
import { allCommands, GROUPS, TOPICS } from './commands/index.js';
import { addGroupsFor, subcommandsOf } from './cli/build.js';
import { registerComplete } from './cli/completion.js';
import type { CommandResult, Registry } from './model/def.js';

declare const SOW_VERSION: string;

// Of the command line being run (main sets them).
let json = false;
// `--json --help` prints the help: a person asked for it, and there is no data to wrap.
let wantsHelp = false;

function write(stream: { write(text: string): unknown }, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

function render(result: CommandResult): void {
  if (json) return write(stdout, toJson({ ok: true, data: result.data ?? null }));
  if (result.text) writeText(stdout, result.text);
  if (result.message) writeText(stderr, result.message);
}

async function renderError(err: SowError): Promise<number> {
  if (json) {
    write(stdout, toJson(errorEnvelope(err)));
  } else {
    const { paintFor } = await import('./cli/colour.js');
    const paint = paintFor(stderr);
    writeText(
      stderr,
      `${paint('error', 'error:')} ${err.message}${err.hint ? `\n${paint('hint', 'hint:')} ${err.hint}` : ''}`,
    );
  }
  return exitCodeFor(err.kind);
}

const registry: Registry = {
  groups: GROUPS,
  topics: TOPICS,
  typeGroups: async (name) => (await import('./commands/types.js')).typeGroups(name),
};

async function build(done: (result: CommandResult) => void): Promise<Command> {
  const front = { commands: allCommands, done };
  const program = new Command('sow')
    .description(
      'System of work: steer AI coding agents through plan → implement → review → finalize, with all state in .sow/',
    )
    .version(typeof SOW_VERSION === 'string' ? SOW_VERSION : '0.0.0-dev', '-V, --version')
    .option(
      '--json',
      'print exactly one JSON document on stdout: {"ok":true,"data":…} or {"ok":false,"error":…} (.inf and .nan as ' +
        'strings, big integers digit for digit)',
    )
    .option('--no-color', 'no colour, even on a terminal (as NO_COLOR=1 does); there is none when output is piped')
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true })
    // Errors of every subcommand come back to us, not to process.exit (commands made under it copy these settings).
    .exitOverride()
    .configureOutput({
      writeErr: () => undefined,
      outputError: () => undefined,
      // With --json, stdout carries only our JSON document (help excepted).
      writeOut: json && !wantsHelp ? () => undefined : (text) => stdout.write(text),
    });
  // Only the group argv names is built (and within it what the next word begins, not for help); help, unknown
  // words and no argument get the whole tree.
  const words = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const first = words[0];
  const next = wantsHelp ? undefined : words[1];
  if (first === '__complete') registerComplete(program, registry);
  else if (await addGroupsFor(program, registry, first, front, next)) {
    registerComplete(program, registry);
    const { columns } = await import('./cli/render.js');
    program.addHelpText(
      'after',
      `\nHelp topics (sow help <topic>):\n${columns(TOPICS.map((t) => [`  ${t.name}`, t.description]))}\n\nsow ` +
        `help <command> shows a command's help; sow help reference, all of them.`,
    );
  }
  return program;
}

/** The deepest command the words of argv name, e.g. `task input` for `sow task input`, and the word after it. */
function commandNamed(program: Command, argv: readonly string[]): { cmd: Command; next?: string } {
  let cmd = program;
  for (const word of argv.slice(2)) {
    if (word.startsWith('-')) continue;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) return { cmd, next: word };
    cmd = sub;
  }
  return { cmd };
}

// Commander's refusals, said as sow says its own: the word it stumbled on (with its near miss), and a hint that names
// what the command does take.
function fromCommander(err: CommanderError, program: Command, argv: readonly string[]): SowError | undefined {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return undefined;
  // `sow help <command>` asked for the help it got.
  if (err.code === 'commander.help' && argv[2] === 'help') return undefined;
  const { cmd, next } = commandNamed(program, argv);
  // The command and those above it: its path, and the flags it takes (--json among them).
  const chain: Command[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) chain.unshift(c);
  const path = chain.map((c) => c.name()).join(' ');
  const usage = `usage: ${path} ${cmd.usage()}`;
  const names = subcommandsOf(cmd).map((c) => c.name());
  // A command group named without one of its commands, e.g. `sow task`.
  if (err.code === 'commander.help' || err.code === 'commander.executeSubCommandAsync')
    return new UsageError(
      `'${path}' needs a command: ${names.join(', ')}`,
      `run '${path} --help' to see what each does`,
    );
  if (err.code === 'commander.unknownCommand' && next !== undefined) {
    return new UsageError(
      `unknown command ${quoted(next)}${didYouMean(next, names)}`,
      `${path === 'sow' ? 'commands' : `'${path}' has`}: ${names.join(', ')}`,
    );
  }
  const options = chain.reverse().flatMap((c) => c.options.filter((o) => !o.hidden));
  // Commander's message quotes the word it stumbled on, or the flags of the option that lacks its value.
  const quotedWord = /'([^']+)'/.exec(err.message)?.[1] ?? '';
  if (err.code === 'commander.unknownOption') {
    const flag = quotedWord.split('=')[0]!;
    const own = cmd.options.filter((o) => !o.hidden).map((o) => o.long ?? o.short ?? o.flags);
    return new UsageError(
      `unknown option ${quoted(flag)}${didYouMean(flag, options.map((o) => o.long ?? '').filter(Boolean))}`,
      own.length ? `'${path}' takes ${own.join(', ')} (and --json)` : `'${path}' takes no options besides --json`,
    );
  }
  const message = err.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  const missing = options.find((o) => o.flags === quotedWord);
  if (
    missing &&
    (err.code === 'commander.missingMandatoryOptionValue' || err.code === 'commander.optionMissingArgument')
  ) {
    // A task id is the one value a person has to look up: say where.
    const where = missing.long === '--id' ? "; 'sow task list' shows the ids" : '';
    return new UsageError(message, `${missing.flags}: ${missing.description}${where}`);
  }
  if (err.code === 'commander.excessArguments') {
    const extra = cmd.args.slice(cmd.registeredArguments.length);
    const takes = cmd.registeredArguments.map((a) => `<${a.name()}>`).join(' ') || 'no arguments';
    if (extra.length)
      return new UsageError(`unexpected argument ${quoted(extra[0]!)}: '${path}' takes ${takes}`, usage);
  }
  return new UsageError(message, usage);
}

/** `sow help <topic>`: the topic's page, run in this process like a command (its data with --json). */
async function helpTopic(name: string): Promise<number> {
  const extra = process.argv.slice(4).find((w) => w !== '--json' && w !== '--no-color');
  if (extra !== undefined)
    return renderError(
      new UsageError(
        `unexpected argument ${quoted(extra)}: 'sow help ${name}' takes only --json`,
        `run 'sow help ${name}'`,
      ),
    );
  const def = await TOPICS.find((t) => t.name === name)!.load();
  const { processContext } = await import('./app/context.js');
  const r = await def.run({ app: processContext(), json, commands: allCommands }, { args: [], opts: {} });
  if (r) render(r);
  return 0;
}

async function main(): Promise<number> {
  const { argv } = process;
  json = argv.includes('--json');
  wantsHelp = argv.includes('--help') || argv.includes('-h');
  const topic = argv[2] === 'help' ? argv[3] : undefined;
  if (topic !== undefined && TOPICS.some((t) => t.name === topic)) return helpTopic(topic);
  let result: CommandResult | undefined;
  const program = await build((r) => (result = r));
  if (argv.length <= 2) {
    write(stdout, program.helpInformation());
    return 0;
  }
  if (topic !== undefined && !topic.startsWith('-') && !program.commands.some((c) => c.name() === topic)) {
    const topics = [...program.commands.map((c) => c.name()).filter((n) => n !== 'help'), ...TOPICS.map((t) => t.name)];
    return renderError(
      new UsageError(
        `unknown help topic ${quoted(topic)}${didYouMean(topic, topics)}`,
        `the topics are the commands ('sow --help' lists them) and ${TOPICS.map((t) => t.name).join(', ')}`,
      ),
    );
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      const usage = fromCommander(err, program, argv);
      if (usage) return renderError(usage);
      if (json && err.code === 'commander.version')
        write(stdout, JSON.stringify({ ok: true, data: { version: program.version() } }));
      return 0;
    }
    if (err instanceof SowError) return renderError(err);
    // No permission, a full disk, a read-only file system: the machine's, not a bug of sow.
    const environment = environmentError(err);
    if (environment) return renderError(environment);
    const internal = new SowError(
      'INTERNAL',
      'internal',
      `internal error: ${err instanceof Error ? err.message : String(err)}`,
      'this is a bug in sow; rerun with SOW_DEBUG=1 NODE_OPTIONS=--enable-source-maps for the stack trace, ' +
        'and report it',
    );
    if (process.env['SOW_DEBUG']) write(stderr, String(err instanceof Error ? err.stack : err));
    return renderError(internal);
  }
  if (result) render(result);
  return 0;
}

// `sow … | head` closes the pipe early: the reader's choice, not an error.
watchStream('stdout', (stream) =>
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  }),
);
watchStream('stderr');
// A signal ends sow at once, unless a part running a child listens too: then the command finishes and sow exits as
// the signal would have it. A second signal ends it at once.
let interrupted: number | undefined;
const onSignal = (code: number) => () => {
  if (interrupted === undefined && process.listenerCount(code === 130 ? 'SIGINT' : 'SIGTERM') > 1) interrupted = code;
  else process.exit(code);
};
process.on('SIGINT', onSignal(130));
process.on('SIGTERM', onSignal(143));

main().then(
  (code) => {
    process.exitCode = interrupted ?? code;
  },
  (err: unknown) => {
    write(stderr, `internal error: ${String(err)}`);
    process.exitCode = 70;
  },
);
