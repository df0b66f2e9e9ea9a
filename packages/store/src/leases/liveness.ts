import type { HolderIdentity, LeaseInfo } from "../api.js";
import { isAlive, selfIdentity } from "../locks/process-identity.js";

/** Leases live this long without renewal unless the config says otherwise. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/** This process as a lease holder on `host`. */
export function selfHolder(host: string): HolderIdentity {
  return { host, ...selfIdentity() };
}

/**
 * Whether a lease still has a live holder. On this host the process itself is checked (pid and
 * start time: a crash is seen at once, and a reused pid does not fool it); a holder on another
 * host cannot be checked, so its lease lives until it expires unrenewed.
 */
export function holderAlive(info: LeaseInfo, host: string, nowMs = Date.now()): boolean {
  if (info.holder.host === host) return isAlive(info.holder);
  return Date.parse(info.expiresAt) > nowMs;
}

/**
 * Renews a lease in the background about three times per TTL, so a holder that is alive never
 * looks expired to another host. The timer never keeps a process alive on its own.
 */
export class Renewal {
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    private readonly ttlMs: number,
    private readonly renew: () => Promise<void>,
  ) {}

  start(): void {
    this.stop();
    this.#timer = setInterval(() => this.#tick(), Math.max(50, Math.floor(this.ttlMs / 3)));
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #tick(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      await this.renew();
    } catch {
      // A lost lease stops renewing; the holder learns it at its next write (LEASE_LOST).
      this.stop();
    } finally {
      this.#running = false;
    }
  }
}
