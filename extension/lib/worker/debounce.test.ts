import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Debounce } from "./debounce";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("Debounce", () => {
  it("runs once, wait after the last request", () => {
    let runs = 0;
    const d = new Debounce(() => runs++, 200, 1000);
    d.schedule();
    vi.advanceTimersByTime(150);
    d.schedule();
    vi.advanceTimersByTime(199);
    expect(runs).toBe(0);
    vi.advanceTimersByTime(1);
    expect(runs).toBe(1);
    vi.advanceTimersByTime(5000);
    expect(runs).toBe(1);
  });

  it("is never held back more than maxWait while requests keep coming", () => {
    const at: number[] = [];
    const start = Date.now();
    const d = new Debounce(() => at.push(Date.now() - start), 200, 1000);
    for (let t = 0; t < 1500; t += 100) {
      d.schedule();
      vi.advanceTimersByTime(100);
    }
    expect(at[0]).toBe(1000);
  });
});
