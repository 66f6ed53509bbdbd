/**
 * Holding a lease while a load works: wait for it when someone else holds it (up to a bound), renew it on a timer,
 * and a guard that every write calls, which throws once the lease is lost or too close to expiring to trust (a
 * process paused past its lease must not write after another load took over).
 */
import type { TableKey } from '../../db/table-definition';
import type { Lease, LeaseRepository } from '../storage/lease-repository';

/** Another load holds the lease past the wait: retry later (the file is a retryable failure, not a rejection). */
export class LeaseBusy extends Error {
  constructor(readonly key: TableKey) {
    super(`${key.pk} ${key.sk} is being loaded by another process; try again later`);
    this.name = 'LeaseBusy';
  }
}

/** The lease was lost (expired and taken) while loading: the load stops; a retry finishes it. */
export class LeaseLost extends Error {
  constructor(readonly key: TableKey) {
    super(`lost the lease ${key.pk} ${key.sk} while loading; the load will be finished by a retry`);
    this.name = 'LeaseLost';
  }
}

export interface LeaseSettings {
  /** How long a lease lasts unless renewed (renewed every quarter of it). */
  readonly ttlMs: number;
  /** How long to wait for a lease someone else holds before giving up (LeaseBusy). */
  readonly waitMs: number;
}

export const DEFAULT_LEASE: LeaseSettings = { ttlMs: 5 * 60_000, waitMs: 60_000 };

/** Time left on a lease below which the holder stops writing. */
const SAFETY_MS = 30_000;

export interface HeldLease {
  readonly lease: Lease;
  /** Throws LeaseLost unless the lease is still safely held (await it: a load may gate its writes behind one). */
  guard(): void | Promise<void>;
  /** Stops renewing and lets the lease go. */
  release(): Promise<void>;
  /** Stops renewing a lease a committed write let go (lease-repository.ts `releasing`): release() is then a no-op. */
  released(): void;
}

export async function holdLease(
  leases: LeaseRepository,
  key: TableKey,
  holder: string,
  settings: LeaseSettings,
): Promise<HeldLease> {
  const started = Date.now();
  let lease: Lease | undefined;
  for (let attempt = 0; ; attempt++) {
    lease = await leases.acquire(key, holder, settings.ttlMs);
    if (lease) break;
    if (Date.now() - started >= settings.waitMs) throw new LeaseBusy(key);
    const delay = Math.min(2000, 50 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random() / 2);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(delay, Math.max(0, settings.waitMs - (Date.now() - started)))),
    );
  }
  let current: Lease | undefined = lease;
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = (async () => {
      if (!current) return;
      current = await leases.renew(current, settings.ttlMs).catch(() => current);
    })();
  }, settings.ttlMs / 4);
  timer.unref();
  const safety = Math.min(SAFETY_MS, settings.ttlMs / 4);
  return {
    lease,
    guard() {
      if (!current || Date.now() > current.expiresAt - safety) throw new LeaseLost(key);
    },
    async release() {
      clearInterval(timer);
      await renewing;
      if (current) await leases.release(current);
      current = undefined;
    },
    released() {
      // A renewal in flight fails its condition (the holder is gone) and leaves nothing to release.
      clearInterval(timer);
      current = undefined;
    },
  };
}
