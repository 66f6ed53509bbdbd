/**
 * Where downloaded reports go. Locally (and `npm run sync -- --table …`): straight into the fact cubes through the
 * same ingest service `npm run import` uses. In the cloud: the exports bucket (bucket-sink.ts), whose ingest function
 * loads them. Either way a report is stored whole or not at all: the ingest rejects a malformed file whole, and an
 * S3 object is written in one request.
 */
import { bytesFile } from '../reports/ingest/ingest-file';
import { type IngestStores, ingestFiles, type ResourceSink } from '../reports/ingest/ingest-service';
import type { RateRepository } from '../reports/storage/rate-repository';
import { type ReportSink, reportPath } from './delivery';

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
