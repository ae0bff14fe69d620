import { afterEach, describe, expect, it, vi } from "vitest";
import type { NavEvent } from "../../lib/navigation";
import { watchNavigation } from "./navigation-events";

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

function fakeChrome() {
  const ev = () => new FakeEvent<(d: never) => void>();
  const webNavigation = {
    onBeforeNavigate: ev(),
    onCommitted: ev(),
    onHistoryStateUpdated: ev(),
    onReferenceFragmentUpdated: ev(),
    onCompleted: ev(),
    onErrorOccurred: ev(),
  };
  const tabs = { onRemoved: new FakeEvent<(id: number) => void>() };
  vi.stubGlobal("chrome", { webNavigation, tabs });
  const count = () => Object.values(webNavigation).reduce((n, e) => n + e.listeners.size, 0) + tabs.onRemoved.listeners.size;
  return { webNavigation, tabs, count };
}

describe("watchNavigation (Chrome)", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("reports the tab's main-frame events only, and removes every listener", () => {
    const c = fakeChrome();
    const seen: NavEvent[] = [];
    const stop = watchNavigation(7, (e) => seen.push(e));
    expect(c.count()).toBe(7);
    const d = (o: object) => o as never;
    c.webNavigation.onBeforeNavigate.fire(d({ tabId: 7, frameId: 3, url: "https://x/frame" })); // a subframe
    c.webNavigation.onBeforeNavigate.fire(d({ tabId: 8, frameId: 0, url: "https://x/other-tab" }));
    c.webNavigation.onBeforeNavigate.fire(d({ tabId: 7, frameId: 0, url: "https://x/2" }));
    c.webNavigation.onCommitted.fire(d({ tabId: 7, frameId: 0, url: "https://x/2" }));
    c.webNavigation.onHistoryStateUpdated.fire(d({ tabId: 7, frameId: 0, url: "https://x/3" }));
    c.webNavigation.onReferenceFragmentUpdated.fire(d({ tabId: 7, frameId: 0, url: "https://x/3#a" }));
    c.webNavigation.onCompleted.fire(d({ tabId: 7, frameId: 0, url: "https://x/2" }));
    c.webNavigation.onErrorOccurred.fire(d({ tabId: 7, frameId: 0, url: "https://x/4", error: "net::ERR_ABORTED" }));
    c.tabs.onRemoved.fire(8);
    c.tabs.onRemoved.fire(7);
    expect(seen).toEqual([
      { kind: "start", url: "https://x/2" },
      { kind: "commit", url: "https://x/2" },
      { kind: "same-document", url: "https://x/3" },
      { kind: "same-document", url: "https://x/3#a" },
      { kind: "complete", url: "https://x/2" },
      { kind: "error", url: "https://x/4", error: "net::ERR_ABORTED" },
      { kind: "closed" },
    ]);
    stop();
    stop();
    expect(c.count()).toBe(0);
  });
});
