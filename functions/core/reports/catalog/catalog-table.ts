/**
 * The README's report table, rendered from the catalog (catalog.ts) in the notation of api-contract.md §A.3, so the
 * documentation cannot drift from what the matcher accepts. `npm run report-table` prints it.
 */
import { METRIC_SETS, REPORTS, type ReportDef, type SetRule } from './catalog';
import { exampleQuery } from './report-examples';

const code = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(', ');
const set = (names: readonly string[]) => `{${code(names)}}`;

/** A rule in the contract's words: Req, 1 of, 1+ of, 0/1 of, Opt, 0+ of. */
function ruleText(rule: SetRule): string[] {
  const optional = rule.optional ?? [];
  return [
    ...(rule.required ?? []).map((n) => `Req \`${n}\``),
    ...(rule.exactlyOne ?? []).map((g) => `1 of ${set(g)}`),
    ...(rule.atLeastOne ?? []).map((g) => `1+ of ${set(g)}`),
    ...(rule.atMostOne ?? []).map((g) => `0/1 of ${set(g)}`),
    ...(optional.length === 1 ? [`Opt ${code(optional)}`] : optional.length > 1 ? [`0+ of ${set(optional)}`] : []),
  ];
}

const valueText = (filter: string, values: readonly string[]) =>
  values.length === 1 ? `\`${filter}==${values[0]}\`` : `\`${filter}\` in {${values.join(', ')}}`;

const sameValues = (a: readonly string[] | undefined, b: readonly string[]) =>
  a !== undefined && a.length === b.length && a.every((v) => b.includes(v));

function filtersText(r: ReportDef): string {
  const values = r.requiredFilterValues ?? {};
  const required = r.filters.required ?? [];
  const valued = Object.entries(values);
  const parts = [
    ...valued.filter(([f]) => required.includes(f)).map(([f, vs]) => `Req ${valueText(f, vs)}`),
    ...ruleText({ ...r.filters, required: required.filter((f) => !(f in values)) }),
    ...valued.filter(([f]) => !required.includes(f)).map(([f, vs]) => `if given, ${valueText(f, vs)}`),
    ...(r.singleValueFilters ?? []).map((f) => `\`${f}\` names exactly one id`),
  ];
  for (const [d, needs] of Object.entries(r.requiredDimensionFilters ?? {})) {
    for (const [f, vs] of Object.entries(needs)) {
      // Already said when the filter is required with these values.
      if (!(required.includes(f) && sameValues(values[f], vs)))
        parts.push(`dimension \`${d}\` needs ${valueText(f, vs)}`);
    }
  }
  if (r.entityFilter) {
    const combinations = r.entityFilter.combinations.length > 0;
    parts.push(`must filter by an entity${combinations ? ' or a claimedStatus / uploaderType combination' : ''}`);
  }
  return parts.join('; ') || 'none';
}

/** A metric set by its §A.3 alias when it is one (M_ALL, P_TOP, …). */
function metricsText(metrics: readonly string[]): string {
  const same = (a: readonly string[]) => a.length === metrics.length && a.every((m) => metrics.includes(m));
  return Object.entries(METRIC_SETS).find(([, names]) => same(names))?.[0] ?? code(metrics);
}

function sortText(r: ReportDef): string {
  const parts: string[] = [];
  if (r.sort) parts.push(`sort required, descending, by one of ${code(r.sort.descendingBy)}`);
  if (r.maxResults) parts.push(`\`maxResults\` ≤ ${r.maxResults.max}${r.maxResults.required ? ' required' : ''}`);
  return parts.join('; ') || '–';
}

const comboText = (c: Readonly<Record<string, string>>) =>
  Object.entries(c)
    .map(([k, v]) => `${k}==${v}`)
    .join(';');

const OWNERS = { channel: 'channel', contentOwner: 'content owner' } as const;

/** The report's name, marked when Google's API has no such report. */
const nameOf = (r: ReportDef) => `${r.name}${r.serviceOnly ? ' _(this service only)_' : ''}`;

/** Pads each column to its widest cell, as the README's other tables are. */
function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length), 3));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Ids an example's `{video}`, `{playlist}` and `{channel}` stand for, per kind of owner. */
export type ExampleIds = Readonly<
  Record<ReportDef['owner'], Readonly<Record<'video' | 'playlist' | 'channel', string>>>
>;

/** A report's example query with the placeholders replaced by `ids`. */
export const exampleOf = (r: ReportDef, ids: ExampleIds): string =>
  exampleQuery(r).replace(/\{(video|playlist|channel)\}/g, (_, k: 'video' | 'playlist' | 'channel') => ids[r.owner][k]);

/** The README's short list: each report with its example, ready to paste after `…/v2/reports?ids=…&start…&end…&`. */
export function catalogSummaryMarkdown(ids: ExampleIds): string {
  return `${markdownTable(
    ['#', 'Report', 'Owner', 'Example (after `ids=…&startDate=…&endDate=…&`)'],
    REPORTS.map((r) => [r.id, nameOf(r), OWNERS[r.owner], `\`${exampleOf(r, ids)}\``]),
  )}\n`;
}

/** All reports of the catalog as one Markdown table, metric aliases explained below it. */
export function catalogMarkdown(ids: ExampleIds): string {
  const rows = REPORTS.map((r) => [
    r.id,
    nameOf(r),
    OWNERS[r.owner],
    ruleText(r.dimensions).join('; ') || 'none',
    filtersText(r),
    metricsText(r.metrics),
    sortText(r),
    `\`${exampleOf(r, ids)}\``,
  ]);
  const table = markdownTable(
    ['#', 'Report', 'Owner', 'Dimensions', 'Filters', 'Metrics', 'Sort / maxResults', 'Example'],
    rows,
  );
  const aliases = Object.entries(METRIC_SETS).map(([name, metrics]) => `- ${name}: ${code(metrics)}`);
  const entity = REPORTS.find((r) => r.entityFilter?.combinations.length)?.entityFilter;
  const serviceOnly = [...new Set(REPORTS.flatMap((r) => (r.serviceOnly ? [r.serviceOnly] : [])))];
  const notes = [
    ...serviceOnly.map((why) => `Reports marked _(this service only)_: ${why}.`),
    ...(entity
      ? [
          `Content-owner queries must filter by an entity (${code(entity.anyOf)}, as the report allows) or by one of ` +
            `the combinations ${entity.combinations.map((c) => `\`${comboText(c)}\``).join(', ')} ` +
            '(playlist reports: by an entity only).',
        ]
      : []),
  ];
  return `${table}\n\n${[...notes, '', 'Metric sets:', '', ...aliases].join('\n')}\n`;
}
