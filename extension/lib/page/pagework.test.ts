// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { installPageHooks } from "./page-hooks";
import { parseWork, trackPageWork, workProbe, WORK_TIMER_MAX_MS } from "./pagework";
import { settleDom } from "./settle";

const win = window as unknown as Window & typeof globalThis;
const w = win as unknown as Record<string, unknown>;

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
    win.requestAnimationFrame(() => ran.push("frame"));
    const body = (w.fetch as () => Promise<string>)();
    expect(probe.query()).toMatchObject({ pending: 3, requests: 1 }); // tick, frame, the request

    await new Promise((r) => nativeSetTimeout(r, 60));
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
    const t0 = performance.now();
    // Windows far longer than the work: they must not be what is waited for.
    const outcome = await settleDom(document, { quietMs: 400, idleMs: 400, maxMs: 2000, work: () => ({ pending, lastDone, requests: 0, layout: true }) });
    const took = performance.now() - t0;
    expect(outcome).toBe("quiet");
    expect(document.body.textContent).toBe("loaded");
    expect(took).toBeGreaterThanOrEqual(79);
    expect(took).toBeLessThan(400);
  });

  it("answers at once when the page started nothing and changed nothing, and skips the frame only when told", async () => {
    const idle = () => ({ pending: 0, lastDone: -1, requests: 0, layout: false });
    const asked = vi.spyOn(window, "requestAnimationFrame");
    const t0 = performance.now();
    expect(await settleDom(document, { quietMs: 400, idleMs: 400, maxMs: 2000, work: idle, frame: "asked" })).toBe("quiet");
    expect(performance.now() - t0).toBeLessThan(200);
    expect(asked).not.toHaveBeenCalled();
    expect(await settleDom(document, { quietMs: 400, idleMs: 400, maxMs: 2000, work: idle })).toBe("quiet");
    expect(asked).toHaveBeenCalled();
    asked.mockClear();
    // "layout": skipped for a page that does not observe layout, kept for one that does.
    expect(await settleDom(document, { maxMs: 2000, work: idle, frame: "layout" })).toBe("quiet");
    expect(asked).not.toHaveBeenCalled();
    expect(await settleDom(document, { maxMs: 2000, work: () => ({ ...idle(), layout: true }), frame: "layout" })).toBe("quiet");
    expect(asked).toHaveBeenCalled();
    asked.mockRestore();
  });

  it("is capped while the work never ends; requests get the longer bound", async () => {
    let t0 = performance.now();
    expect(await settleDom(document, { maxMs: 60, requestMaxMs: 250, work: () => ({ pending: 2, lastDone: -1, requests: 0, layout: true }) })).toBe("capped");
    expect(performance.now() - t0).toBeLessThan(240);
    t0 = performance.now();
    expect(await settleDom(document, { maxMs: 60, requestMaxMs: 250, work: () => ({ pending: 2, lastDone: -1, requests: 1, layout: true }) })).toBe("capped");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(245);
  });
});
