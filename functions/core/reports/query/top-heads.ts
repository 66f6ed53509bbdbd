/**
 * Top videos from ranked heads (storage/heads.ts): a top-N sorted by a headed measure reads each piece of its range
 * (blocks, days, a region's months) as its head when it has one, and decides which N videos win from what the heads
 * know, Fagin's threshold algorithm: a video's total is at least the sum of its rows in the heads it is in (and in the
 * pieces read whole), and at most that plus the threshold of every head it is not in; a video in no head has at most
 * the sum of the thresholds. The N best least totals decide when each is greater than every other video's greatest
 * possible total: then no other video can rank before them, whatever the ties. The winners' rows must then be known in
 * every piece; a head missing some of them reads their rows (the chunks that may hold them, by its chunk index), and
 * every head is read whole when the heads do not decide. The answer is then the query restricted to the winners, exact
 * (engine.ts answers it as any other).
 */
import { MEASURE_INDEX, METRICS, type Measure, type MetricName } from '../catalog/metrics';
import type { StoredCube } from '../storage/cube-codec';
import { HEAD_ROWS, HEADED } from '../storage/heads';
import { unitsValue } from '../storage/units';

/** A top-N a head can answer: its sort metric, the measure it sums, and how many rows it keeps. */
export interface TopPlan {
  readonly metric: MetricName;
  readonly measure: Measure;
  readonly n: number;
}

/** What a top-N query looks like, as far as heads are concerned (engine.ts CubeQuery's parts). */
export interface TopQuery {
  readonly dimensions: readonly string[];
  readonly metrics: readonly MetricName[];
  readonly sort: readonly { readonly name: string; readonly descending: boolean }[];
  readonly startIndex: number;
  readonly maxResults?: number;
  /** Whether anything but the video's own rows decides the answer: a filter, a currency, a link date. */
  readonly restricted: boolean;
}

/**
 * The top-N plan of a query heads can answer, or undefined: videos only, sorted first by a metric that is one headed
 * measure's sum (rounded or not: either only grows with the sum) descending, a page within HEAD_ROWS rows, nothing
 * restricting which rows count, and no metric that is a share of the whole answer.
 */
export function topOf(q: TopQuery): TopPlan | undefined {
  if (q.dimensions.length !== 1 || q.dimensions[0] !== 'video' || q.restricted || q.maxResults === undefined) return;
  const first = q.sort[0];
  if (!first?.descending) return;
  const metric = first.name as MetricName;
  const def = METRICS[metric];
  const measure = def?.uses.length === 1 ? (def.uses[0] as Measure) : undefined;
  if (!measure || !HEADED.includes(measure)) return;
  if (q.metrics.some((m) => 'normalized' in METRICS[m])) return;
  const n = q.startIndex - 1 + q.maxResults;
  return n <= HEAD_ROWS ? { metric, measure, n } : undefined;
}

/**
 * A piece of the range as read: whole (every video's row), or a head with the thresholds of its measures, and with
 * `exact` the videos whose rows were read since (in `head` too): each is known there, as a head row is.
 */
export type TopPiece =
  | { readonly cube: StoredCube }
  | {
      readonly head: StoredCube;
      readonly thresholds: Readonly<Record<string, number>>;
      readonly exact?: ReadonlySet<string>;
    };

export type TopDecision =
  /** The winners, each known in every piece; undefined when every piece is whole (the answer needs no help). */
  | { readonly winners: ReadonlySet<string> | undefined }
  /** Pieces (indices) to read whole before deciding again: the heads do not decide. */
  | { readonly readWhole: readonly number[] }
  /** The winners are decided; these heads miss some of them: read their rows there, and decide again. */
  | { readonly readRows: readonly { readonly piece: number; readonly videos: readonly string[] }[] };

/** Within this relative margin two bounds count as equal (sums of decimals in floating point). */
const MARGIN = 1e-9;

/** Decides the top `plan.n` videos from `pieces`, or names the heads to read whole first. */
export function decideTop(plan: TopPlan, pieces: readonly TopPiece[]): TopDecision {
  const measure = MEASURE_INDEX[plan.measure];
  const compute = METRICS[plan.metric].compute;
  const value = (sum: number) => compute((m) => (m === plan.measure ? sum : null)) ?? Number.NEGATIVE_INFINITY;
  const heads: number[] = [];
  let unseen = 0; // the sum of the heads' thresholds: the most a video in no head can total
  const videos = new Map<string, { least: number; inHeads: number; seen: Set<number> }>();
  /** A video known in piece `p` (a head of `threshold`: its bound there is what it has, no longer the threshold). */
  const see = (video: string, p: number, threshold: number) => {
    let known = videos.get(video);
    if (!known) {
      known = { least: 0, inHeads: 0, seen: new Set() };
      videos.set(video, known);
    }
    if (!known.seen.has(p)) {
      known.seen.add(p);
      known.inHeads += threshold;
    }
    return known;
  };
  pieces.forEach((piece, p) => {
    const cube = 'cube' in piece ? piece.cube : piece.head;
    let threshold = 0;
    if ('head' in piece) {
      heads.push(p);
      threshold = unitsValue(piece.thresholds[plan.measure] ?? Number.POSITIVE_INFINITY);
      unseen += threshold;
    }
    const column = cube.keys[cube.grain.indexOf('video')];
    const sums = cube.measures[measure];
    if (!column) return;
    for (let i = 0; i < cube.size; i++) {
      const video = column.values[column.codes[i] as number] as string;
      if (video === '') continue;
      const v = sums ? (sums[i] as number) : Number.NaN;
      const known = see(video, p, threshold);
      if (!Number.isNaN(v)) known.least += v;
    }
    // A video read exactly and not there has no rows in the piece: known, as 0.
    for (const video of ('exact' in piece && piece.exact) || []) see(video, p, threshold);
  });
  if (heads.length === 0) return { winners: undefined };
  // The N best by least total (ties by video, as the answer orders them).
  const ranked = [...videos]
    .map(([video, known]) => ({ video, known, least: value(known.least) }))
    .sort((x, y) => y.least - x.least || (x.video < y.video ? -1 : x.video > y.video ? 1 : 0));
  const winners = ranked.slice(0, plan.n);
  let bestOther = value(unseen);
  for (let i = plan.n; i < ranked.length; i++) {
    const { known } = ranked[i] as (typeof ranked)[number];
    bestOther = Math.max(bestOther, value(known.least + unseen - known.inHeads));
  }
  const worstWinner = winners.length === plan.n ? (winners[plan.n - 1] as (typeof ranked)[number]).least : -Infinity;
  if (!(worstWinner > bestOther + MARGIN * Math.max(1, Math.abs(bestOther)))) return { readWhole: heads };
  // Every winner's rows known in every head: a head missing some reads theirs (the winners stay: their least totals
  // only grow, every other video's bounds stay).
  const readRows = heads
    .map((piece) => ({ piece, videos: winners.filter((w) => !w.known.seen.has(piece)).map((w) => w.video) }))
    .filter((r) => r.videos.length > 0);
  return readRows.length > 0 ? { readRows } : { winners: new Set(winners.map((w) => w.video)) };
}
