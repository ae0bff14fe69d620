// Pointer actions at viewport coordinates (browser_click_xy,
// browser_drag_xy): for canvas apps and targets the snapshot cannot name.
// The element under the point gets the same pointer/mouse sequence as a
// click by ref (pointer.ts), with the given coordinates, so a canvas sees
// exactly where it was clicked. Same-origin iframes are entered; a point
// on a cross-origin frame's area is answered as `into` (the frame's ref and
// the point in its viewport) without any event here, and the service worker
// sends the op on to that frame (background/frames.ts).

import { mouse } from "./events";
import { focusTarget } from "./focus";
import { moveOnto } from "./pointer";
import { deepActiveElement, frameDocument, tagOf } from "./dom";
import { PageError, type RefRegistry } from "./refs";
import type { FrameHit } from "../messages";

interface Hit {
  el: Element;
  x: number;
  y: number;
  /** el is a cross-origin frame and (x, y) is in its content, in its viewport's coordinates. */
  cross?: boolean;
}

/** The innermost element at (x, y) of doc's viewport, through open shadow roots and same-origin iframes. */
export function hitTest(doc: Document, x: number, y: number): Hit {
  const win = doc.defaultView;
  if (win && (x < 0 || y < 0 || x >= win.innerWidth || y >= win.innerHeight)) {
    throw new PageError(
      `(${x}, ${y}) is outside the visible area, which is ${win.innerWidth}×${win.innerHeight} CSS pixels; scroll first (browser_scroll) and take coordinates from a new screenshot`,
    );
  }
  const first = doc.elementFromPoint(x, y);
  if (!first) throw new PageError(`there is no element at (${x}, ${y})`);
  let el: Element = first;
  for (;;) {
    const root: ShadowRoot | null = (el as HTMLElement).shadowRoot;
    const inner: Element | null = root?.elementFromPoint?.(x, y) ?? null;
    if (!inner || inner === el) break;
    el = inner;
  }
  if (tagOf(el) === "iframe" || tagOf(el) === "frame") {
    const r = el.getBoundingClientRect();
    const cs = el.ownerDocument.defaultView?.getComputedStyle(el);
    const px = (v: string | undefined) => parseFloat(v || "0") || 0;
    const bx = px(cs?.borderLeftWidth) + px(cs?.paddingLeft);
    const by = px(cs?.borderTopWidth) + px(cs?.paddingTop);
    const lx = x - r.left - bx;
    const ly = y - r.top - by;
    const inner = frameDocument(el);
    if (inner) return hitTest(inner, lx, ly);
    const w = r.width - bx - px(cs?.borderRightWidth) - px(cs?.paddingRight);
    const h = r.height - by - px(cs?.borderBottomWidth) - px(cs?.paddingBottom);
    // On its content, not its border: the frame's own document is there.
    if (lx >= 0 && ly >= 0 && lx < w && ly < h) return { el, x: lx, y: ly, cross: true };
  }
  return { el, x, y };
}

const BUTTONS: Record<string, { button: number; buttons: number }> = {
  left: { button: 0, buttons: 1 },
  middle: { button: 1, buttons: 4 },
  right: { button: 2, buttons: 2 },
};

export function clickAt(doc: Document, refs: RefRegistry, args: { x: number; y: number; button?: string; double?: boolean }): { target: string; into?: FrameHit } {
  const b = BUTTONS[args.button ?? "left"];
  if (!b) throw new PageError(`button must be left, right or middle (got ${JSON.stringify(args.button)})`);
  const { el, x, y, cross } = hitTest(doc, args.x, args.y);
  if (cross) return { target: describeHit(el), into: { ref: refs.refFor(el), x, y } };
  const pt = { x, y };
  moveOnto(el, pt);
  const clicks = args.double ? 2 : 1;
  for (let detail = 1; detail <= clicks; detail++) {
    const pointerOk = mouse(el, "pointerdown", pt, { button: b.button, buttons: b.buttons, detail });
    const downOk = pointerOk ? mouse(el, "mousedown", pt, { button: b.button, buttons: b.buttons, detail }) : false;
    if (downOk && b.button === 0) {
      const target = focusTarget(el);
      if (target && deepActiveElement(el.ownerDocument) !== target) target.focus({ preventScroll: true });
    }
    mouse(el, "pointerup", pt, { button: b.button, detail });
    if (pointerOk) mouse(el, "mouseup", pt, { button: b.button, detail });
    if (b.button === 0) mouse(el, "click", pt, { detail });
    else if (b.button === 1) mouse(el, "auxclick", pt, { button: 1, detail });
  }
  if (b.button === 2) mouse(el, "contextmenu", pt, { button: 2 });
  if (args.double) mouse(el, "dblclick", pt, { detail: 2 });
  return { target: describeHit(el) };
}

export function dragAt(doc: Document, refs: RefRegistry, args: { startX: number; startY: number; endX: number; endY: number }): { target: string; into?: FrameHit } {
  const start = hitTest(doc, args.startX, args.startY);
  // The end must be on screen too, checked before anything is pressed.
  const last = hitTest(doc, args.endX, args.endY);
  if (start.cross || last.cross) {
    if (start.el !== last.el) {
      throw new PageError(
        "the drag starts and ends in different frames of the page (or one end is outside a cross-origin frame): " +
          "synthetic events cannot cross a frame's edge; drag within one frame, or ask the person to switch on the debugger mode in the monkbrowse options, whose real mouse can",
      );
    }
    return { target: describeHit(start.el), into: { ref: refs.refFor(start.el), x: start.x, y: start.y, endX: last.x, endY: last.y } };
  }
  const sp = { x: start.x, y: start.y };
  moveOnto(start.el, sp);
  const pointerOk = mouse(start.el, "pointerdown", sp, { buttons: 1, detail: 1 });
  if (pointerOk) mouse(start.el, "mousedown", sp, { buttons: 1, detail: 1 });
  // Pages that track a drag listen on the element they pressed, or on the
  // document; moves go to the pressed element (implicit pointer capture)
  // and bubble to the document.
  const steps = 10;
  for (let i = 1; i <= steps; i++) {
    const pt = {
      x: start.x + ((args.endX - args.startX) * i) / steps,
      y: start.y + ((args.endY - args.startY) * i) / steps,
    };
    mouse(start.el, "pointermove", pt, { buttons: 1 });
    if (pointerOk) mouse(start.el, "mousemove", pt, { buttons: 1 });
  }
  const end = hitTest(doc, args.endX, args.endY);
  const ep = { x: end.x, y: end.y };
  mouse(start.el, "pointerup", ep, { detail: 1 });
  if (pointerOk) mouse(end.el, "mouseup", ep, { detail: 1 });
  if (end.el === start.el) mouse(end.el, "click", ep, { detail: 1 });
  return { target: describeHit(end.el) };
}

function describeHit(el: Element): string {
  const id = el.id ? `#${el.id}` : "";
  return `<${tagOf(el)}${id}>`;
}
