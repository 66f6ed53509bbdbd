/**
 * Reporting API times (RFC 3339, UTC, up to microseconds) in one comparable form, and the Pacific day a daily report
 * covers. Google restates a day as a new report with the same start time and a newer createTime, so createTimes are
 * compared exactly: as fixed-width strings, never as milliseconds.
 */

const RFC3339 = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** `2026-10-03T09:12:45.1Z` → `2026-10-03T09:12:45.100000000Z` (nanoseconds: string order is time order). */
export function normalizeTime(raw: string): string {
  const m = RFC3339.exec(raw.trim());
  if (!m || Number.isNaN(Date.parse(raw))) throw new Error(`not an RFC 3339 time: ${raw}`);
  const fraction = (m[3] ?? '').padEnd(9, '0');
  if (m[4] === 'Z') return `${m[1]}T${m[2]}.${fraction}Z`;
  // An offset: shift to UTC through the milliseconds, keep the sub-millisecond digits.
  const utc = new Date(Date.parse(`${m[1]}T${m[2]}${m[4]}`)).toISOString().slice(0, 19);
  return `${utc}.${fraction}Z`;
}

/** A checkpoint as the API's createdAfter takes it (microseconds, as the API writes its times). */
export const asApiTime = (normalized: string) => `${normalized.slice(0, 26)}Z`;

/**
 * The day (YYYY-MM-DD) a daily report covers: its start is Pacific midnight (07:00 or 08:00 UTC), so the UTC date
 * twelve hours later is the Pacific date, whatever the offset.
 */
export function reportDay(startTime: string): string {
  const ms = Date.parse(startTime);
  if (Number.isNaN(ms)) throw new Error(`not a time: ${startTime}`);
  return new Date(ms + 12 * 3_600_000).toISOString().slice(0, 10);
}
