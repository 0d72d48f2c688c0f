/** The documents of an iterative project (spec 002), under .sow/project/, and their templates. */
import type { ProjectState } from '../../schemas.js';

export const DIR = '.sow/project';
export const BRIEF = 'brief.md';
export const PLAN = 'plan.md';
export const CONTEXT = 'context.md';
export const PROGRESS = 'progress.md';
export const GUARDRAILS = 'guardrails.md';

export const PROGRESS_HEADER = '# Progress Log\n';
export const GUARDRAILS_HEADER = '# Guardrails\n\nRead before starting any iteration. Append when issues discovered.\n';

const title = (p: ProjectState) => p.description || p.name;

export function briefTemplate(project: ProjectState, now: string): string {
  return `# ${title(project)}

**Created:** ${now}
**Domain:** {research|writing|analysis|planning|software}

## Outcome Needed
{What the user wants to achieve}

## Done When
- {Criterion 1}
- {Criterion 2}

## Constraints
- {Time, format, scope constraints}

## Notes
{Additional context}
`;
}

export function contextTemplate(project: ProjectState): string {
  return `# ${title(project)} Context

<!-- Keep it under 200 words: every iteration reads it. -->

**Goal:** {One sentence}

**Approach:** {One sentence}

**Key outputs:**
- \`outputs/…\` — {what it is}

**Patterns to follow:**
- {Any conventions or style notes}
`;
}

export interface Guardrail {
  pattern: string;
  context: string;
  problem: string;
  solution: string;
}

/** A guardrails.md entry (spec 002's format), with where it was learned. */
export function guardrailEntry(g: Guardrail, learned: string): string {
  const line = (s: string) => s.trim().replace(/\s*\n\s*/g, ' ');
  return [`## ${line(g.pattern)}`, `- **Context:** ${line(g.context)}`, `- **Problem:** ${line(g.problem)}`, `- **Solution:** ${line(g.solution)}`, `- **Learned:** ${learned}`].join('\n');
}

/** `text` with `entry` appended after a blank line: earlier entries are never rewritten. */
export function appendEntry(text: string | undefined, header: string, entry: string): string {
  const base = text === undefined || text.trim() === '' ? header : text;
  return `${base.replace(/\n*$/, '\n')}\n${entry}\n`;
}
