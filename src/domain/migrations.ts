// Layout 1 (sow 0.1.0) → 2 as pure functions on parsed state files, each with one line per change for `sow migrate
// --dry-run`.
import * as posix from 'node:path/posix';
import { PROJECT_DIR } from './artifacts.js';
import { isRecord } from './json.js';
import type { HistoryEntry } from './schemas.js';

type Obj = Record<string, unknown>;
const list = (x: unknown): Obj[] => (Array.isArray(x) ? x.filter(isRecord) : []);

const sameArtifact = (a: Obj, b: Obj) =>
  a['path'] === b['path'] && a['created_at'] === b['created_at'] && a['type'] === b['type'];
const time = (a: Obj) => Date.parse(String(a['created_at'] ?? '')) || 0;

// `baseBranch`: the branch the project's branch was started from, and how that was learnt; `taskFolders`: the task ids
// that have a folder (and so a state file) in layout 1.
export function migrateProjectV1(
  input: Obj,
  ctx: { baseBranch?: { name: string; source: string }; taskFolders: readonly string[]; now: string },
) {
  const data: Obj = structuredClone(input);
  const changes: string[] = [];
  const phases = isRecord(data['phases']) ? data['phases'] : {};
  const implementation = isRecord(phases['implementation']) ? phases['implementation'] : undefined;
  const review = isRecord(phases['review']) ? phases['review'] : undefined;

  if (data['base_branch'] === undefined && ctx.baseBranch) {
    data['base_branch'] = ctx.baseBranch.name;
    changes.push(`base_branch: '${ctx.baseBranch.name}' (${ctx.baseBranch.source})`);
  } else if (data['base_branch'] === undefined) {
    changes.push(
      "base_branch: not recorded (git kept no record of where the branch started; set it with 'sow project set " +
        "base_branch <branch>')",
    );
  }

  if (implementation && Array.isArray(implementation['tasks'])) {
    const listed = list(implementation['tasks']).map((t) => String(t['id']));
    const orphans = listed.filter((id) => !ctx.taskFolders.includes(id));
    delete implementation['tasks'];
    changes.push(
      `phases.implementation.tasks: removed (${listed.length} task summaries; each task's own state.yaml is the ` +
        `one truth)${orphans.length ? `; listed without a folder, so dropped: ${orphans.join(', ')}` : ''}`,
    );
  }

  if (implementation && review) {
    const carried = list(implementation['inputs']).filter((a) => a['type'] === 'review');
    const outputs = list(review['outputs']);
    const missing = carried.filter((a) => !outputs.some((o) => sameArtifact(o, a)));
    if (missing.length) {
      review['outputs'] = [...missing.map((a) => structuredClone(a)), ...outputs].sort((a, b) => time(a) - time(b));
      changes.push(
        `phases.review.outputs: ${missing.length} failed review(s) copied back from the implementation inputs, ` +
          `where sow 0.1.0 had moved them (${missing.map((a) => String(a['path'])).join(', ')})`,
      );
    }
  }

  const statechart = isRecord(data['statechart']) ? data['statechart'] : undefined;
  if (statechart && !Array.isArray(statechart['history'])) {
    const planning = isRecord(phases['planning']) ? phases['planning'] : undefined;
    const first = planning?.['enabled'] === false ? 'ImplementationPlanning' : 'PlanningActive';
    const current = String(statechart['current_state']);
    const history: (HistoryEntry & { note?: string })[] = [
      { from: 'NoProject', to: first, event: 'project_init', at: String(data['created_at']), by: 'user' },
      {
        from: current,
        to: current,
        event: 'migrate',
        at: ctx.now,
        by: 'sow migrate',
        note: 'layout 1 → 2; sow 0.1.0 did not record the transitions between project_init and this',
      },
    ];
    statechart['history'] = history;
    changes.push(
      `statechart.history: started (project_init at ${String(data['created_at'])}; the transitions sow 0.1.0 made ` +
        `after it were not recorded)`,
    );
  }
  return { data, changes };
}

/** `../../src/a.ts` (from .sow/project/) → `src/a.ts` (from the repository root). */
export function repositoryPathFromProject(path: string): string {
  return posix.normalize(posix.join(PROJECT_DIR, path.replaceAll('\\', '/')));
}

export function migrateTaskV1(input: Obj) {
  const data: Obj = structuredClone(input);
  const changes: string[] = [];
  for (const artifact of list(data['outputs'])) {
    if (artifact['type'] !== 'modified' || typeof artifact['path'] !== 'string') continue;
    const before = artifact['path'];
    const after = repositoryPathFromProject(before);
    if (after !== before) {
      artifact['path'] = after;
      changes.push(`modified output '${before}' → '${after}' (named from the repository root)`);
    }
  }
  return { data, changes };
}
