/** What every `sow iter` command does with its session: options, the state it belongs to, the phases. */
import type { TypeOptions, TypeSession } from '../../type-commands.js';
import { CONTEXT, DIR } from './documents.js';
import { CONTEXT_WORDS, wordCount, WorkPhaseBlockedError, workPhasesOf } from './work-phases.js';

export const str = (opts: TypeOptions, key: string): string | undefined =>
  typeof opts[key] === 'string' ? (opts[key] as string) : undefined;

const STATE_HINTS: Record<string, string> = {
  DiscoverActive:
    "first the brief: fill in .sow/project/brief.md with the human, approve it ('sow output set --index 0 approved " +
    "true') and run 'sow advance'",
  PlanActive:
    "approve the plan ('sow output set --index 0 approved true' once plan.md says what the human agreed) and run " +
    "'sow advance'",
  VerifyActive:
    "the work phases are finished; a failed review ('sow output add --type review --path review.md --assessment " +
    "fail --phases R2') reopens the ones it names",
  DeliverActive: "the work is verified; write the outputs and run 'sow advance' to complete it",
};

/** The project, and its work phases, when it is in one of the `allowed` states. */
export async function requireState(s: TypeSession, allowed: readonly string[], doing: string) {
  const project = await s.project();
  const state = project.statechart.current_state;
  if (!allowed.includes(state))
    throw new WorkPhaseBlockedError(
      `cannot ${doing} in ${state}: it belongs to ${allowed.join(' or ')}`,
      STATE_HINTS[state] ?? "run 'sow project continue' to see the next step",
      { state, allowed: [...allowed] },
    );
  return { project, list: workPhasesOf(project) };
}

export function contextWarning(s: TypeSession): string[] {
  const words = wordCount(s.readFile(`${DIR}/${CONTEXT}`) ?? '');
  return words > CONTEXT_WORDS
    ? [`${DIR}/${CONTEXT} has ${words} words; keep it under ${CONTEXT_WORDS}: every iteration reads it`]
    : [];
}
