/** `sow schema`: the JSON Schema of a state or configuration file. */
import { oneOf } from '../model/args.js';
import { command } from '../model/def.js';

const FILES = ['project', 'task', 'config', 'repo-config'] as const;

export const schema = command({
  name: 'schema',
  description:
    'Print the JSON Schema of a state or configuration file, for editors (project, task, config: your agent ' +
    'configuration, repo-config: .sow/config.yaml)',
  args: [{ name: 'file', description: FILES.join(' | '), optional: true, default: 'project' }],
  writes: false,
  async run(_ctx, { args }) {
    const file = oneOf('schema', args[0] as string, FILES);
    const { jsonSchemaOf } = await import('../app/schema.js');
    const schema = jsonSchemaOf(file);
    return { data: schema, text: JSON.stringify(schema, null, 2) };
  },
});
