/** `sow graph lifecycle` and `sow graph tasks`: the data the pictures are drawn from. */
import { NoProjectError, NotAGitRepositoryError, NotInitializedError } from '../domain/errors.js';
import { lifecycleGraph, taskGraph, type LifecycleGraph, type TaskGraph } from '../domain/graph.js';
import { listTransitions } from '../domain/lifecycle.js';
import { DEFAULT_TYPE, projectType } from '../domain/project-types/index.js';
import { withCheckStatuses } from './checks.js';
import type { AppContext } from './context.js';
import { Reader } from './workspace.js';

/** `typeName`'s lifecycle, else the project's with its state and guards judged now, else the default type's. */
export async function lifecycleOf(ctx: AppContext, typeName?: string): Promise<LifecycleGraph> {
  if (typeName !== undefined) return lifecycleGraph(await projectType(typeName));
  try {
    return await Reader.read(ctx, async (reader) => {
      const view = await withCheckStatuses(reader.root, reader.type, await reader.view());
      return lifecycleGraph(reader.type, {
        current: reader.project.statechart.current_state,
        options: listTransitions(reader.type, view),
      });
    });
  } catch (err) {
    if (err instanceof NoProjectError || err instanceof NotInitializedError || err instanceof NotAGitRepositoryError)
      return lifecycleGraph(await projectType(DEFAULT_TYPE));
    throw err;
  }
}

export async function tasksGraphOf(ctx: AppContext): Promise<TaskGraph> {
  return Reader.read(ctx, async (reader) => taskGraph(await reader.tasks()));
}
