// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { installPageHooks } from "./page-hooks";
import { parseWork, trackPageWork, workProbe, WORK_TIMER_MAX_MS } from "./pagework";
import { settleDom } from "./settle";

const win = window as unknown as Window & typeof globalThis;
const w = win as unknown as Record<string, unknown>;

// The page's timers, the settle's sleeps and performance.now() run on a fake
// clock: what is asserted depends on the order of events, never on how busy
// the machine is. Animation frames stay happy-dom's (a task turn).
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * Drives the fake clock a millisecond at a time until p has resolved, then
 * returns its value and the fake time it took (fails after 10 s of it).
 */
async function drive<T>(p: Promise<T>): Promise<{ value: T; took: number }> {
  const t0 = performance.now();
  let done: { value: T } | undefined;
  void p.then((value) => (done = { value }));
  for (let i = 0; i < 10_000 && !done; i++) await vi.advanceTimersByTimeAsync(1);
  if (!done) throw new Error("did not resolve within 10 s of fake time");
  return { value: done.value, took: performance.now() - t0 };
}

/** A request the test finishes by hand, standing in for the network. */
function pendingFetch(): { fetch: () => Promise<string>; finish: () => void } {
  let finish = () => {};
  return {
    fetch: () =>
      new Promise<string>((resolve) => {
        finish = () => resolve("body");
      }),
    finish: () => finish(),
  };
}

describe("the page's work during an action (MAIN-world hooks ↔ isolated probe)", () => {
  it("counts short timers, frames and requests started during the action, and nothing else; natives come back when unshared", async () => {
    const net = pendingFetch();
    w.fetch = net.fetch;
    const nativeSetTimeout = win.setTimeout;
    const hooks = installPageHooks(win, () => {}).hooks!;
    const probe = workProbe(document);
    expect(probe.query()).toEqual({ pending: 0, lastDone: -1, requests: 0, layout: true }); // hooks after load: cannot know

    // Started before the action: the page's routine, never counted.
    const clock = win.setTimeout(() => {}, 5);
    probe.begin();
    expect(probe.query()!.pending).toBe(0);

    const ran: string[] = [];
    win.setTimeout(() => ran.push("tick"), 5);
    win.setTimeout(() => ran.push("debounce"), WORK_TIMER_MAX_MS + 200); // too long to wait for
    const cancelled = win.setTimeout(() => ran.push("never"), 5);
    win.clearTimeout(cancelled);
    const framed = new Promise<void>((r) =>
      win.requestAnimationFrame(() => {
        ran.push("frame");
        r();
      }),
    );
    const body = (w.fetch as () => Promise<string>)();
    expect(probe.query()).toMatchObject({ pending: 3, requests: 1 }); // tick, frame, the request

    await vi.advanceTimersByTimeAsync(5); // the page's 5 ms timer
    await framed;
    expect(ran).toEqual(expect.arrayContaining(["tick", "frame"]));
    expect(probe.query()!.pending).toBe(1); // the request
    net.finish();
    expect(await body).toBe("body");
    await Promise.resolve();
    const after = probe.query()!;
    expect(after.pending).toBe(0);
    expect(after.lastDone).toBeGreaterThan(0);
    probe.end();
    win.clearTimeout(clock);

    // Unshared: the page's own functions are back, and nothing is counted.
    hooks.deactivate();
    expect(win.setTimeout).toBe(nativeSetTimeout);
    expect(w.fetch).toBe(net.fetch);
    probe.begin();
    win.setTimeout(() => {}, 1);
    expect(probe.query()!.pending).toBe(0);
    probe.end();
  });

  it("tells whether the page observes layout (its frame work unannounced)", () => {
    // The hooks came after the page loaded (as in the test above): they cannot know.
    expect(workProbe(document).query()!.layout).toBe(true);
    // A window whose hooks arrive while its document is still loading.
    const doc = document.implementation.createHTMLDocument("loading");
    Object.defineProperty(doc, "readyState", { value: "loading" });
    class Observer {
      observe(): void {}
    }
    const fake = { document: doc, performance, ResizeObserver: Observer } as unknown as Window & typeof globalThis;
    const put = (obj: Record<string, unknown>, key: string, ours: unknown) => {
      obj[key] = ours;
    };
    trackPageWork(fake, put, () => true, true);
    const probe = workProbe(doc);
    expect(probe.query()!.layout).toBe(false); // seen from the start, nothing observed
    new Observer().observe();
    expect(probe.query()!.layout).toBe(true);
  });

  it("answers nothing where no hooks listen, and rejects malformed answers", () => {
    const other = document.implementation.createHTMLDocument("x");
    expect(workProbe(other).query()).toBeUndefined();
    expect(parseWork("2,10.5,1,0")).toEqual({ pending: 2, lastDone: 10.5, requests: 1, layout: false });
    expect(parseWork("2,10.5,1")).toEqual({ pending: 2, lastDone: 10.5, requests: 1, layout: true });
    expect(parseWork("1,1,2")).toBeUndefined();
    expect(parseWork("x,1")).toBeUndefined();
    expect(parseWork("-1,1")).toBeUndefined();
    expect(parseWork(3)).toBeUndefined();
  });
});

describe("settleDom with the page's work known", () => {
  it("waits exactly for the pending work, not for fixed windows", async () => {
    let pending = 1;
    let lastDone = -1;
    setTimeout(() => {
      pending = 0;
      lastDone = performance.now();
      document.body.textContent = "loaded";
    }, 80);
    // Windows far longer than the work: they must not be what is waited for.
    const { value: outcome, took } = await drive(settleDom(document, { quietMs: 400, idleMs: 400, maxMs: 2000, work: () => ({ pending, lastDone, requests: 0, layout: true }) }));
    expect(outcome).toBe("quiet");
    expect(document.body.textContent).toBe("loaded");
    expect(took).toBeGreaterThanOrEqual(79);
    expect(took).toBeLessThan(400);
  });

  it("answers at once when the page started nothing and changed nothing, and skips the frame only when told", async () => {
    const idle = () => ({ pending: 0, lastDone: -1, requests: 0, layout: false });
    const asked = vi.spyOn(window, "requestAnimationFrame");
    const first = await drive(settleDom(document, { quietMs: 400, idleMs: 400, maxMs: 2000, work: idle, frame: "asked" }));
    expect(first.value).toBe("quiet");
    expect(first.took).toBeLessThan(200);
    expect(asked).not.toHaveBeenCalled();
    expect((await drive(settleDom(document, { quietMs: 400, idleMs: 400, maxMs: 2000, work: idle }))).value).toBe("quiet");
    expect(asked).toHaveBeenCalled();
    asked.mockClear();
    // "layout": skipped for a page that does not observe layout, kept for one that does.
    expect((await drive(settleDom(document, { maxMs: 2000, work: idle, frame: "layout" }))).value).toBe("quiet");
    expect(asked).not.toHaveBeenCalled();
    expect((await drive(settleDom(document, { maxMs: 2000, work: () => ({ ...idle(), layout: true }), frame: "layout" }))).value).toBe("quiet");
    expect(asked).toHaveBeenCalled();
    asked.mockRestore();
  });

  it("is capped while the work never ends; requests get the longer bound", async () => {
    const timers = await drive(settleDom(document, { maxMs: 60, requestMaxMs: 250, work: () => ({ pending: 2, lastDone: -1, requests: 0, layout: true }) }));
    expect(timers.value).toBe("capped");
    expect(timers.took).toBeLessThan(240);
    const requests = await drive(settleDom(document, { maxMs: 60, requestMaxMs: 250, work: () => ({ pending: 2, lastDone: -1, requests: 1, layout: true }) }));
    expect(requests.value).toBe("capped");
    expect(requests.took).toBeGreaterThanOrEqual(245);
  });
});
