// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConsoleBuffer } from "./console";
import { handleOp, type PageContext } from "./handler";
import { RefRegistry } from "./refs";
import { SETTLE_MAX_MS, SETTLE_QUIET_MS, settleDom } from "./settle";

beforeEach(() => {
  document.body.innerHTML = `<div id="out"></div>`;
});

const out = () => document.getElementById("out")!;

/**
 * Drives the fake clock a millisecond at a time until p has resolved (each
 * step also lets real callbacks such as happy-dom's animation frames run),
 * then returns its value and the fake time it took. Fails after 10 s of fake
 * time instead of hanging.
 */
async function drive<T>(p: Promise<T>): Promise<{ value: T; took: number }> {
  const t0 = performance.now();
  let done: { value: T } | undefined;
  void p.then((value) => (done = { value }));
  for (let i = 0; i < 10_000 && !done; i++) await vi.advanceTimersByTimeAsync(1);
  if (!done) throw new Error("did not resolve within 10 s of fake time");
  return { value: done.value, took: performance.now() - t0 };
}

describe("settleDom", () => {
  // The page's timers, the settle's sleeps and performance.now() run on a
  // fake clock: the outcome depends on the order of events only, never on
  // how busy the machine is. Animation frames stay happy-dom's (a task turn).
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("has small bounds: quiet well under the cap", () => {
    expect(SETTLE_QUIET_MS).toBeLessThan(SETTLE_MAX_MS);
    expect(SETTLE_MAX_MS).toBeLessThanOrEqual(500);
  });

  it("returns quickly on a quiet page (before the cap)", async () => {
    const { value, took } = await drive(settleDom(document, { quietMs: 20, maxMs: 400 }));
    expect(value).toBe("quiet");
    expect(took).toBeLessThan(400);
  });

  it("a page that did not change is watched only for the short idle window; one that changed, for the quiet window", async () => {
    const asked: number[] = [];
    const sleep = (ms: number) => {
      asked.push(ms);
      return new Promise<void>((r) => setTimeout(r, ms));
    };
    expect((await drive(settleDom(document, { quietMs: 200, idleMs: 10, maxMs: 1000, sleep }))).value).toBe("quiet");
    // The idle window and a rounding slack, far below the 200 ms quiet window.
    expect(asked.reduce((a, b) => a + b, 0)).toBeLessThan(20);

    asked.length = 0;
    // The page re-renders right after the action (a microtask, before the first frame).
    void Promise.resolve().then(() => (out().textContent = "rendered"));
    expect((await drive(settleDom(document, { quietMs: 200, idleMs: 10, maxMs: 1000, sleep }))).value).toBe("quiet");
    expect(Math.max(...asked)).toBeGreaterThan(100);
  });

  it("waits while the page keeps changing, up to the cap", async () => {
    const log: string[] = [];
    let n = 0;
    const tick = setInterval(() => {
      n++;
      out().textContent = `tick ${n}`;
      if (n % 2) out().setAttribute("data-n", String(n));
    }, 5);
    const { value: outcome, took } = await drive(settleDom(document, { quietMs: 40, maxMs: 200 }));
    log.push(`settled after ${n >= 10 ? "many" : n} mutations`);
    clearInterval(tick);
    expect(outcome).toBe("capped");
    expect(took).toBeGreaterThanOrEqual(200);
    expect(log).toEqual(["settled after many mutations"]);
  });

  it("waits out a short burst of changes, then returns once it is quiet", async () => {
    const log: string[] = [];
    // The page renders in steps after the action (a render tick, then timers),
    // each well within the quiet period of the one before.
    queueMicrotask(() => out().append(document.createElement("p")));
    const p = () => out().firstChild as HTMLParagraphElement;
    setTimeout(() => (p().textContent = "loading", log.push("step 1")), 40);
    setTimeout(() => (p().className = "busy", log.push("step 2")), 80);
    setTimeout(() => ((p().firstChild as Text).data = "almost", log.push("step 3")), 120);
    setTimeout(() => ((p().firstChild as Text).data = "done", log.push("step 4")), 160);
    const { value: outcome, took } = await drive(settleDom(document, { quietMs: 100, maxMs: 5000 }));
    log.push(outcome);
    expect(took).toBeGreaterThanOrEqual(260); // the last step, then the quiet window
    expect(log).toEqual(["step 1", "step 2", "step 3", "step 4", "quiet"]);
    expect(out().textContent).toBe("done");
  });

  it("lets an animation frame the page asked for run before it answers", async () => {
    const log: string[] = [];
    requestAnimationFrame(() => log.push("frame"));
    log.push((await drive(settleDom(document, { quietMs: 1, maxMs: 50 }))).value);
    expect(log).toEqual(["frame", "quiet"]);
  });

  it("waits with the sleep it is given (the service worker's, in hidden tabs), a few times only", async () => {
    let sleeps = 0;
    let n = 0;
    const tick = setInterval(() => (out().textContent = `tick ${++n}`), 5);
    const { value: outcome } = await drive(settleDom(document, {
      quietMs: 30,
      maxMs: 150,
      sleep: (ms) => {
        sleeps++;
        return new Promise((r) => setTimeout(r, ms));
      },
    }));
    clearInterval(tick);
    expect(outcome).toBe("capped");
    expect(sleeps).toBeGreaterThan(0);
    expect(sleeps).toBeLessThan(20);
  });

  it("answers when its sleep fails instead of hanging", async () => {
    const { value: outcome } = await drive(settleDom(document, { quietMs: 30, maxMs: 150, sleep: () => Promise.reject(new Error("gone")) }));
    expect(outcome).toBe("capped");
  });

  it("stops observing once settled", async () => {
    const disconnect = vi.spyOn(MutationObserver.prototype, "disconnect");
    await drive(settleDom(document, { quietMs: 1, maxMs: 50 }));
    expect(disconnect).toHaveBeenCalled();
    disconnect.mockRestore();
  });
});

describe("handleOp settles after actions only", () => {
  function ctxWith(settle: () => Promise<unknown>): PageContext {
    return { doc: document, refs: new RefRegistry(), logs: new ConsoleBuffer(), settle };
  }

  it("settles after click, type, select, press_key, hover, scroll and drag; not after reads or refused actions", async () => {
    document.body.innerHTML = `<button id="b">Go</button><input id="t"><select id="s"><option>a</option><option>b</option></select><div id="d">x</div>`;
    const log: string[] = [];
    const ctx = ctxWith(async () => {
      log.push("settle");
    });
    const ref = (sel: string) => ctx.refs.refFor(document.querySelector(sel)!);
    document.getElementById("b")!.addEventListener("click", () => log.push("clicked"));
    await handleOp(ctx, "click", { ref: ref("#b") });
    await handleOp(ctx, "type", { ref: ref("#t"), text: "hi" });
    await handleOp(ctx, "select", { ref: ref("#s"), values: ["b"] });
    await handleOp(ctx, "press_key", { key: "a" });
    await handleOp(ctx, "hover", { ref: ref("#b") });
    await handleOp(ctx, "scroll", { direction: "down" });
    // The drag's release lands on #d (its click goes to their common ancestor, not to #b).
    document.elementFromPoint = () => document.getElementById("d");
    await handleOp(ctx, "drag", { startRef: ref("#b"), endRef: ref("#d") });
    expect(log).toEqual(["clicked", "settle", "settle", "settle", "settle", "settle", "settle", "settle"]);
    log.length = 0;
    await handleOp(ctx, "snapshot", {});
    await handleOp(ctx, "get_text", {});
    await handleOp(ctx, "console_logs", {});
    await expect(handleOp(ctx, "click", { ref: "e999" })).rejects.toThrow(/not found/);
    expect(log).toEqual([]);
  });
});
