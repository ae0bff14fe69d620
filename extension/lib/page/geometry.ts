// Where things are on screen, for screenshots of one element, stitched
// full-page screenshots and input sent at coordinates through the debugger.
// Everything is in CSS pixels of the top-level viewport.

import type { ElementBox, PageMetrics } from "../messages";
import { PageError, type RefRegistry } from "./refs";
import { describeElement } from "./describe";
import { report } from "../diag";

/** Offset of el's frame in the top-level viewport (same-origin iframes). */
function frameOffset(el: Element): { x: number; y: number } {
  let x = 0;
  let y = 0;
  let win: Window | null = el.ownerDocument.defaultView;
  while (win && win !== win.top) {
    const fe = win.frameElement;
    if (!fe) break;
    const r = fe.getBoundingClientRect();
    const cs = win.parent.getComputedStyle(fe);
    x += r.left + parseFloat(cs.borderLeftWidth || "0") + parseFloat(cs.paddingLeft || "0");
    y += r.top + parseFloat(cs.borderTopWidth || "0") + parseFloat(cs.paddingTop || "0");
    win = win.parent;
  }
  return { x, y };
}

export function elementRect(refs: RefRegistry, ref: string, scroll: boolean): ElementBox {
  const el = refs.resolve(ref);
  if (scroll) {
    try {
      el.scrollIntoView?.({ block: "nearest", inline: "nearest", behavior: "instant" as ScrollBehavior });
    } catch (e) {
      // act where it is
      report("page: scrolling an element into view", e);
    }
  }
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) {
    throw new PageError(`ref ${ref} (${describeElement(el)}) has no size on screen (it is hidden or empty); take a new browser_snapshot`);
  }
  const off = frameOffset(el);
  const top = (el.ownerDocument.defaultView?.top ?? window) as Window;
  const vw = top.innerWidth;
  const vh = top.innerHeight;
  const x = r.left + off.x;
  const y = r.top + off.y;
  const vx = Math.max(0, x);
  const vy = Math.max(0, y);
  const visible = {
    x: vx,
    y: vy,
    width: Math.max(0, Math.min(vw, x + r.width) - vx),
    height: Math.max(0, Math.min(vh, y + r.height) - vy),
  };
  return { x, y, width: r.width, height: r.height, visible, dpr: top.devicePixelRatio || 1, viewportWidth: vw, viewportHeight: vh };
}

export function pageMetrics(doc: Document): PageMetrics {
  const win = doc.defaultView!;
  const root = doc.documentElement;
  const body = doc.body;
  return {
    scrollX: win.scrollX,
    scrollY: win.scrollY,
    width: Math.max(root.scrollWidth, body?.scrollWidth ?? 0, win.innerWidth),
    height: Math.max(root.scrollHeight, body?.scrollHeight ?? 0, win.innerHeight),
    viewportWidth: root.clientWidth || win.innerWidth,
    viewportHeight: root.clientHeight || win.innerHeight,
    dpr: win.devicePixelRatio || 1,
  };
}

export async function scrollToPoint(doc: Document, x: number, y: number): Promise<{ scrollX: number; scrollY: number }> {
  const win = doc.defaultView!;
  win.scrollTo({ left: x, top: y, behavior: "instant" as ScrollBehavior });
  // Two frames, so the compositor has painted the new position before the capture.
  await new Promise<void>((resolve) => {
    let n = 0;
    const tick = () => (++n >= 2 ? resolve() : win.requestAnimationFrame(tick));
    if (doc.visibilityState === "hidden") setTimeout(resolve, 50);
    else win.requestAnimationFrame(tick);
  });
  return { scrollX: win.scrollX, scrollY: win.scrollY };
}
