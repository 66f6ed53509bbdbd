/**
 * Ingest's form of a cube: rows by column, each dimension as integer codes into a dictionary shared by every cube of
 * a load (so grouping, sorting and merging compare integers, not strings), measures as integer micro-units. Every
 * value loaded is a multiple of 10^-6 (report-file.ts rounds each number of a file to six places, exactly, from its
 * text), so sums of them are integers and exact below 2^53 micro-units (9 × 10^9): they are the same whatever order
 * they are added in, and a day can be taken out of a month's sum as exactly as it was put in. A stored measure is
 * `units / 10^6`, one rounding, so it reads back as the same integer.
 */
import { videoBucket } from './cube';

/** Micro-units per unit. */
export const UNIT = 1e6;
/** Below this many micro-units an integer sum is exact. */
export const EXACT_UNITS = 2 ** 53;

/** The stored (and reported) value of a sum in micro-units. */
export const unitsValue = (units: number): number => units / UNIT;

/** The micro-units of a stored value (exact for values written as units / 10^6). */
export const unitsOf = (value: number): number => Math.round(value * UNIT);

/** One dimension's values and their codes. */
export class Dict {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();
  private rankCache: Int32Array | undefined;
  private bucketCache: Int16Array | undefined;

  code(value: string): number {
    let c = this.index.get(value);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(value);
      this.index.set(value, c);
    }
    return c;
  }

  get size(): number {
    return this.values.length;
  }

  /** Each code's position in the values' code-unit order (the canonical order compares these). */
  ranks(): Int32Array {
    if (this.rankCache?.length === this.values.length) return this.rankCache;
    const order = Array.from(this.values.keys()).sort((a, b) => {
      const x = this.values[a] as string;
      const y = this.values[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const ranks = new Int32Array(this.values.length);
    order.forEach((code, rank) => {
      ranks[code] = rank;
    });
    this.rankCache = ranks;
    return ranks;
  }

  /** For a `video` dictionary: each code's bucket number (-1 for the empty video). */
  buckets(): Int16Array {
    if (this.bucketCache?.length === this.values.length) return this.bucketCache;
    const out = new Int16Array(this.values.length);
    const from = this.bucketCache?.length ?? 0;
    if (this.bucketCache) out.set(this.bucketCache);
    for (let c = from; c < this.values.length; c++) {
      const v = this.values[c] as string;
      out[c] = v === '' ? -1 : Number(videoBucket(v).slice(1));
    }
    this.bucketCache = out;
    return out;
  }
}

/** The dictionaries of a load, one per dimension name. */
export class Dicts {
  private readonly byDim = new Map<string, Dict>();
  of(dim: string): Dict {
    let d = this.byDim.get(dim);
    if (!d) {
      d = new Dict();
      this.byDim.set(dim, d);
    }
    return d;
  }
}

/** A cube of ingest: the grain's codes per row and the measures' sums per row, column by column. */
export interface UnitCube {
  readonly grain: readonly string[];
  readonly dicts: Dicts;
  /** The measures the rows hold: MEASURE_INDEX positions, ascending (a family's measures). */
  readonly measures: readonly number[];
  readonly size: number;
  /** Per grain dimension (in grain order), each row's code in `dicts.of(dimension)`. */
  readonly keys: readonly Int32Array[];
  /** Per measure (in `measures` order), each row's sum in micro-units; NaN: null (no fact had a value). */
  readonly sums: readonly Float64Array[];
  /**
   * The facts each row sums, and per measure how many of them had no value (a month's by-video-and-slices cube,
   * which loads change by adding and taking out days: a row whose count falls to 0 is gone, a sum whose facts all
   * lack the value is null again).
   */
  readonly counts?: Float64Array;
  readonly nulls?: readonly Float64Array[];
}

/**
 * Appends rows to a cube, growing its columns as needed. The columns of a kind share one buffer: a load makes tens of
 * thousands of builders (a rollup each), and a typed array per column cost more to allocate than the rows in it.
 * A row's sums are set null when the row is added, not when its columns are allocated.
 */
export class UnitCubeBuilder {
  size = 0;
  private capacity: number;
  keys!: Int32Array[];
  sums!: Float64Array[];
  counts: Float64Array | undefined;
  nulls: Float64Array[] | undefined;
  private readonly counting: boolean;
  /** The buffers the columns are views of: keys, then sums, counts and nulls. */
  private ints!: Int32Array;
  private floats!: Float64Array;
  private dictList: Dict[] | undefined;

  constructor(
    readonly grain: readonly string[],
    readonly dicts: Dicts,
    readonly measures: readonly number[],
    options: { counts?: boolean; capacity?: number } = {},
  ) {
    this.capacity = Math.max(16, options.capacity ?? 256);
    this.counting = options.counts === true;
    this.allocate(this.capacity);
  }

  /** Columns of `capacity` rows, holding the rows so far. */
  private allocate(capacity: number): void {
    const m = this.measures.length;
    const ints = new Int32Array(capacity * this.grain.length);
    const floats = new Float64Array(capacity * (this.counting ? 2 * m + 1 : m));
    if (this.size > 0) {
      // Column k of the old buffers (capacity `was`) becomes column k of the new ones.
      const was = this.capacity;
      const n = this.size;
      const move = <T extends Int32Array | Float64Array>(from: T, to: T) => {
        for (let k = 0; k * was < from.length; k++) to.set(from.subarray(k * was, k * was + n), k * capacity);
      };
      move(this.ints, ints);
      move(this.floats, floats);
    }
    const column = (k: number) => floats.subarray(k * capacity, (k + 1) * capacity);
    this.ints = ints;
    this.floats = floats;
    this.keys = this.grain.map((_, d) => ints.subarray(d * capacity, (d + 1) * capacity));
    this.sums = this.measures.map((_, j) => column(j));
    if (this.counting) {
      this.counts = column(m);
      this.nulls = this.measures.map((_, j) => column(m + 1 + j));
    }
    this.capacity = capacity;
  }

  /** A new row: its sums null (its keys are the caller's to set). */
  private newRow(): number {
    if (this.size === this.capacity) this.allocate(this.capacity * 2);
    const i = this.size++;
    for (let j = 0; j < this.sums.length; j++) (this.sums[j] as Float64Array)[i] = Number.NaN;
    return i;
  }

  /** A new row with these codes: sums null, counts 0. Returns its index. */
  addCodes(codes: ArrayLike<number>): number {
    const i = this.newRow();
    for (let d = 0; d < codes.length; d++) (this.keys[d] as Int32Array)[i] = codes[d] as number;
    return i;
  }

  /** A new row with these values. Returns its index. */
  add(key: readonly string[]): number {
    const i = this.newRow();
    const dicts = this.grainDicts;
    for (let d = 0; d < key.length; d++) (this.keys[d] as Int32Array)[i] = (dicts[d] as Dict).code(key[d] as string);
    return i;
  }

  /** The grain's dictionaries, looked up once (add is called for every row of every file). */
  private get grainDicts(): Dict[] {
    this.dictList ??= this.grain.map((d) => this.dicts.of(d));
    return this.dictList;
  }

  /** Adds `units` (NaN: a fact without a value) to measure position `m` of `row`, counting it when counting. */
  addUnits(row: number, m: number, units: number): void {
    const column = this.sums[m] as Float64Array;
    if (Number.isNaN(units)) {
      if (this.nulls) {
        const z = this.nulls[m] as Float64Array;
        z[row] = (z[row] as number) + 1;
      }
      return;
    }
    const t = column[row] as number;
    column[row] = Number.isNaN(t) ? units : t + units;
  }

  build(): UnitCube {
    const n = this.size;
    return {
      grain: this.grain,
      dicts: this.dicts,
      measures: this.measures,
      size: n,
      keys: this.keys.map((a) => a.subarray(0, n)),
      sums: this.sums.map((a) => a.subarray(0, n)),
      ...(this.counts ? { counts: this.counts.subarray(0, n) } : {}),
      ...(this.nulls ? { nulls: this.nulls.map((a) => a.subarray(0, n)) } : {}),
    };
  }
}

/** A cube with no rows. */
export const emptyUnitCube = (grain: readonly string[], dicts: Dicts, measures: readonly number[]): UnitCube =>
  new UnitCubeBuilder(grain, dicts, measures, { capacity: 16 }).build();

/** Row `i`'s values. */
export const keyAt = (cube: UnitCube, i: number): string[] =>
  cube.keys.map((column, d) => cube.dicts.of(cube.grain[d] as string).values[column[i] as number] as string);

/** Rows `from` … `to` − 1 of a cube (views, not copies). */
export function sliceUnits(cube: UnitCube, from: number, to: number): UnitCube {
  return {
    grain: cube.grain,
    dicts: cube.dicts,
    measures: cube.measures,
    size: to - from,
    keys: cube.keys.map((k) => k.subarray(from, to)),
    sums: cube.sums.map((s) => s.subarray(from, to)),
    ...(cube.counts ? { counts: cube.counts.subarray(from, to) } : {}),
    ...(cube.nulls ? { nulls: cube.nulls.map((z) => z.subarray(from, to)) } : {}),
  };
}

/** Cubes of one grain, one after the other. */
export function concatUnits(parts: readonly UnitCube[]): UnitCube {
  const first = parts[0] as UnitCube;
  if (parts.length === 1) return first;
  const size = parts.reduce((n, p) => n + p.size, 0);
  const join = <T extends Float64Array | Int32Array>(pick: (p: UnitCube) => T, out: T): T => {
    let at = 0;
    for (const p of parts) {
      out.set(pick(p), at);
      at += p.size;
    }
    return out;
  };
  return {
    grain: first.grain,
    dicts: first.dicts,
    measures: first.measures,
    size,
    keys: first.grain.map((_, d) => join((p) => p.keys[d] as Int32Array, new Int32Array(size))),
    sums: first.measures.map((_, j) => join((p) => p.sums[j] as Float64Array, new Float64Array(size))),
    ...(first.counts ? { counts: join((p) => p.counts as Float64Array, new Float64Array(size)) } : {}),
    ...(first.nulls
      ? { nulls: first.measures.map((_, j) => join((p) => p.nulls?.[j] as Float64Array, new Float64Array(size))) }
      : {}),
  };
}

/** The rows of `cube` in the order given by `order` (row indices), as a new cube. */
export function permute(cube: UnitCube, order: ArrayLike<number>): UnitCube {
  const pick = <A extends NumberColumn>(a: A) => gather(a, order);
  return {
    grain: cube.grain,
    dicts: cube.dicts,
    measures: cube.measures,
    size: order.length,
    keys: cube.keys.map(pick),
    sums: cube.sums.map(pick),
    ...(cube.counts ? { counts: pick(cube.counts) } : {}),
    ...(cube.nulls ? { nulls: cube.nulls.map(pick) } : {}),
  };
}

type NumberColumn = Float64Array | Int32Array | Uint32Array | Int8Array;

/**
 * The values of `from` at the positions `order`, in a new array of its type. A loop: a typed array's from() with a
 * map function goes through the iterator protocol and runs about 13 times slower (measured on a million rows).
 */
export function gather<A extends NumberColumn>(from: A, order: ArrayLike<number>): A {
  const out = new (from.constructor as new (length: number) => A)(order.length);
  for (let i = 0; i < order.length; i++) out[i] = from[order[i] as number] as number;
  return out;
}

/** The dimensions of a grain in the order the canonical order compares them: the video first, then the rest. */
const canonicalDims = (grain: readonly string[]): number[] => {
  const v = grain.indexOf('video');
  return v < 0 ? grain.map((_, i) => i) : [v, ...grain.map((_, i) => i).filter((i) => i !== v)];
};

/**
 * Each row's place in the canonical order as one number (the video's bucket, then each dimension's rank, mixed
 * radix), when the dictionaries are small enough for that to be exact (nearly always); else undefined. Rows compare
 * as their numbers compare. `radix` fixes the dictionary sizes, so numbers of several cubes compare alike.
 */
export function canonicalKeys(
  cube: UnitCube,
  radix = canonicalRadix(cube.grain, cube.dicts),
): Float64Array | undefined {
  if (!radix) return undefined;
  const dims = canonicalDims(cube.grain);
  const v = cube.grain.indexOf('video');
  const buckets = v < 0 ? undefined : cube.dicts.of('video').buckets();
  const ranks = dims.map((d) => cube.dicts.of(cube.grain[d] as string).ranks());
  const out = new Float64Array(cube.size);
  for (let i = 0; i < cube.size; i++) {
    let key = buckets ? (buckets[(cube.keys[v] as Int32Array)[i] as number] as number) + 1 : 0;
    for (let c = 0; c < dims.length; c++) {
      key =
        key * (radix[c] as number) +
        ((ranks[c] as Int32Array)[(cube.keys[dims[c] as number] as Int32Array)[i] as number] as number);
    }
    out[i] = key;
  }
  return out;
}

/** The radix canonicalKeys uses for a grain now, or undefined when the keys would not be exact. */
export function canonicalRadix(grain: readonly string[], dicts: Dicts): number[] | undefined {
  const radix = canonicalDims(grain).map((d) => Math.max(1, dicts.of(grain[d] as string).size));
  const span = radix.reduce((a, b) => a * b, grain.includes('video') ? 257 : 1);
  return span < 2 ** 52 ? radix : undefined;
}

/**
 * The canonical row order of a grain, as a comparator of rows: grains with `video` by (video bucket, video, the
 * other dimensions in grain order), so each bucket's rows and each video's rows are together (ingest works bucket
 * by bucket); others by the dimensions in grain order. Values compare in code-unit order, so the order is the same
 * on every machine and in every load.
 */
export function canonicalOrder(cube: UnitCube): (a: number, b: number) => number {
  const keys = canonicalKeys(cube);
  if (keys) return (a, b) => (keys[a] as number) - (keys[b] as number);
  const compare = rowComparator(cube.grain, cube.dicts);
  return (a, b) => compare(cube, a, cube, b);
}

/**
 * The stable order of rows made of runs each already in order of `keys` (run r ends at `ends[r]`), or undefined when
 * a run is out of order. The runs are merged pairwise (a month's days: log2(31) passes), where a sort with a
 * comparator took most of a compaction's merge of the root.
 */
export function orderOfSortedRuns(keys: Float64Array, ends: readonly number[]): Int32Array | undefined {
  let start = 0;
  for (const end of ends) {
    for (let i = start + 1; i < end; i++) if ((keys[i - 1] as number) > (keys[i] as number)) return undefined;
    start = end;
  }
  let order = new Int32Array(keys.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  let other = new Int32Array(keys.length);
  let bounds = [0, ...ends];
  while (bounds.length > 2) {
    const next = [0];
    for (let r = 0; r + 1 < bounds.length; r += 2) {
      const lo = bounds[r] as number;
      const mid = bounds[r + 1] as number;
      const hi = r + 2 < bounds.length ? (bounds[r + 2] as number) : mid;
      let i = lo;
      let j = mid;
      let k = lo;
      // Ties go to the left run: its rows come first in the input, as a stable sort keeps them.
      while (i < mid && j < hi) {
        other[k++] =
          (keys[order[j] as number] as number) < (keys[order[i] as number] as number)
            ? (order[j++] as number)
            : (order[i++] as number);
      }
      while (i < mid) other[k++] = order[i++] as number;
      while (j < hi) other[k++] = order[j++] as number;
      next.push(hi);
    }
    [order, other] = [other, order];
    bounds = next;
  }
  return order;
}

/** The cube's rows in canonical order; rows already in order are returned as they are. */
export function sortCanonical(cube: UnitCube): UnitCube {
  const compare = canonicalOrder(cube);
  let sorted = true;
  for (let i = 1; i < cube.size && sorted; i++) sorted = compare(i - 1, i) < 0;
  if (sorted) return cube;
  return permute(cube, canonicalRowOrder(cube, compare));
}

/** The cube's row numbers in canonical order (rows that compare equal keep theirs: the sort is stable). */
export function canonicalRowOrder(cube: UnitCube, compare = canonicalOrder(cube)): number[] {
  return Array.from({ length: cube.size }, (_, i) => i).sort(compare);
}

/**
 * A map from row keys (the codes of some columns) to row numbers. Keys are packed into one number when the
 * dictionaries are small enough for that (nearly always), else joined as text.
 */
export class RowIndex {
  private readonly radix: number[];
  private readonly numeric: boolean;
  private readonly byNumber = new Map<number, number>();
  private readonly byText = new Map<string, number>();

  constructor(sizes: readonly number[]) {
    this.radix = sizes.map((s) => Math.max(1, s));
    this.numeric = this.radix.reduce((a, b) => a * b, 1) < 2 ** 52;
  }

  /** The row of the key at row `i` of `columns`; `make` gives a new row's number when it has none. */
  get(columns: readonly Int32Array[], i: number, make: () => number): number {
    if (this.numeric) {
      let id = 0;
      for (let c = 0; c < columns.length; c++)
        id = id * (this.radix[c] as number) + ((columns[c] as Int32Array)[i] as number);
      let row = this.byNumber.get(id);
      if (row === undefined) {
        row = make();
        this.byNumber.set(id, row);
      }
      return row;
    }
    let id = '';
    for (let c = 0; c < columns.length; c++) id += `${(columns[c] as Int32Array)[i]},`;
    let row = this.byText.get(id);
    if (row === undefined) {
      row = make();
      this.byText.set(id, row);
    }
    return row;
  }
}

/** Adds row `i` of `sums` into row `row` of `into` (measure m from source column from[m]; NaN is "no value"). */
function addSums(
  into: readonly Float64Array[],
  row: number,
  sums: readonly Float64Array[],
  i: number,
  from: readonly number[],
): void {
  for (let m = 0; m < from.length; m++) {
    const j = from[m] as number;
    if (j < 0) continue;
    const u = (sums[j] as Float64Array)[i] as number;
    if (Number.isNaN(u)) continue;
    const column = into[m] as Float64Array;
    const t = column[row] as number;
    column[row] = Number.isNaN(t) ? u : t + u;
  }
}

/**
 * Sums rows by `grain` as they come (cubes holding every dimension of `grain`, on the same dictionaries); `result`
 * gives them in canonical order. Sums are exact integers, so the order rows come in does not matter. One accumulator
 * serves a whole day's groups (month-pipeline.ts), where a rollup of each group and folds of the rollups sorted the
 * same rows again and again.
 */
export class UnitAccumulator {
  private readonly out: UnitCubeBuilder;
  private index: RowIndex;
  /** The dictionary sizes the index packs keys with; a dictionary that grew means a new index. */
  private sizes: number[];

  constructor(
    readonly grain: readonly string[],
    dicts: Dicts,
    readonly measures: readonly number[],
    capacity = 16,
  ) {
    this.out = new UnitCubeBuilder(grain, dicts, measures, { capacity });
    this.sizes = this.dictSizes();
    this.index = new RowIndex(this.sizes);
  }

  private dictSizes(): number[] {
    return this.grain.map((d) => this.out.dicts.of(d).size);
  }

  add(source: UnitCube): void {
    const { grain, measures, out } = this;
    const sizes = this.dictSizes();
    if (sizes.some((n, d) => n !== this.sizes[d])) {
      // Rows already summed keep their numbers: the new index maps their keys to them.
      this.sizes = sizes;
      this.index = new RowIndex(sizes);
      for (let i = 0; i < out.size; i++) this.index.get(out.keys, i, () => i);
    }
    const at = grain.map((d) => source.grain.indexOf(d));
    if (at.some((i) => i < 0)) throw new Error(`a cube of ${source.grain.join(',')} cannot give ${grain.join(',')}`);
    const columns = at.map((i) => source.keys[i] as Int32Array);
    const from = measures.map((m) => source.measures.indexOf(m));
    const codes = new Int32Array(grain.length);
    for (let i = 0; i < source.size; i++) {
      const row = this.index.get(columns, i, () => {
        for (let c = 0; c < columns.length; c++) codes[c] = (columns[c] as Int32Array)[i] as number;
        return out.addCodes(codes);
      });
      addSums(out.sums, row, source.sums, i, from);
    }
  }

  result(): UnitCube {
    return sortCanonical(this.out.build());
  }
}

/**
 * Sums the rows of `sources` (all holding every dimension of `grain`, on the same dictionaries) by `grain`; rows in
 * canonical order.
 */
export function rollupUnits(
  sources: readonly UnitCube[],
  grain: readonly string[],
  measures: readonly number[],
): UnitCube {
  // Never more rows than the sources have: most rollups in ingest are of a bucket's or a day's few rows.
  let rows = 0;
  for (const source of sources) rows += source.size;
  const sum = new UnitAccumulator(grain, (sources[0] as UnitCube).dicts, measures, Math.min(rows, 256));
  for (const source of sources) sum.add(source);
  return sum.result();
}

/** Compares row `i` of `a` with row `j` of `b` (cubes of one grain and dictionaries) in canonical order. */
export function rowComparator(
  grain: readonly string[],
  dicts: Dicts,
): (a: UnitCube, i: number, b: UnitCube, j: number) => number {
  const v = grain.indexOf('video');
  const order = v < 0 ? grain.map((_, d) => d) : [v, ...grain.map((_, d) => d).filter((d) => d !== v)];
  const ranks = order.map((d) => dicts.of(grain[d] as string).ranks());
  const buckets = v < 0 ? undefined : dicts.of('video').buckets();
  return (a, i, b, j) => {
    if (buckets) {
      const x = buckets[(a.keys[v] as Int32Array)[i] as number] as number;
      const y = buckets[(b.keys[v] as Int32Array)[j] as number] as number;
      if (x !== y) return x - y;
    }
    for (let c = 0; c < order.length; c++) {
      const d = order[c] as number;
      const rank = ranks[c] as Int32Array;
      const x = rank[(a.keys[d] as Int32Array)[i] as number] as number;
      const y = rank[(b.keys[d] as Int32Array)[j] as number] as number;
      if (x !== y) return x - y;
    }
    return 0;
  };
}

/**
 * Whether rows of `source` in canonical order come grouped by `grain` (each key's rows together, keys in `grain`'s
 * canonical order): true when `grain` has the video and its other dimensions come first, in order, among the
 * source's other dimensions. Then a rollup is a pass over runs, with no map and no sort.
 */
export function runsOf(source: readonly string[], grain: readonly string[]): boolean {
  if (!grain.includes('video') || !source.includes('video')) return false;
  const rest = source.filter((d) => d !== 'video');
  const want = grain.filter((d) => d !== 'video');
  return want.every((d, i) => rest[i] === d);
}

/** rollupUnits of one cube in canonical order, by runs when runsOf allows (the same result, faster). */
export function rollupSorted(source: UnitCube, grain: readonly string[], measures: readonly number[]): UnitCube {
  if (!runsOf(source.grain, grain)) return rollupUnits([source], grain, measures);
  const at = grain.map((d) => source.grain.indexOf(d));
  const columns = at.map((i) => source.keys[i] as Int32Array);
  const from = measures.map((m) => source.measures.indexOf(m));
  const out = new UnitCubeBuilder(grain, source.dicts, measures, { capacity: Math.max(16, source.size >> 2) });
  const codes = new Int32Array(grain.length);
  let row = -1;
  for (let i = 0; i < source.size; i++) {
    let same = row >= 0;
    for (let c = 0; c < columns.length && same; c++)
      same = (columns[c] as Int32Array)[i] === (columns[c] as Int32Array)[i - 1];
    if (!same) {
      for (let c = 0; c < columns.length; c++) codes[c] = (columns[c] as Int32Array)[i] as number;
      row = out.addCodes(codes);
    }
    addSums(out.sums, row, source.sums, i, from);
  }
  return out.build();
}
