/** `sow prompt`: the embedded guidance for agents, and the orchestrator prompts of each state. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { SowError } from '../domain/errors.js';
import { templatesDir } from './status.js';

export class PromptNotFoundError extends SowError {
  constructor(path: string) {
    super('PROMPT_NOT_FOUND', 'failed', `no prompt '${path}'`, "run 'sow prompt --list' to see them");
  }
}

/** Prompt names → files: guidance/<role>/<name> and orchestrator/<type>/<State>. */
function catalogue(): Map<string, string> {
  const root = templatesDir();
  const out = new Map<string, string>();
  const walk = (base: string, dir: string, prefix: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      if (statSync(abs).isDirectory()) walk(base, abs, prefix);
      else if (name.endsWith('.md')) out.set(`${prefix}${relative(base, abs).split(sep).join('/').slice(0, -3)}`, abs);
    }
  };
  walk(join(root, 'guidance'), join(root, 'guidance'), 'guidance/');
  walk(join(root, 'prompts'), join(root, 'prompts'), 'orchestrator/');
  return out;
}

export function listPrompts(): string[] {
  return [...catalogue().keys()];
}

export function readPrompt(path: string): string {
  const file = catalogue().get(path.replace(/\.md$/, '').replace(/^\/+/, ''));
  if (!file) throw new PromptNotFoundError(path);
  return readFileSync(file, 'utf8');
}
