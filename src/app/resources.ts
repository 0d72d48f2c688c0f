// The project's files as `sow mcp` resources (`sow://project/<path>`): under .sow/project/ only, no `..`, no link.
import { errorClass } from '../domain/errors.js';
import { own } from '../domain/fields.js';
import { normalRelative } from '../domain/paths.js';
import { listProjectFiles, MAX_LISTED, readProjectFile } from '../adapters/project-files.js';
import type { AppContext } from './context.js';
import { openRoot } from './workspace.js';

export const RESOURCE_SCHEME = 'sow://project/';

const MIME = { yaml: 'application/yaml', yml: 'application/yaml', md: 'text/markdown', json: 'application/json' };
const mimeOf = (path: string): string => own(MIME, /\.([^./]*)$/.exec(path)?.[1] ?? '') ?? 'text/plain';

export class ResourceNotFoundError extends errorClass('RESOURCE_NOT_FOUND', 'failed', (uri: string, why: string) => [
  `no resource '${uri}': ${why}`,
  `resources are the files under .sow/project/, named ${RESOURCE_SCHEME}<path> (resources/list names them)`,
]) {}

/** Every regular file under `.sow/project/`, as a resource (none without a project). */
export async function listResources(ctx: AppContext) {
  const root = await openRoot(ctx);
  const files = listProjectFiles(root);
  return {
    resources: files.map((path) => ({
      uri: `${RESOURCE_SCHEME}${path}`,
      name: `.sow/project/${path}`,
      mimeType: mimeOf(path),
    })),
    truncated: files.length >= MAX_LISTED,
  };
}

/** The text of the file a `sow://project/<path>` URI names. */
export async function readResource(ctx: AppContext, uri: string) {
  if (!uri.startsWith(RESOURCE_SCHEME))
    throw new ResourceNotFoundError(uri, `sow's resources start with ${RESOURCE_SCHEME}`);
  let path: string;
  try {
    path = decodeURIComponent(uri.slice(RESOURCE_SCHEME.length));
  } catch {
    throw new ResourceNotFoundError(uri, 'its path is not valid percent-encoding');
  }
  const clean = normalRelative(path);
  if (clean === undefined || clean !== path || path.split('/').includes('..'))
    throw new ResourceNotFoundError(uri, 'a resource is a file under .sow/project/, named by its plain relative path');
  const root = await openRoot(ctx);
  const text = readProjectFile(root, clean);
  if (text === 'missing') throw new ResourceNotFoundError(uri, 'there is no such file');
  if (text === 'not-a-file')
    throw new ResourceNotFoundError(
      uri,
      'it is a link or a folder, not a file (sow never follows a link in the repository)',
    );
  return { uri, mimeType: mimeOf(clean), text };
}
