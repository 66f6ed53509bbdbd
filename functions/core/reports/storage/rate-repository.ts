/**
 * Exchange rates for `currency=` (access pattern X1 in core/db/keys.ts): units of a currency per USD, per day.
 * A day without a rate uses the latest earlier one; days before the first loaded rate use the first.
 *
 * A currency's rates are one item a month (`M#yyyy-mm`, an attribute `d<dd>` per day with a rate), so a year of a
 * `currency=` report reads 12 small items rather than 365 (on DynamoDB Local a Query pays for every item it
 * returns: 365 of them took longer than the report's facts). Earlier releases wrote one item a day (`D#yyyy-mm-dd`);
 * such a partition is still read as it is, and the next rates loaded for its currency move it to month items.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '../../db/batch-write';
import * as keys from '../../db/keys';
import { queryAll } from '../../db/query-all';
import type { TableContext } from '../../directory/directory-repository';

export interface DailyRate {
  readonly day: string;
  readonly currency: string;
  readonly rate: number;
}

/** Units per USD on a day. */
export type RateOf = (day: string) => number;

const ENTITY = 'ExchangeRates';
const dayField = (day: string) => `d${day.slice(8, 10)}`;
const isDayField = (name: string) => /^d\d\d$/.test(name);
/** Month items being written at once (a rates file holds years of several currencies). */
const WRITES_IN_FLIGHT = 8;

/** The rates of a month item (or of a day item of earlier releases), in day order. */
function ratesOf(item: Record<string, unknown>): { day: string; rate: number }[] {
  const sk = String(item.sk);
  if (sk.startsWith('D#')) return [{ day: sk.slice(2), rate: Number(item.rate) }];
  const month = sk.slice(2, 9);
  return Object.keys(item)
    .filter(isDayField)
    .sort()
    .map((name) => ({ day: `${month}-${name.slice(1)}`, rate: Number(item[name]) }));
}

/** Binary search for the latest rate on or before each day; the first rate stands in before it. */
function lookup(days: readonly { day: string; rate: number }[]): RateOf {
  const fallback = (days[0] as { rate: number }).rate;
  return (day) => {
    let lo = 0;
    let hi = days.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((days[mid] as { day: string }).day <= day) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? fallback : (days[found] as { rate: number }).rate;
  };
}

export const dynamoRateRepository = ({ db, tableName }: TableContext) => {
  const query = (input: Record<string, unknown>) =>
    db.send(new QueryCommand({ TableName: tableName, ...input } as never)).then((o) => o.Items ?? []);

  /** The day items of a partition written by earlier releases, over [from, to] (the old read, unchanged). */
  const legacyRates = async (pk: string, currency: string, from: string, to: string) => {
    const [before, inRange] = await Promise.all([
      query({
        KeyConditionExpression: 'pk = :pk AND sk <= :sk',
        ExpressionAttributeValues: { ':pk': pk, ':sk': keys.fxRate(currency, from).sk },
        ScanIndexForward: false,
        Limit: 1,
      }),
      queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':from': keys.fxRate(currency, from).sk,
          ':to': keys.fxRate(currency, to).sk,
        },
      }),
    ]);
    let first = before[0];
    if (!first && inRange.length === 0) {
      const after = await query({
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': keys.fxRate(currency, to).sk, ':to': 'D#~' },
        Limit: 2,
      });
      first = after.find((i) => String(i.sk) > keys.fxRate(currency, to).sk);
      if (!first) return undefined;
    }
    return [...(first ? [first] : []), ...inRange].flatMap(ratesOf);
  };

  return {
    /** The rates of `currency` over [from, to], or undefined when none was ever loaded. */
    async rates(currency: string, from: string, to: string): Promise<RateOf | undefined> {
      const pk = keys.fxPartition(currency);
      const first = keys.fxMonth(currency, from.slice(0, 7)).sk;
      const last = keys.fxMonth(currency, to.slice(0, 7)).sk;
      const [before, inRange] = await Promise.all([
        // The latest month item before the range (day items of earlier releases sort before every month item).
        query({
          KeyConditionExpression: 'pk = :pk AND sk < :sk',
          ExpressionAttributeValues: { ':pk': pk, ':sk': first },
          ScanIndexForward: false,
          Limit: 1,
        }),
        queryAll(db, {
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ':from': first, ':to': last },
        }),
      ]);
      const older = before[0];
      if (older && String(older.sk).startsWith('D#')) {
        const days = await legacyRates(pk, currency, from, to);
        return days && days.length > 0 ? lookup(days) : undefined;
      }
      const days = inRange.flatMap(ratesOf);
      // The latest rate on or before the range's first day, unless the range's own months hold one.
      const earlier = older ? ratesOf(older) : [];
      if (earlier.length > 0 && !(days[0] && days[0].day <= from))
        days.unshift(earlier[earlier.length - 1] as { day: string; rate: number });
      if (days.length === 0) {
        // Nothing up to the end of the range: the earliest later rate, if any, stands in.
        const after = await query({
          KeyConditionExpression: 'pk = :pk AND sk > :sk',
          ExpressionAttributeValues: { ':pk': pk, ':sk': last },
          Limit: 1,
        });
        const later = after[0] ? ratesOf(after[0]) : [];
        if (later.length === 0) return undefined;
        days.push(later[0] as { day: string; rate: number });
      }
      return lookup(days);
    },

    /**
     * Stores rates; a rate for the same (currency, day) replaces the earlier one (rates files restate days). Each
     * month of a currency is one update setting its days. A currency still stored a day an item (earlier releases)
     * is moved to month items first, its days kept unless this load restates them.
     */
    async write(rates: readonly DailyRate[]): Promise<void> {
      const months = new Map<string, { currency: string; month: string; days: Map<string, number> }>();
      const add = (currency: string, day: string, rate: number, restated: boolean) => {
        const id = `${currency}|${day.slice(0, 7)}`;
        let entry = months.get(id);
        if (!entry) {
          entry = { currency, month: day.slice(0, 7), days: new Map() };
          months.set(id, entry);
        }
        if (restated || !entry.days.has(day)) entry.days.set(day, rate);
      };
      for (const r of rates) add(r.currency, r.day, r.rate, true);
      // Days of earlier releases, under the rates being loaded (which win).
      const legacy: { pk: string; sk: string }[] = [];
      for (const currency of new Set(rates.map((r) => r.currency))) {
        const pk = keys.fxPartition(currency);
        const old = await queryAll(db, {
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ':from': 'D#', ':to': 'D#~' },
        });
        for (const item of old) {
          add(currency, String(item.sk).slice(2), Number(item.rate), false);
          legacy.push({ pk, sk: String(item.sk) });
        }
      }
      const entries = [...months.values()];
      let next = 0;
      const worker = async () => {
        while (next < entries.length) {
          const { currency, month, days } = entries[next++] as (typeof entries)[number];
          const names: Record<string, string> = { '#e': 'entity' };
          const values: Record<string, unknown> = { ':e': ENTITY };
          const sets = ['#e = :e'];
          for (const [day, rate] of days) {
            const field = dayField(day);
            names[`#${field}`] = field;
            values[`:${field}`] = rate;
            sets.push(`#${field} = :${field}`);
          }
          // Days set one by one: the month's other days (loaded by another file) stay. Rates are derived data, so
          // there is no condition to express.
          await db.send(
            new UpdateCommand({
              TableName: tableName,
              Key: keys.fxMonth(currency, month),
              UpdateExpression: `SET ${sets.join(', ')}`,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            }),
          );
        }
      };
      await Promise.all(Array.from({ length: Math.min(WRITES_IN_FLIGHT, entries.length) }, worker));
      // The month items hold the old days now: the day items go.
      if (legacy.length > 0)
        await batchWriteAll(
          db,
          tableName,
          legacy.map((Key) => ({ DeleteRequest: { Key } })),
        );
    },
  };
};

export type RateRepository = ReturnType<typeof dynamoRateRepository>;
