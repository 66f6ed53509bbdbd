/**
 * reports.query, stage 3: one round of reads. Every read of a plan starts in the same turn of the event loop, so the
 * reads by key (the content owner's grant and CHANNELS list, the blocks of the facts) go out as one BatchGetItem
 * (core/db/key-reader.ts) and the Query ranges run concurrently. Returns what the round learned, as plain data.
 */
import type { ChannelLinks, DirectoryRepository } from '../../directory/directory';
import type { GroupReader } from '../../groups/group-reader';
import { type FactRepository, newReadStats } from '../storage/fact-repository';
import type { RateRepository } from '../storage/rate-repository';
import { readFacts } from './engine';
import type { Known, PlannedRead } from './report-plan';

export interface ReportDeps {
  readonly directory: DirectoryRepository & ChannelLinks;
  readonly groups: GroupReader;
  readonly facts: FactRepository;
  readonly rates: RateRepository;
}

export async function readRound(deps: ReportDeps, reads: readonly PlannedRead[]): Promise<Known> {
  const learned = await Promise.all(reads.map((r) => readOne(deps, r)));
  return Object.assign({}, ...learned) as Known;
}

function readOne(deps: ReportDeps, r: PlannedRead): Promise<Known> {
  switch (r.read) {
    case 'contentOwnerAccess':
      return deps.directory.contentOwnerAccess(r.contentOwner, r.sub).then((access) => ({ access }));
    case 'profile':
      return deps.directory.profile(r.sub).then((profile) => ({ profile }));
    case 'group':
      return deps.groups.get(r.actor, r.groupId).then((group) => ({ group: group ?? null }));
    case 'groupItems':
      return deps.groups.listItems(r.actor, r.groupId).then((groupItems) => ({ groupItems }));
    case 'rates':
      return deps.rates.rates(r.currency, r.from, r.to).then((rates) => ({ rates: rates ?? null }));
    case 'facts': {
      // Read on a guess, the facts may be dropped: a failure is kept as data, thrown only if the plan uses them.
      const stats = newReadStats();
      return readFacts(deps.facts, r.plan, stats).then(
        (reads) => ({ facts: { plan: r.plan, assumed: r.assumed, result: { reads }, stats } }),
        (error: unknown) => ({ facts: { plan: r.plan, assumed: r.assumed, result: { error }, stats } }),
      );
    }
  }
}
