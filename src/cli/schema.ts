import type { Command } from 'commander';
import { respond } from './output.js';
import { notOneOf } from '../domain/errors.js';

const FILES = ['project', 'task', 'config', 'repo-config'] as const;

export default function register(program: Command): void {
  program
    .command('schema')
    .description('Print the JSON Schema of a state or configuration file, for editors (project, task, config: your agent configuration, repo-config: .sow/config.yaml)')
    .argument('[file]', FILES.join(' | '), 'project')
    .action(async (file: string) => {
      if (!(FILES as readonly string[]).includes(file)) throw notOneOf('schema', file, FILES);
      const { jsonSchemaOf } = await import('../app/schema.js');
      const schema = jsonSchemaOf(file as (typeof FILES)[number]);
      respond({ data: schema, text: JSON.stringify(schema, null, 2) });
    });
}
