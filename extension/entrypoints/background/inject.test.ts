import { afterEach, describe, expect, it, vi } from "vitest";
import { probePage, PROBE_TIMEOUT_MS, responsive } from "./inject";
import { setShareState } from "./gate";

// These tests are about shared tabs; gate.test.ts is about the gate.
setShareState({ ready: async () => undefined, shared: () => true });

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
