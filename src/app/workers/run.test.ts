/**
 * The worker prompt of every role has one shape (guidance in layers): the rules it must follow are in
 * the prompt, and the role's guidance is named in a sentence, to read when wanted — never in a command
 * block it is told to run. The orchestrator's one mandatory read stays: its state's whole prompt.
 */
import { describe, expect, it } from 'vitest';
import { AGENTS, ORCHESTRATOR } from '../../domain/agents.js';
import { agentPrompt } from './run.js';

/** The lines inside ``` fences: what a prompt tells its reader to run. */
const commandLines = (text: string) => {
  let inFence = false;
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) inFence = !inFence;
    else return inFence;
    return false;
  });
};

describe('every role: the rules in the prompt, the rest to read when wanted', () => {
  for (const agent of AGENTS) {
    it(agent.name, () => {
      const text = agentPrompt(agent, `${agent.name}-1`, 'Task 010: A task (iteration 1).', 'Mind the docs.');
      expect(text).toContain('## How you work');
      // Where its guidance is, in prose, and nothing it must run first.
      expect(text).toContain(`\`sow prompt ${agent.guidance}\``);
      expect(commandLines(text).filter((l) => /\bsow prompt\b/.test(l))).toEqual([]);
      expect(text).not.toMatch(/before anything else/i);
      // The rules themselves: how to finish, and what never to do.
      expect(text).toMatch(/sow task set status needs_review|sow agent report --status done/);
      expect(text).toMatch(/^Never /m);
      expect(text).toContain('state.yaml');
    });
  }

  it('the orchestrator still runs its state prompt first', () => {
    const text = agentPrompt(ORCHESTRATOR, 'orchestrator-1', 'Drive the project.', undefined);
    expect(commandLines(text).map((l) => l.trim())).toContain('sow project continue --full');
  });
});
