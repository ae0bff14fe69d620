import { describe, expect, it } from "vitest";
import { Backoff, QUICK_CAP_MS, REJECTED_MAX_MS, REJECTED_MIN_MS, SLOW_CAP_MS } from "./reconnect";

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("Backoff", () => {
  it("is sub-second at first, capped at a few seconds during the first minute", () => {
    const c = clock();
    const b = new Backoff(c.now, () => 0.5); // no jitter at the midpoint
    const delays: number[] = [];
    for (let i = 0; i < 12; i++) {
      const d = b.failure();
      delays.push(d);
      c.advance(d);
    }
    expect(delays[0]).toBeLessThan(1000);
    expect(delays[1]).toBeLessThan(1000);
    expect(Math.max(...delays.filter((_, i) => i < 8))).toBeLessThanOrEqual(QUICK_CAP_MS);
  });

  it("slows down after a minute, bounded", () => {
    const c = clock();
    const b = new Backoff(c.now, () => 0.5);
    b.failure();
    c.advance(61_000);
    const d = b.failure();
    expect(d).toBeGreaterThanOrEqual(4_000);
    for (let i = 0; i < 50; i++) expect(b.failure()).toBeLessThanOrEqual(SLOW_CAP_MS);
  });

  it("is jittered", () => {
    const lo = new Backoff(() => 0, () => 0).failure();
    const hi = new Backoff(() => 0, () => 0.999).failure();
    expect(hi).toBeGreaterThan(lo);
  });

  it("starts quick again after a success", () => {
    const c = clock();
    const b = new Backoff(c.now, () => 0.5);
    for (let i = 0; i < 10; i++) c.advance(b.failure());
    c.advance(120_000);
    b.connected();
    expect(b.failure()).toBeLessThan(1000);
  });

  it("waits 30 to 60 s after a rejected hello", () => {
    for (const r of [0, 0.5, 0.999]) {
      const d = new Backoff(() => 0, () => r).rejected();
      expect(d).toBeGreaterThanOrEqual(REJECTED_MIN_MS);
      expect(d).toBeLessThanOrEqual(REJECTED_MAX_MS);
    }
  });
});
