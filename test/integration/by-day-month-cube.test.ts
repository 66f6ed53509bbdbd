/**
 * writeByDayMonth (ingest/by-day-month-cube.ts) on DynamoDB Local, below the pipeline: a by-day month written whole
 * is one cube; a load of some of its days rewrites the cube; a cube grown past its item goes back to a blob a day,
 * its item rewritten whole; and the repository reads each form as the same rows.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/core/db/document-client';
import * as keys from '../../functions/core/db/keys';
import { MEASURE_INDEX } from '../../functions/core/reports/catalog/metrics';
import { type DayPiece, ITEM_BYTES } from '../../functions/core/reports/ingest/by-day-items';
import { MONTH_CUBE_BYTES, writeByDayMonth } from '../../functions/core/reports/ingest/by-day-month-cube';
import { layoutOf, VARIANTS } from '../../functions/core/reports/storage/cube';
import { isCubeItem, rowsOf } from '../../functions/core/reports/storage/cube-codec';
import { dynamoFactRepository, newReadStats } from '../../functions/core/reports/storage/fact-repository';
import { dynamoFactWriter, type Packing } from '../../functions/core/reports/storage/fact-writer';
import { DAY_BLOB_DEFLATE_FROM, encodeBlob, encodeToFit } from '../../functions/core/reports/storage/unit-codec';
import { Dicts, type UnitCube, UnitCubeBuilder, unitsOf } from '../../functions/core/reports/storage/units';
import { useOwnTable } from '../support/own-table';

useOwnTable('by-day-month-cube');

const db = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
let table: { db: typeof db; tableName: string };
beforeAll(() => {
  table = { db, tableName: process.env.TABLE_NAME as string };
});
afterAll(() => db.destroy());

const gd = VARIANTS.find((v) => v.name === 'gd') as (typeof VARIANTS)[number];
const dayGrain = gd.grain.filter((d) => d !== 'day');
const measures = [MEASURE_INDEX.views, MEASURE_INDEX.watchMinutes];
const month = '2026-04';
const noGuard = () => undefined;

/**
 * A day's gd cube: `rows` rows, views 1000·day + i, countries `c<day>-<i>`, or with `noise` characters of a hash
 * after them (values that deflate poorly, to make cubes larger than an item).
 */
function dayCube(dicts: Dicts, dd: string, rows: number, noise = 0): UnitCube {
  const b = new UnitCubeBuilder(dayGrain, dicts, measures);
  for (let i = 0; i < rows; i++) {
    const hash = noise > 0 ? createHash('sha256').update(`${dd}-${i}`).digest('base64').slice(0, noise) : '';
    const country = `c${dd}-${i}${hash}`;
    const row = b.add([country, 'SUBSCRIBED', 'ON_DEMAND', 'UNSPECIFIED', 'CORE']);
    b.addUnits(row, 0, unitsOf(1000 * Number(dd) + i));
    b.addUnits(row, 1, unitsOf(i / 4));
  }
  return b.build();
}

const pieces = (cube: UnitCube): DayPiece[] =>
  cube.size === 0
    ? []
    : encodeToFit(
        cube,
        (c) => encodeBlob(c, DAY_BLOB_DEFLATE_FROM),
        (x) => x.length,
        ITEM_BYTES / 2,
      ).map((p) => ({
        day: p.encoded,
      }));

/** Writes days (dd → cube) of April for `channel`, as the pipeline does, and returns the new packing. */
function write(
  channel: string,
  days: Map<string, UnitCube>,
  whole: boolean,
  old: Packing | undefined,
  dicts: Dicts,
  complete = false,
) {
  const pk = keys.factPartition('CB', channel, 'gd');
  const header = JSON.stringify({ g: gd.grain, l: layoutOf(gd) });
  const byDay = { key: 'gd', pk, header, days: new Map([...days].map(([dd, c]) => [dd, pieces(c)])) };
  const m = { write: byDay, grain: gd.grain, dicts, measures, dayCubes: days, whole, complete };
  return writeByDayMonth(dynamoFactWriter(table), month, m, old, noGuard);
}

/** April's rows as the repository reads them: `day|country` → views. */
async function readViews(channel: string): Promise<Map<string, number>> {
  const repo = dynamoFactRepository(table);
  const read = await repo.read({ family: 'CB', channel, variant: 'gd' }, `M#${month}`, `M#${month}`, newReadStats(), {
    dims: ['day', 'country'],
    measures: ['views'],
  });
  const out = new Map<string, number>();
  for (const { cube } of read)
    for (const row of rowsOf(cube)) out.set(row.key.join('|'), row.sums[MEASURE_INDEX.views] as number);
  return out;
}

const expected = (days: Map<string, UnitCube>) => {
  const out = new Map<string, number>();
  for (const [dd, cube] of days)
    for (let i = 0; i < cube.size; i++)
      out.set(`${month}-${dd}|${cube.dicts.of('country').values[cube.keys[0]?.[i] as number]}`, 1000 * Number(dd) + i);
  return out;
};

const items = async (channel: string) =>
  (await dynamoFactWriter(table).readByDayItems(keys.factPartition('CB', channel, 'gd'), month)).map((item) => ({
    sk: String(item.sk),
    cube: isCubeItem(item),
    days: Object.keys(item).filter((k) => /^s\d\d$/.test(k)).length,
  }));

describe('a by-day month as one cube (writeByDayMonth)', () => {
  it('written whole: one cube; some days rewritten, one emptied: still one cube, those days replaced', async () => {
    const channel = `UCmc${Date.now().toString(36)}a`;
    const dicts = new Dicts();
    const days = new Map(['01', '02', '03', '30'].map((dd) => [dd, dayCube(dicts, dd, 20)]));
    const packing = await write(channel, days, true, undefined, dicts);
    expect(packing.cube).toBeGreaterThan(0);
    expect(await items(channel)).toEqual([{ sk: `M#${month}`, cube: true, days: 0 }]);
    expect(await readViews(channel)).toEqual(expected(days));

    const changed = new Map([
      ['02', dayCube(dicts, '02', 5)],
      ['03', dayCube(dicts, '03', 0)],
      ['15', dayCube(dicts, '15', 7)],
    ]);
    const again = await write(channel, changed, false, packing, dicts);
    expect(again.cube).toBeGreaterThan(0);
    expect(await items(channel)).toEqual([{ sk: `M#${month}`, cube: true, days: 0 }]);
    const now = new Map([...days, ...changed]);
    now.delete('03');
    expect(await readViews(channel)).toEqual(expected(now));
  });

  it('a month of blobs that a load completes becomes one cube, its other days read back', async () => {
    const channel = `UCmc${Date.now().toString(36)}d`;
    const dicts = new Dicts();
    const days = new Map(['01', '02', '03'].map((dd) => [dd, dayCube(dicts, dd, 20)]));
    let packing: Packing | undefined;
    for (const [dd, cube] of days) packing = await write(channel, new Map([[dd, cube]]), false, packing, dicts);
    expect(packing?.cube).toBeUndefined();
    expect((await items(channel)).every((i) => !i.cube && i.days === 3)).toBe(true);
    const last = new Map([['30', dayCube(dicts, '30', 9)]]);
    const done = await write(channel, last, false, packing, dicts, true);
    expect(done.cube).toBeGreaterThan(0);
    expect(await items(channel)).toEqual([{ sk: `M#${month}`, cube: true, days: 0 }]);
    expect(await readViews(channel)).toEqual(expected(new Map([...days, ...last])));
  });

  it('a load undone after a crash that had written the cube: the cube is rewritten, no blob is set beside it', async () => {
    const channel = `UCmc${Date.now().toString(36)}e`;
    const dicts = new Dicts();
    const before = new Map(['01', '02'].map((dd) => [dd, dayCube(dicts, dd, 20)]));
    let blobs: Packing | undefined;
    for (const [dd, cube] of before) blobs = await write(channel, new Map([[dd, cube]]), false, blobs, dicts);
    // The load that died: day 01 restated, day 30 new, completing the month; its cube was written, not its manifest.
    const died = new Map([
      ['01', dayCube(dicts, '01', 5)],
      ['30', dayCube(dicts, '30', 9)],
    ]);
    await write(channel, died, false, blobs, dicts, true);
    // Its undo, from the manifest before it: day 01 back, day 30 removed, decided as the load did (complete).
    const undo = new Map([
      ['01', before.get('01') as UnitCube],
      ['30', dayCube(dicts, '30', 0)],
    ]);
    const after = await write(channel, undo, false, blobs, dicts, true);
    expect(after.cube).toBeGreaterThan(0);
    expect(await items(channel)).toEqual([{ sk: `M#${month}`, cube: true, days: 0 }]);
    expect(await readViews(channel)).toEqual(expected(before));
  });

  it('a cube that outgrows its item is written as a blob a day, its item rewritten whole', async () => {
    const channel = `UCmc${Date.now().toString(36)}b`;
    const dicts = new Dicts();
    const days = new Map(['01', '02'].map((dd) => [dd, dayCube(dicts, dd, 10)]));
    const packing = await write(channel, days, true, undefined, dicts);
    expect(packing.cube).toBeGreaterThan(0);
    // Long countries that deflate poorly: day 20 alone is more than the item holds as a cube.
    const big = dayCube(dicts, '20', 16_000, 40);
    const grown = await write(channel, new Map([['20', big]]), false, packing, dicts);
    expect(grown.cube).toBeUndefined();
    const stored = await items(channel);
    expect(stored.some((i) => i.cube)).toBe(false);
    expect(stored.reduce((n, i) => n + i.days, 0)).toBeGreaterThanOrEqual(3);
    expect(await readViews(channel)).toEqual(expected(new Map([...days, ['20', big]])));
  });

  it('a whole month larger than a cube may be is written as blobs', async () => {
    const channel = `UCmc${Date.now().toString(36)}c`;
    const dicts = new Dicts();
    const days = new Map(['05', '06'].map((dd) => [dd, dayCube(dicts, dd, 4_000, 40)]));
    const packing = await write(channel, days, true, undefined, dicts);
    expect(packing.cube).toBeUndefined();
    expect(packing.items.flat().sort()).toEqual(['05', '06']);
    expect((await items(channel)).some((i) => i.cube)).toBe(false);
    expect(await readViews(channel)).toEqual(expected(days));
    expect(MONTH_CUBE_BYTES).toBeLessThan(ITEM_BYTES);
  });
});
