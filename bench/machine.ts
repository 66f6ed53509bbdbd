/**
 * What the bench's machine is, printed with its results. The targets are ratios to DuckDB and to bare DynamoDB Local
 * calls, and VMs of the same kind are up to twice as slow as each other, unequally for DuckDB, DynamoDB Local and the
 * service: the same code passed every group row on one VM and missed three on a slower one (docs/scale.md, "The
 * machine moves the ratios"). A few fixed probes, timed the same way each run, tell a slower machine from a slower
 * build. (On the slower VM: about 0.2–0.3 µs a `process.env` read, 0.6–1.0 µs a `toUTCString`, 155–200 µs the JSON.)
 */
import { cpus } from 'node:os';

export interface MachineProbe {
  readonly cpu: string;
  /** µs per `process.env` read. */
  readonly envReadMicros: number;
  /** µs per `new Date().toUTCString()`. */
  readonly utcStringMicros: number;
  /** µs to render and parse a fixed JSON document of about 10 KB. */
  readonly jsonMicros: number;
}

/**
 * µs per call of `fn` in the fastest of `rounds` rounds of `n` calls, after one round of warm-up: the fastest, as the
 * machine's speed is what is asked, not how busy it was.
 */
function fastestMicros(n: number, rounds: number, fn: () => unknown): number {
  const times: number[] = [];
  for (let r = 0; r <= rounds; r++) {
    const started = performance.now();
    for (let i = 0; i < n; i++) fn();
    if (r > 0) times.push(((performance.now() - started) * 1000) / n);
  }
  return Math.min(...times);
}

/** A report-like answer: 200 rows of a date, a video id and four measures. */
const DOCUMENT = {
  kind: 'youtubeAnalytics#resultTable',
  rows: Array.from({ length: 200 }, (_, i) => [`2026-01-${(i % 28) + 1}`, `video${i}`, i * 3, i * 7.5, i % 13, i / 7]),
};

export function probeMachine(): MachineProbe {
  // A variable of its own, short as the handlers' are (the cost of a read grows with the value's length).
  process.env.BENCH_MACHINE_PROBE = 'probe';
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    envReadMicros: fastestMicros(200_000, 7, () => process.env.BENCH_MACHINE_PROBE),
    utcStringMicros: fastestMicros(50_000, 7, () => new Date().toUTCString()),
    jsonMicros: fastestMicros(500, 7, () => JSON.parse(JSON.stringify(DOCUMENT))),
  };
}

export const formatMachine = (m: MachineProbe, cores: number): string =>
  `machine: ${m.cpu}, ${cores} cores, Node ${process.version}; probes: ${m.envReadMicros.toFixed(2)} µs a process.env read, ${m.utcStringMicros.toFixed(2)} µs a toUTCString, ${m.jsonMicros.toFixed(0)} µs a 10 KB JSON round trip`;
