/** The agent registry: roles as data (what each does, what its CLI must do, its prompt and guidance). */
import { errorClass } from './errors.js';
import { nearMiss } from './suggest.js';

export interface AgentDef {
  readonly name: string;
  readonly description: string;
  readonly capabilities: string;
  /** templates/agents/<name>.md: the spawn prompt of a worker of this role. */
  readonly template: string;
  /** The role's guidance in depth (`sow prompt <guidance>`): its prompt names it, to read when wanted. */
  readonly guidance: string;
  /** Whether the role works on one task (spawned with a task id) or on the project. */
  readonly scope: 'task' | 'project' | 'either';
}

const agent = (name: string, description: string, capabilities: string, scope: AgentDef['scope']): AgentDef => ({
  name,
  description,
  capabilities,
  template: `agents/${name}.md`,
  guidance: `guidance/${name}/base`,
  scope,
});

export const AGENTS: readonly AgentDef[] = [
  agent(
    'implementer',
    'Implements one task with test-driven development',
    'read and write files, run shell commands, search the codebase',
    'task',
  ),
  agent(
    'architect',
    'Makes and records design and architecture decisions',
    'read and write files, search the codebase',
    'either',
  ),
  agent(
    'reviewer',
    'Reviews the change against the plan and records a pass or fail assessment',
    'read files, search the codebase, run shell commands',
    'either',
  ),
  agent(
    'planner',
    'Turns an approved scope into a task list with the human',
    'read and write files, search the codebase',
    'project',
  ),
  agent(
    'researcher',
    'Investigates a question and writes up findings with sources',
    'read files, search the codebase, browse documentation',
    'either',
  ),
  agent(
    'decomposer',
    'Splits large work into small, independently verifiable tasks',
    'read and write files, search the codebase',
    'either',
  ),
];

/** The orchestrator role: the session that drives the lifecycle. It can be spawned like a worker. */
export const ORCHESTRATOR: AgentDef = {
  name: 'orchestrator',
  description: 'Drives the project through its lifecycle and delegates tasks to workers',
  capabilities: 'read and write files, run shell commands (sow, git, the agent CLIs)',
  template: 'agents/orchestrator.md',
  guidance: 'orchestrator',
  scope: 'project',
};

/** Roles that can be bound to an executor: every agent, plus the orchestrator. */
export const ROLES: readonly string[] = [ORCHESTRATOR.name, ...AGENTS.map((a) => a.name)];

export class UnknownAgentError extends errorClass('UNKNOWN_AGENT', 'failed', (name: string) => {
  const suggestion = nearMiss(name, ROLES);
  return [
    `unknown agent '${name}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
    `agents: ${ROLES.join(', ')} (run 'sow agent list')`,
  ];
}) {}

export function findAgent(name: string): AgentDef {
  const found = name === ORCHESTRATOR.name ? ORCHESTRATOR : AGENTS.find((a) => a.name === name);
  if (!found) throw new UnknownAgentError(name);
  return found;
}

/** Actions and results a log entry may carry (ADR-011). */
export const LOG_ACTIONS: readonly string[] = (
  'started_task created_file modified_file deleted_file implementation_attempt test_run refactor debugging research ' +
  'completed_task paused_task started_phase completed_phase note reported_status'
).split(' ');
export const LOG_RESULTS = ['success', 'error', 'partial'] as const;
