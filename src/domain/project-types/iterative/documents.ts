/** The documents of an iterative project (spec 002), under .sow/project/, and their templates. */
import { phaseOf, withPhase } from '../../phases.js';
import type { ReadDoc } from '../../project-type.js';
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

/** The logs, each with the header it starts with: entries are appended to them, never rewritten. */
const LOG_HEADERS: Readonly<Record<string, string>> = {
  [PROGRESS]: '# Progress Log\n',
  [GUARDRAILS]: '# Guardrails\n\nRead before starting any iteration. Append when issues discovered.\n',
};

const title = (p: ProjectState) => p.description || p.name;

// The brief after its heading and date. A brief is unfinished while it holds one of the template's {placeholders}
// verbatim, so braces a person writes never count.
const BRIEF_BODY = `**Domain:** {research|writing|analysis|planning|software}

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
export const BRIEF_PLACEHOLDERS: readonly string[] = BRIEF_BODY.match(/\{[^}\n]+\}/g)!;

const briefTemplate = (project: ProjectState, now: string) =>
  `# ${title(project)}\n\n**Created:** ${now}\n${BRIEF_BODY}`;

const contextTemplate = (project: ProjectState) => `# ${title(project)} Context

<!-- Keep it under 200 words: every iteration reads it. -->

**Goal:** {One sentence}

**Approach:** {One sentence}

**Key outputs:**
- \`outputs/…\` — {what it is}

**Patterns to follow:**
- {Any conventions or style notes}

**Phase signals:**
- {R1: what shows it is complete}
`;

export const DOMAINS = ['research', 'writing', 'analysis', 'planning', 'software'] as const;

/** The discover phase's `domain` when a command set it, else the brief's Domain line. */
export function domainOf(project: ProjectState, readDoc: ReadDoc): string | undefined {
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

/** A log's `text` with `entry` appended after a blank line: earlier entries are never rewritten. */
export function appendEntry(text: string | undefined, log: string, entry: string): string {
  const base = text === undefined || text.trim() === '' ? LOG_HEADERS[log]! : text;
  return `${base.replace(/\n*$/, '\n')}\n${entry}\n`;
}

/** A new project: its brief recorded as the discover phase's output, and the documents it starts with. */
export function scaffold(project: ProjectState, now: string) {
  const discover = phaseOf(project, 'discover');
  const brief = { type: 'brief', path: BRIEF, approved: false, created_at: now };
  return {
    project: withPhase(project, 'discover', { ...discover, outputs: [...discover.outputs, brief] }),
    files: {
      [BRIEF]: briefTemplate(project, now),
      [CONTEXT]: contextTemplate(project),
      [PROGRESS]: LOG_HEADERS[PROGRESS]!,
      [GUARDRAILS]: LOG_HEADERS[GUARDRAILS]!,
      // The research inputs and the deliverables have their folders from the start (kept in git).
      [`${SOURCES}/.gitkeep`]: '',
      [`${OUTPUTS}/.gitkeep`]: '',
    },
  };
}

/** Whether the archive keeps a document: the project's own, the research inputs, the deliverables, the outputs. */
export const archived = (rel: string, outputs: readonly string[]) =>
  !/(^|\/)\.gitkeep$/.test(rel) &&
  ([BRIEF, PLAN, CONTEXT, PROGRESS, GUARDRAILS, ...outputs].includes(rel) || /^(sources|outputs)\//.test(rel));
