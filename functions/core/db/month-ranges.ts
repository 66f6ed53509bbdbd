/**
 * Reading a sort-key range over months (`D#2025-01-01` … `D#2025-12-31#~`, `M#2025-01` … `M#2025-12#~`). Page after
 * page, such a range costs a round trip per megabyte read, one after the other: at a million videos a year of one
 * video's days is about 56 pages and a year of a region's month cubes about 150 (docs/scale.md), seconds of waiting.
 * So a range whose first page does not end it goes on in parallel: the rest of that page's month as before, and the
 * months after it split into contiguous ranges, each read page after page. A range that fits one page costs what it
 * did, one request; one that does not costs at most a part-page per range more.
 * Every item is handed over once, and each month's items in sort-key order, by one range.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryPages } from './query-all';

/** Ranges read at once after the first page (the first page's month and the months after it). */
export const FAN_OUT = 8;

/** A sort key's kind prefix (`D#`, `M#`) and month. */
const MONTH_SK = /^([A-Za-z0-9]+#)(\d{4})-(\d{2})/;

export interface SkRange {
  readonly from: string;
  readonly to: string;
}

/**
 * The months after `after`'s, up to `to`'s, as at most `parts` contiguous ranges in order (the last ends at `to`);
 * undefined when either key names no month, their kinds differ, or `to` is in `after`'s month. `~` sorts after every
 * character of our sort keys, so `M#2025-03~` ends March, marks and pieces (`M#2025-03#p17`) included.
 */
export function monthRangesAfter(after: string, to: string, parts: number): SkRange[] | undefined {
  const a = MONTH_SK.exec(after);
  const b = MONTH_SK.exec(to);
  if (!a || !b || a[1] !== b[1]) return undefined;
  const prefix = a[1];
  const index = (m: RegExpExecArray) => Number(m[2]) * 12 + Number(m[3]) - 1;
  const first = index(a) + 1;
  const count = index(b) - first + 1;
  if (count <= 0 || parts < 1) return undefined;
  const month = (i: number) =>
    `${String(Math.floor(i / 12)).padStart(4, '0')}-${String((i % 12) + 1).padStart(2, '0')}`;
  const n = Math.min(parts, count);
  return Array.from({ length: n }, (_, k) => {
    const start = first + Math.floor((k * count) / n);
    const end = first + Math.floor(((k + 1) * count) / n) - 1;
    return { from: `${prefix}${month(start)}`, to: k === n - 1 ? to : `${prefix}${month(end)}~` };
  });
}

export interface MonthRangeQuery {
  readonly TableName: string;
  readonly pk: string;
  readonly from: string;
  readonly to: string;
  readonly ProjectionExpression?: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
}

/**
 * Every item of `pk` with a sort key in [from, to], handed to `onPage` a page at a time: page after page while one
 * page ends the range, then in up to FAN_OUT ranges at once (see above). `pageItems` caps a page's items (tests make
 * small pages with it; DynamoDB's own limit is a megabyte read).
 */
export async function queryMonthRange(
  db: DynamoDBDocumentClient,
  query: MonthRangeQuery,
  onPage: (items: Record<string, unknown>[]) => void,
  pageItems?: number,
): Promise<void> {
  const { pk, from, to, ...rest } = query;
  const input = (range: SkRange) => ({
    ...rest,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': pk, ':from': range.from, ':to': range.to },
    ...(pageItems ? { Limit: pageItems } : {}),
  });
  // The whole range, page after page until a page ends in a month with months after it; then those ranges at once.
  let later: SkRange[] | undefined;
  let month: string | undefined;
  const next = await queryPages(db, input({ from, to }), (items, key) => {
    onPage(items);
    if (!key) return;
    const after = String(key.sk);
    later = monthRangesAfter(after, to, FAN_OUT - 1);
    month = MONTH_SK.exec(after)?.[0];
    return !(later && month);
  });
  if (!next || !later || !month) return;
  await Promise.all([
    queryPages(db, input({ from, to: `${month}~` }), onPage, next),
    ...later.map((r) => queryPages(db, input(r), onPage)),
  ]);
}
