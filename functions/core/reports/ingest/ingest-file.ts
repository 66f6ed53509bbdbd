/**
 * A file to ingest: a name and a way to stream its bytes (plain CSV or gzip), plus what the Reporting API said of
 * it. The adapters differ (a local path, an S3 object, bytes in a test); the ingest only ever streams.
 */
import { createReadStream, statSync } from 'node:fs';
import { setImmediate } from 'node:timers/promises';

export interface IngestFile {
  /** A path or object key: its YYYYMMDD and UC… segments name the day and channel of a header-only file. */
  readonly name: string;
  /** The file's bytes, as a stream (read once per ingest). */
  open(): AsyncIterable<Uint8Array> | Promise<AsyncIterable<Uint8Array>>;
  /** Its size in bytes, when known (gzip: the compressed size). */
  readonly size?: number;
  /** The Reporting API report this file is (connected-channel sync; S3 object metadata `report-id`). */
  readonly reportId?: string;
  /**
   * The report's createTime (RFC 3339; S3 object metadata `create-time`). Google restates a day as a new report with
   * a newer createTime: a file older than the one a day was loaded from is skipped (IngestSummary.skipped).
   */
  readonly createTime?: string;
}

/** A file whose bytes are in memory. */
export function bytesFile(
  name: string,
  bytes: Uint8Array,
  meta: { reportId?: string; createTime?: string } = {},
): IngestFile {
  return {
    name,
    size: bytes.length,
    ...meta,
    async *open() {
      // In pieces, as a stream would come: the reader must not depend on having it whole, and other work (a load's
      // round trips begun meanwhile) goes on between the pieces, each in its own turn of the event loop.
      for (let at = 0; at < bytes.length; at += 1 << 16) {
        if (at > 0) await setImmediate();
        yield bytes.subarray(at, at + (1 << 16));
      }
    },
  };
}

/** A file on the local disk. */
export function localFile(
  file: string,
  meta: { name?: string; reportId?: string; createTime?: string } = {},
): IngestFile {
  const { name, ...rest } = meta;
  return { name: name ?? file, size: statSync(file).size, ...rest, open: () => createReadStream(file) };
}
