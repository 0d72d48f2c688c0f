import { toJsonSchema } from '@valibot/to-json-schema';
import { ProjectStateSchema, TaskStateSchema } from '../domain/schemas.js';
import { RepoConfigSchema, UserConfigSchema } from '../domain/config-schemas.js';

/** Each state or configuration file's schema, and the title its JSON Schema carries. */
const SCHEMAS = {
  project: [ProjectStateSchema, 'sow project state (.sow/project/state.yaml)'],
  task: [TaskStateSchema, 'sow task state (.sow/project/phases/implementation/tasks/<id>/state.yaml)'],
  config: [UserConfigSchema, 'sow user configuration (~/.config/sow/config.yaml)'],
  'repo-config': [RepoConfigSchema, 'sow repository configuration (.sow/config.yaml)'],
} as const;

export function jsonSchemaOf(file: keyof typeof SCHEMAS): Record<string, unknown> {
  const [schema, title] = SCHEMAS[file];
  return { title, ...toJsonSchema(schema, { errorMode: 'ignore' }) };
}
