/**
 * Loading days of one (report type, owner, month): the unit of work that never interleaves with another of the same
 * month (a lease, lease-keeper.ts), and that an invocation dying half-way leaves finishable.
 *
 * 1. Take the month's lease. Read the manifest; if it names a load in flight (a holder died), finish it first.
 *    (openMonth: a caller that knows the month from the files' paths does this while it parses them.)
 * 2. Skip days whose stored file is newer (createTime). Back up the previous full-day cube of each restated day
 *    (`O#<day>`): the month's sums take it out again.
 * 3. Write the manifest with the load marked pending (its version and days), conditionally on the version read.
 *    The cubes are read and encoded meanwhile; every write of step 4 waits for it.
 * 4. Write (month-pipeline.ts): day cubes, by-day segments, the month root (stored + new − previous, exactly; marked
 *    with the version last), the other month cubes.
 * 5. Commit: the manifest at the new version, the days recorded, nothing pending; the month added to the months
 *    whose blocks are due and to the owner's index; in one transaction that checks the lease, and lets it go when
 *    no backups remain to remove (else remove them, then let it go).
 *
 * An interrupted load is finished forward when every one of its days' full-day cubes is in place (each first chunk
 * carries the version): the month root is recomputed from the stored cubes and the backups unless it already carries
 * the version. Otherwise it is undone: the backups go back, the days' other cubes and segments are rewritten from
 * them, days that were new are removed, and its chunks are cleared. Either way the month ends as one load of the
 * surviving files would leave it; the interrupted file is retried (at-least-once delivery) and loads again.
 */
import * as keys from '../../db/keys';
import type { FamilyDef } from '../catalog/families';
import { daysIn } from '../storage/cube';
import type { DayRecord, FactWriter, MonthManifest, PendingLoad } from '../storage/fact-writer';
import { emptyManifest } from '../storage/fact-writer';
import type { HeadSizes } from '../storage/heads';
import type { IngestStatusRepository } from '../storage/ingest-status-repository';
import type { LeaseRepository } from '../storage/lease-repository';
import { concatUnits, type Dicts, emptyUnitCube, type UnitCube } from '../storage/units';
import { ownDaysWith } from './by-day-items';
import type { DayFacts } from './day-facts';
import { type HeldLease, holdLease, LeaseLost, type LeaseSettings } from './lease-keeper';
import { type FamilyPlan, GroupReader, type PipelineDay, runPipeline } from './month-pipeline';

export interface LoadStores {
  readonly writer: FactWriter;
  readonly leases: LeaseRepository;
  readonly status: IngestStatusRepository;
}

export interface LoadDay {
  readonly day: string;
  readonly facts: DayFacts;
  readonly record: DayRecord;
}

export interface MonthLoadResult {
  /** Days written. */
  readonly loaded: readonly string[];
  /** Days not loaded: the stored file of the day is newer (createTime). */
  readonly skipped: readonly { day: string; stored: string }[];
  /** Whether an interrupted load was finished (or undone) first. */
  readonly recovered: boolean;
  /** Whether the load marked the owner's blocks due (its commit, or the recovery's): they are to be written. */
  readonly blocksDue: boolean;
}

/** The full-day cubes of stored days (or their backups), as facts a group at a time. */
function storedFacts(writer: FactWriter, pk: string, period: string, plan: FamilyPlan, dicts: Dicts): DayFacts {
  let reader: Promise<GroupReader | undefined> | undefined;
  return {
    grain: plan.full.grain,
    measures: plan.measures,
    rows: 0,
    async group(g) {
      reader ??= writer
        .openCube({ pk }, period, dicts, plan.measures)
        .then((cube) => (cube ? new GroupReader(cube.chunks) : undefined));
      const parts = (await (await reader)?.take(g)) ?? [];
      return parts.length === 0 ? emptyUnitCube(plan.full.grain, dicts, plan.measures) : concatUnits(parts);
    },
    close: () => undefined,
  };
}

/** Where a load writes: one (report type, owner, month), its cube plan and the dictionaries of the load. */
interface MonthTarget {
  readonly family: FamilyDef;
  readonly plan: FamilyPlan;
  readonly owner: string;
  readonly month: string;
  readonly dicts: Dicts;
  readonly heads?: HeadSizes;
}

/** How a load writes its month's flat cubes (month-pieces.ts): as pieces of its days, or compacted. */
type MonthWrite =
  | { readonly pieces: true; readonly pb: number }
  | {
      readonly pieces: false;
      readonly pb: number;
      /** The stored root, plus the days when `addDays` and the pieces of `fold`, minus the backups of `subtract`. */
      readonly root?: {
        stored?: AsyncIterable<UnitCube>;
        addDays: boolean;
        fold: readonly string[];
        subtract: readonly string[];
      };
    };

/** A load's writes (month-pipeline.ts) at version `ver`: `days` written, and the month cubes as `write` says. */
async function writeLoad(
  writer: FactWriter,
  target: MonthTarget,
  ver: number,
  days: readonly PipelineDay[],
  write: MonthWrite,
  manifest: MonthManifest,
  held: HeldLease,
  recordMarks: (marks: Record<string, string[]>) => Promise<void>,
  undo?: { removeDays: readonly string[]; gen: string },
) {
  const { family, plan, owner, dicts } = target;
  const fullPk = keys.factPartition(family.code, owner, plan.full.name);
  const root = write.pieces ? undefined : write.root;
  await runPipeline(
    writer,
    {
      ...target,
      gen: undo?.gen ?? `v${ver}`,
      ver,
      pb: write.pb,
      days,
      ...(undo ? { removeDays: undo.removeDays } : {}),
      ...(write.pieces ? { pieces: true, recordMarks } : {}),
      ...(root
        ? {
            root: {
              ...(root.stored ? { stored: root.stored } : {}),
              addDays: root.addDays ? days.map((_, i) => i) : [],
              // A piece of the root is its day's full-day cube (month-pieces.ts).
              add: root.fold.map((day) => storedFacts(writer, fullPk, keys.factDaySk(day), plan, dicts)),
              subtract: root.subtract.map((day) => storedFacts(writer, fullPk, keys.factBackupSk(day), plan, dicts)),
            },
          }
        : {}),
    },
    manifest,
    held.guard,
  );
}

/**
 * Days a month keeps as pieces before a load compacts it (month-pieces.ts): a report reads at most this many pieces
 * beside a month's cube (each a day's size: no more than its days read as edge days), and a load of one day writes
 * the day's pieces, not the month's cubes again. A compaction rewrites the month so far, so fewer of them make a
 * month loaded a day at a time cheaper: at 15 a 30- or 31-day month compacts on its 16th day and on its last (at 7:
 * the 8th, 16th, 24th and last, twice the writes; bench/ingest.ts measures it).
 */
export const OPEN_DAYS = 15;

/** A month's lease, held, and its manifest as read under it: step 1 before the month's files are read. */
export interface OpenedMonth {
  readonly held: HeldLease;
  readonly manifest: MonthManifest | undefined;
}

/**
 * Takes the month's lease and reads its manifest: what a load does first, begun by a caller that knows the month
 * before it has read the files (ingest-service.ts: from their paths), so both round trips overlap the parse.
 */
export async function openMonth(
  stores: LoadStores,
  familyCode: string,
  owner: string,
  month: string,
  options: { holder: string; lease: LeaseSettings },
): Promise<OpenedMonth> {
  const held = await holdLease(stores.leases, keys.monthLease(familyCode, owner, month), options.holder, options.lease);
  try {
    return { held, manifest: await stores.writer.readManifest(familyCode, owner, month) };
  } catch (err) {
    await held.release().catch(() => undefined);
    throw err;
  }
}

/**
 * Loads `days` (each one day's facts of this owner and family) into `month`. Throws LeaseBusy when another load
 * holds the month past the wait, LeaseLost when the lease was lost meanwhile; both leave the month finishable.
 */
export async function loadMonth(
  stores: LoadStores,
  family: FamilyDef,
  plan: FamilyPlan,
  owner: string,
  month: string,
  days: readonly LoadDay[],
  options: {
    holder: string;
    lease: LeaseSettings;
    now: () => Date;
    dicts: Dicts;
    openDays?: number;
    /** How heads are sized (storage/heads.ts). */
    heads?: HeadSizes;
    /** Fold the month's pieces into its cubes even when no day is loaded (month-pieces.ts). */
    compact?: boolean;
    /**
     * Where the lease's release goes instead of being awaited here (the caller awaits it), so the caller's next
     * requests need not wait for it: a round trip less per load.
     */
    releases?: Promise<void>[];
    /** The month opened already (openMonth, for this family, owner and month): the load takes it over. */
    opened?: Promise<OpenedMonth>;
  },
): Promise<MonthLoadResult> {
  const { dicts } = options;
  const { writer } = stores;
  const target: MonthTarget = {
    family,
    plan,
    owner,
    month,
    dicts,
    ...(options.heads !== undefined ? { heads: options.heads } : {}),
  };
  const opened = await (options.opened ?? openMonth(stores, family.code, owner, month, options));
  const { held } = opened;
  /** The load's pending record in flight (below), settled before the lease goes. */
  let marked: Promise<void> = Promise.resolve();
  try {
    let manifest = opened.manifest ?? emptyManifest();
    let recovered = false;
    if (manifest.pending) {
      await finishInterrupted(stores, target, manifest, held);
      manifest = (await writer.readManifest(family.code, owner, month)) ?? emptyManifest();
      recovered = true;
    }
    const skipped: { day: string; stored: string }[] = [];
    const accepted = days.filter((d) => {
      const stored = manifest.days[d.day]?.createTime;
      if (stored !== undefined && d.record.createTime !== undefined && d.record.createTime < stored) {
        skipped.push({ day: d.day, stored });
        return false;
      }
      return true;
    });
    const compact = options.compact === true && Object.keys(manifest.pieces ?? {}).length > 0;
    if (accepted.length === 0 && !compact) return { loaded: [], skipped, recovered, blocksDue: recovered };

    const ver = manifest.ver + 1;
    const rebuild = manifest.legacy === true;
    // Pieces (month-pieces.ts) while the month's open days stay few and no day of its cubes is restated; else the
    // load compacts: the cubes are rewritten with every piece folded in.
    const open = new Set([...Object.keys(manifest.pieces ?? {}), ...accepted.map((d) => d.day.slice(8, 10))]);
    const inCubes = (day: string) => manifest.days[day] !== undefined && !manifest.pieces?.[day.slice(8, 10)];
    // A load completing the month compacts it too: a month no later load touches would otherwise stay open for good
    // (its reports adding pieces, the blocks holding it read as months).
    const complete = new Set([...Object.keys(manifest.days), ...accepted.map((d) => d.day)]).size >= daysIn(month);
    const asPieces =
      !rebuild &&
      !compact &&
      !complete &&
      open.size <= (options.openDays ?? OPEN_DAYS) &&
      !accepted.some((d) => inCubes(d.day));
    const pb = (manifest.pb ?? 0) + (asPieces ? 0 : 1);
    const loading = new Set(accepted.map((d) => d.day));
    const fold = asPieces
      ? []
      : Object.keys(manifest.pieces ?? {})
          .map((dd) => `${month}-${dd}`)
          .filter((day) => !loading.has(day));
    const fullPk = keys.factPartition(family.code, owner, plan.full.name);
    const backedUp: string[] = [];
    if (!rebuild) {
      for (const d of accepted) {
        if (manifest.days[d.day] !== undefined && (await writer.backupDay(fullPk, d.day, held.guard)))
          backedUp.push(d.day);
      }
    }
    const records = Object.fromEntries(accepted.map((d) => [d.day, d.record]));
    const pending: PendingLoad = {
      ver,
      days: accepted.map((d) => d.day),
      backedUp,
      records,
      startedAt: options.now().toISOString(),
      ...(rebuild ? { rebuild: true } : {}),
      pb,
      ...(asPieces ? { pieces: true } : { fold, subtract: backedUp.filter(inCubes) }),
    };
    const written: MonthManifest = structuredClone({ ...manifest, pending });
    // The pending record goes out while the load reads and encodes: every write after it awaits it first (the gated
    // guard), so none lands before it, and a load of one day saves a round trip.
    const pendingWrite = writeOrLose(
      stores,
      family,
      owner,
      month,
      written,
      { ver: manifest.ver, pending: undefined },
      held,
    );
    marked = pendingWrite.catch(() => undefined);
    const gated: HeldLease = {
      ...held,
      async guard() {
        await pendingWrite;
        held.guard();
      },
    };

    // A month of an earlier release is rebuilt from all its days: the others' segments are written again too.
    const others = rebuild
      ? Object.keys(manifest.days)
          .filter((day) => !records[day])
          .map((day) => ({
            day,
            facts: storedFacts(writer, fullPk, keys.factDaySk(day), plan, dicts),
            writeFull: false,
          }))
      : [];
    const loadDays = [...accepted.map((d) => ({ day: d.day, facts: d.facts, writeFull: true })), ...others];
    const root =
      rebuild || asPieces
        ? undefined
        : await writer.openCube(
            { pk: keys.factPartition(family.code, owner, plan.root.name) },
            keys.factMonthSk(month),
            dicts,
            plan.measures,
          );
    const write: MonthWrite = asPieces
      ? { pieces: true, pb }
      : {
          pieces: false,
          pb,
          root: {
            ...(root ? { stored: root.chunks } : {}),
            addDays: true,
            fold: rebuild ? [] : fold,
            subtract: pending.subtract ?? [],
          },
        };
    // Blocks of months are due when the month's cubes change, or when it opens (block-cubes.ts: a block holding an
    // open month is removed, and read as its months until they are compacted).
    const blocksDue = !asPieces || Object.keys(manifest.pieces ?? {}).length === 0;
    await writeLoad(
      writer,
      target,
      ver,
      loadDays,
      write,
      manifest,
      gated,
      marksRecorder(stores, target, written, gated),
    );
    await pendingWrite;
    // Backups are removed under the lease, after the commit; without them the commit lets the lease go.
    await commit(stores, family, owner, month, manifest, pending, held, { blocksDue, release: backedUp.length === 0 });
    await removeBackups(writer, fullPk, backedUp, held);
    return { loaded: accepted.map((d) => d.day), skipped, recovered, blocksDue: blocksDue || recovered };
  } finally {
    const release = marked.then(() => held.release());
    // A release that fails leaves the lease to expire (its ttl): the next load of the month waits, nothing is lost.
    if (options.releases) options.releases.push(release.catch(() => undefined));
    else await release;
  }
}

/**
 * Records regional marks in the manifest of a load in flight (`written`, as stored, its load pending) before they
 * are written (month-pipeline.ts), so that whatever becomes of the load, the next compaction deletes them.
 */
const marksRecorder =
  (stores: LoadStores, target: MonthTarget, written: MonthManifest, held: HeldLease) =>
  (marks: Record<string, string[]>) =>
    writeOrLose(
      stores,
      target.family,
      target.owner,
      target.month,
      { ...written, marks },
      { ver: written.ver, pending: written.pending?.ver },
      held,
    );

async function writeOrLose(
  stores: LoadStores,
  family: FamilyDef,
  owner: string,
  month: string,
  manifest: MonthManifest,
  expected: { ver: number; pending: number | undefined },
  held: HeldLease,
  also: readonly Record<string, unknown>[] = [],
  release = false,
) {
  await held.guard();
  const ok = await stores.writer.writeManifest(
    family.code,
    owner,
    month,
    manifest,
    expected,
    held.lease,
    stores.leases,
    also,
    release,
  );
  if (!ok) throw new LeaseLost(keys.monthLease(family.code, owner, month));
  if (release) held.released();
}

/**
 * The manifest at the load's version with its days, nothing pending; the month's blocks due; the owner indexed; with
 * `release`, the lease let go in the same transaction.
 */
async function commit(
  stores: LoadStores,
  family: FamilyDef,
  owner: string,
  month: string,
  manifest: MonthManifest,
  pending: PendingLoad,
  held: HeldLease,
  { blocksDue = true, release = false }: { blocksDue?: boolean; release?: boolean } = {},
) {
  const { pending: _done, legacy: _legacy, ...rest } = manifest;
  const next: MonthManifest = { ...rest, ver: pending.ver, days: { ...manifest.days, ...pending.records } };
  const hasData = Object.values(next.days).some((d) => d.rows > 0);
  await writeOrLose(
    stores,
    family,
    owner,
    month,
    next,
    { ver: manifest.ver, pending: pending.ver },
    held,
    [
      ...(blocksDue ? [stores.writer.blocksDue(family.code, owner, month)] : []),
      ...(hasData ? [stores.status.ownerLoaded(owner, family.code, family.owner, month)] : []),
    ],
    release,
  );
}

async function removeBackups(writer: FactWriter, fullPk: string, days: readonly string[], held: HeldLease) {
  for (const day of days) {
    const period = keys.factBackupSk(day);
    const items = await writer.queryItems(fullPk, period, `${period}#~`, 'pk, sk');
    await writer.deleteKeys(
      items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) })),
      held.guard,
    );
  }
}

/** Finishes (or undoes) the load a manifest says is in flight; see the module comment. */
async function finishInterrupted(stores: LoadStores, target: MonthTarget, manifest: MonthManifest, held: HeldLease) {
  const { writer } = stores;
  const { family, plan, owner, month, dicts } = target;
  const pending = manifest.pending as PendingLoad;
  // The interrupted load may have written day items of its days, whatever it was to write (by-day-items.ts).
  manifest.daily = ownDaysWith(manifest, pending.days);
  const stored = structuredClone(manifest);
  const fullPk = keys.factPartition(family.code, owner, plan.full.name);
  const rootPk = keys.factPartition(family.code, owner, plan.root.name);
  const versionOf = async (pk: string, sk: string) => {
    const cube = await writer.openCube({ pk }, sk, dicts, []);
    return cube?.mv;
  };
  const complete = (await Promise.all(pending.days.map((day) => versionOf(fullPk, keys.factDaySk(day))))).every(
    (v) => v === pending.ver,
  );
  const gen = `v${pending.ver}`;
  if (complete) {
    const rebuild = pending.rebuild === true;
    const rootCube = rebuild
      ? undefined
      : await writer.openCube({ pk: rootPk }, keys.factMonthSk(month), dicts, plan.measures);
    const applied = rootCube?.mv === pending.ver;
    const days = (rebuild ? Object.keys({ ...manifest.days, ...pending.records }) : pending.days).map((day) => ({
      day,
      facts: storedFacts(writer, fullPk, keys.factDaySk(day), plan, dicts),
      writeFull: false,
    }));
    const pb = pending.pb ?? manifest.pb ?? 0;
    const write: MonthWrite = pending.pieces
      ? { pieces: true, pb }
      : {
          pieces: false,
          pb,
          root: {
            ...(rootCube ? { stored: rootCube.chunks } : {}),
            addDays: !applied,
            fold: applied || rebuild ? [] : (pending.fold ?? []),
            subtract: applied || rebuild ? [] : (pending.subtract ?? pending.backedUp),
          },
        };
    await writeLoad(
      writer,
      target,
      pending.ver,
      days,
      write,
      manifest,
      held,
      marksRecorder(stores, target, stored, held),
    );
    await commit(stores, family, owner, month, manifest, pending, held);
  } else {
    // Undo: the previous full-day cubes back; the days' other cubes and segments from them; new days removed.
    for (const day of pending.backedUp) {
      const backup = keys.factBackupSk(day);
      const items = await writer.queryItems(fullPk, backup, `${backup}#~`);
      await writer.putItems(
        items.map((item) => ({ ...item, sk: keys.factDaySk(day) + String(item.sk).slice(backup.length) })),
        held.guard,
      );
    }
    const fresh = pending.days.filter((day) => !pending.backedUp.includes(day));
    // A load of pieces writes them after every day's full-day cube carries its version: one undone wrote none.
    await writeLoad(
      writer,
      target,
      manifest.ver,
      pending.backedUp.map((day) => ({
        day,
        facts: storedFacts(writer, fullPk, keys.factDaySk(day), plan, dicts),
        writeFull: false,
      })),
      { pieces: pending.pieces === true, pb: manifest.pb ?? 0 },
      manifest,
      held,
      marksRecorder(stores, target, stored, held),
      // Its own generation: the day cubes rewritten from the backups neither overwrite live chunks in place nor
      // fall under the clearing of the interrupted load's generation below.
      { removeDays: fresh, gen: `u${pending.ver}` },
    );
    // Chunks the interrupted load wrote under its generation and never pointed to.
    for (const day of pending.backedUp) {
      for (const v of [plan.full, ...plan.day])
        await writer.deleteKeys(
          await writer
            .staleChunks(keys.factPartition(family.code, owner, v.name), keys.factDaySk(day), undefined)
            .then((all) => all.filter((k) => k.sk.includes(`#${gen}#`))),
          held.guard,
        );
    }
    await writer.deleteKeys(
      (await writer.staleChunks(rootPk, keys.factMonthSk(month), undefined)).filter((k) => k.sk.includes(`#${gen}#`)),
      held.guard,
    );
    const { pending: _undone, ...rest } = manifest;
    await writeOrLose(
      stores,
      family,
      owner,
      month,
      rest as MonthManifest,
      { ver: manifest.ver, pending: pending.ver },
      held,
    );
  }
  await removeBackups(writer, fullPk, pending.backedUp, held);
}
