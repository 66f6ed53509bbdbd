/**
 * What recording the resources of a 1,000-video day costs (core/directory/resource-sink.ts): one generated
 * channel_basic day naming every video of a 1,000-video channel, recorded three ways:
 * - first: every video is new (read the entries, then transactions of 99 writes);
 * - repeat: the same day again, or another report of the same day (read only);
 * - linked: the channel's link changed since (every entry gains an owner).
 * For each: wall time on DynamoDB Local (median of the plain runs), the calls made, and the request units DynamoDB
 * would bill, counted in one more run through the counting client of reports-capacity.ts (Local's capacity numbers
 * are wrong): items sized by DynamoDB's rules, a Query page billed by its items' bytes together, a BatchGetItem item
 * and a write each by its own, a transaction's twice.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../functions/core/db/keys';
import { dynamoResourceSink, type ResourceSinkStats } from '../functions/core/directory/resource-sink';
import { localFile } from '../functions/core/reports/ingest/ingest-file';
import type { SeenResources } from '../functions/core/reports/ingest/ingest-service';
import { dynamoIngestStores, ingestFiles } from '../functions/core/reports/ingest/ingest-service';
import { writeAllExports } from '../infra/generator/export-world';
import { type Capacity, countingClient } from './reports-capacity';
import type { BenchEnvironment } from './run';

/** On-demand prices (us-east-1): USD per million write and read request units. */
const USD_PER_MILLION = { wru: 0.625, rru: 0.125 };

interface Row {
  readonly scenario: string;
  readonly ms: number;
  readonly stats: ResourceSinkStats;
  /** What the scenario would be billed (the counted run only; its time is not among the medians). */
  readonly billed?: { rru: number; wru: number };
}

/** Plain runs (timed), then one counted run. */
const RUNS = 5;

export async function benchDirectoryResources(
  env: BenchEnvironment,
  options: { log: (line: string) => void },
): Promise<{ text: string; pass: boolean }> {
  const work = mkdtempSync(path.join(tmpdir(), 'bench-resources-'));
  try {
    const rows: Row[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const counted = run === RUNS ? countingClient(env.table.db) : undefined;
      const table = counted ? { ...env.table, db: counted.db } : env.table;
      const channel = `UCbenchres${run}x${Date.now().toString(36)}`;
      const dir = path.join(work, String(run));
      await writeAllExports(
        {
          channel,
          videos: 1000,
          days: 1,
          start: '2026-10-01',
          seed: 3,
          videoPrefix: `${channel}-v`,
          videoWidth: 4,
          version: 'a3',
          gzip: false,
        },
        dir,
      );
      // The day's resources as ingest reports them (parsing and facts are not part of this cost).
      let seen: readonly SeenResources[] = [];
      const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.csv'))
        .map((f) => localFile(path.join(dir, f)));
      const capture = {
        record: async (named: readonly SeenResources[]) => {
          seen = named;
        },
      };
      await ingestFiles(dynamoIngestStores(env.table), files, { resources: capture });
      const record = async (scenario: string) => {
        let stats: ResourceSinkStats | undefined;
        const before: Capacity | undefined = counted ? { ...counted.capacity } : undefined;
        const started = performance.now();
        await dynamoResourceSink(table, { onStats: (s) => (stats = s) }).record(seen);
        const ms = performance.now() - started;
        const after = counted?.capacity;
        rows.push({
          scenario,
          ms,
          stats: stats as ResourceSinkStats,
          ...(before && after ? { billed: { rru: after.rru - before.rru, wru: after.wru - before.wru } } : {}),
        });
      };
      await record('first (every video new)');
      await record('repeat (nothing new)');
      await env.table.db.send(
        new PutCommand({
          TableName: env.table.tableName,
          Item: {
            ...keys.directoryEntry('CHANNEL', channel),
            entity: 'DirectoryCHANNEL',
            id: channel,
            contentOwnerId: 'bench-co',
          },
        }),
      );
      await record('linked since (every entry gains an owner)');
    }
    options.log(`recorded ${rows.length} times`);
    return { text: format(rows), pass: true };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function format(rows: readonly Row[]): string {
  const byScenario = new Map<string, Row[]>();
  for (const r of rows) byScenario.set(r.scenario, [...(byScenario.get(r.scenario) ?? []), r]);
  const header = [
    'scenario',
    'resources',
    'median ms',
    'BatchGetItem',
    'index Query',
    'TransactWriteItems',
    'writes',
    'RRU',
    'WRU',
    'USD',
  ];
  const body = [...byScenario].map(([scenario, list]) => {
    const timed = list.filter((r) => !r.billed).map((r) => r.ms);
    const ms = timed.sort((a, b) => a - b)[Math.floor(timed.length / 2)] as number;
    const s = (list[0] as Row).stats;
    const { rru, wru } = list.find((r) => r.billed)?.billed ?? { rru: Number.NaN, wru: Number.NaN };
    const usd = (rru * USD_PER_MILLION.rru + wru * USD_PER_MILLION.wru) / 1e6;
    return [
      scenario,
      String(s.resources),
      ms.toFixed(0),
      String(s.batchGets),
      String(s.indexQueries),
      String(s.transactions),
      String(s.written),
      rru.toFixed(0),
      wru.toFixed(0),
      usd.toFixed(6),
    ];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => (row[c] as string).length)));
  const line = (cells: string[]) => cells.map((cell, c) => cell.padEnd(widths[c] as number)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}
