/**
 * What a sink is given and answers (report-sink.ts: into the fact cubes; bucket-sink.ts: into the exports bucket).
 * Apart from the sinks so that the cloud worker, which only writes to the bucket, carries none of the ingest.
 */
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
