/**
 * Issue 13 §1: the memory an ingest needs is bounded by the day's cubes, not by the file's size. A child process with
 * the Node heap limited to 128 MB generates a daily file of at least 300 MB as a stream and loads it through the
 * cloud ingest handler (test/support/big-day-ingest.ts); then reports.query, in this process, must answer the sums
 * the generator wrote. A reader that holds the file (or its rows) whole dies of heap exhaustion instead.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import { loadDirectory } from '../../functions/core/directory/directory-loader';
import { dynamoDirectoryRepository } from '../../functions/core/directory/directory-repository';
import { dynamoGroupRepository } from '../../functions/core/groups/group-repository';
import { parseReportRequest } from '../../functions/core/reports/query/report-request';
import { queryReport } from '../../functions/core/reports/query/report-service';
import { dynamoFactRepository, newReadStats } from '../../functions/core/reports/storage/fact-repository';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { useOwnTable } from '../support/own-table';

const endpoint = process.env.DYNAMODB_ENDPOINT as string;
useOwnTable('ingest-large-file');
const tableName = process.env.TABLE_NAME as string;
const TARGET_MB = 300;
const HEAP_MB = 128;

describe('a large daily file', () => {
  it(`streams ${TARGET_MB} MB through the cloud ingest with a ${HEAP_MB} MB heap, and answers its sums`, async () => {
    const channel = 'UCbigday';
    const day = '2026-05-05';
    const run = spawnSync(
      process.execPath,
      [
        `--max-old-space-size=${HEAP_MB}`,
        '--import',
        'tsx',
        path.join(import.meta.dirname, '../support/big-day-ingest.ts'),
      ],
      {
        env: {
          ...process.env,
          DYNAMODB_ENDPOINT: endpoint,
          TABLE_NAME: tableName,
          CHANNEL: channel,
          DAY: day,
          TARGET_MB: String(TARGET_MB),
          POWERTOOLS_LOG_LEVEL: 'WARN',
          POWERTOOLS_METRICS_DISABLED: 'true',
        },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        timeout: 600_000,
      },
    );
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const line = run.stdout.split('\n').find((l) => l.startsWith('{"generated"'));
    expect(line, run.stdout.slice(-2000)).toBeDefined();
    const out = JSON.parse(line as string);
    console.log(
      `${(out.generated.bytes / 2 ** 20).toFixed(0)} MB, ${out.generated.rows} rows in ${out.seconds.toFixed(1)} s; ` +
        `heap peak ${out.heapPeakMb.toFixed(0)} MB, array buffers peak ${out.arrayBuffersPeakMb.toFixed(0)} MB, RSS peak ${out.rssPeakMb.toFixed(0)} MB`,
    );
    expect(out.generated.bytes).toBeGreaterThanOrEqual(TARGET_MB * 2 ** 20);
    expect(out.reply).toEqual({ batchItemFailures: [] });
    expect(out.summary).toMatchObject({ loaded: 1, rows: out.generated.rows, rejected: [], failed: [] });
    expect(out.heapPeakMb).toBeLessThan(HEAP_MB);

    const db = createDocumentClient(endpoint);
    try {
      const table = { db, tableName };
      await loadDirectory(table, {
        users: [{ sub: 'big-owner', channels: [channel] }],
        channels: [{ id: channel, title: 'Big day' }],
      });
      const deps = {
        directory: dynamoDirectoryRepository(table),
        groups: dynamoGroupRepository(table),
        facts: dynamoFactRepository(table),
        rates: dynamoRateRepository(table),
      };
      const answer = await queryReport(
        deps,
        { sub: 'big-owner', scopes: new Set(['video-analytics.readonly']) },
        parseReportRequest({ ids: `channel==${channel}`, startDate: day, endDate: day, metrics: 'views,likes' }),
        newReadStats(),
      );
      expect(answer.rows).toEqual([[out.generated.views, out.generated.likes]]);
    } finally {
      db.destroy();
    }
  }, 900_000);
});
