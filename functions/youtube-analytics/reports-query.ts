/** reports.query: GET /v2/reports */
import { httpHandler } from '../_shared/http-handler';
import { jsonResult } from '../_shared/http-result';
import { FAMILY_PROPERTY, METRIC } from '../_shared/metric-names';
import { MetricUnit } from '../_shared/observability';
import { tableContext } from '../_shared/table';
import { dynamoDirectoryRepository } from '../core/directory/directory-repository';
import { dynamoGroupReader } from '../core/groups/group-reader';
import { parseReportRequest } from '../core/reports/query/report-request';
import { queryReport, type ReportDeps, type ReportStats } from '../core/reports/query/report-service';
import { dynamoFactRepository, newReadStats } from '../core/reports/storage/fact-repository';
import { dynamoRateRepository } from '../core/reports/storage/rate-repository';
import { QUERY_RESPONSE_FIELDS } from '../schemas';

const OPTIONS = { body: 'none', response: QUERY_RESPONSE_FIELDS, latencyMetric: true } as const;

export const makeHandler = (deps: ReportDeps) =>
  httpHandler('reports.query', OPTIONS, async ({ query, principal, figures }) => {
    const stats: ReportStats = newReadStats();
    const table = await queryReport(deps, principal, parseReportRequest(query), stats);
    figures
      .add(METRIC.itemsRead, MetricUnit.Count, stats.items)
      .add(METRIC.bytesRead, MetricUnit.Bytes, stats.bytes)
      .property(FAMILY_PROPERTY, (stats.families ?? []).join(','));
    // What the answer cost to read: lets callers (and the bench) see the planner at work.
    return jsonResult(200, table, { 'X-Items-Read': String(stats.items), 'X-Bytes-Read': String(stats.bytes) });
  });

const table = tableContext();
export const handler = makeHandler({
  directory: dynamoDirectoryRepository(table),
  groups: dynamoGroupReader(table),
  facts: dynamoFactRepository(table),
  rates: dynamoRateRepository(table),
});
