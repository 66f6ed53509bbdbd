/**
 * The cloud sink: each report is written to the exports bucket as `<owner>/<report_type>/<YYYYMMDD>.csv.gz`, with
 * its report id and createTime as object metadata (`report-id`, `create-time`), and the bucket's ingest function
 * loads it. A day restated later overwrites the same key (the bucket keeps the old version).
 */

import { gzipSync } from 'node:zlib';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { isGzip } from '../reports/ingest/csv';
import { type ReportSink, reportPath } from './delivery';

export function bucketSink(s3: S3Client, bucket: string): ReportSink {
  return {
    async deliver(owner, reports) {
      const delivered = [];
      const rejected = [];
      for (const r of reports) {
        try {
          await s3.send(
            new PutObjectCommand({
              Bucket: bucket,
              Key: `${reportPath(owner, r)}.csv.gz`,
              Body: isGzip(r.bytes) ? r.bytes : gzipSync(r.bytes),
              ContentType: 'text/csv',
              Metadata: { 'report-id': r.report.id, 'create-time': r.report.createTime },
            }),
          );
          delivered.push(r);
        } catch (err) {
          rejected.push({ report: r, message: `could not store it in the exports bucket: ${(err as Error).message}` });
        }
      }
      return { delivered, rejected };
    },
  };
}
