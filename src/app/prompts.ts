/** `sow prompt`: the embedded guidance for agents, and the orchestrator prompts of each state. */
import {
  didYouMean,
  errorClass,
  NoProjectError,
  NotAGitRepositoryError,
  NotInitializedError,
} from '../domain/errors.js';
import { fillTemplate, listTemplates, readTemplate, templateVariables } from '../adapters/templates.js';
import type { AppContext } from './context.js';

/** The prompts are sow's own, the same everywhere: a name outside them is a command line mistake. */
export class PromptNotFoundError extends errorClass('PROMPT_NOT_FOUND', 'usage', (path: string) => [
  `no prompt '${path}'${didYouMean(path, listPrompts())}`,
  "run 'sow prompt --list' to see them",
]) {}

/** Prompt names → template paths: guidance/<role>/<name> and orchestrator/<type>/<State>. */
function catalogue(): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of listTemplates('guidance')) out.set(`guidance/${name}`, `guidance/${name}.md`);
  for (const name of listTemplates('prompts')) out.set(`orchestrator/${name}`, `prompts/${name}.md`);
  return out;
}

export const listPrompts = (): string[] => [...catalogue().keys()];

// The prompt, filled with what the project here knows (outside a project only NoProject's branch is known): `unfilled`,
// the variables nothing here has a value for, left as they are; `filled_from`, where the values came from.
export async function readPrompt(ctx: AppContext, path: string) {
  const name = path.replace(/\.md$/, '').replace(/^\/+/, '');
  const file = catalogue().get(name);
  if (!file) throw new PromptNotFoundError(path);
  const template = readTemplate(file);
  const used = templateVariables(template);
  if (used.length === 0) return { path, text: template, unfilled: [], filled_from: null };
  const { vars, from } = await variablesHere(ctx, name === 'orchestrator/NoProject');
  return {
    path,
    text: fillTemplate(template, vars),
    unfilled: used.filter((k) => !Object.hasOwn(vars, k)),
    filled_from: from,
  };
}

async function variablesHere(
  ctx: AppContext,
  noProjectPrompt: boolean,
): Promise<{ vars: Record<string, string>; from: 'project' | 'branch' | null }> {
  const { openRoot, Reader } = await import('./workspace.js');
  const { noProjectVariables, promptVariables } = await import('./status.js');
  try {
    return {
      vars: await Reader.read(ctx, async (reader) => promptVariables(reader.type, await reader.view())),
      from: 'project',
    };
  } catch (err) {
    // Nothing to fill from is no error: the template is printed as it is, and the caller says what stayed.
    if (err instanceof NoProjectError)
      return noProjectPrompt
        ? { vars: noProjectVariables(await openRoot(ctx), err.elsewhere), from: 'branch' }
        : { vars: {}, from: null };
    if (err instanceof NotAGitRepositoryError || err instanceof NotInitializedError) return { vars: {}, from: null };
    throw err;
  }
}
