/**
 * `input|output show`: the text of an artifact's file, named by its owner and index, never by a path from outside, and
 * read through the confined read every document goes through (inside the repository, no link out, at most 8 MB).
 */
import { artifactAt } from '../domain/artifacts.js';
import type { Artifact } from '../domain/schemas.js';
import { fileOf, readOwner, type ArtifactHolder, type Direction } from './artifacts.js';
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
      const { list, slot } = await readOwner(reader, owner, direction);
      const artifact = artifactAt(list, index, slot);
      const file = fileOf(slot, artifact);
      return { index, artifact, file, text: reader.readDoc(file) ?? null };
    },
    { otherBranch: 'quiet' },
  );
}
