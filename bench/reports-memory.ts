/**
 * The peak RSS of answering a report: reports-rss.ts in a fresh child process per report (see there for what the
 * figure holds).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MemoryProbe } from './reports-rss';

/** Peak RSS in MB of a process answering the report, and its RSS when the first request starts. */
export function peakMemory(probe: MemoryProbe): Promise<{ before: number; peak: number }> {
  const script = fileURLToPath(new URL('./reports-rss.ts', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, '--expose-gc', script, JSON.stringify(probe)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0)
        reject(new Error(`memory probe exited with ${code}: ${err.trim().split('\n').slice(-3).join(' ')}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) as string) as { before: number; peak: number });
    });
  });
}
