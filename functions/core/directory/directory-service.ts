/**
 * The directory as a file an operator owns: plan (what apply would change), apply (make the table match; with
 * prune, remove what the file does not name), export (the table's directory in the file's form). Adapters parse
 * and print the file (YAML or JSON); the store (directory-store.ts) alone knows the table.
 */
import { type DirectoryFile, type DirectoryIssue, parseDirectoryFile } from './directory-file';
import {
  checkTarget,
  diffDirectories,
  type EntityChange,
  entityId,
  SECTIONS,
  targetDirectory,
} from './directory-target';

export interface DirectoryLease {
  readonly holder: string;
  release(): Promise<void>;
}

export interface WriteProgress {
  readonly done: number;
  readonly total: number;
  readonly phase: string;
}

export interface DirectoryStore {
  /** The directory as last applied (strongly consistent). */
  read(): Promise<DirectoryFile>;
  /** One apply at a time: waits up to `waitMs` for another holder, then throws DirectoryBusyError. */
  lease(holder: string, options?: { waitMs?: number; onWait?: (heldBy: string) => void }): Promise<DirectoryLease>;
  /** Writes what turns `current` (as read under the lease) into `target`; every write checks the lease. */
  write(
    lease: DirectoryLease,
    current: DirectoryFile,
    target: DirectoryFile,
    onProgress?: (p: WriteProgress) => void,
  ): Promise<{ writes: number }>;
}

export class DirectoryBusyError extends Error {}
/** The lease ran out under a stalled apply and another took it, or an item changed under the lease. */
export class DirectoryConflictError extends Error {}

export type Validated<T> = ({ ok: true } & T) | { ok: false; issues: DirectoryIssue[] };

export interface Plan {
  readonly changes: EntityChange[];
  /** Entities the table holds and the file does not name (kept without prune). */
  readonly unnamed: number;
}

/** Validation, the target and its check, the changes: what plan prints and apply performs. */
function planAgainst(
  current: DirectoryFile,
  file: DirectoryFile,
  prune: boolean,
): Validated<Plan & { target: DirectoryFile }> {
  const target = targetDirectory(current, file, prune);
  const issues = checkTarget(target, file);
  if (issues.length > 0) return { ok: false, issues };
  const unnamed = prune
    ? 0
    : SECTIONS.reduce((n, { section }) => {
        const inFile = new Set(file[section].map(entityId));
        return n + current[section].filter((e) => !inFile.has(entityId(e))).length;
      }, 0);
  return { ok: true, target, changes: diffDirectories(current, target), unnamed };
}

export async function planDirectory(
  store: DirectoryStore,
  doc: unknown,
  options: { prune?: boolean } = {},
): Promise<Validated<Plan>> {
  const parsed = parseDirectoryFile(doc);
  if (!parsed.ok) return parsed;
  const planned = planAgainst(await store.read(), parsed.file, options.prune ?? false);
  if (!planned.ok) return planned;
  return { ok: true, changes: planned.changes, unnamed: planned.unnamed };
}

export interface ApplyOptions {
  readonly prune?: boolean;
  /** Who applies (shown to another operator who finds the lease taken). */
  readonly holder: string;
  readonly waitMs?: number;
  readonly onWait?: (heldBy: string) => void;
  /** Called once the changes are known, before anything is written. */
  readonly onPlan?: (plan: Plan) => void;
  readonly onProgress?: (p: WriteProgress) => void;
}

export async function applyDirectory(
  store: DirectoryStore,
  doc: unknown,
  options: ApplyOptions,
): Promise<Validated<Plan & { writes: number }>> {
  const parsed = parseDirectoryFile(doc);
  if (!parsed.ok) return parsed;
  const lease = await store.lease(options.holder, { waitMs: options.waitMs, onWait: options.onWait });
  try {
    // Read under the lease: no other apply can change the directory between this read and the writes.
    const current = await store.read();
    const planned = planAgainst(current, parsed.file, options.prune ?? false);
    if (!planned.ok) return planned;
    const plan = { changes: planned.changes, unnamed: planned.unnamed };
    options.onPlan?.(plan);
    const { writes } = await store.write(lease, current, planned.target, options.onProgress);
    return { ok: true, ...plan, writes };
  } finally {
    await lease.release();
  }
}

export const exportDirectory = (store: DirectoryStore): Promise<DirectoryFile> => store.read();
