// Pointer actions at viewport coordinates (browser_click_xy,
// browser_drag_xy): for canvas apps and targets the snapshot cannot name.
// The element under the point gets the same pointer/mouse sequence as a
// click by ref (pointer.ts), with the given coordinates, so a canvas sees
// exactly where it was clicked. Same-origin iframes are entered; a point
// on a cross-origin frame's area is answered as `into` (the frame's ref and
// the point in its viewport) without any event here, and the service worker
// sends the op on to that frame (background/frames.ts).

import { mouse, pageTurn, type Point } from "./events";
import { focusTarget, noteFocus } from "./focus";
import { captureTarget, clearCapture, commonAncestor, Gesture, movePause, type Landing } from "./gesture";
import { crossInto, dragBetween, html5DragSource, moveOnto, setHovered } from "./pointer";
import { deepActiveElement, frameDocument, tagOf, windowOf } from "./dom";
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

export async function clickAt(doc: Document, refs: RefRegistry, args: { x: number; y: number; button?: string; double?: boolean }): Promise<{ target: string; into?: FrameHit }> {
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
      if (target && deepActiveElement(el.ownerDocument) !== target) {
        noteFocus(target.ownerDocument);
        target.focus({ preventScroll: true });
      }
    }
    // The press and the release are separate tasks, as a person's are.
    await pageTurn();
    const up = captureTarget() ?? (el.isConnected ? el : el.ownerDocument.elementFromPoint?.(pt.x, pt.y) ?? el);
    mouse(up, "pointerup", pt, { button: b.button, detail });
    if (pointerOk) mouse(up, "mouseup", pt, { button: b.button, detail });
    clearCapture();
    if (b.button === 0) {
      const common = commonAncestor(el, up);
      if (common) mouse(common, "click", pt, { detail });
    } else if (b.button === 1) mouse(up, "auxclick", pt, { button: 1, detail });
  }
  if (b.button === 2) mouse(el, "contextmenu", pt, { button: 2 });
  if (args.double) mouse(el, "dblclick", pt, { detail: 2 });
  return { target: describeHit(el) };
}

/** hitTest for a point the pointer passes through: null off the page or over a cross-origin frame. */
function landing(doc: Document, pt: Point): Landing | null {
  try {
    const h = hitTest(doc, pt.x, pt.y);
    return h.cross ? null : { el: h.el, pt: { x: h.x, y: h.y } };
  } catch {
    return null;
  }
}

export async function dragAt(doc: Document, refs: RefRegistry, args: { startX: number; startY: number; endX: number; endY: number }): Promise<{ target: string; into?: FrameHit }> {
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
  const ep = { x: args.endX, y: args.endY };
  // A draggable element (or a link, an image) starts an HTML5 drag, with a DataTransfer.
  if (html5DragSource(start.el)) {
    await dragBetween(start.el, sp, null, ep, (pt) => landing(doc, pt));
    return { target: describeHit(landing(doc, ep)?.el ?? last.el) };
  }
  moveOnto(start.el, sp);
  await pageTurn();
  const g = new Gesture((pt) => landing(doc, pt), { el: start.el, pt: sp }, undefined, crossInto);
  if (g.press()) {
    const target = focusTarget(start.el);
    if (target && deepActiveElement(start.el.ownerDocument) !== target) {
      noteFocus(target.ownerDocument);
      target.focus({ preventScroll: true });
    }
  }
  await movePause(windowOf(start.el));
  // The path is in the top document's viewport; each move lands where it points.
  await g.moveAlong({ x: args.startX, y: args.startY }, ep);
  const released = g.release(ep);
  setHovered(released);
  await pageTurn();
  return { target: describeHit(released) };
}

function describeHit(el: Element): string {
  const id = el.id ? `#${el.id}` : "";
  return `<${tagOf(el)}${id}>`;
}
