/** The templates sow ships (templates/) and the small engine that fills their `{{name}}` placeholders. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/** Finds the shipped templates/ folder from wherever this module was bundled or run. */
export function templatesDir(): string {
  if (found) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'templates', 'prompts'))) return (found = join(dir, 'templates'));
    dir = dirname(dir);
  }
  throw new Error('the templates/ folder is missing from the sow installation');
}

/** A template's text, by its path under templates/ (`prompts/standard/ReviewActive.md`). */
export function readTemplate(rel: string): string {
  return readFileSync(join(templatesDir(), rel), 'utf8');
}

/** The markdown templates under templates/<folder>/, as paths relative to that folder without `.md`. */
export function listTemplates(folder: string): string[] {
  const base = join(templatesDir(), folder);
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else if (name.endsWith('.md')) out.push(relative(base, abs).split(sep).join('/').slice(0, -3));
    }
  };
  walk(base);
  return out;
}

const VARIABLE = /\{\{\s*([a-z_]+)\s*\}\}/g;

/** `{{name}}` placeholders; an unknown placeholder is a template bug and fails loudly. */
export function renderTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(VARIABLE, (_m, key: string) => {
    const value = vars[key];
    if (value === undefined) throw new Error(`template placeholder {{${key}}} has no value`);
    return value;
  });
}

/** The names of the `{{name}}` placeholders a template uses, each once, in order. */
export function templateVariables(template: string): string[] {
  return [...new Set([...template.matchAll(VARIABLE)].map((m) => m[1]!))];
}

/** Fills the placeholders `vars` has a value for and leaves the others as they are (`sow prompt`). */
export function fillTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(VARIABLE, (m, key: string) => (Object.hasOwn(vars, key) ? vars[key]! : m));
}
