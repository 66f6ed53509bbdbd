/**
 * By-day month items (d, gd) hold one blob per day; releases before held a map of columns per day. A month whose
 * days are some of each (days loaded before and after an upgrade) reads as the same cube, row for row: here days of
 * freshly loaded months (loaded so that they keep a blob a day) are rewritten in the earlier form, by hand, and every
 * report-form cube read compared.
 */
import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { MEASURE_INDEX, type Measure } from '../../functions/core/reports/catalog/metrics';
import { bytesFile } from '../../functions/core/reports/ingest/ingest-file';
import { dynamoIngestStores, ingestFiles } from '../../functions/core/reports/ingest/ingest-service';
import type { GrainDim } from '../../functions/core/reports/storage/cube';
import { type CubeColumns, rowsOf, type StoredCube } from '../../functions/core/reports/storage/cube-codec';
import { dynamoFactRepository, newReadStats } from '../../functions/core/reports/storage/fact-repository';
import {
  decodeBlob,
  encodeDimCodes,
  encodeUnits,
  SEGMENT_ROWS,
  segmentDim,
  segmentMeasure,
} from '../../functions/core/reports/storage/unit-codec';
import { Dict, unitsOf } from '../../functions/core/reports/storage/units';
import { generateDays } from '../../infra/generator/export-generator';
import { useOwnTable } from '../support/own-table';

useOwnTable('by-day-legacy');

let db: DynamoDBDocumentClient;
let tableName: string;
const channel = `UClegacy${Date.now().toString(36)}`;

beforeAll(async () => {
  tableName = process.env.TABLE_NAME as string;
  db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  const files = [
    ...generateDays({
      channel,
      videos: 40,
      days: 40,
      start: '2026-06-10',
      seed: 11,
      videoPrefix: 'lv',
      videoWidth: 3,
      gzip: false,
      version: 'a3',
    }),
  ].map((day) =>
    bytesFile(
      `x/${channel}/channel_basic_a3/${day.date}.csv`,
      new TextEncoder().encode(`${[day.header.join(','), ...day.rows.map((r) => r.join(','))].join('\n')}\n`),
    ),
  );
  // Each month's first day on its own, then the rest: no load holds a whole month, so every month keeps a blob a day
  // (a whole month is stored as one cube, ingest/by-day-month-cube.ts).
  const first = (f: (typeof files)[number]) => /(0610|0701)\.csv$/.test(f.name);
  for (const part of [...files.filter(first).map((f) => [f]), files.filter((f) => !first(f))]) {
    const summary = await ingestFiles(dynamoIngestStores({ db, tableName }), part);
    expect(summary.failed).toEqual([]);
    expect(summary.rejected).toEqual([]);
  }
});
afterAll(() => db.destroy());

/** A day's blob as the map of columns earlier releases wrote: rows, each dimension, each measure stored. */
function asLegacyMap(blob: Uint8Array): Record<string, unknown> {
  const { size, dims, measures } = decodeBlob(blob);
  const map: Record<string, unknown> = { [SEGMENT_ROWS]: size };
  dims.forEach((column, i) => {
    if (!column) return;
    const dict = new Dict();
    const codes = Int32Array.from(column.codes, (c) => dict.code(column.values[c] as string));
    map[segmentDim(i)] = encodeDimCodes(codes, dict);
  });
  for (const [m, values] of measures) {
    const bytes = encodeUnits(Float64Array.from(values, (v) => (Number.isNaN(v) ? v : unitsOf(v))));
    if (bytes) map[segmentMeasure(m)] = bytes;
  }
  return map;
}

const WANTED = ['views', 'watchMinutes', 'likes'] as Measure[];

/**
 * A cube's rows summed by the dimensions asked for, with the measures asked for (a read may return more of both:
 * a day of earlier releases is read whole, so it can split a row by a dimension the report did not ask for).
 */
function byWanted(cube: StoredCube, dims: readonly string[]): string[] {
  const sums = new Map<string, number[]>();
  for (const row of rowsOf(cube)) {
    const key = JSON.stringify(dims.map((d) => row.key[cube.grain.indexOf(d as GrainDim)]));
    const into = sums.get(key) ?? WANTED.map(() => Number.NaN);
    WANTED.forEach((m, j) => {
      const v = row.sums[MEASURE_INDEX[m]] as number;
      if (!Number.isNaN(v)) into[j] = Number.isNaN(into[j] as number) ? v : (into[j] as number) + v;
    });
    sums.set(key, into);
  }
  return [...sums].map(([key, v]) => `${key} ${v.map((x) => (Number.isNaN(x) ? 'null' : x.toFixed(6)))}`).sort();
}

describe('by-day items of both forms', () => {
  it.each(['d', 'gd'])('%s: a month of blobs and earlier maps reads as the same cube', async (variant) => {
    const repo = dynamoFactRepository({ db, tableName });
    const address = { family: 'CB', channel, variant };
    const columns: CubeColumns = {
      dims: variant === 'd' ? ['day'] : ['day', 'country', 'subscribedStatus'],
      measures: WANTED,
    };
    const read = async () =>
      (await repo.read(address, 'M#2026-06', 'M#2026-07', newReadStats(), columns)).map((c) => ({
        period: c.period,
        rows: byWanted(c.cube, columns.dims),
      }));
    const before = await read();
    expect(before.map((c) => c.period)).toEqual(['M#2026-06', 'M#2026-07']);
    expect(before.every((c) => c.rows.length > 0)).toBe(true);

    // Every other day of July (and all of June) in the earlier form.
    const pk = keys.factPartition('CB', channel, variant);
    const items =
      (
        await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
          }),
        )
      ).Items ?? [];
    let rewritten = 0;
    for (const item of items) {
      for (const [name, value] of Object.entries(item)) {
        if (!/^s\d\d$/.test(name) || !(value instanceof Uint8Array)) continue;
        if (String(item.sk).startsWith('M#2026-07') && Number(name.slice(1)) % 2 === 0) continue;
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'SET #d = :m',
            ExpressionAttributeNames: { '#d': name },
            ExpressionAttributeValues: { ':m': asLegacyMap(value) },
          }),
        );
        rewritten++;
      }
    }
    expect(rewritten).toBeGreaterThan(25);
    const after = await read();
    // Rows with their sums, measure by measure.
    expect(after).toEqual(before);
  });
});
