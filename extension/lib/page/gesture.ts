// A pressed pointer moving along a path, as canvas apps, sliders and
// pointer-event drag libraries need it (browser_drag_xy, the pointer side of
// browser_drag): pointerdown/mousedown with buttons, many intermediate moves
// with buttons=1, each a separate task of the page (and a frame apart in a
// visible tab: apps that handle moves in requestAnimationFrame see each
// one), each sent to the element under the point (through open shadow roots
// and same-origin frames) unless an element holds the pointer capture, then
// the release and the click. Synthetic pointerdowns do not make
// setPointerCapture work (Chromium ignores it for them), so the page's calls
// are reported by the MAIN-world hooks (page-hooks.ts) to noteCapture here.

import { mouse, pageTurn, type Point } from "./events";
import { nextFrame } from "./settle";
import { windowOf } from "./dom";

/** Moves at most this far apart (CSS px). */
export const MOVE_STEP_PX = 16;
/** At least this many moves, however short the drag (activation distances, "is it a drag" checks). */
export const MIN_MOVES = 8;
/** At most this many moves, however long the drag. */
export const MAX_MOVES = 40;
/** The longest a move waits for a frame. */
export const MOVE_FRAME_MAX_MS = 50;

/** The points after the start a drag from a to b moves through, b last. */
export function dragPath(a: Point, b: Point): Point[] {
  const len = Math.hypot(b.x - a.x, b.y - a.y);
  const n = Math.max(MIN_MOVES, Math.min(MAX_MOVES, Math.ceil(len / MOVE_STEP_PX)));
  const out: Point[] = [];
  for (let i = 1; i <= n; i++) out.push({ x: a.x + ((b.x - a.x) * i) / n, y: a.y + ((b.y - a.y) * i) / n });
  return out;
}

// The element the page captured the pointer to (setPointerCapture), as the
// MAIN-world hooks reported it; released on releasePointerCapture and at the
// end of each gesture (capture ends with the pointerup).
let captured: WeakRef<Element> | null = null;

/** The hooks saw the page call setPointerCapture (on) or releasePointerCapture on el. */
export function noteCapture(el: Element, on: boolean): void {
  if (on) captured = new WeakRef(el);
  else if (captured?.deref() === el) captured = null;
}

/** The element holding the pointer capture, if the page set one that is still in the document. */
export function captureTarget(): Element | null {
  const el = captured?.deref() ?? null;
  return el && el.isConnected ? el : null;
}

export function clearCapture(): void {
  captured = null;
}

/** Between two moves: a task turn and, in a visible tab, a frame (bounded). */
export async function movePause(win: Window): Promise<void> {
  await pageTurn();
  if (win.document?.visibilityState !== "hidden") await nextFrame(win, MOVE_FRAME_MAX_MS);
}

/** Where a point lands: the element and the point in that element's document. */
export interface Landing {
  el: Element;
  pt: Point;
}

/**
 * A pressed pointer: press(), moveTo() for each point, release(). at maps a
 * point of the top document's viewport to the element there (or null off
 * the page: the last element keeps the events, as with a real mouse that
 * left the window while pressed).
 */
export class Gesture {
  private last: Landing;
  private readonly pressed: Element;
  private mouseOk = true;
  /** The last point in the top document's viewport (for movementX/Y). */
  private at0: Point;

  /**
   * cross: the boundary events of a move onto another element (pointer.ts's
   * crossInto; none when left out).
   */
  constructor(
    private readonly at: (pt: Point) => Landing | null,
    start: Landing,
    private readonly button = { button: 0, buttons: 1 },
    private readonly cross: (prev: Element, el: Element, prevPt: Point, pt: Point, buttons: number) => void = () => undefined,
  ) {
    this.last = start;
    this.at0 = start.pt;
    this.pressed = start.el;
    clearCapture();
  }

  /** pointerdown then, unless it was cancelled, mousedown; whether the mousedown was not cancelled. */
  press(): boolean {
    const { el, pt } = this.last;
    const init = { button: this.button.button, buttons: this.button.buttons, detail: 1 };
    this.mouseOk = mouse(el, "pointerdown", pt, init);
    return this.mouseOk ? mouse(el, "mousedown", pt, init) : false;
  }

  // The element the page was last told holds the capture (gotpointercapture).
  private told: Element | null = null;

  /**
   * The capture's events, as the browser fires them before the next pointer
   * event: lostpointercapture on the element that held it, gotpointercapture
   * on the one that holds it now (a synthetic press never gets them from
   * the browser).
   */
  private tellCapture(cap: Element | null, pt: Point): void {
    if (cap === this.told) return;
    if (this.told?.isConnected) mouse(this.told, "lostpointercapture", pt, { buttons: this.button.buttons });
    this.told = cap;
    if (cap) mouse(cap, "gotpointercapture", pt, { buttons: this.button.buttons });
  }

  /** The element the next event at pt goes to: the capturing one, else the one under the point. */
  private route(pt: Point): Landing {
    const cap = captureTarget();
    this.tellCapture(cap, pt);
    if (cap) {
      // The capturing element gets the point in its own document's viewport.
      const hit = this.at(pt);
      return { el: cap, pt: hit && hit.el.ownerDocument === cap.ownerDocument ? hit.pt : pt };
    }
    // Off the page (or over a cross-origin frame): the last element keeps the events.
    return this.at(pt) ?? { el: this.last.el, pt };
  }

  /** One move with the button held; crossing onto another element, its over/enter (and the old one's out/leave) first. */
  moveTo(pt: Point): void {
    const to = this.route(pt);
    if (to.el !== this.last.el && this.last.el.ownerDocument === to.el.ownerDocument) {
      this.cross(this.last.el, to.el, this.last.pt, to.pt, this.button.buttons);
    }
    // movementX/Y: panning and rotating canvas apps read the step, not the point.
    const movement = { movementX: Math.round(pt.x - this.at0.x), movementY: Math.round(pt.y - this.at0.y) } as MouseEventInit;
    this.at0 = pt;
    this.last = to;
    mouse(to.el, "pointermove", to.pt, { buttons: this.button.buttons, button: -1, ...movement });
    if (this.mouseOk) mouse(to.el, "mousemove", to.pt, { buttons: this.button.buttons, button: 0, ...movement });
  }

  /** Moves along the path from the current point to end, awaiting the page between moves. */
  async moveAlong(from: Point, end: Point): Promise<void> {
    this.at0 = from;
    for (const p of dragPath(from, end)) {
      this.moveTo(p);
      await movePause(windowOf(this.last.el));
    }
  }

  /**
   * pointerup and mouseup where the pointer is (or the capturing element),
   * then the click on the nearest common ancestor of the pressed and the
   * released element, as Chromium does. Returns the released element.
   */
  release(pt: Point): Element {
    const to = this.route(pt);
    mouse(to.el, "pointerup", to.pt, { button: this.button.button, buttons: 0, detail: 1 });
    if (this.mouseOk) mouse(to.el, "mouseup", to.pt, { button: this.button.button, buttons: 0, detail: 1 });
    // The capture ends with the release.
    clearCapture();
    this.tellCapture(null, to.pt);
    if (this.button.button === 0) {
      const common = commonAncestor(this.pressed, to.el);
      if (common) mouse(common, "click", to.pt, { detail: 1 });
    }
    return to.el;
  }
}

/** The nearest element holding both a and b (in one document), or null. */
export function commonAncestor(a: Element, b: Element): Element | null {
  if (a.ownerDocument !== b.ownerDocument || !a.isConnected || !b.isConnected) return null;
  for (let e: Element | null = a; e; e = e.parentElement ?? ((e.parentNode as ShadowRoot | null)?.host ?? null)) {
    if (e === b || e.contains(b) || containsComposed(e, b)) return e;
  }
  return null;
}

function containsComposed(anc: Element, el: Element): boolean {
  for (let e: Node | null = el; e; e = e.parentNode ?? (e as ShadowRoot).host ?? null) if (e === anc) return true;
  return false;
}
