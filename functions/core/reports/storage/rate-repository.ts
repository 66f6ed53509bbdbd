/**
 * Exchange rates for `currency=` (access pattern X1 in core/db/keys.ts): units of a currency per USD, per day.
 * A day without a rate uses the latest earlier one; days before the first loaded rate use the first.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
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

export const dynamoRateRepository = ({ db, tableName }: TableContext) => ({
  /** The rates of `currency` over [from, to], or undefined when none was ever loaded. */
  async rates(currency: string, from: string, to: string): Promise<RateOf | undefined> {
    const pk = keys.fxPartition(currency);
    const query = (input: Record<string, unknown>) =>
      db.send(new QueryCommand({ TableName: tableName, ...input } as never)).then((o) => o.Items ?? []);
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
      // Nothing up to the end of the range: the earliest later rate, if any, stands in.
      const after = await query({
        KeyConditionExpression: 'pk = :pk AND sk > :sk',
        ExpressionAttributeValues: { ':pk': pk, ':sk': keys.fxRate(currency, to).sk },
        Limit: 1,
      });
      first = after[0];
      if (!first) return undefined;
    }
    const days = [...(first ? [first] : []), ...inRange].map((i) => ({
      day: String(i.sk).slice(2),
      rate: Number(i.rate),
    }));
    const fallback = (days[0] as { rate: number }).rate;
    return (day) => {
      // Binary search for the latest rate on or before `day`.
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
  },

  /** Stores rates; a rate for the same (currency, day) replaces the earlier one (rates files restate days). */
  async write(rates: readonly DailyRate[]): Promise<void> {
    const requests = rates.map((r) => ({
      PutRequest: { Item: { ...keys.fxRate(r.currency, r.day), entity: 'ExchangeRate', rate: r.rate } },
    }));
    await batchWriteAll(db, tableName, requests);
  },
});

export type RateRepository = ReturnType<typeof dynamoRateRepository>;
