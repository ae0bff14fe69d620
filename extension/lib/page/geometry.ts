// Where things are on screen, for screenshots of one element, stitched
// full-page screenshots and input sent at coordinates through the debugger.
// Everything is in CSS pixels of the top-level viewport.

import type { ElementBox, PageMetrics } from "../messages";
import { PageError, type RefRegistry } from "./refs";
import { describeElement } from "./describe";
import { report } from "../diag";

/**
 * Offset of el's frame in the viewport of the outermost window this
 * document can reach (same-origin iframes: the top-level viewport unless a
 * cross-origin frame is on the way, where the service worker adds the rest:
 * background/frames.ts), and that window.
 */
function frameOffset(el: Element): { x: number; y: number; root: Window } {
  let x = 0;
  let y = 0;
  let win: Window = el.ownerDocument.defaultView ?? window;
  while (win !== win.parent) {
    // Null when the parent is cross-origin: this window is the reachable root then.
    const fe = win.frameElement;
    if (!fe) break;
    const off = contentOffset(fe);
    x += off.x;
    y += off.y;
    win = win.parent;
  }
  return { x, y, root: win };
}

/** Where a frame element's content (its document's viewport) begins in its own viewport. */
function contentOffset(fe: Element): { x: number; y: number } {
  const r = fe.getBoundingClientRect();
  const cs = fe.ownerDocument.defaultView?.getComputedStyle(fe);
  return {
    x: r.left + parseFloat(cs?.borderLeftWidth || "0") + parseFloat(cs?.paddingLeft || "0"),
    y: r.top + parseFloat(cs?.borderTopWidth || "0") + parseFloat(cs?.paddingTop || "0"),
  };
}

/**
 * The box of ref's element in the viewport of the outermost window this
 * document reaches (the top-level one but for cross-origin frames), scrolled
 * into view first unless scroll is false. content: the content box (border
 * and padding left out), which for an iframe is where its frame's viewport is.
 */
export function elementRect(refs: RefRegistry, ref: string, scroll: boolean, content = false): ElementBox {
  const el = refs.resolve(ref);
  if (scroll) {
    try {
      el.scrollIntoView?.({ block: "nearest", inline: "nearest", behavior: "instant" as ScrollBehavior });
    } catch (e) {
      // act where it is
      report("page: scrolling an element into view", e);
    }
  }
  let r: { left: number; top: number; width: number; height: number } = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) {
    throw new PageError(`ref ${ref} (${describeElement(el)}) has no size on screen (it is hidden or empty); take a new browser_snapshot`);
  }
  if (content) {
    const cs = el.ownerDocument.defaultView?.getComputedStyle(el);
    const px = (v: string | undefined) => parseFloat(v || "0") || 0;
    const l = px(cs?.borderLeftWidth) + px(cs?.paddingLeft);
    const t = px(cs?.borderTopWidth) + px(cs?.paddingTop);
    const w = Math.max(0, r.width - l - px(cs?.borderRightWidth) - px(cs?.paddingRight));
    const h = Math.max(0, r.height - t - px(cs?.borderBottomWidth) - px(cs?.paddingBottom));
    r = { left: r.left + l, top: r.top + t, width: w, height: h };
  }
  const off = frameOffset(el);
  const vw = off.root.innerWidth;
  const vh = off.root.innerHeight;
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
  return { x, y, width: r.width, height: r.height, visible, dpr: off.root.devicePixelRatio || 1, viewportWidth: vw, viewportHeight: vh };
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
