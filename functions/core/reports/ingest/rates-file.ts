/**
 * Reads an exchange-rates file: CSV with the header `date,currency,units_per_usd` (any column order), one row per
 * day and currency, `date` as YYYYMMDD. Rejected whole, naming file, line and column, at the first bad value.
 */
import type { DailyRate } from '../storage/rate-repository';
import { CsvError, type CsvTable } from './csv';

export const RATE_COLUMNS = ['date', 'currency', 'units_per_usd'] as const;

export const isRatesHeader = (header: readonly string[]) => RATE_COLUMNS.every((c) => header.includes(c));

export function readRatesFile(file: string, table: CsvTable): DailyRate[] {
  const [iDate, iCurrency, iRate] = RATE_COLUMNS.map((c) => table.header.indexOf(c)) as [number, number, number];
  const seen = new Set<string>();
  return table.rows.map(({ line, fields }) => {
    const fail = (column: string, detail: string): never => {
      throw new CsvError(file, line, column, detail);
    };
    const raw = (fields[iDate] as string).trim();
    const day = `${raw.slice(0, 4)}-${raw.slice(4, 6)}-${raw.slice(6, 8)}`;
    const ms = Date.parse(`${day}T00:00:00Z`);
    if (!/^\d{8}$/.test(raw) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day) {
      fail('date', `"${raw}" is not a YYYYMMDD date`);
    }
    const currency = (fields[iCurrency] as string).trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) fail('currency', `"${fields[iCurrency]}" is not a currency code`);
    const rate = Number((fields[iRate] as string).trim());
    if (!Number.isFinite(rate) || rate <= 0 || (fields[iRate] as string).trim() === '') {
      fail('units_per_usd', `"${fields[iRate]}" is not a positive number`);
    }
    if (seen.has(`${currency}${day}`)) fail('date', `${currency} on ${raw} appears on an earlier line`);
    seen.add(`${currency}${day}`);
    return { day, currency, rate };
  });
}
