import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ANIMATION_WAIT_MAX_MS, runningAnimations, untilAtRest } from "./at-rest";
import { RefRegistry } from "./refs";
import { ConsoleBuffer } from "./console";
import { handleOp, type PageContext } from "./handler";

beforeEach(() => {
  vi.useFakeTimers();
  document.body.innerHTML = "";
});
afterEach(() => vi.useRealTimers());

/** A fake Web Animation (happy-dom has none): finish() ends it. */
function fakeAnimation(opts: { endTime?: number; playState?: AnimationPlayState } = {}) {
  let finish!: () => void, abort!: (e: Error) => void;
  const finished = new Promise<void>((resolve, reject) => ((finish = resolve), (abort = reject)));
  const a = {
    playState: opts.playState ?? "running",
    effect: { getComputedTiming: () => ({ endTime: opts.endTime ?? 500 }) },
    finished,
  };
  return {
    anim: a as unknown as Animation,
    finish: () => {
      a.playState = "finished";
      finish();
    },
    /** cancel(): finished rejects with an AbortError. */
    cancel: () => {
      a.playState = "idle";
      abort(new Error("AbortError"));
    },
  };
}

function animate(el: Element, ...anims: Animation[]): void {
  (el as Element & { getAnimations: () => Animation[] }).getAnimations = () => anims.filter((a) => a.playState === "running" || a.playState === "finished");
}

// happy-dom lays nothing out: the element the person sees gets a box of its own.
function showAt(el: Element, left: number, top: number, width = 100, height = 20): void {
  Object.defineProperty(el, "getBoundingClientRect", {
    configurable: true,
    value: () => ({ left, top, width, height, right: left + width, bottom: top + height, x: left, y: top, toJSON: () => ({}) }),
  });
}

/** Whether p has settled once the microtasks queued so far ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("untilAtRest", () => {
  it("finds animations on the element drawn inside a shadow tree through its slot", () => {
    document.body.innerHTML = `<x-select id="host"><x-option id="opt">Team</x-option></x-select>`;
    const host = document.getElementById("host")!;
    const root = host.attachShadow({ mode: "open" });
    root.innerHTML = `<div id="surface"><slot></slot></div>`;
    const surface = root.getElementById("surface")!;
    const opt = document.getElementById("opt")!;
    const grow = fakeAnimation();
    animate(surface, grow.anim);
    // Not every DOM gives assignedSlot: the fake DOM may lack it, so give it.
    if (opt.assignedSlot === undefined || opt.assignedSlot === null) Object.defineProperty(opt, "assignedSlot", { value: root.querySelector("slot") });
    expect(runningAnimations(opt)).toEqual([grow.anim]);
  });

  it("waits for the running animations of the element and its ancestors to end", async () => {
    document.body.innerHTML = `<div id="menu"><div id="item">Team</div></div>`;
    const fadeIn = fakeAnimation(), grow = fakeAnimation();
    animate(document.getElementById("item")!, fadeIn.anim);
    animate(document.getElementById("menu")!, grow.anim);
    const wait = untilAtRest(document.getElementById("item")!);
    expect(await settled(wait)).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    fadeIn.finish();
    expect(await settled(wait)).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    grow.finish();
    expect(await settled(wait)).toBe(true);
    expect(await wait).toBe(300);
  });

  it("ends its wait when the animation is cancelled", async () => {
    document.body.innerHTML = `<div id="b">x</div>`;
    const slide = fakeAnimation();
    animate(document.getElementById("b")!, slide.anim);
    const wait = untilAtRest(document.getElementById("b")!);
    await vi.advanceTimersByTimeAsync(100);
    expect(await settled(wait)).toBe(false);
    slide.cancel();
    expect(await settled(wait)).toBe(true);
    expect(await wait).toBe(100);
  });

  it("never waits for an endless or paused animation, nor longer than the cap", async () => {
    document.body.innerHTML = `<div id="a"><div id="b">x</div></div>`;
    animate(document.getElementById("a")!, fakeAnimation({ endTime: Infinity }).anim, fakeAnimation({ playState: "paused" }).anim);
    expect(await settled(untilAtRest(document.getElementById("b")!))).toBe(true);
    const stuck = fakeAnimation({ endTime: 60_000 });
    animate(document.getElementById("b")!, stuck.anim);
    const wait = untilAtRest(document.getElementById("b")!);
    await vi.advanceTimersByTimeAsync(ANIMATION_WAIT_MAX_MS - 1);
    expect(await settled(wait)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(wait)).toBe(true);
  });

  it("never waits in a hidden document (no frames: its animations would not end)", async () => {
    document.body.innerHTML = `<div id="b">x</div>`;
    animate(document.getElementById("b")!, fakeAnimation().anim);
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    try {
      expect(await settled(untilAtRest(document.getElementById("b")!))).toBe(true);
    } finally {
      delete (document as { visibilityState?: unknown }).visibilityState;
    }
    expect(document.visibilityState).toBe("visible");
  });

  it("holds the debugger mode's click check until the menu has opened", async () => {
    document.body.innerHTML = `<div id="menu" role="listbox"><div id="opt" role="option">Team</div></div>`;
    const opt = document.getElementById("opt")!;
    showAt(document.body, 0, 0, 800, 600);
    showAt(opt, 0, 40, 100, 20);
    const fadeIn = fakeAnimation();
    animate(opt, fadeIn.anim);
    const refs = new RefRegistry();
    const ctx: PageContext = { doc: document, refs, logs: new ConsoleBuffer() };
    const check = handleOp(ctx, "click_check", { ref: refs.refFor(opt) });
    expect(await settled(check)).toBe(false);
    fadeIn.finish();
    expect(await settled(check)).toBe(true);
    const box = await check;
    expect("visible" in box && box.visible).toEqual({ x: 0, y: 40, width: 100, height: 20 });
  });
});
