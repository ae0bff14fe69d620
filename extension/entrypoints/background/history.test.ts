import { afterEach, describe, expect, it, vi } from "vitest";
import { PROBE_TIMEOUT_MS } from "./inject";
import { historyNav } from "./history";
import { setShareState } from "./gate";

// These tests are about shared tabs; gate.test.ts is about the gate.
setShareState({ ready: async () => undefined, shared: () => true });

/** A chrome.events.Event stand-in that records its listeners. */
class FakeEvent<T extends (...a: never[]) => void> {
  listeners = new Set<T>();
  addListener(l: T) {
    this.listeners.add(l);
  }
  removeListener(l: T) {
    this.listeners.delete(l);
  }
  fire(...args: Parameters<T>) {
    for (const l of [...this.listeners]) l(...args);
  }
}

/** Chrome with the given answer to the probe script; every other script runs. */
function fakeChrome(probe: () => Promise<unknown>) {
  const ev = () => new FakeEvent<(d: never) => void>();
  const webNavigation = {
    onBeforeNavigate: ev(),
    onCommitted: ev(),
    onHistoryStateUpdated: ev(),
    onReferenceFragmentUpdated: ev(),
    onCompleted: ev(),
    onErrorOccurred: ev(),
  };
  const inPage: unknown[] = [];
  let took: (way: "page" | "chrome") => void = () => {};
  /** Which way back historyNav took, once it has. */
  const way = new Promise<"page" | "chrome">((r) => (took = r));
  const scripting = {
    executeScript: vi.fn((s: { args?: unknown[]; files?: string[] }) => {
      if (s.args?.[0] === "back") {
        inPage.push(s.args[0]);
        took("page");
        return Promise.resolve([]);
      }
      if (s.args === undefined && s.files === undefined) return probe();
      return Promise.resolve([]);
    }),
  };
  const tabs = {
    onRemoved: new FakeEvent<(id: number) => void>(),
    goBack: vi.fn(async () => took("chrome")),
    goForward: vi.fn(async () => undefined),
    get: vi.fn(async () => ({ url: "https://a.example/" })),
  };
  vi.stubGlobal("chrome", { webNavigation, tabs, scripting });
  /** The tab went back: a new document committed and loaded. */
  const wentBack = (tabId: number) => {
    const d = { tabId, frameId: 0, url: "https://a.example/before" } as never;
    webNavigation.onBeforeNavigate.fire(d);
    webNavigation.onCommitted.fire(d);
    webNavigation.onCompleted.fire(d);
  };
  return { tabs, inPage, way, wentBack };
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("historyNav's choice of way back", () => {
  it("goes back in the page when the page runs the probe", async () => {
    const c = fakeChrome(async () => [{ result: true }]);
    const back = historyNav(4, "back");
    expect(await c.way).toBe("page");
    c.wentBack(4);
    await back;
    expect(c.inPage).toEqual(["back"]);
    expect(c.tabs.goBack).not.toHaveBeenCalled();
  });

  it("goes through Chrome's history when Chrome refuses the probe (nothing of ours runs there)", async () => {
    const c = fakeChrome(async () => {
      throw new Error("Cannot access contents of the page");
    });
    const back = historyNav(4, "back");
    expect(await c.way).toBe("chrome");
    expect(c.tabs.goBack).toHaveBeenCalledWith(4);
    c.wentBack(4);
    await back;
    expect(c.inPage).toEqual([]);
  });

  it("goes through Chrome's history when the page is silent (a native dialog, which that closes)", async () => {
    vi.useFakeTimers();
    const c = fakeChrome(() => new Promise(() => {}));
    const back = historyNav(4, "back");
    await vi.advanceTimersByTimeAsync(PROBE_TIMEOUT_MS);
    expect(await c.way).toBe("chrome");
    expect(c.tabs.goBack).toHaveBeenCalledWith(4);
    c.wentBack(4);
    await back;
    expect(c.inPage).toEqual([]);
  });
});
