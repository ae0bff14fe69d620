// A blocked page fails a wait instead of hanging it; a busy one does not
// (fake timers, a fake probe).
import { afterEach, describe, expect, it, vi } from "vitest";
import { BlockedPage, createBusyWatch, PROBE_AFTER_MS, within } from "./blocked";

/** Work that answers only when the test says so. */
function later<T>(): { work: Promise<T>; answer: (v: T) => void } {
  let answer: (v: T) => void = () => {};
  const work = new Promise<T>((resolve) => {
    answer = resolve;
  });
  return { work, answer };
}

afterEach(() => void vi.useRealTimers());

describe("within", () => {
  it("gives the value in time, else the stand-in after ms", async () => {
    vi.useFakeTimers();
    const { work, answer } = later<string>();
    const r = within(work, 100, "late");
    await vi.advanceTimersByTimeAsync(100);
    await expect(r).resolves.toBe("late");
    const again = within(work, 100, "late");
    answer("done");
    await expect(again).resolves.toBe("done");
  });
});

describe("unlessBlocked", () => {
  it("fails a wait whose page answers neither the work nor the probe (a native dialog)", async () => {
    vi.useFakeTimers();
    const w = createBusyWatch();
    const probe = vi.fn(async () => false);
    const { work } = later<string>();
    const wait = w.unlessBlocked(101, work, probe);
    const failed = expect(wait).rejects.toBeInstanceOf(BlockedPage);
    await vi.advanceTimersByTimeAsync(PROBE_AFTER_MS + 1);
    await failed;
    expect(probe).toHaveBeenCalledWith(101);
  });

  it("waits for a page whose content script said it began a long job after the work was sent", async () => {
    vi.useFakeTimers();
    const w = createBusyWatch();
    const probe = vi.fn(async () => false);
    const { work, answer } = later<string>();
    const wait = w.unlessBlocked(102, work, probe);
    w.noteBusy(102); // the content script's "busy", right after it got the request
    await vi.advanceTimersByTimeAsync(3 * PROBE_AFTER_MS);
    answer("snapshot of 20,000 elements");
    await expect(wait).resolves.toBe("snapshot of 20,000 elements");
    expect(probe).not.toHaveBeenCalled();
  });

  it("does not count a busy note from before the work was sent, nor another tab's", async () => {
    vi.useFakeTimers();
    const w = createBusyWatch();
    w.noteBusy(103);
    await vi.advanceTimersByTimeAsync(10);
    const probe = vi.fn(async () => false);
    const wait = w.unlessBlocked(103, later<string>().work, probe);
    w.noteBusy(104);
    const failed = expect(wait).rejects.toBeInstanceOf(BlockedPage);
    await vi.advanceTimersByTimeAsync(PROBE_AFTER_MS + 1);
    await failed;
  });
});
