import { afterEach, describe, expect, it, vi } from "vitest";
import { abandonedNavigationError, DEFAULT_NAV_TIMING, waitForNewPage, type NavEvent, type NewPageDeps } from "./navigation";

/** Main-frame navigation events of every tab, delivered when the test says (as chrome.webNavigation would). */
class FakeNav {
  listeners = new Set<(tabId: number, e: NavEvent) => void>();
  responsive = true;
  probes = 0;
  url: string | undefined = "https://a.example/";
  deps(): NewPageDeps {
    return {
      watch: (l) => {
        this.listeners.add(l);
        return () => this.listeners.delete(l);
      },
      tabUrl: async () => this.url,
      responsive: async () => {
        this.probes++;
        return this.responsive;
      },
      probeEveryMs: 5000,
    };
  }
  emit(tabId: number, e: NavEvent) {
    for (const l of [...this.listeners]) l(tabId, e);
  }
}

/** The promise's outcome so far, without waiting for it. */
function track(p: Promise<void>): { state: () => "pending" | "resolved" | Error } {
  let s: "pending" | "resolved" | Error = "pending";
  p.then(
    () => (s = "resolved"),
    (e: Error) => (s = e),
  );
  return { state: () => s };
}

const T = DEFAULT_NAV_TIMING;
const started = () => Promise.resolve();

afterEach(() => {
  vi.useRealTimers();
});

describe("waitForNewPage", () => {
  it("waits for a commit after start and its load, ignoring the old page's load and other tabs", async () => {
    vi.useFakeTimers();
    const nav = new FakeNav();
    const w = track(waitForNewPage(nav.deps(), 5, "navigating", started));
    await vi.advanceTimersByTimeAsync(0);
    nav.emit(5, { kind: "complete", url: "https://a.example/" }); // the old page finishing
    nav.emit(5, { kind: "start", url: "https://b.example/" });
    nav.emit(6, { kind: "commit", url: "https://other.example/" });
    nav.emit(6, { kind: "complete", url: "https://other.example/" });
    await vi.advanceTimersByTimeAsync(0);
    expect(w.state()).toBe("pending");
    nav.emit(5, { kind: "commit", url: "https://b.example/" });
    await vi.advanceTimersByTimeAsync(0);
    expect(w.state()).toBe("pending");
    nav.emit(5, { kind: "complete", url: "https://b.example/" });
    await vi.advanceTimersByTimeAsync(0);
    expect(w.state()).toBe("resolved");
    expect(nav.listeners.size).toBe(0);
  });

  it("ignores about:blank with ignoreBlank, and takes a same-document navigation as done", async () => {
    vi.useFakeTimers();
    const nav = new FakeNav();
    const w = track(waitForNewPage(nav.deps(), 5, "navigating", started, { ignoreBlank: true }));
    nav.emit(5, { kind: "commit", url: "about:blank" });
    nav.emit(5, { kind: "complete", url: "about:blank" });
    await vi.advanceTimersByTimeAsync(0);
    expect(w.state()).toBe("pending");
    nav.emit(5, { kind: "same-document", url: "https://a.example/#b" });
    await vi.advanceTimersByTimeAsync(0);
    expect(w.state()).toBe("resolved");
  });

  it("keeps the events that arrive before a new tab's id is known and replays that tab's", async () => {
    vi.useFakeTimers();
    const nav = new FakeNav();
    let opened: (id: number) => void = () => {};
    const w = track(waitForNewPage(nav.deps(), undefined, "opening", () => new Promise<number>((r) => (opened = r)), { ignoreBlank: true }));
    nav.emit(9, { kind: "commit", url: "https://a.example/" });
    nav.emit(9, { kind: "complete", url: "https://a.example/" });
    nav.emit(8, { kind: "error", url: "https://c.example/", error: "net::ERR_FAILED" }); // another tab's
    await vi.advanceTimersByTimeAsync(0);
    expect(w.state()).toBe("pending");
    opened(9);
    await vi.advanceTimersByTimeAsync(0);
    expect(w.state()).toBe("resolved");
  });

  it("fails on a navigation error, a closed tab, and a start() that throws", async () => {
    vi.useFakeTimers();
    const nav = new FakeNav();
    const failed = track(waitForNewPage(nav.deps(), 5, "navigating to x", started));
    const closed = track(waitForNewPage(nav.deps(), 6, "reloading", started));
    const threw = track(waitForNewPage(nav.deps(), 7, "going back", () => Promise.reject(new Error("no such tab"))));
    nav.emit(5, { kind: "error", url: "https://x.invalid/", error: "net::ERR_NAME_NOT_RESOLVED" });
    nav.emit(6, { kind: "closed" });
    await vi.advanceTimersByTimeAsync(0);
    expect(String(failed.state())).toContain("navigating to x failed: net::ERR_NAME_NOT_RESOLVED (https://x.invalid/)");
    expect(String(closed.state())).toContain("tab 6 was closed during reloading");
    expect(String(threw.state())).toContain("going back failed: no such tab");
    expect(nav.listeners.size).toBe(0);
  });

  it("answers an abandoned navigation after abandonedMs, unless another navigation replaces it", async () => {
    vi.useFakeTimers();
    const nav = new FakeNav();
    const w = track(waitForNewPage(nav.deps(), 5, "navigating", started, { failAbandoned: "data:text/html,x" }));
    nav.emit(5, { kind: "start", url: "data:text/html,x" });
    nav.emit(5, { kind: "error", url: "data:text/html,x", error: "net::ERR_ABORTED" });
    await vi.advanceTimersByTimeAsync(T.abandonedMs + 1);
    expect(w.state()).toEqual(new Error(abandonedNavigationError("data:text/html,x", "https://a.example/")));

    const replaced = track(waitForNewPage(nav.deps(), 6, "navigating", started, { failAbandoned: "https://a.example/old" }));
    nav.emit(6, { kind: "error", url: "https://a.example/old", error: "net::ERR_ABORTED" });
    await vi.advanceTimersByTimeAsync(T.abandonedMs - 1);
    nav.emit(6, { kind: "start", url: "https://a.example/new" });
    await vi.advanceTimersByTimeAsync(T.abandonedMs);
    expect(replaced.state()).toBe("pending");
    nav.emit(6, { kind: "commit", url: "https://a.example/new" });
    nav.emit(6, { kind: "complete", url: "https://a.example/new" });
    await vi.advanceTimersByTimeAsync(0);
    expect(replaced.state()).toBe("resolved");
  });

  it("fails without a commit after pageTimeoutMs; accepts a committed page that never loads after loadAfterCommitMs", async () => {
    vi.useFakeTimers();
    const nav = new FakeNav();
    const never = track(waitForNewPage(nav.deps(), 5, "navigating to x", started));
    const committed = track(waitForNewPage(nav.deps(), 6, "navigating to y", started));
    nav.emit(6, { kind: "commit", url: "https://y.example/" });
    await vi.advanceTimersByTimeAsync(T.loadAfterCommitMs - 1);
    expect(committed.state()).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    expect(committed.state()).toBe("resolved");
    await vi.advanceTimersByTimeAsync(T.pageTimeoutMs - T.loadAfterCommitMs - 1);
    expect(never.state()).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    expect(String(never.state())).toContain(`navigating to x did not load a new page within ${T.pageTimeoutMs / 1000} s`);
  });

  it("fails with noStartError when nothing starts within startMs", async () => {
    vi.useFakeTimers();
    const nav = new FakeNav();
    const none = track(waitForNewPage(nav.deps(), 5, "going back", started, { noStartError: "there is no previous page" }));
    const went = track(waitForNewPage(nav.deps(), 6, "going back", started, { noStartError: "there is no previous page" }));
    nav.emit(6, { kind: "start", url: "https://a.example/before" });
    await vi.advanceTimersByTimeAsync(T.startMs);
    expect(String(none.state())).toContain("there is no previous page");
    expect(went.state()).toBe("pending");
  });

  it("stops waiting for the load of a committed page that stops answering the probe", async () => {
    vi.useFakeTimers();
    const nav = new FakeNav();
    const w = track(waitForNewPage(nav.deps(), 5, "navigating", started));
    nav.emit(5, { kind: "commit", url: "https://a.example/alert-on-load" });
    await vi.advanceTimersByTimeAsync(5000);
    expect(nav.probes).toBe(1);
    expect(w.state()).toBe("pending"); // it answered
    nav.responsive = false;
    await vi.advanceTimersByTimeAsync(5000);
    expect(nav.probes).toBe(2);
    expect(w.state()).toBe("resolved");
  });

  it("stops when the signal aborts, already or later, and removes its listener", async () => {
    vi.useFakeTimers();
    const nav = new FakeNav();
    const already = track(waitForNewPage(nav.deps(), 5, "reloading", started, { signal: AbortSignal.abort() }));
    const ctl = new AbortController();
    const later = track(waitForNewPage(nav.deps(), 6, "reloading", started, { signal: ctl.signal }));
    ctl.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(String(already.state())).toContain("reloading was cancelled by the server");
    expect(String(later.state())).toContain("reloading was cancelled by the server");
    expect(nav.listeners.size).toBe(0);
  });
});
