import { afterEach, describe, expect, it, vi } from "vitest";
import { BlockedPage, noteBusy, PROBE_AFTER_MS, unlessBlocked } from "./inject";

/** Work that answers only when the test says so. */
function later<T>(): { work: Promise<T>; answer: (v: T) => void } {
  let answer: (v: T) => void = () => {};
  const work = new Promise<T>((resolve) => {
    answer = resolve;
  });
  return { work, answer };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("unlessBlocked", () => {
  it("fails a wait whose page answers neither the work nor the probe (a native dialog)", async () => {
    vi.useFakeTimers();
    const probe = vi.fn(async () => false);
    const { work } = later<string>();
    const wait = unlessBlocked(101, work, probe);
    const failed = expect(wait).rejects.toBeInstanceOf(BlockedPage);
    await vi.advanceTimersByTimeAsync(PROBE_AFTER_MS + 1);
    await failed;
    expect(probe).toHaveBeenCalledWith(101);
  });

  it("waits for a page whose content script said it began a long job after the work was sent", async () => {
    vi.useFakeTimers();
    const probe = vi.fn(async () => false);
    const { work, answer } = later<string>();
    const wait = unlessBlocked(102, work, probe);
    noteBusy(102); // the content script's "busy", right after it got the request
    await vi.advanceTimersByTimeAsync(3 * PROBE_AFTER_MS);
    answer("snapshot of 20,000 elements");
    await expect(wait).resolves.toBe("snapshot of 20,000 elements");
    expect(probe).not.toHaveBeenCalled();
  });

  it("does not count a busy note from before the work was sent, nor another tab's", async () => {
    vi.useFakeTimers();
    noteBusy(103);
    await vi.advanceTimersByTimeAsync(10);
    const probe = vi.fn(async () => false);
    const wait = unlessBlocked(103, later<string>().work, probe);
    noteBusy(104);
    const failed = expect(wait).rejects.toBeInstanceOf(BlockedPage);
    await vi.advanceTimersByTimeAsync(PROBE_AFTER_MS + 1);
    await failed;
  });
});
