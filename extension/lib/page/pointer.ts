// The pointer by ref: click, hover and drag, with the pointer, mouse, focus
// and drag events a page listens for, in the order a browser fires them.

import { isOption, parentOrHost, tagOf, windowOf } from "./dom";
import { centerOf, ensureEnabled, mouse, pageTurn, scrollIntoViewCentered, type Point } from "./events";
import { activeIn, blurElement, focusElement, focusTarget, FocusWatch } from "./focus";
import { checkClickable, EffectWatch, isWatchedRole, landsElsewhereError, noEffectError } from "./effect";
import { elementRect } from "./geometry";
import type { ElementBox } from "../messages";
import { PageError, type RefRegistry } from "./refs";
import { chooseOptions } from "./select";
import { nextFrame } from "./settle";
import { clearCapture, Gesture, type Landing } from "./gesture";
import { report } from "../diag";
import { caretInto, cellControlAt, editorBlockHost } from "./editor-caret";
import { untilAtRest } from "./at-rest";

/** The longest one drag phase waits for a frame. */
export const DRAG_FRAME_MAX_MS = 50;

/** Between drag phases: a task turn, then a frame where the page renders frames. */
async function dragPause(win: Window): Promise<void> {
  await pageTurn();
  if (win.document?.visibilityState !== "hidden") await nextFrame(win, DRAG_FRAME_MAX_MS);
  await pageTurn();
}

// The element the pointer was last moved onto, to send it the leave events.
let hovered: WeakRef<Element> | null = null;

export function moveOnto(el: Element, pt: Point): void {
  const prev = hovered?.deref() ?? null;
  crossInto(prev, el, prev && prev.isConnected ? centerOf(prev) : pt, pt, 0);
  mouse(el, "pointermove", pt);
  mouse(el, "mousemove", pt);
  hovered = new WeakRef(el);
}

/**
 * The pointer passes from prev (null: from nowhere) onto el: out and leave
 * on prev, over and enter on el, with buttons held (a drag crossing
 * elements).
 */
export function crossInto(prev: Element | null, el: Element, prevPt: Point, pt: Point, buttons: number): void {
  if (prev && prev !== el && prev.isConnected && !prev.contains(el)) {
    mouse(prev, "pointerout", prevPt, { relatedTarget: el, buttons });
    mouse(prev, "pointerleave", prevPt, { relatedTarget: el, buttons });
    mouse(prev, "mouseout", prevPt, { relatedTarget: el, buttons });
    mouse(prev, "mouseleave", prevPt, { relatedTarget: el, buttons });
  }
  const related = prev && prev.isConnected ? prev : null;
  mouse(el, "pointerover", pt, { relatedTarget: related, buttons });
  mouse(el, "pointerenter", pt, { relatedTarget: related, buttons });
  mouse(el, "mouseover", pt, { relatedTarget: related, buttons });
  mouse(el, "mouseenter", pt, { relatedTarget: related, buttons });
}

/** The element the pointer is now over (a gesture moved it there). */
export function setHovered(el: Element): void {
  hovered = new WeakRef(el);
}

/**
 * Clicks the element behind ref. A click a person could not have made
 * (invisible target) or one that should select something is checked for an
 * effect (effect.ts); settle, when given, lets the page answer first.
 */
export async function click(refs: RefRegistry, ref: string, settle?: () => Promise<unknown>): Promise<void> {
  const el = refs.resolve(ref);
  ensureEnabled(el, ref, "clicked");
  // An <option> inside a <select> is chosen, not clicked: the list is native UI.
  if (isOption(el)) {
    const select = el.closest("select");
    if (select) {
      chooseOptions(select, [el]);
      return;
    }
  }
  scrollIntoViewCentered(el);
  const invisible = checkClickable(refs, ref, el);
  const doc = el.ownerDocument;
  const effects = invisible !== null || isWatchedRole(el) ? new EffectWatch(doc) : null;
  const pt = centerOf(el);
  // A cell's ref clicks the control the cell holds at its center, as a real click would.
  const hit = cellControlAt(el, pt) ?? el;
  moveOnto(hit, pt);
  const watch = new FocusWatch(doc);
  try {
    await pressAndRelease(hit, pt, watch);
  } finally {
    watch.stop();
  }
  // A block of an editor: the caret goes into it, as a person's click puts it.
  if (el.isConnected && editorBlockHost(el) !== null) caretInto(el);
  if (effects) {
    let changed: boolean;
    try {
      if (settle) await settle();
    } finally {
      changed = effects.stop();
    }
    if (!changed) throw noEffectError(ref, el, invisible);
  }
}

/**
 * The debugger mode's click (entrypoints/background/trusted-input.ts) is real
 * input at the element's center, sent by the service worker between two ops:
 * click_check, which makes the checks of click() above and starts the same
 * effect watch, and click_effect, which settles and gives the verdict. The
 * watch lives here between the two (one click at a time per document).
 */
let trustedClick: { ref: string; el: Element; invisible: string | null; effects: EffectWatch } | null = null;

/**
 * click_check: scrolls ref's element into view (unless scroll is false: the
 * service worker scrolled a frame ref's frames itself) and makes click()'s checks
 * (a disabled element, an invisible copy with a visible twin); an invisible
 * element whose place shows another element is refused too (the real click
 * would land there). An element still moving or fading in (a menu opening)
 * is waited for first, as a person would (at-rest.ts). Returns the box to click.
 */
export async function beginTrustedClick(refs: RefRegistry, ref: string, scroll = true): Promise<ElementBox | { dom: true }> {
  trustedClick?.effects.stop();
  trustedClick = null;
  const el = refs.resolve(ref);
  ensureEnabled(el, ref, "clicked");
  // A canvas's fallback content has no box (the canvas draws what it shows):
  // no point reaches it, so it is clicked as without the debugger.
  if (inCanvasFallback(el)) return { dom: true };
  await untilAtRest(el);
  if (scroll) scrollIntoViewCentered(el);
  const invisible = checkClickable(refs, ref, el);
  if (invisible !== null) {
    const hit = hitAtCenter(el);
    if (hit !== null && hit !== el && !el.contains(hit)) throw landsElsewhereError(ref, el, invisible, hit);
  }
  const box = elementRect(refs, ref, false);
  if (invisible !== null || isWatchedRole(el)) trustedClick = { ref, el, invisible, effects: new EffectWatch(el.ownerDocument) };
  return box;
}

/** Whether el is inside a <canvas> (its fallback content) and has no box of its own. */
function inCanvasFallback(el: Element): boolean {
  if (el.parentElement?.closest("canvas") == null) return false;
  const r = el.getBoundingClientRect();
  return r.width === 0 && r.height === 0;
}

/** click_effect: after the real input, lets the page settle, then says whether the watched click did anything. */
export async function endTrustedClick(ref: string, settle?: () => Promise<unknown>): Promise<void> {
  const watched = trustedClick !== null && trustedClick.ref === ref ? trustedClick : null;
  let changed = true;
  try {
    if (settle) await settle();
  } finally {
    if (watched) changed = watched.effects.stop();
    if (trustedClick === watched) trustedClick = null;
  }
  if (watched && !changed) throw noEffectError(ref, watched.el, watched.invisible);
}

/** The element the page shows at the center of el's visible part (where a real click on el lands). */
function hitAtCenter(el: Element): Element | null {
  const win = windowOf(el);
  const r = el.getBoundingClientRect();
  const left = Math.max(0, r.left), right = Math.min(win.innerWidth, r.right);
  const top = Math.max(0, r.top), bottom = Math.min(win.innerHeight, r.bottom);
  if (right <= left || bottom <= top) return null;
  return el.ownerDocument.elementFromPoint?.((left + right) / 2, (top + bottom) / 2) ?? null;
}

async function pressAndRelease(el: Element, pt: Point, watch: FocusWatch): Promise<void> {
  const doc = el.ownerDocument;
  const pointerOk = mouse(el, "pointerdown", pt, { buttons: 1, detail: 1 });
  // A cancelled pointerdown suppresses the compatibility mouse events (not the click).
  const downOk = pointerOk ? mouse(el, "mousedown", pt, { buttons: 1, detail: 1 }) : false;
  if (downOk) {
    const target = focusTarget(el);
    if (target) {
      focusElement(target);
    } else {
      const active = activeIn(el) as HTMLElement | null;
      if (active && active !== doc.body && !active.contains(el)) blurElement(active);
    }
  }
  watch.sync();
  // The press and the release are separate tasks for the page (menus that
  // open on pointerdown render before the pointerup arrives).
  await pageTurn();
  watch.sync();
  const up = el.isConnected ? el : (doc.elementFromPoint?.(pt.x, pt.y) ?? el);
  mouse(up, "pointerup", pt, { detail: 1 });
  if (pointerOk) mouse(up, "mouseup", pt, { detail: 1 });
  // A click event runs the element's activation behaviour even when untrusted:
  // checkboxes toggle, links navigate, submit buttons submit, labels forward.
  if (up === el) mouse(el, "click", pt, { detail: 1 });
  watch.sync();
  await pageTurn();
}

export function hover(refs: RefRegistry, ref: string): void {
  const el = refs.resolve(ref);
  try {
    (el as HTMLElement).scrollIntoView?.({ block: "nearest", inline: "nearest", behavior: "instant" as ScrollBehavior });
  } catch (e) {
    report("page: scrolling a hovered element into view", e);
  }
  moveOnto(el, centerOf(el));
}

// ---------- drag ----------

function dragEvent(el: Element, type: string, pt: Point, dt: DataTransfer | null): boolean {
  const win = windowOf(el);
  const init = {
    bubbles: true,
    cancelable: type !== "dragend" && type !== "dragleave",
    composed: true,
    view: win,
    clientX: pt.x,
    clientY: pt.y,
    screenX: pt.x,
    screenY: pt.y,
    dataTransfer: dt,
  };
  let ev: Event;
  if (typeof win.DragEvent === "function") {
    ev = new win.DragEvent(type, init);
    if ((ev as DragEvent).dataTransfer !== dt) Object.defineProperty(ev, "dataTransfer", { value: dt });
  } else {
    ev = new win.MouseEvent(type, init);
    Object.defineProperty(ev, "dataTransfer", { value: dt });
  }
  return el.dispatchEvent(ev);
}

/** The element a browser would start an HTML5 drag from, if any. */
export function html5DragSource(el: Element): Element | null {
  for (let e: Element | null = el; e; e = parentOrHost(e)) {
    const d = e.getAttribute("draggable");
    if (d === "true") return e;
    if (d === "false") return null;
    const t = tagOf(e);
    if ((t === "a" && e.hasAttribute("href")) || t === "img") return e;
  }
  return null;
}

/**
 * Drags start onto end the way a mouse does. Both kinds of drag library are
 * served: HTML5 drag and drop (dragstart … drop, when the source is
 * draggable) and pointer-event libraries (pointerdown, moves past an
 * activation distance, pointerup). The page runs between the phases, with a
 * frame in visible tabs, because drag libraries start on the next tick and
 * find drop targets only after they re-render.
 */
export async function drag(refs: RefRegistry, args: { startRef: string; endRef: string }): Promise<void> {
  const start = refs.resolve(args.startRef);
  const end = refs.resolve(args.endRef);
  ensureEnabled(start, args.startRef, "dragged");
  if (start === end) throw new PageError("startRef and endRef are the same element; drag needs two different elements");
  const doc = start.ownerDocument;
  const win = windowOf(start);
  scrollIntoViewCentered(start);
  const a = centerOf(start);
  // Where to: bring the target into view if it is off-screen (after the press: see dragBetween).
  const b = () => {
    let p = centerOf(end);
    if (p.y < 0 || p.y > win.innerHeight || p.x < 0 || p.x > win.innerWidth) {
      scrollIntoViewCentered(end);
      p = centerOf(end);
    }
    return p;
  };
  await dragBetween(start, a, end, b, (pt) => {
    const el = underPoint(doc, pt);
    return el ? { el, pt } : null;
  });
}

/** The element under pt in doc's viewport, through open shadow roots; null off the viewport. */
function underPoint(doc: Document, pt: Point): Element | null {
  const win = doc.defaultView;
  if (win && (pt.x < 0 || pt.y < 0 || pt.x >= win.innerWidth || pt.y >= win.innerHeight)) return null;
  let el: Element | null = null;
  try {
    el = doc.elementFromPoint?.(pt.x, pt.y) ?? null;
  } catch {
    el = null;
  }
  for (let i = 0; el?.shadowRoot && i < 16; i++) {
    const inner: Element | null = el.shadowRoot.elementFromPoint?.(pt.x, pt.y) ?? null;
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

/**
 * The drag itself, from start at a to b (a point, or a function that gives
 * it once the press is done: a target scrolled into view), over end (null:
 * whatever is under b). at maps a point to the element there. An HTML5
 * drag when the source is draggable, else a pointer gesture (gesture.ts).
 */
export async function dragBetween(start: Element, a: Point, end: Element | null, to: Point | (() => Point), at: (pt: Point) => Landing | null): Promise<void> {
  const doc = start.ownerDocument;
  const win = windowOf(start);
  moveOnto(start, a);
  await pageTurn();
  const g = new Gesture(at, { el: start, pt: a }, undefined, crossInto);
  g.press();
  await dragPause(win);
  const b = typeof to === "function" ? to() : to;
  const fallback = () => end ?? at(b)?.el ?? start;
  // First move: past any activation distance (dnd-kit, SortableJS fallback), toward the target.
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len = Math.hypot(dx, dy);
  const nudge = len >= 1 ? { x: a.x + (dx / len) * 12, y: a.y + (dy / len) * 12 } : { x: a.x, y: a.y + 12 };
  g.moveTo(nudge);

  const dt = typeof win.DataTransfer === "function" ? new win.DataTransfer() : null;
  const source = start.isConnected ? html5DragSource(start) : null;
  const html5 = source !== null && dragEvent(source, "dragstart", nudge, dt);
  if (html5) {
    // The browser now runs the drag: no more pointer events, a pointercancel.
    mouse(start, "pointercancel", nudge, {});
    clearCapture();
    // In a hidden tab the page's timers run once a second (SortableJS starts
    // on a timer and ignores dragover for 30 ms after each move): there the
    // drag waits for one timer turn per phase and goes straight to the target.
    const hidden = doc.visibilityState === "hidden";
    const timerTurn = () => (hidden ? new Promise<void>((r) => setTimeout(r, 0)) : Promise.resolve());
    await dragPause(win);
    await timerTurn();
    let prevOver: Element | null = null;
    let over: Element = source;
    let accepted = false;
    const steps = hidden ? 1 : 4;
    for (let i = 1; i <= steps + 1; i++) {
      const k = Math.min(i, steps);
      const p = { x: nudge.x + ((b.x - nudge.x) * k) / steps, y: nudge.y + ((b.y - nudge.y) * k) / steps };
      dragEvent(source, "drag", p, dt);
      over = at(p)?.el ?? (i >= steps ? fallback() : source);
      if (over !== prevOver) {
        dragEvent(over, "dragenter", p, dt);
        if (prevOver && prevOver.isConnected) dragEvent(prevOver, "dragleave", p, dt);
        prevOver = over;
      }
      // The drop happens only if the target accepted it (cancelled dragover), as in a browser.
      accepted = !dragEvent(over, "dragover", p, dt);
      await dragPause(win);
      if (i < steps) await timerTurn();
    }
    if (accepted) {
      if (dt) {
        try {
          dt.dropEffect = dt.effectAllowed === "copy" ? "copy" : "move";
        } catch (e) {
          report("page: setting a drop effect", e);
        }
      }
      dragEvent(over.isConnected ? over : fallback(), "drop", b, dt);
    } else {
      dragEvent(over, "dragleave", b, dt);
    }
    await pageTurn();
    dragEvent(source.isConnected ? source : start, "dragend", b, dt);
    await pageTurn();
    const upOn = fallback();
    mouse(upOn, "pointerup", b, { detail: 1 });
    mouse(upOn, "mouseup", b, { detail: 1 });
  } else {
    await dragPause(win);
    // Pointer-event libraries follow moves and find drop targets after
    // re-rendering: many moves, each awaited; the last point twice (the
    // target found after the re-render the previous move caused).
    await g.moveAlong(nudge, b);
    g.moveTo(b);
    await dragPause(win);
    g.release(b);
  }
  await pageTurn();
  hovered = new WeakRef(end ?? at(b)?.el ?? start);
}
