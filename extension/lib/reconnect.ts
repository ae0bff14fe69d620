// When to try the server again (DESIGN §7): quick at first after a drop
// (sub-second, capped at a few seconds during the first minute), slower
// after that, always jittered; a rejected hello waits 30–60 s; a settings
// change retries at once (the caller just connects without asking).

export const QUICK_PHASE_MS = 60_000;
export const QUICK_BASE_MS = 250;
export const QUICK_CAP_MS = 3_000;
export const SLOW_MIN_MS = 5_000;
export const SLOW_CAP_MS = 15_000;
export const REJECTED_MIN_MS = 30_000;
export const REJECTED_MAX_MS = 60_000;
const JITTER = 0.2;

/**
 * Backoff tracks one outage. failure() returns how long to wait before the
 * next attempt; connected() ends the outage; rejected() gives the slow delay
 * of a refused hello. now and random are injectable for tests.
 */
export class Backoff {
  private outageStart: number | undefined;
  private attempts = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  /** The connection worked (hello accepted): the next drop starts quick again. */
  connected(): void {
    this.outageStart = undefined;
    this.attempts = 0;
  }

  /** A connection attempt failed or an open connection dropped. */
  failure(): number {
    const t = this.now();
    if (this.outageStart === undefined) this.outageStart = t;
    const n = this.attempts++;
    const elapsed = t - this.outageStart;
    let base: number;
    if (elapsed < QUICK_PHASE_MS) {
      base = Math.min(QUICK_BASE_MS * 2 ** n, QUICK_CAP_MS);
    } else {
      base = Math.min(SLOW_MIN_MS * 1.5 ** Math.max(0, n - 8), SLOW_CAP_MS);
    }
    return Math.round(base * (1 - JITTER + 2 * JITTER * this.random()));
  }

  /** The server refused the hello: retry slowly, never hammer it. */
  rejected(): number {
    if (this.outageStart === undefined) this.outageStart = this.now();
    this.attempts++;
    return Math.round(REJECTED_MIN_MS + (REJECTED_MAX_MS - REJECTED_MIN_MS) * this.random());
  }
}
