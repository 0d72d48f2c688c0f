/** `sow advance`: the only command that moves the state machine. */
import type { AppContext } from './context.js';
import { advance, listTransitions, type TransitionOption } from '../domain/lifecycle.js';
import { firstFreePath } from '../domain/artifacts.js';
import { withCheckStatuses } from './checks.js';
import type { ArchivePlan } from '../domain/project-type.js';
import { fileExists, listFiles, readFileIfExists } from '../adapters/files.js';
import { emitYaml } from '../adapters/yaml/emit.js';
import type { Transaction } from '../adapters/transaction.js';
import { parseStateText } from '../adapters/state-files.js';
import { readRepoConfig } from '../adapters/repo-config.js';
import { actor } from './unit-of-work.js';
import { AGENT_OUTPUTS, PROJECT_DIR } from './project-files.js';
import { Reader, update } from './workspace.js';

/** Where the entries of completed projects' archives are listed (repository-relative). */
const KNOWLEDGE_INDEX = '.sow/knowledge/index.yaml';

/** The knowledge index as parsed (null when there is none), and its list of entries. */
export async function readKnowledgeIndex(root: string) {
  const text = readFileIfExists(root, KNOWLEDGE_INDEX);
  const data =
    text === undefined ? null : ((await parseStateText(KNOWLEDGE_INDEX, text)).data as { entries?: unknown });
  return { data, entries: Array.isArray(data?.entries) ? (data.entries as unknown[]) : [] };
}

/** The files under .sow/project/ (relative to it), but the state files, the log and the evidence. */
function projectDocuments(root: string): string[] {
  return listFiles(root, PROJECT_DIR).filter((rel) => !/^(state\.yaml|log\.md|phases\/|evidence\/)/.test(rel));
}

/** Copies the plan's documents (never over a file there) and adds its knowledge-index entry, in one transaction. */
async function archiveInto(root: string, tx: Transaction, plan: ArchivePlan | undefined): Promise<void> {
  if (!plan) return;
  const placed = new Set<string>();
  const copied = plan.files.map((f) => ({ to: f.to, text: readFileIfExists(root, `${PROJECT_DIR}/${f.from}`) }));
  for (const f of [...copied, ...(plan.written ?? [])]) {
    if (f.text === undefined) continue;
    const to = firstFreePath(f.to, (p) => placed.has(p) || fileExists(root, p));
    placed.add(to);
    tx.write(to, f.text);
  }
  const { data, entries } = await readKnowledgeIndex(root);
  tx.write(KNOWLEDGE_INDEX, emitYaml({ ...data, entries: [...entries, { ...plan.entry, files: [...placed] }] }));
}

export async function advanceProject(
  ctx: AppContext,
  event: string | undefined,
  dryRun: boolean,
): Promise<{ from: string; to: string; event: string; dryRun: boolean; projectRemoved: boolean; notes?: string[] }> {
  if (dryRun) {
    return Reader.read(ctx, async (reader) => {
      const view = await withCheckStatuses(reader.root, reader.type, await reader.view());
      const { project: _, ...moved } = advance(reader.type, view, reader.ctx.now(), actor(reader.ctx.env), event);
      return { ...moved, dryRun: true, projectRemoved: false };
    });
  }
  return update(ctx, async (uow) => {
    const type = await uow.type();
    const result = advance(type, await withCheckStatuses(uow.root, type, await uow.view()), uow.now, uow.actor, event);
    // Reaching a final state completes the project: its folder is removed and a new one can start.
    const removed = type.states[result.to]?.final === true;
    if (removed && type.archive) {
      const input = {
        project: result.project,
        tasks: await uow.taskStates(),
        config: (await readRepoConfig(uow.root)).config,
        documents: projectDocuments(uow.root),
        readDoc: (rel: string) => uow.readDoc(rel),
      };
      await archiveInto(uow.root, uow.tx, type.archive(input, uow.now));
    }
    if (removed) uow.tx.removeTree(PROJECT_DIR).removeRuntimeTree(AGENT_OUTPUTS);
    else uow.setProject(result.project);
    const notes = removed ? [] : [...(type.advanceNotes?.(result.event, result.project) ?? [])];
    const { project: _, ...moved } = result;
    return { ...moved, dryRun: false, projectRemoved: removed, ...(notes.length ? { notes } : {}) };
  });
}

export async function listAdvanceOptions(ctx: AppContext): Promise<{ state: string; transitions: TransitionOption[] }> {
  return Reader.read(ctx, async (reader) => ({
    state: reader.project.statechart.current_state,
    transitions: listTransitions(reader.type, await withCheckStatuses(reader.root, reader.type, await reader.view())),
  }));
}
