import { afterEach, describe, expect, it, vi } from "vitest";
import { BlockedPage, noteBusy, probePage, PROBE_AFTER_MS, PROBE_TIMEOUT_MS, responsive, unlessBlocked } from "./inject";
import { setShareState } from "./gate";

// These tests are about shared tabs; gate.test.ts is about the gate.
setShareState({ ready: async () => undefined, shared: () => true });

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
  vi.unstubAllGlobals();
});

/** chrome.scripting.executeScript answering as script does. */
function stubScript(script: () => Promise<unknown>) {
  const executeScript = vi.fn(script);
  vi.stubGlobal("chrome", { scripting: { executeScript } });
  return executeScript;
}

describe("probePage and responsive", () => {
  it("a page that runs the script answers ran, and is responsive", async () => {
    const run = stubScript(async () => [{ result: true }]);
    await expect(probePage(3)).resolves.toBe("ran");
    await expect(responsive(3)).resolves.toBe(true);
    expect(run).toHaveBeenCalledWith(expect.objectContaining({ target: { tabId: 3, frameIds: [0] } }));
  });

  it("a script Chrome rejects (a page it does not let us script) is refused, and the page is responsive: Chrome answered", async () => {
    stubScript(async () => {
      throw new Error("Frame with ID 0 is showing error page");
    });
    await expect(probePage(3)).resolves.toBe("refused");
    await expect(responsive(3)).resolves.toBe(true);
  });

  it("a page that never answers (a native dialog) is silent after PROBE_TIMEOUT_MS, and not responsive", async () => {
    vi.useFakeTimers();
    stubScript(() => new Promise(() => {}));
    const probe = probePage(3);
    const alive = responsive(3);
    await vi.advanceTimersByTimeAsync(PROBE_TIMEOUT_MS);
    await expect(probe).resolves.toBe("silent");
    await expect(alive).resolves.toBe(false);
  });
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
