import { toJsonSchema } from '@valibot/to-json-schema';
import { ProjectStateSchema, TaskStateSchema } from '../domain/schemas.js';
import { RepoConfigSchema, UserConfigSchema } from '../domain/config-schemas.js';

const SCHEMAS = {
  project: ProjectStateSchema,
  task: TaskStateSchema,
  config: UserConfigSchema,
  'repo-config': RepoConfigSchema,
} as const;
const TITLES = {
  project: 'sow project state (.sow/project/state.yaml)',
  task: 'sow task state (.sow/project/phases/implementation/tasks/<id>/state.yaml)',
  config: 'sow user configuration (~/.config/sow/config.yaml)',
  'repo-config': 'sow repository configuration (.sow/config.yaml)',
} as const;

export function jsonSchemaOf(file: keyof typeof SCHEMAS): Record<string, unknown> {
  return { title: TITLES[file], ...toJsonSchema(SCHEMAS[file], { errorMode: 'ignore' }) };
}
