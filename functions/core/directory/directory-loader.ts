/**
 * Loads a directory in code (the demo world, tests, benchmarks) through the same apply an operator's file goes
 * through (directory-service.ts): the entities given replace or join what the table holds, nothing is removed.
 */
import { randomUUID } from 'node:crypto';
import type { DirectoryFileInput } from './directory-file';
import { formatPath } from './directory-file';
import type { TableContext } from './directory-repository';
import { applyDirectory } from './directory-service';
import { dynamoDirectoryStore } from './directory-store';

export type DirectoryWorld = DirectoryFileInput;

/** Applies `world` without pruning (waiting for another apply to finish); throws on any invalid entry. */
export async function loadDirectory(ctx: TableContext, world: DirectoryWorld): Promise<number> {
  const result = await applyDirectory(dynamoDirectoryStore(ctx), world, {
    holder: `loader ${randomUUID()}`,
    waitMs: 120_000,
  });
  if (!result.ok) {
    throw new Error(`invalid directory: ${result.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ')}`);
  }
  return result.writes;
}
