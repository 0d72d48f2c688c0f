/** `sow prompt`: the embedded guidance for agents, and the orchestrator prompts of each state. */
import { didYouMean, SowError } from '../domain/errors.js';
import { listTemplates, readTemplate } from '../adapters/templates.js';

export class PromptNotFoundError extends SowError {
  constructor(path: string) {
    // The prompts are sow's own, the same everywhere: a name outside them is a command line mistake.
    super('PROMPT_NOT_FOUND', 'usage', `no prompt '${path}'${didYouMean(path, listPrompts())}`, "run 'sow prompt --list' to see them");
  }
}

/** Prompt names → template paths: guidance/<role>/<name> and orchestrator/<type>/<State>. */
function catalogue(): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of listTemplates('guidance')) out.set(`guidance/${name}`, `guidance/${name}.md`);
  for (const name of listTemplates('prompts')) out.set(`orchestrator/${name}`, `prompts/${name}.md`);
  return out;
}

export function listPrompts(): string[] {
  return [...catalogue().keys()];
}

export function readPrompt(path: string): string {
  const file = catalogue().get(path.replace(/\.md$/, '').replace(/^\/+/, ''));
  if (!file) throw new PromptNotFoundError(path);
  return readTemplate(file);
}
