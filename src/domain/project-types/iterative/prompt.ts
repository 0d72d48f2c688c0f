/** What an iterative project tells whoever resumes it: `project continue`'s notes and the next iteration's prompt. */
import type { ProjectView, ReadDoc } from '../../project-type.js';
import { CONTEXT, DIR, GUARDRAILS, PROGRESS } from './documents.js';
import {
  CONTEXT_WORDS,
  currentPhase,
  lastIteration,
  nextStep,
  outOfIterations,
  parseProgress,
  reopenedBy,
  waitingFor,
  WorkPhaseBlockedError,
  wordCount,
  workPhasesOf,
} from './work-phases.js';

/** Where the project stands in its work phases, and what was left: for a worker or a person resuming. */
export function recovery(view: ProjectView, readDoc: ReadDoc): string | undefined {
  const list = workPhasesOf(view.project);
  const state = view.project.statechart.current_state;
  const lines: string[] = [];
  const words = wordCount(readDoc(`${DIR}/${CONTEXT}`) ?? '');
  if (words > CONTEXT_WORDS)
    lines.push(`- ${DIR}/${CONTEXT} has ${words} words: keep it under ${CONTEXT_WORDS}, every iteration reads it.`);
  if (state !== 'ExecuteActive') return lines.length ? ['## Notes', '', ...lines].join('\n') : undefined;
  const entries = parseProgress(readDoc(`${DIR}/${PROGRESS}`) ?? '');
  const cur = currentPhase(list);
  if (cur) {
    const last = lastIteration(entries, cur.id);
    lines.unshift(
      `- Current work phase: **${cur.id}** (${cur.status}) — ${cur.title}; ${cur.iterations} of ${cur.max} ` +
        `iterations used, next: ${nextStep(cur)}.`,
      last
        ? `- Its last entry (${last.label.toLowerCase()}, ${last.at}) left ` +
            `Remaining: ${last.fields['Remaining'] ?? '(not said)'}`
        : `- It has no entry in progress.md yet: its first iteration starts it.`,
      `- Next: 'sow iter next' prints the iteration's prompt; 'sow agent spawn <agent> --iteration' gives it to a ` +
        `fresh worker.`,
    );
  }
  const reopened = reopenedBy(view.project);
  for (const p of list.filter((x) => x.status === 'timeout')) {
    // Reopened by the failed review with nothing left to spend: say so, not that it ran out working.
    if (reopened.includes(p.id) && p.verification === 'failed') {
      lines.push(
        `- ${outOfIterations(p)}. Ask the human to raise it, or to simplify its criteria ('sow iter phase ` +
          `set ${p.id} criteria "…"').`,
      );
      continue;
    }
    lines.push(
      `- ${p.id} timed out after ${p.iterations} of ${p.max} iterations. Ask the human: raise the maximum ('sow ` +
        `iter extend ${p.id} --max ${p.max + 3}'), simplify its criteria ('sow iter phase set ${p.id} criteria ` +
        `"…"'), or intervene by hand.`,
    );
  }
  for (const p of list.filter((x) => x.status === 'blocked')) {
    const other = list.find(
      (x) =>
        x.id !== p.id && (x.status === 'pending' || x.status === 'in_progress') && waitingFor(list, x).length === 0,
    );
    lines.push(
      `- ${p.id} is blocked: ${p.note ?? '(no note)'}. Ask the human for ` +
        `input${other ? `, or go on with the next unblocked phase, ${other.id}` : ''}; 'sow iter unblock ${p.id}' ` +
        `when it is resolved.`,
    );
  }
  if (!cur && lines.length === 0) return undefined;
  return ['## Where the work stands', '', ...lines].join('\n');
}

/** The prompt of the next iteration: everything a worker with no memory needs. */
export function iterationPrompt(view: ProjectView, readDoc: ReadDoc): string {
  const list = workPhasesOf(view.project);
  const state = view.project.statechart.current_state;
  if (state !== 'ExecuteActive')
    throw new WorkPhaseBlockedError(
      `iterations run in ExecuteActive, and the project is in ${state}`,
      "run 'sow advance' (its hint says what is missing) until ExecuteActive",
      { state },
    );
  const cur = currentPhase(list);
  if (!cur) {
    const stuck = list.filter((p) => p.status === 'blocked' || p.status === 'timeout');
    throw new WorkPhaseBlockedError(
      stuck.length
        ? `no work phase can go on: ${stuck.map((p) => `${p.id} is ${p.status}`).join(', ')}`
        : 'every work phase is done',
      stuck.length
        ? "'sow project continue' says how to get each going again"
        : "run 'sow advance' to verify the whole work",
      { phases: list.map((p) => ({ id: p.id, status: p.status })) },
    );
  }
  const entries = parseProgress(readDoc(`${DIR}/${PROGRESS}`) ?? '');
  const last = lastIteration(entries, cur.id);
  const guardrails = (readDoc(`${DIR}/${GUARDRAILS}`) ?? '').trim();
  const ctx = (readDoc(`${DIR}/${CONTEXT}`) ?? '').trim();
  const confirming = cur.status === 'confirming';
  const verifying = cur.status === 'verifying';
  return [
    `# ${view.project.description || view.project.name}: ${cur.id}, ${nextStep(cur)}`,
    '',
    'You are a fresh worker with no memory of earlier iterations. Everything you need is below and in the files it ' +
      'names; do one iteration, log it, and stop.',
    '',
    '## Context (.sow/project/context.md)',
    '',
    ctx || '(empty)',
    '',
    '## Guardrails (.sow/project/guardrails.md): read them before you start',
    '',
    (guardrails.includes('\n## ') || guardrails.startsWith('## ')
      ? guardrails.slice(guardrails.search(/(^|\n)## /)).trim()
      : '') || '(none yet)',
    '',
    `## The phase: ${cur.id} — ${cur.title}`,
    '',
    `- Criteria: ${cur.criteria}`,
    `- Output: \`.sow/project/${cur.output}\``,
    `- Status: ${cur.status}; ${cur.iterations} of ${cur.max} iterations used` +
      (cur.confirmations
        ? `, ${cur.confirmations} confirmation${cur.confirmations === 1 ? '' : 's'} ` +
          `(confirmations do not count against the maximum)`
        : ''),
    ...(cur.note ? [`- Note: ${cur.note}`] : []),
    '',
    '## Where the last iteration stopped',
    '',
    last
      ? `Remaining: ${last.fields['Remaining'] ?? '(not said)'}` +
        (last.fields['Blockers'] && last.fields['Blockers'] !== 'None' ? `\nBlockers: ${last.fields['Blockers']}` : '')
      : 'This is the first iteration of the phase.',
    '',
    '## This iteration',
    '',
    ...(verifying
      ? [
          `${cur.id} is confirmed and waits for verification: review \`.sow/project/${cur.output}\` against the ` +
            `criteria, then run \`sow iter verify ${cur.id} --pass\` or \`sow iter verify ${cur.id} --fail --note ` +
            `"<what does not meet them>"\`.`,
        ]
      : confirming
        ? [
            `${cur.id} was declared done. This iteration confirms it: check the output against the criteria ` +
              `afresh, as if for the first time.`,
            `- Nothing left: \`sow iter log ${cur.id} --did "<what you checked>" --remaining None\``,
            `- Something left: fix nothing now; log it: \`sow iter log ${cur.id} --did "<what you checked>" ` +
              `--remaining "<what is left>"\` (the phase goes back to work).`,
          ]
        : [
            `Work toward the criteria, writing to \`.sow/project/${cur.output}\`. Then log the iteration (once, ` +
              `at the end):`,
            '',
            `    sow iter log ${cur.id} --did "<what you did>" --remaining "<what is left, or None>" [--blockers ` +
              `"<what is in the way>"] [--signal]`,
            '',
            `- \`--signal\` only with \`--remaining None\`, when every criterion is met (then one more iteration ` +
              `confirms it).`,
            `- Learned something the next worker must not trip over? \`sow iter guardrail add --pattern … ` +
              `--context … --problem … --solution …\``,
            `- Stuck on something only the human can resolve? \`sow iter block ${cur.id} --note "<what>"\``,
          ]),
  ].join('\n');
}
