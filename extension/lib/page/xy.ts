// Pointer actions at viewport coordinates (browser_click_xy,
// browser_drag_xy): for canvas apps and targets the snapshot cannot name.
// The element under the point gets the same pointer/mouse sequence as a
// click by ref (pointer.ts), with the given coordinates, so a canvas sees
// exactly where it was clicked. Same-origin iframes are entered.

import { mouse } from "./events";
import { focusTarget } from "./focus";
import { moveOnto } from "./pointer";
import { deepActiveElement, frameDocument, tagOf } from "./dom";
import { PageError } from "./refs";

interface Hit {
  el: Element;
  x: number;
  y: number;
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
  if (tagOf(el) === "iframe") {
    const inner = frameDocument(el);
    if (inner) {
      const r = el.getBoundingClientRect();
      const cs = el.ownerDocument.defaultView?.getComputedStyle(el);
      const bx = parseFloat(cs?.borderLeftWidth ?? "0") + parseFloat(cs?.paddingLeft ?? "0");
      const by = parseFloat(cs?.borderTopWidth ?? "0") + parseFloat(cs?.paddingTop ?? "0");
      return hitTest(inner, x - r.left - bx, y - r.top - by);
    }
  }
  return { el, x, y };
}

const BUTTONS: Record<string, { button: number; buttons: number }> = {
  left: { button: 0, buttons: 1 },
  middle: { button: 1, buttons: 4 },
  right: { button: 2, buttons: 2 },
};

export function clickAt(doc: Document, args: { x: number; y: number; button?: string; double?: boolean }): { target: string } {
  const b = BUTTONS[args.button ?? "left"];
  if (!b) throw new PageError(`button must be left, right or middle (got ${JSON.stringify(args.button)})`);
  const { el, x, y } = hitTest(doc, args.x, args.y);
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

export function dragAt(doc: Document, args: { startX: number; startY: number; endX: number; endY: number }): { target: string } {
  const start = hitTest(doc, args.startX, args.startY);
  // The end must be on screen too, checked before anything is pressed.
  hitTest(doc, args.endX, args.endY);
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
