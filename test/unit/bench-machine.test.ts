/** The bench's machine probes (bench/machine.ts): timed, positive, and printed with the machine they ran on. */
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { formatMachine, probeMachine } from '../../bench/machine';

describe('bench machine probes', () => {
  it('times each probe and names the processor', () => {
    const probe = probeMachine();
    expect(probe.cpu).toBe(cpus()[0]?.model.trim());
    for (const value of [probe.envReadMicros, probe.utcStringMicros, probe.jsonMicros]) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeGreaterThan(0);
    }
    // Rendering and parsing 10 KB of JSON cannot take under a microsecond: a probe optimized away would.
    expect(probe.jsonMicros).toBeGreaterThan(1);
  });

  it('prints the figures with their units', () => {
    const line = formatMachine({ cpu: 'Test CPU', envReadMicros: 0.3, utcStringMicros: 0.875, jsonMicros: 187.4 }, 2);
    expect(line).toBe(
      `machine: Test CPU, 2 cores, Node ${process.version}; probes: 0.30 µs a process.env read, 0.88 µs a toUTCString, 187 µs a 10 KB JSON round trip`,
    );
  });
});
