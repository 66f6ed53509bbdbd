/**
 * Child process of the reports benchmark: the peak resident memory of answering one report. It hosts the local
 * server (the same handlers as the cloud) against the bench table, mints its own token, asks for the report given as
 * JSON in the first argument a few times, and prints the process's resident memory when the first request starts and
 * its peak while the requests ran: after start-up (a full GC first) the kernel's high-water mark is reset (`5` into
 * /proc/self/clear_refs), so VmHWM in /proc/self/status is the peak of answering the report alone, not of start-up
 * (tsx compiling the sources takes more than any report). Where the kernel does not allow it, the peak is the
 * process's whole-life maxRSS. A fresh process per report. The figure is the whole process's, as Lambda counts a
 * function's memory: Node itself, the handler's modules, the server and the HTTP client (a Lambda has neither).
 * Run by reports-memory.ts, not by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { DEFAULT_SCOPE_BASE } from '../functions/core/scopes';
import { createDevServer } from '../infra/local/dev-server';
import { createIssuerKey, DEFAULT_AUDIENCE, mintToken } from '../infra/local/local-issuer';

export interface MemoryProbe {
  /** The reports.query path and query string. */
  readonly path: string;
  readonly sub: string;
  readonly scopes: string[];
  readonly runs: number;
}

const probe = JSON.parse(process.argv[2] ?? '') as MemoryProbe;
const tableName = process.env.TABLE_NAME as string;
const issuerKey = await createIssuerKey();
const server = createDevServer({
  tableName,
  dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT as string,
  issuerKey,
  audience: DEFAULT_AUDIENCE,
  scopeBase: DEFAULT_SCOPE_BASE,
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${probe.path}`;
const token = await mintToken(issuerKey, { sub: probe.sub, scopes: probe.scopes, scopeBase: DEFAULT_SCOPE_BASE });
/** A VmRSS / VmHWM line of /proc/self/status in MB, or undefined off Linux. */
function procStatus(field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const line = readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return line ? Number(line[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}
(globalThis as { gc?: () => void }).gc?.();
let reset = true;
try {
  writeFileSync('/proc/self/clear_refs', '5');
} catch {
  reset = false;
}
const before = procStatus('VmRSS') ?? process.memoryUsage().rss / 1024 / 1024;
for (let i = 0; i < probe.runs; i++) {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${res.status} ${body.slice(0, 300)}`);
}
const peak = (reset ? procStatus('VmHWM') : undefined) ?? process.resourceUsage().maxRSS / 1024;
server.closeAllConnections();
server.close();
process.stdout.write(`${JSON.stringify({ before, peak })}\n`);
