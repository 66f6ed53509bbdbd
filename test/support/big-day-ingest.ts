/**
 * A child process for the large-file test (test/integration/ingest-large-file.test.ts), run with a small Node heap:
 * generates one channel_basic_a3 daily file of at least TARGET_MB megabytes as a stream (never whole in memory) and
 * loads it through the cloud ingest handler (functions/ingest/s3-ingest.ts, an SQS message of an S3 notification),
 * reading the object as a stream, as in the stack. Prints one JSON line: the bytes and rows generated, the sums of
 * views and likes it wrote, the handler's reply, and the largest heap and RSS seen.
 *
 * Environment: DYNAMODB_ENDPOINT, TABLE_NAME, CHANNEL, DAY (YYYY-MM-DD), TARGET_MB.
 */
import { createDocumentClient } from '../../functions/core/db/document-client';
import { dynamoIngestStores, type IngestSummary } from '../../functions/core/reports/ingest/ingest-service';
import { dynamoRateRepository } from '../../functions/core/reports/storage/rate-repository';
import { queuedS3Event } from '../../functions/ingest/queued-s3-event';
import { createIngestHandler, type ObjectReader } from '../../functions/ingest/s3-ingest';
import { reportTypeColumns } from '../../infra/generator/export-families';

const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const channel = env('CHANNEL');
const day = env('DAY');
const targetBytes = Number(env('TARGET_MB')) * 1024 * 1024;
const table = { db: createDocumentClient(env('DYNAMODB_ENDPOINT')), tableName: env('TABLE_NAME') };

const COUNTRIES =
  'US GB DE FR IN BR JP KR MX CA AU ES IT NL SE PL TR ID PH VN TH AR CO CL PE NG EG ZA KE SA AE IL PK BD RU UA RO CZ HU PT'.split(
    ' ',
  );
const header = reportTypeColumns('channel_basic_a3');
const generated = { bytes: 0, rows: 0, views: 0, likes: 0 };

/** A deterministic number stream (no Math.random: the test's sums must be reproducible). */
let seed = 12345;
const next = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

/** One row's cells by column: realistic widths (minutes with 17 digits, rates with 4). */
function row(video: string, live: string, subscribed: string, country: string): string {
  const views = 1 + Math.floor(next() * 5000);
  const likes = Math.floor(views * next() * 0.1);
  generated.views += views;
  generated.likes += likes;
  const minutes = views * (0.5 + next() * 6);
  const cells: Record<string, string> = {
    date: day.replaceAll('-', ''),
    channel_id: channel,
    video_id: video,
    live_or_on_demand: live,
    subscribed_status: subscribed,
    country_code: country,
    views: String(views),
    engaged_views: String(Math.floor(views * 0.8)),
    likes: String(likes),
    watch_time_minutes: String(minutes),
    average_view_duration_seconds: String((minutes * 60) / views),
    average_view_duration_percentage: (next() * 100).toFixed(2),
    red_views: String(Math.floor(views * 0.05)),
    red_watch_time_minutes: String(minutes * 0.05),
    card_click_rate: next().toFixed(4),
    card_teaser_click_rate: next().toFixed(4),
    annotation_click_through_rate: '0.0',
    annotation_close_rate: '0.0',
  };
  return header.map((c) => cells[c] ?? String(Math.floor(next() * 40))).join(',');
}

/** The file, generated as it is read: rows until the target size, in 1 MB pieces. */
async function* fileBytes(): AsyncGenerator<Uint8Array> {
  let piece = `${header.join(',')}\n`;
  for (let v = 0; ; v++) {
    const video = `big-v${String(v).padStart(6, '0')}`;
    for (const country of COUNTRIES) {
      for (const live of ['ON_DEMAND', 'LIVE']) {
        for (const subscribed of ['SUBSCRIBED', 'UNSUBSCRIBED']) {
          piece += `${row(video, live, subscribed, country)}\n`;
          generated.rows++;
        }
      }
    }
    if (piece.length >= 1 << 20) {
      const bytes = Buffer.from(piece);
      generated.bytes += bytes.length;
      piece = '';
      yield bytes;
      if (generated.bytes >= targetBytes) return;
    }
  }
}

const objects: ObjectReader = {
  async get() {
    return { body: fileBytes(), metadata: {} };
  },
};

let heapPeak = 0;
let rssPeak = 0;
let buffersPeak = 0;
const sample = () => {
  const m = process.memoryUsage();
  heapPeak = Math.max(heapPeak, m.heapUsed);
  rssPeak = Math.max(rssPeak, m.rss);
  buffersPeak = Math.max(buffersPeak, m.arrayBuffers);
};
const sampler = setInterval(sample, 50);

let summary: IngestSummary | undefined;
const handler = createIngestHandler({
  stores: dynamoIngestStores(table),
  rates: dynamoRateRepository(table),
  objects,
  onSummary: (s) => {
    summary = s;
  },
});
const key = `${channel}/channel_basic_a3/${day.replaceAll('-', '')}.csv`;
const started = performance.now();
const reply = await handler(queuedS3Event(key));
clearInterval(sampler);
sample();
console.log(
  JSON.stringify({
    generated,
    reply,
    summary,
    seconds: (performance.now() - started) / 1000,
    heapPeakMb: heapPeak / 2 ** 20,
    rssPeakMb: rssPeak / 2 ** 20,
    arrayBuffersPeakMb: buffersPeak / 2 ** 20,
  }),
);
table.db.destroy();
