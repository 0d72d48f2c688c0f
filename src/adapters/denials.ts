// Refused tool calls (denials) in an agent CLI's output and sow's advice on them. Pure; each CLI's shapes are its
// module's `denials` reader (test/fixtures/denials/).
import type { PermissionProfile } from '../domain/config-schemas.js';
import { executorOf } from './executors/registry.js';
import { isRecord } from '../domain/json.js';
import type { Denial } from './executors/types.js';

export type { Denial } from './executors/types.js';

/** Collects the denials of one run of a CLI of this type (none for types sow cannot read). */
export function denialCollector(type: string) {
  const reader = executorOf(type)?.denials?.();
  const denials: Denial[] = [];
  return {
    event(event: unknown) {
      if (reader?.event && isRecord(event)) denials.push(...reader.event(event));
    },
    stderr(line: string) {
      if (reader?.stderr) denials.push(...reader.stderr(line));
    },
    denials,
  };
}

export interface AdviceContext {
  type: string;
  /** The CLI's name for people: Claude Code, Codex CLI, … */
  title: string;
  /** The executor's name in the user configuration, and that file. */
  executor: string;
  configPath: string;
  /** The repository configuration that declares the checks. */
  repoConfig: string;
  checks: readonly string[];
  /** Declared checks not granted: the person has not allowed them on this machine. */
  notAllowed?: readonly string[];
  profile: PermissionProfile;
  /** Over ACP, sow itself answered the agent's permission requests: the CLI's own sandbox and wording do not apply. */
  decidedBySow?: boolean;
}

/** What to tell the user about refused calls (lines for stderr): which, and how to allow them (a check, or yolo). */
export function denialAdvice(denials: readonly Denial[], ctx: AdviceContext): string[] {
  if (!denials.length) return [];
  // The same command refused twice is said once; refusals that name no command (Codex) are each their own.
  const unique = denials.filter(
    (d, i) => d.input === null || denials.findIndex((e) => e.tool === d.tool && e.input === d.input) === i,
  );
  const refused = ctx.decidedBySow ? `sow refused ${ctx.title}` : `${ctx.title} refused`;
  const calls = unique.length === 1 ? 'a tool call' : `${unique.length} tool calls`;
  const lines = [`${refused} ${calls} (permissions: ${ctx.profile}):`];
  for (const d of unique) {
    const what = d.input ?? (d.kind === 'command' ? '(a command; codex does not say which)' : '(not named)');
    lines.push(`  ${d.tool}: ${what}${d.reason && (d.input === null || ctx.decidedBySow) ? ` — ${d.reason}` : ''}`);
  }
  const checks = new Set(ctx.checks.map((c) => c.trim()));
  const commands = unique.filter((d) => d.kind === 'command' && d.input !== null);
  const withheld = new Set((ctx.notAllowed ?? []).map((c) => c.trim()));
  const declared = commands.filter((d) => checks.has(d.input!.trim()));
  const notAllowed = commands.filter((d) => !checks.has(d.input!.trim()) && withheld.has(d.input!.trim()));
  const undeclared = commands.filter((d) => !checks.has(d.input!.trim()) && !withheld.has(d.input!.trim()));
  const cli = ctx.decidedBySow ? undefined : executorOf(ctx.type);
  if (ctx.profile === 'safe' && cli?.sandbox) {
    lines.push(`${cli.sandbox}; declaring a check does not widen it.`);
  } else if (ctx.profile === 'safe') {
    if (undeclared.length) {
      lines.push(
        `To let a worker run ${undeclared.length === 1 ? 'that command' : 'those commands'}, ` +
          `declare ${undeclared.length === 1 ? 'it as a check' : 'each as a check'} in ${ctx.repoConfig}:`,
      );
      lines.push('  checks:');
      undeclared.forEach((d, i) =>
        lines.push(
          `    - name: ${undeclared.length === 1 ? 'allowed' : `allowed-${i + 1}`}`,
          `      run: ${JSON.stringify(d.input!.trim())}`,
        ),
      );
      lines.push(`then allow ${undeclared.length === 1 ? 'it' : 'them'} on this machine: 'sow check allow'.`);
    }
    for (const d of notAllowed)
      lines.push(
        `\`${d.input!.trim()}\` is declared as a check, but you have not allowed it on this machine: review it ` +
          `('sow check list') and run 'sow check allow'.`,
      );
    for (const d of declared)
      lines.push(
        `\`${d.input!.trim()}\` is declared as a check, but ${ctx.title} refused ` +
          `it: ${cli?.checkRefusedBecause ?? 'its own settings deny it'}.`,
      );
    if (unique.some((d) => d.kind === 'edit')) lines.push('A safe worker edits files only inside the repository.');
  } else {
    lines.push(
      `${ctx.title} refused ${unique.length === 1 ? 'it' : 'them'} even with permissions: yolo: its own ` +
        `configuration denies ${unique.length === 1 ? 'it' : 'them'}.`,
    );
    return lines;
  }
  lines.push(
    `To let executor ${JSON.stringify(ctx.executor)} do anything unasked, set permissions: yolo in ${ctx.configPath}:`,
  );
  lines.push(
    '  agents:',
    '    executors:',
    `      ${ctx.executor}:`,
    `        type: ${ctx.type}`,
    '        settings:',
    '          permissions: yolo',
  );
  return lines;
}
