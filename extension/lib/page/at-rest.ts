// The debugger mode's real click lands at a point (issue 41): on an element
// still moving or fading in — a menu opening with an animation, as Material
// Web's md-select does for 500 ms — the point shows something else, or
// nothing yet, and the click's checks rightly refuse it. A person waits for
// the menu to open; so does the click: until no finite animation runs on the
// element or on an element it is drawn inside (its flat-tree ancestors,
// through slots and shadow hosts), at most ANIMATION_WAIT_MAX_MS. Endless
// animations (a spinner) and paused ones are not waited for, nor anything in
// a hidden document (it renders no frames, so its animations would not end).

/** The longest a real click waits for animations on its element and the elements it is drawn inside. */
export const ANIMATION_WAIT_MAX_MS = 1000;

/** el, then the elements it is drawn inside: its assigned slot, else its parent, else its shadow root's host. */
function flatChain(el: Element): Element[] {
  const out: Element[] = [];
  for (let e: Element | null = el; e !== null && out.length < 500; ) {
    out.push(e);
    const slot: HTMLSlotElement | null | undefined = (e as Element & { assignedSlot?: HTMLSlotElement | null }).assignedSlot;
    if (slot) {
      e = slot;
      continue;
    }
    if (e.parentElement) {
      e = e.parentElement;
      continue;
    }
    const root: ParentNode | null = e.parentNode;
    e = root && root.nodeType === 11 ? ((root as ShadowRoot).host ?? null) : null;
  }
  return out;
}

/** Whether a is running and ends (not an endless or paused animation). */
function runsToAnEnd(a: Animation): boolean {
  if (a.playState !== "running") return false;
  const end = a.effect?.getComputedTiming().endTime;
  return typeof end === "number" && Number.isFinite(end);
}

/** The finite animations running on el and the elements it is drawn inside. */
export function runningAnimations(el: Element): Animation[] {
  const out: Animation[] = [];
  for (const e of flatChain(el)) {
    const list = typeof e.getAnimations === "function" ? e.getAnimations() : [];
    for (const a of list) if (runsToAnEnd(a)) out.push(a);
  }
  return out;
}

/**
 * Waits until no finite animation runs on el or the elements it is drawn
 * inside (new ones started meanwhile too), at most maxMs; answers the ms waited.
 */
export async function untilAtRest(el: Element, maxMs = ANIMATION_WAIT_MAX_MS): Promise<number> {
  // A hidden document renders no frames: its animations would not end while we wait.
  if (el.ownerDocument.visibilityState === "hidden") return 0;
  const start = Date.now();
  // Bounded in rounds too: an animation that ended yet still reads as running never spins here.
  for (let round = 0; ; round++) {
    const running = runningAnimations(el);
    const left = start + maxMs - Date.now();
    if (running.length === 0 || left <= 0 || round === 20) return Date.now() - start;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      // Settled either way: a cancelled animation rejects finished, and no longer runs either.
      Promise.allSettled(running.map((a) => a.finished)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, left))),
    ]);
    clearTimeout(timer);
  }
}
