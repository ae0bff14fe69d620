// browser_scroll: the page, or the scroll container under a ref, as a wheel
// or the keyboard would move it.

import { parentOrHost, windowOf } from "./dom";
import { scrollIntoViewCentered } from "./events";
import { PageError, type RefRegistry } from "./refs";
import { nextFrame } from "./settle";

// ---------- scroll ----------

type Axis = "x" | "y";

function canScroll(el: Element, axis: Axis, style: CSSStyleDeclaration): boolean {
  const overflow = (axis === "y" ? style.overflowY : style.overflowX) || style.overflow;
  if (!/(auto|scroll|overlay)/.test(overflow)) return false;
  return axis === "y" ? el.scrollHeight > el.clientHeight : el.scrollWidth > el.clientWidth;
}

function hasRoom(el: Element, axis: Axis, sign: number): boolean {
  if (axis === "y") return sign < 0 ? el.scrollTop > 0 : el.scrollTop + el.clientHeight < el.scrollHeight - 1;
  return sign < 0 ? el.scrollLeft > 0 : el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
}

/** The scroll container a wheel over el would move: the nearest scrollable ancestor with room, else the page. */
function scrollContainer(el: Element | null, axis: Axis, sign: number): Element | null {
  let fallback: Element | null = null;
  for (let e = el; e; e = parentOrHost(e)) {
    const doc = e.ownerDocument;
    if (e === doc.documentElement || e === doc.body) break;
    const style = windowOf(e).getComputedStyle(e);
    if (canScroll(e, axis, style)) {
      if (hasRoom(e, axis, sign)) return e;
      fallback ??= e;
    }
  }
  return fallback;
}

export function scrollPage(from: Element, dy: number, pages: number): void {
  const win = windowOf(from);
  const sc = scrollContainer(from, "y", dy + pages);
  const height = sc ? sc.clientHeight : win.innerHeight;
  let top = dy + pages * height;
  if (!Number.isFinite(top)) top = top > 0 ? 1e9 : -1e9;
  if (sc) sc.scrollBy?.({ top, behavior: "instant" as ScrollBehavior });
  else win.scrollBy?.({ top, behavior: "instant" as ScrollBehavior });
}

export async function scroll(
  refs: RefRegistry,
  doc: Document,
  args: { direction?: string; amount?: number; ref?: string },
): Promise<void> {
  const dir = args.direction === undefined || args.direction === "" ? undefined : String(args.direction).toLowerCase();
  if (dir !== undefined && !["up", "down", "left", "right"].includes(dir)) {
    throw new PageError(`direction ${JSON.stringify(args.direction)} is not one of up, down, left, right`);
  }
  if (args.amount !== undefined && args.amount !== null && !(typeof args.amount === "number" && args.amount > 0 && Number.isFinite(args.amount))) {
    throw new PageError(`amount ${JSON.stringify(args.amount)} must be a positive number of pixels`);
  }
  const el = args.ref ? refs.resolve(args.ref) : null;
  const win = el ? windowOf(el) : windowOf(doc);
  if (el && dir === undefined) {
    scrollIntoViewCentered(el);
    await nextFrame(win);
    return;
  }
  const d = dir ?? "down";
  const axis: Axis = d === "up" || d === "down" ? "y" : "x";
  const sign = d === "up" || d === "left" ? -1 : 1;
  let start: Element | null = el;
  if (!start) {
    try {
      start = doc.elementFromPoint?.(win.innerWidth / 2, win.innerHeight / 2) ?? null;
    } catch {
      start = null;
    }
  }
  const sc = scrollContainer(start, axis, sign);
  const viewport = sc ? (axis === "y" ? sc.clientHeight : sc.clientWidth) : axis === "y" ? win.innerHeight : win.innerWidth;
  const amount = (args.amount ?? Math.round(viewport * 0.8)) * sign;
  const opts: ScrollToOptions = axis === "y" ? { top: amount } : { left: amount };
  opts.behavior = "instant" as ScrollBehavior;
  if (sc) sc.scrollBy?.(opts);
  else windowOf(el ?? doc).scrollBy?.(opts);
  await nextFrame(win);
}
