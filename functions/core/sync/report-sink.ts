/**
 * Where downloaded reports go. Locally (and `npm run sync -- --table …`): straight into the fact cubes through the
 * same ingest service `npm run import` uses. In the cloud: the exports bucket (bucket-sink.ts), whose ingest function
 * loads them. Either way a report is stored whole or not at all: the ingest rejects a malformed file whole, and an
 * S3 object is written in one request.
 */
import { bytesFile } from '../reports/ingest/ingest-file';
import { type IngestStores, ingestFiles, type ResourceSink } from '../reports/ingest/ingest-service';
import type { RateRepository } from '../reports/storage/rate-repository';
import type { ConnectedOwner } from './owner';
import type { Report } from './reporting-api';

export interface DownloadedReport {
  readonly report: Report;
  /** The report type id of its job, e.g. `channel_basic_a3`. */
  readonly reportType: string;
  /** YYYY-MM-DD (Pacific), the day it covers. */
  readonly day: string;
  /** The CSV, plain (the download asked for gzip; the transfer encoding is undone on arrival). */
  readonly bytes: Uint8Array;
}

export interface Delivery {
  readonly delivered: readonly DownloadedReport[];
  readonly rejected: readonly { readonly report: DownloadedReport; readonly message: string }[];
  /** Not loaded because the ingest already holds that day from a newer report (loaded by another path). */
  readonly skipped?: readonly { readonly report: DownloadedReport; readonly reason: string }[];
}

export interface ReportSink {
  /** Loads (or stores for loading) the reports, each whole or not at all. */
  deliver(owner: ConnectedOwner, reports: readonly DownloadedReport[]): Promise<Delivery>;
}

/** `<owner>/<report_type>/<YYYYMMDD>`: the layout `npm run import` and the exports bucket read. */
export const reportPath = (owner: ConnectedOwner, r: DownloadedReport) =>
  `${owner.id}/${r.reportType}/${r.day.replaceAll('-', '')}`;

/** `resources`: where the videos and playlists the reports name are recorded (the directory), as `import` does. */
export function ingestSink(stores: IngestStores, rates: RateRepository, resources?: ResourceSink): ReportSink {
  return {
    async deliver(owner, reports) {
      const byName = new Map(reports.map((r) => [`${reportPath(owner, r)}.csv`, r]));
      const files = [...byName].map(([name, r]) =>
        bytesFile(name, r.bytes, { reportId: r.report.id, createTime: r.report.createTime }),
      );
      const summary = await ingestFiles(stores, files, { rates, ...(resources ? { resources } : {}) });
      const rejected = summary.rejected.flatMap((x) => {
        const report = byName.get(x.file);
        return report ? [{ report, message: x.message }] : [];
      });
      // The ingest's own restatement rule: the day was loaded from a newer report by another path (an import).
      const skipped = summary.skipped.flatMap((x) => {
        const report = byName.get(x.file);
        return report ? [{ report, reason: x.reason }] : [];
      });
      const notLoaded = new Set([...rejected, ...skipped].map((x) => x.report));
      return { delivered: reports.filter((r) => !notLoaded.has(r)), rejected, skipped };
    },
  };
}
