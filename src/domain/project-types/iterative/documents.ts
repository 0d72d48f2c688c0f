/** The documents of an iterative project (spec 002), under .sow/project/, and their templates. */
import { phaseOf } from '../../phases.js';
import type { ProjectState } from '../../schemas.js';

export const DIR = '.sow/project';
export const BRIEF = 'brief.md';
export const PLAN = 'plan.md';
export const CONTEXT = 'context.md';
export const PROGRESS = 'progress.md';
export const GUARDRAILS = 'guardrails.md';
/** Research inputs, and the deliverables. */
export const SOURCES = 'sources';
export const OUTPUTS = 'outputs';

export const PROGRESS_HEADER = '# Progress Log\n';
export const GUARDRAILS_HEADER = '# Guardrails\n\nRead before starting any iteration. Append when issues discovered.\n';

const title = (p: ProjectState) => p.description || p.name;

/** A document is unfinished while it holds one of these verbatim, so braces a person writes never count. */
export const BRIEF_PLACEHOLDERS = {
  domain: '{research|writing|analysis|planning|software}',
  outcome: '{What the user wants to achieve}',
  criterion1: '{Criterion 1}',
  criterion2: '{Criterion 2}',
  constraints: '{Time, format, scope constraints}',
  notes: '{Additional context}',
} as const;

export const CONTEXT_PLACEHOLDERS = {
  goal: '{One sentence}',
  output: '{what it is}',
  patterns: '{Any conventions or style notes}',
  signals: '{R1: what shows it is complete}',
} as const;

export function briefTemplate(project: ProjectState, now: string): string {
  const b = BRIEF_PLACEHOLDERS;
  return `# ${title(project)}

**Created:** ${now}
**Domain:** ${b.domain}

## Outcome Needed
${b.outcome}

## Done When
- ${b.criterion1}
- ${b.criterion2}

## Constraints
- ${b.constraints}

## Notes
${b.notes}
`;
}

export function contextTemplate(project: ProjectState): string {
  const c = CONTEXT_PLACEHOLDERS;
  return `# ${title(project)} Context

<!-- Keep it under 200 words: every iteration reads it. -->

**Goal:** ${c.goal}

**Approach:** ${c.goal}

**Key outputs:**
- \`outputs/…\` — ${c.output}

**Patterns to follow:**
- ${c.patterns}

**Phase signals:**
- ${c.signals}
`;
}

export const DOMAINS = ['research', 'writing', 'analysis', 'planning', 'software'] as const;

/** The discover phase's `domain` when a command set it, else the brief's Domain line. */
export function domainOf(project: ProjectState, readDoc: (rel: string) => string | undefined): string | undefined {
  const set = phaseOf(project, 'discover').metadata['domain'];
  return typeof set === 'string' ? set : briefDomain(readDoc(`${DIR}/${BRIEF}`));
}

/** The domain the brief's `**Domain:**` line names, when it names one of the domains. */
export function briefDomain(text: string | undefined): string | undefined {
  const m = /^\*\*Domain:\*\*[ \t]*([A-Za-z]+)[ \t]*$/m.exec(text ?? '');
  const d = m?.[1]?.toLowerCase();
  return (DOMAINS as readonly string[]).includes(d ?? '') ? d : undefined;
}

export type Guardrail = Readonly<Record<'pattern' | 'context' | 'problem' | 'solution', string>>;

/** A guardrails.md entry (spec 002's format), with where it was learned. */
export function guardrailEntry(g: Guardrail, learned: string) {
  const line = (s: string) => s.trim().replace(/\s*\n\s*/g, ' ');
  return [
    `## ${line(g.pattern)}`,
    `- **Context:** ${line(g.context)}`,
    `- **Problem:** ${line(g.problem)}`,
    `- **Solution:** ${line(g.solution)}`,
    `- **Learned:** ${learned}`,
  ].join('\n');
}

/** `text` with `entry` appended after a blank line: earlier entries are never rewritten. */
export function appendEntry(text: string | undefined, header: string, entry: string): string {
  const base = text === undefined || text.trim() === '' ? header : text;
  return `${base.replace(/\n*$/, '\n')}\n${entry}\n`;
}
