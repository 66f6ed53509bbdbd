/**
 * Ingest Lambda: Reporting API export files landing in the stack's bucket are loaded into the fact cubes by the
 * same ingest service `npm run import` uses locally. A rejected (malformed) file is logged with file, line and
 * column and leaves the stored data untouched.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Event } from 'aws-lambda';
import { logger } from '../_shared/logger';
import { tableContext } from '../_shared/table';
import { dynamoResourceSink } from '../core/directory/resource-sink';
import { type IngestFile, ingestFiles } from '../core/reports/ingest/ingest-service';
import { dynamoFactRepository } from '../core/reports/storage/fact-repository';
import { dynamoRateRepository } from '../core/reports/storage/rate-repository';

const s3 = new S3Client({});
const facts = dynamoFactRepository(tableContext());
const rates = dynamoRateRepository(tableContext());
const resources = dynamoResourceSink(tableContext());

/** S3 event keys are URL-encoded, with '+' for spaces. */
export const objectKey = (raw: string) => decodeURIComponent(raw.replace(/\+/g, ' '));

export const handler = async (event: S3Event) => {
  const files: IngestFile[] = event.Records.map((r) => {
    const key = objectKey(r.s3.object.key);
    return {
      name: key,
      read: async () => {
        const out = await s3.send(new GetObjectCommand({ Bucket: r.s3.bucket.name, Key: key }));
        return (await out.Body?.transformToByteArray()) ?? new Uint8Array();
      },
    };
  });
  const summary = await ingestFiles(facts, files, { rates, resources });
  for (const r of summary.rejected) logger.error('export file rejected', { file: r.file, reason: r.message });
  logger.info('ingested', { files: summary.files, loaded: summary.loaded, rows: summary.rows, days: summary.days });
  return summary;
};
