/**
 * reports.query, top to bottom. Data flows one way:
 *
 * 1. parse (report-request.ts) and check against the catalog (report-query.ts: prepareReport): pure, every 4xx a
 *    request earns on its own;
 * 2. plan (report-plan.ts: planReport): pure, from the request and what is known so far to the next reads (directory
 *    and facts together, facts planned on explicit assumptions) or to the cube query to answer;
 * 3. read (report-read.ts: readRound): one round, batched (keys of one turn in one BatchGetItem, Queries concurrent);
 * 4. answer (engine.ts: answerFacts): pure, from the cube query and the facts read to the result table.
 *
 * Plan and read alternate until the plan can answer. Usually that is one round: a content-owner report reads the
 * grant, the links and the facts (assuming no link date inside the range) at once; a channel report the caller's
 * profile and the facts of the channel asked for. More rounds happen only when a read decides what the next one is:
 * a guess proven wrong (a link date inside the range, channel==MINE no longer the remembered channel) reads the
 * right facts once; a grant written only on the user's side needs the caller's profile; channel==MINE without a
 * remembered channel needs the profile before the facts; a `group==` filter reads the group, then its items, then the
 * facts. Each round learns something not known before (each directory part is read once; facts are re-read only
 * when their plan changed, and it changes only when a part of the directory is learned), so it is bounded.
 */
import type { ScopeName } from '../../scopes';
import { addStats, type ReadStats } from '../storage/fact-repository';
import { answerFacts, type ResultTable } from './engine';
import { type Known, planReport } from './report-plan';
import { prepareReport } from './report-query';
import { type ReportDeps, readRound } from './report-read';
import type { ReportRequest } from './report-request';

export type { ReportDeps } from './report-read';

/** What an answer read, and which report families (types) answered it: the handler publishes both. */
export interface ReportStats extends ReadStats {
  families?: readonly string[];
}

export interface ReportCaller {
  readonly sub: string;
  readonly scopes: ReadonlySet<ScopeName>;
}

/** Rounds of reads a request can need at most: profile, grant, group, its items, facts and a guess's re-read. */
const MAX_ROUNDS = 6;

export async function queryReport(
  deps: ReportDeps,
  caller: ReportCaller,
  req: ReportRequest,
  stats: ReportStats,
): Promise<ResultTable> {
  const query = prepareReport(req, caller.scopes);
  stats.families = query.sources.map((s) => s.family.type);
  const mine = req.ids.type === 'channel' && req.ids.id === 'MINE';
  const remembered = mine ? lastMine.get(caller.sub) : undefined;
  let known: Known = remembered === undefined ? {} : { lastMine: remembered };
  for (let round = 0; ; round++) {
    const plan = planReport(query, caller.sub, known);
    if (plan.step === 'answer') {
      if (mine) rememberMine(caller.sub, plan.query.owner);
      addStats(stats, plan.facts.stats);
      return answerFacts(plan.query, plan.facts.result.reads);
    }
    if (round === MAX_ROUNDS || plan.reads.length === 0) {
      throw new Error(`reports.query: no answer after ${round} rounds of reads (a planner bug)`);
    }
    known = { ...known, ...(await readRound(deps, plan.reads)) };
  }
}

/** channel==MINE per caller, as last resolved in this container (a hint only: the directory always decides). */
const lastMine = new Map<string, string>();
const MAX_REMEMBERED = 10_000;

function rememberMine(sub: string, channel: string): void {
  if (lastMine.size >= MAX_REMEMBERED && !lastMine.has(sub)) lastMine.clear();
  lastMine.set(sub, channel);
}
