/**
 * One owner's facts of one daily file, in the canonical order (units.ts sortKeyOf: by video bucket, video, then the
 * rest) and by bucket group (cube.ts: 16 groups of 16 buckets; rows without a video count as group 0), which is how
 * a month load consumes them. Small files stay in memory. A file past SPILL_ROWS rows (a large content owner's day)
 * is spilled as it is read: each row goes to its group's file in the OS temp folder, so memory holds one group at a
 * time (each group is sorted when read back), never the whole file.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type FamilyDef, familyMeasures } from '../catalog/families';
import { MEASURE_INDEX } from '../catalog/metrics';
import { fullDayOf, VIDEO_BUCKETS, videoBucket } from '../storage/cube';
import {
  canonicalOrder,
  type Dicts,
  keyAt,
  sliceUnits,
  sortCanonical,
  type UnitCube,
  UnitCubeBuilder,
} from '../storage/units';
import { CsvError } from './csv';
import type { FactSink } from './report-file';

/** Buckets in each step of a load (each group of a day's facts); the storage groups are multiples of it. */
export const BUCKETS_PER_STEP = 16;
export const GROUPS = VIDEO_BUCKETS / BUCKETS_PER_STEP;

/** Rows a file holds in memory before it spills to the temp folder. */
export const SPILL_ROWS = 150_000;

/** One owner's facts of one day. */
export interface DayFacts {
  readonly grain: readonly string[];
  readonly measures: readonly number[];
  readonly rows: number;
  /** The rows of group `g` (0 … 15) in canonical order. */
  group(g: number): Promise<UnitCube>;
  /** Frees what the facts hold (temp files). */
  close(): void;
}

/** The group of a video (`''`, no video: group 0). */
export function groupOfVideo(video: string): number {
  return video === '' ? 0 : Math.floor(Number(videoBucket(video).slice(1)) / BUCKETS_PER_STEP);
}

/** Facts held in memory: a sorted cube and where each group starts. */
export function memoryFacts(cube: UnitCube): DayFacts {
  const sorted = sortCanonical(cube);
  const v = sorted.grain.indexOf('video');
  const buckets = sorted.dicts.of('video').buckets();
  // Rows are in bucket order, so groups are runs: starts[g] is the first row of group g or later.
  const starts = new Array<number>(GROUPS + 1).fill(sorted.size);
  let next = 0;
  for (let i = 0; i < sorted.size && next < GROUPS; i++) {
    const bucket = v < 0 ? -1 : (buckets[(sorted.keys[v] as Int32Array)[i] as number] as number);
    const g = bucket < 0 ? 0 : Math.floor(bucket / BUCKETS_PER_STEP);
    while (next <= g) starts[next++] = i;
  }
  return {
    grain: sorted.grain,
    measures: sorted.measures,
    rows: sorted.size,
    group: async (g) => sliceUnits(sorted, starts[g] as number, starts[g + 1] as number),
    close: () => undefined,
  };
}

/** Appends rows (key strings, measures, line) to a file, buffered. */
class RowFile {
  private buf = Buffer.allocUnsafe(1 << 20);
  private at = 0;
  private fd: number;
  rows = 0;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'w');
  }

  private room(n: number) {
    if (this.at + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n * 2);
  }

  flush() {
    if (this.at > 0) writeSync(this.fd, this.buf, 0, this.at);
    this.at = 0;
  }

  add(key: readonly string[], units: ArrayLike<number>, line: number) {
    let size = 12 + units.length * 8;
    for (const k of key) size += 4 + Buffer.byteLength(k);
    this.room(size);
    for (const k of key) {
      const n = this.buf.write(k, this.at + 4, 'utf8');
      this.buf.writeUInt32LE(n, this.at);
      this.at += 4 + n;
    }
    for (let j = 0; j < units.length; j++) {
      this.buf.writeDoubleLE(units[j] as number, this.at);
      this.at += 8;
    }
    this.buf.writeUInt32LE(line, this.at);
    this.at += 4;
    this.rows++;
  }

  close() {
    this.flush();
    closeSync(this.fd);
  }
}

/** The rows of a RowFile, as a cube, with their lines. */
function readRows(file: string, grain: readonly string[], dicts: Dicts, measures: readonly number[], rows: number) {
  const bytes = readFileSync(file);
  const out = new UnitCubeBuilder(grain, dicts, measures, { capacity: rows });
  const lines = new Uint32Array(rows);
  const key = new Array<string>(grain.length);
  let at = 0;
  for (let r = 0; r < rows; r++) {
    for (let d = 0; d < grain.length; d++) {
      const n = bytes.readUInt32LE(at);
      key[d] = bytes.toString('utf8', at + 4, at + 4 + n);
      at += 4 + n;
    }
    const i = out.add(key);
    for (let j = 0; j < measures.length; j++) {
      (out.sums[j] as Float64Array)[i] = bytes.readDoubleLE(at);
      at += 8;
    }
    lines[r] = bytes.readUInt32LE(at);
    at += 4;
  }
  return { cube: out.build(), lines };
}

/**
 * Whether a row of a builder repeats an earlier row's codes. The codes are hashed (FNV-1a over 32-bit codes) and rows
 * of equal hashes compared code by code: a number per row, where joining the codes as text cost a string and its
 * hashing for each of a day's rows.
 */
export class RepeatCheck {
  private readonly first = new Map<number, number>();
  private readonly more = new Map<number, number[]>();

  /** Records row `i` of `columns`; true when an earlier recorded row has the same codes. */
  repeats(columns: readonly Int32Array[], i: number): boolean {
    let h = 0x811c9dc5;
    for (let c = 0; c < columns.length; c++) h = Math.imul(h ^ ((columns[c] as Int32Array)[i] as number), 0x01000193);
    const j = this.first.get(h);
    if (j === undefined) {
      this.first.set(h, i);
      return false;
    }
    const same = (k: number) => {
      for (let c = 0; c < columns.length; c++)
        if ((columns[c] as Int32Array)[k] !== (columns[c] as Int32Array)[i]) return false;
      return true;
    };
    if (same(j)) return true;
    const others = this.more.get(h);
    if (others?.some(same)) return true;
    if (others) others.push(i);
    else this.more.set(h, [i]);
    return false;
  }
}

/** One owner's rows while a file is read: in memory (with the keys seen and lines), or in group files. */
interface OwnerFacts {
  builder?: UnitCubeBuilder;
  seen?: RepeatCheck;
  lines?: number[];
  files?: RowFile[];
  dir?: string;
  rows: number;
}

/**
 * Collects a file's facts per owner (a FactSink for report-file.ts). A row repeating another's dimension values is
 * rejected at its line: at once for files in memory; for spilled files when the group is sorted (`finish`), before
 * anything is stored.
 */
export class FactCollector implements FactSink {
  private family: FamilyDef | undefined;
  private grain: readonly string[] = [];
  private measures: number[] = [];
  private readonly owners = new Map<string, OwnerFacts>();
  private total = 0;

  constructor(
    private readonly file: string,
    private readonly dicts: Dicts,
    private readonly spillRows = SPILL_ROWS,
  ) {}

  begin(family: FamilyDef): void {
    this.family = family;
    this.grain = fullDayOf(family).grain;
    this.measures = [...familyMeasures(family)].map((m) => MEASURE_INDEX[m]).sort((a, b) => a - b);
  }

  /** The full-day grain of the file's family (known once its header was read). */
  grainOf(): readonly string[] {
    return this.grain;
  }

  private duplicate(line: number): never {
    throw new CsvError(
      this.file,
      line,
      this.family?.columns[0]?.column ?? 'date',
      'the same dimension values appear on an earlier line',
    );
  }

  add(owner: string, key: readonly string[], units: Float64Array, line: number): void {
    let state = this.owners.get(owner);
    if (!state) {
      state = {
        builder: new UnitCubeBuilder(this.grain, this.dicts, this.measures),
        seen: new RepeatCheck(),
        lines: [],
        rows: 0,
      };
      this.owners.set(owner, state);
    }
    state.rows++;
    this.total++;
    if (state.files) {
      (state.files[groupOfVideo(key[this.grain.indexOf('video')] ?? '')] as RowFile).add(key, units, line);
      return;
    }
    const builder = state.builder as UnitCubeBuilder;
    const i = builder.add(key);
    if (state.seen?.repeats(builder.keys, i)) this.duplicate(line);
    for (let j = 0; j < units.length; j++) (builder.sums[j] as Float64Array)[i] = units[j] as number;
    state.lines?.push(line);
    if (this.total > this.spillRows) this.spill();
  }

  /** Moves every owner's rows to group files and routes the rest there. */
  private spill(): void {
    for (const state of this.owners.values()) {
      if (state.files) continue;
      state.dir = mkdtempSync(path.join(tmpdir(), 'ingest-spill-'));
      state.files = Array.from({ length: GROUPS }, (_, g) => new RowFile(path.join(state.dir as string, `g${g}`)));
      const cube = (state.builder as UnitCubeBuilder).build();
      const lines = state.lines ?? [];
      const v = this.grain.indexOf('video');
      const units = new Float64Array(this.measures.length);
      for (let i = 0; i < cube.size; i++) {
        const key = keyAt(cube, i);
        for (let j = 0; j < units.length; j++) units[j] = (cube.sums[j] as Float64Array)[i] as number;
        (state.files[groupOfVideo(v < 0 ? '' : (key[v] as string))] as RowFile).add(key, units, lines[i] as number);
      }
      delete state.builder;
      delete state.seen;
      delete state.lines;
    }
  }

  /** The facts per owner, checked for repeated rows. */
  finish(): Map<string, DayFacts> {
    const out = new Map<string, DayFacts>();
    for (const [owner, state] of this.owners) {
      if (!state.files) {
        out.set(owner, memoryFacts((state.builder as UnitCubeBuilder).build()));
        continue;
      }
      for (const f of state.files) f.close();
      // Sort each group once, rejecting a repeated row at the later of its lines, and keep it sorted on disk.
      const files = state.files;
      for (const f of files) {
        if (f.rows === 0) continue;
        const { cube, lines } = readRows(f.file, this.grain, this.dicts, this.measures, f.rows);
        const compare = canonicalOrder(cube);
        const order = Array.from({ length: cube.size }, (_, i) => i).sort(
          (a, b) => compare(a, b) || (lines[a] as number) - (lines[b] as number),
        );
        let repeated = 0;
        for (let k = 1; k < order.length; k++) {
          if (compare(order[k] as number, order[k - 1] as number) === 0) {
            const line = lines[order[k] as number] as number;
            if (repeated === 0 || line < repeated) repeated = line;
          }
        }
        if (repeated > 0) this.duplicate(repeated);
        const sorted = new RowFile(f.file);
        const units = new Float64Array(this.measures.length);
        for (const i of order) {
          for (let j = 0; j < units.length; j++) units[j] = (cube.sums[j] as Float64Array)[i] as number;
          sorted.add(keyAt(cube, i), units, lines[i] as number);
        }
        sorted.close();
      }
      const { grain, dicts, measures } = this;
      out.set(owner, {
        grain,
        measures,
        rows: state.rows,
        group: async (g) => {
          const f = files[g] as RowFile;
          return f.rows === 0
            ? new UnitCubeBuilder(grain, dicts, measures).build()
            : readRows(f.file, grain, dicts, measures, f.rows).cube;
        },
        close: () => rmSync(state.dir as string, { recursive: true, force: true }),
      });
    }
    return out;
  }

  /** Removes temp files (a rejected file). */
  discard(): void {
    for (const state of this.owners.values()) {
      for (const f of state.files ?? []) {
        try {
          f.close();
        } catch {
          // already closed
        }
      }
      if (state.dir) rmSync(state.dir, { recursive: true, force: true });
    }
  }
}
