/**
 * `input|output show`: the text of an artifact's file — the task list, the review, a brief, a log of
 * evidence — named by its owner and index, never by a path from outside: what a person reads
 * before approving it (on the command line, and beside the Approve button of `sow ui`). Read
 * through the same confined read as every document (inside the repository, links that lead out
 * refused, at most 8 MB).
 */
import { artifactAt, repositoryPathOf } from '../domain/artifacts.js';
import { phaseDef, phaseOf, selectPhase } from '../domain/phases.js';
import type { Artifact } from '../domain/schemas.js';
import type { ArtifactHolder, Direction } from './artifacts.js';
import type { AppContext } from './context.js';
import { Reader } from './workspace.js';

export interface ShownArtifact {
  index: number;
  artifact: Artifact;
  /** Its file, relative to the repository root. */
  file: string;
  /** The file's text; null when it does not exist (yet). */
  text: string | null;
}

export async function showArtifact(
  ctx: AppContext,
  owner: ArtifactHolder,
  direction: Direction,
  index: number,
): Promise<ShownArtifact> {
  return Reader.read(
    ctx,
    async (reader) => {
      const slot =
        owner.kind === 'phase'
          ? (() => {
              const phase = selectPhase(reader.type, reader.project, owner.phase);
              return {
                list: phaseOf(reader.project, phase)[direction],
                types: phaseDef(reader.type, phase)[direction],
                label: `the ${phase} phase ${direction}`,
                owner: `--phase ${phase}`,
              };
            })()
          : await (async () => {
              const task = await reader.task(owner.id);
              return {
                list: task[direction],
                types: direction === 'inputs' ? reader.type.taskInputs : reader.type.taskOutputs,
                label: `task ${task.id} ${direction}`,
                owner: `--id ${task.id}`,
              };
            })();
      const word = direction === 'inputs' ? 'input' : 'output';
      const artifact = artifactAt(slot.list, index, {
        label: slot.label,
        types: slot.types,
        command: owner.kind === 'phase' ? `sow ${word}` : `sow task ${word}`,
        owner: slot.owner,
      });
      const file = repositoryPathOf(artifact.path, slot.types.find((t) => t.name === artifact.type)?.root ?? 'project');
      return { index, artifact, file, text: reader.readDoc(file) ?? null };
    },
    { otherBranch: 'quiet' },
  );
}
