/** State files as the merge tests build them: a task's and a project's, with times a second apart. */
export const T = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
export const art = (type: string, path: string, created: number, extra: Record<string, unknown> = {}) => ({
  type,
  path,
  created_at: T(created),
  ...extra,
});

export function task(over: Record<string, unknown> = {}) {
  return {
    id: '010',
    name: 'one',
    phase: 'implementation',
    status: 'pending',
    iteration: 1,
    parallel: false,
    dependencies: [],
    created_at: T(1),
    updated_at: T(1),
    inputs: [],
    outputs: [],
    metadata: {},
    ...over,
  };
}

export function project(over: Record<string, unknown> = {}, phases: Record<string, Record<string, unknown>> = {}) {
  const phase = (name: string, p: Record<string, unknown> = {}) => ({
    name,
    status: 'pending',
    enabled: true,
    iteration: 1,
    created_at: T(1),
    metadata: {},
    inputs: [],
    outputs: [],
    ...p,
  });
  return {
    name: 'demo',
    type: 'standard',
    description: 'd',
    branch: 'feat',
    created_at: T(1),
    updated_at: T(1),
    statechart: {
      current_state: 'ImplementationExecuting',
      updated_at: T(1),
      history: [{ from: 'NoProject', to: 'PlanningActive', event: 'project_init', at: T(1), by: 'user' }],
    },
    phases: {
      planning: phase('planning', phases['planning']),
      implementation: phase('implementation', phases['implementation']),
    },
    ...over,
  };
}
