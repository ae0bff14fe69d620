// Whether an action did anything: the honest answer to a click on an element
// a person could not have clicked (visually hidden, zero-size, clipped,
// off-screen) or on an option that did not select.
//
// The rule (docs/DECISIONS.md, "No false success"):
//   - a click on an invisible element that has no native activation behaviour
//     (not an input, button, link, label, summary) and that has a visible twin
//     (an element a person sees, with the same text) is refused before any
//     event is sent: the answer names the twin and its ref. Component
//     libraries keep such screen-reader copies beside the list people click,
//     and listen only on the visible one.
//   - any other click on an invisible non-native element, and any click on an option,
//     menu item, tab or tree item, is watched: when the page showed no effect
//     (no DOM, focus, value, scroll or navigation change during the click and
//     its settle) the answer is an error that says so and what to try.
// Clicks on visible ordinary elements are not watched (a click may have an
// effect the page does not show, e.g. a request), so they cost nothing extra.

import { explicitRole } from "./aam";
import { describeElement } from "./describe";
import { frameDocument, normalizeSpace, parentOrHost, tagOf, windowOf } from "./dom";
import { PageError, type RefRegistry } from "./refs";

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const MIN_SIDE = 2; // px: below this in either direction a person sees nothing

function intersect(a: Box, b: Box): Box {
  return { left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) };
}
const w = (b: Box) => Math.max(0, b.right - b.left);
const h = (b: Box) => Math.max(0, b.bottom - b.top);
const px = (b: Box) => `${Math.round(w(b))}×${Math.round(h(b))} px`;

/** The rect a CSS `clip: rect(…)` leaves of box, or null for `auto`. */
function clipRect(clip: string, box: Box): Box | null {
  const m = /^rect\(\s*([^,\s)]+)[\s,]+([^,\s)]+)[\s,]+([^,\s)]+)[\s,]+([^,\s)]+)\s*\)$/.exec(clip.trim());
  if (!m) return null;
  const v = (s: string, dflt: number) => (s === "auto" ? dflt : parseFloat(s));
  const top = v(m[1]!, 0);
  const right = v(m[2]!, w(box));
  const bottom = v(m[3]!, h(box));
  const left = v(m[4]!, 0);
  if ([top, right, bottom, left].some((n) => Number.isNaN(n))) return null;
  return { left: box.left + left, top: box.top + top, right: box.left + right, bottom: box.top + bottom };
}

/** clip-path insets that leave nothing: inset(50%), inset(100%), circle(0)… */
function clipPathHides(cp: string): boolean {
  const s = cp.trim();
  if (s === "" || s === "none") return false;
  const inset = /^inset\(\s*(\d+(?:\.\d+)?)%/.exec(s);
  if (inset && parseFloat(inset[1]!) >= 50) return true;
  return /^(circle|ellipse)\(\s*0(px|%)?[\s)]/.test(s);
}

const CLIPPING = new Set(["hidden", "clip", "scroll", "auto"]);

/**
 * Why a person could not see el at all (after it was scrolled into view):
 * "zero-size (0×0 px)", "clipped to 1×1 px", "off-screen", "transparent" —
 * or null when some of it shows.
 */
export function invisibleReason(el: Element): string | null {
  const win = windowOf(el);
  const r = el.getBoundingClientRect();
  const own: Box = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  if (w(own) < MIN_SIDE || h(own) < MIN_SIDE) {
    // display: contents and inline wrappers of blocks: a child may still show.
    const style = win.getComputedStyle(el);
    if (style.display !== "contents" && !hasVisibleChildBox(el)) return `zero-size (${px(own)})`;
    if (style.display === "contents") return null;
  }
  let box = own;
  let opacity = 1;
  let pos = win.getComputedStyle(el).position;
  for (let a: Element | null = el, first = true; a; a = parentOrHost(a), first = false) {
    const s = win.getComputedStyle(a);
    opacity *= parseFloat(s.opacity) || (s.opacity === "0" ? 0 : 1);
    if (!first) {
      // An absolutely positioned box escapes the overflow of ancestors below its containing block.
      const escapes = pos === "fixed" || (pos === "absolute" && s.position === "static" && s.transform === "none");
      if (!escapes) {
        const ar = a.getBoundingClientRect();
        const abox: Box = { left: ar.left, top: ar.top, right: ar.right, bottom: ar.bottom };
        if (CLIPPING.has(s.overflowX)) box = intersect(box, { ...box, left: abox.left, right: abox.right });
        if (CLIPPING.has(s.overflowY)) box = intersect(box, { ...box, top: abox.top, bottom: abox.bottom });
        if (s.position === "absolute" || s.position === "fixed") {
          const c = clipRect(s.clip, abox);
          if (c) box = intersect(box, c);
        }
        if (clipPathHides(s.clipPath)) return `clipped to nothing (clip-path: ${s.clipPath} on an ancestor)`;
        if (pos === "absolute" && s.position !== "static") pos = s.position;
        else if (pos !== "fixed" && pos !== "absolute") pos = s.position;
      }
    } else {
      if (s.position === "absolute" || s.position === "fixed") {
        const c = clipRect(s.clip, own);
        if (c) box = intersect(box, c);
      }
      if (clipPathHides(s.clipPath)) return `clipped to nothing (clip-path: ${s.clipPath})`;
    }
    if (w(box) < MIN_SIDE || h(box) < MIN_SIDE) return `clipped to ${px(box)}`;
  }
  if (opacity < 0.05) return "transparent (opacity 0)";
  const vp: Box = { left: 0, top: 0, right: win.innerWidth, bottom: win.innerHeight };
  const seen = intersect(box, vp);
  if (w(seen) < MIN_SIDE || h(seen) < MIN_SIDE) return "off-screen";
  return null;
}

function hasVisibleChildBox(el: Element): boolean {
  for (const c of Array.from(el.children)) {
    const r = c.getBoundingClientRect();
    if (r.width >= MIN_SIDE && r.height >= MIN_SIDE) return true;
  }
  return false;
}

/** Elements whose click does something without a page listener. */
export function hasActivationBehaviour(el: Element): boolean {
  const t = tagOf(el);
  if (t === "input" || t === "button" || t === "select" || t === "textarea" || t === "label" || t === "summary") return true;
  if ((t === "a" || t === "area") && el.hasAttribute("href")) return true;
  return false;
}

/** Roles whose click should show: a selection, a menu closing, a panel switching. */
const WATCHED_ROLES = new Set(["option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem"]);

export function isWatchedRole(el: Element): boolean {
  const role = explicitRole(el) ?? "";
  return WATCHED_ROLES.has(role);
}

function textOf(el: Element): string {
  return normalizeSpace(el.textContent ?? "").toLowerCase();
}

const INTERACTIVE_TAGS = new Set(["a", "button", "li", "td", "tr", "label", "summary"]);

function looksClickable(el: Element): boolean {
  if (el.hasAttribute("role") || el.hasAttribute("tabindex") || el.hasAttribute("onclick")) return true;
  if (INTERACTIVE_TAGS.has(tagOf(el))) return true;
  try {
    return windowOf(el).getComputedStyle(el).cursor === "pointer";
  } catch {
    return false;
  }
}

/** The most elements a twin search looks at (it runs only for a click on an invisible element). */
const TWIN_SCAN_MAX = 20000;

/**
 * The visible elements with el's text, one per nesting chain (the outermost
 * that looks clickable, else the innermost), not inside or around el.
 */
export function visibleTwins(el: Element): Element[] {
  // The copy's text, or its aria-label (rc-select's copies hold the value as text, the label as aria-label).
  const wants = new Set([textOf(el), normalizeSpace(el.getAttribute("aria-label") ?? "").toLowerCase()].filter((s) => s !== "" && s.length <= 200));
  if (wants.size === 0) return [];
  const doc = el.ownerDocument;
  const all = doc.body ? doc.body.getElementsByTagName("*") : [];
  const matches: Element[] = [];
  const n = Math.min(all.length, TWIN_SCAN_MAX);
  for (let i = 0; i < n; i++) {
    const c = all[i]!;
    if (c === el || c.contains(el) || el.contains(c)) continue;
    const t = tagOf(c);
    if (t === "script" || t === "style" || t === "option") continue;
    if (!wants.has(textOf(c))) continue;
    if (c.closest("[aria-hidden='true']") && !looksClickable(c)) continue;
    matches.push(c);
  }
  // Chains: a match whose ancestor also matches belongs to that ancestor's chain.
  const roots = matches.filter((m) => !matches.some((o) => o !== m && o.contains(m)));
  const out: Element[] = [];
  for (const root of roots) {
    const chain = matches.filter((m) => root.contains(m)); // document order: outermost first
    const pick = chain.find(looksClickable) ?? chain[chain.length - 1]!;
    if (invisibleReason(pick) === null) out.push(pick);
  }
  return out;
}

/** What the page shows at el's center, when it is in the viewport and not el. */
function shownAt(el: Element): Element | null {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2;
  const y = r.top + r.height / 2;
  const win = windowOf(el);
  if (x < 0 || y < 0 || x >= win.innerWidth || y >= win.innerHeight) return null;
  const hit = el.ownerDocument.elementFromPoint?.(x, y) ?? null;
  if (!hit || hit === el || el.contains(hit) || hit === el.ownerDocument.body || hit === el.ownerDocument.documentElement) return null;
  return hit;
}

function refText(refs: RefRegistry, el: Element): string {
  return `${describeElement(el)} [ref=${refs.peek(el) ?? refs.refFor(el)}]`;
}

/**
 * Refuses a click on an invisible element with a visible twin; returns the
 * reason it is invisible (the click is then watched), or null when it shows
 * or is a native control.
 */
export function checkClickable(refs: RefRegistry, ref: string, el: Element): string | null {
  // A hidden native control (a styled checkbox's input, a file input behind a
  // button) works when clicked: its activation behaviour needs no listener.
  if (hasActivationBehaviour(el)) return null;
  const why = invisibleReason(el);
  if (why === null) return why;
  const twins = visibleTwins(el);
  if (twins.length === 0) return why;
  const what = `ref ${ref} (${describeElement(el)}) is not visible on the page (${why}): a person could not click it, so nothing was clicked`;
  if (twins.length === 1) {
    throw new PageError(`${what}. The page shows the same text on ${refText(refs, twins[0]!)}: click that ref instead.`);
  }
  const list = twins.slice(0, 3).map((t) => refText(refs, t)).join("; ");
  throw new PageError(`${what}. The page shows the same text on ${twins.length} elements (${list}${twins.length > 3 ? "; …" : ""}): click the one you mean.`);
}

/** The side of the small copy a canvas's pixels are compared through. */
const CANVAS_SAMPLE_PX = 128;
/** At most this many canvases are compared (the largest ones on screen). */
const CANVAS_MAX = 6;

/**
 * A fingerprint of what a canvas shows: drawn onto a small canvas (any
 * context type, without creating one on the page's canvas) and hashed;
 * null when it cannot be read (a tainted canvas, no 2D context here, or
 * nothing but transparent pixels).
 */
function canvasPrint(c: HTMLCanvasElement): number | null {
  try {
    if (c.width === 0 || c.height === 0) return null;
    const small = c.ownerDocument.createElement("canvas");
    small.width = CANVAS_SAMPLE_PX;
    small.height = CANVAS_SAMPLE_PX;
    const g = small.getContext("2d");
    if (!g) return null;
    g.drawImage(c, 0, 0, CANVAS_SAMPLE_PX, CANVAS_SAMPLE_PX);
    const px = g.getImageData(0, 0, CANVAS_SAMPLE_PX, CANVAS_SAMPLE_PX).data;
    let h = 2166136261;
    let any = 0;
    for (let i = 0; i < px.length; i++) {
      any |= px[i]!;
      h = Math.imul(h ^ px[i]!, 16777619);
    }
    // All transparent: a WebGL canvas whose drawing buffer is cleared after
    // each frame reads so whatever it shows; no verdict from it.
    return any === 0 ? null : h >>> 0;
  } catch {
    return null;
  }
}

/** The canvases of doc a person sees, largest first. */
function visibleCanvases(doc: Document): HTMLCanvasElement[] {
  const win = doc.defaultView;
  if (!win) return [];
  const out: [HTMLCanvasElement, number][] = [];
  for (const c of Array.from(doc.getElementsByTagName("canvas"))) {
    const r = c.getBoundingClientRect();
    const w = Math.min(r.right, win.innerWidth) - Math.max(r.left, 0);
    const h = Math.min(r.bottom, win.innerHeight) - Math.max(r.top, 0);
    if (w >= MIN_SIDE && h >= MIN_SIDE) out.push([c as HTMLCanvasElement, w * h]);
  }
  return out.sort((a, b) => b[1] - a[1]).slice(0, CANVAS_MAX).map(([c]) => c);
}

/** A stable description of the document's selection (a caret move changes it). */
function selectionKey(doc: Document): string {
  const a = doc.activeElement as (Element & { selectionStart?: number | null; selectionEnd?: number | null }) | null;
  const field = a && typeof a.selectionStart === "number" ? `${a.selectionStart}:${a.selectionEnd}` : "";
  const sel = doc.getSelection?.();
  if (!sel || sel.rangeCount === 0) return `none|${field}`;
  const r = sel.getRangeAt(0);
  const path = (n: Node) => {
    let s = "";
    for (let c: Node | null = n; c && c !== doc; c = c.parentNode) s += `/${c.parentNode ? Array.prototype.indexOf.call(c.parentNode.childNodes, c) : 0}`;
    return s;
  };
  return `${path(r.startContainer)}:${r.startOffset}-${path(r.endContainer)}:${r.endOffset}|${field}`;
}

/**
 * Watches a document for the effects of an action: DOM changes, focus
 * moves, form input, scrolling, history changes and navigations; with
 * deep set, also selection and caret moves and what its canvases show
 * (keys and pointer input by coordinates: their effect may be only that).
 */
export class EffectWatch {
  private seen: string | null = null;
  private readonly obs: MutationObserver | null;
  private readonly win: Window & typeof globalThis;
  private readonly focused: Element | null;
  private readonly scrollXY: [number, number];
  private readonly off: (() => void)[] = [];
  private readonly selection: string | null = null;
  private readonly canvases: [HTMLCanvasElement, number | null][] = [];

  constructor(
    private readonly doc: Document,
    deep = false,
  ) {
    this.win = windowOf(doc);
    this.focused = doc.activeElement;
    this.scrollXY = [this.win.scrollX, this.win.scrollY];
    if (deep) {
      this.selection = selectionKey(doc);
      this.canvases = visibleCanvases(doc).map((c) => [c, canvasPrint(c)]);
      // An inner scroller's scroll (not the window's) and a selection moved and back.
      for (const type of ["scroll", "selectionchange"]) {
        const on = () => this.note(type);
        doc.addEventListener(type, on, true);
        this.off.push(() => doc.removeEventListener(type, on, true));
      }
    }
    const Obs = this.win.MutationObserver;
    this.obs = typeof Obs === "function" ? new Obs(() => this.note("the page changed")) : null;
    this.obs?.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    for (const type of ["input", "change", "submit", "reset", "hashchange", "popstate", "toggle", "beforeunload"]) {
      const on = () => this.note(type);
      this.win.addEventListener(type, on, true);
      this.off.push(() => this.win.removeEventListener(type, on, true));
    }
    const nav = (this.win as unknown as { navigation?: EventTarget }).navigation;
    if (nav && typeof nav.addEventListener === "function") {
      const on = () => this.note("navigate");
      nav.addEventListener("navigate", on);
      this.off.push(() => nav.removeEventListener("navigate", on));
    }
  }

  private note(what: string): void {
    this.seen ??= what;
  }

  /** Stops watching; whether anything was seen. */
  stop(): boolean {
    const records = this.obs?.takeRecords() ?? [];
    if (records.length > 0) this.note("the page changed");
    this.obs?.disconnect();
    for (const f of this.off) f();
    if (this.doc.activeElement !== this.focused) this.note("focus moved");
    if (this.win.scrollX !== this.scrollXY[0] || this.win.scrollY !== this.scrollXY[1]) this.note("scroll");
    if (this.seen === null && this.selection !== null && selectionKey(this.doc) !== this.selection) this.note("selection");
    if (this.seen === null) {
      // A canvas that cannot be read might have changed: never claim it did not.
      for (const [c, before] of this.canvases) {
        const after = canvasPrint(c);
        if (before === null || after === null || after !== before) {
          this.note("canvas");
          break;
        }
      }
    }
    return this.seen !== null;
  }
}

/**
 * The refusal of a real (debugger-mode) click on an invisible element whose
 * place shows another element: the click would reach that one instead.
 */
export function landsElsewhereError(ref: string, el: Element, invisible: string, hit: Element): PageError {
  return new PageError(
    `ref ${ref} (${describeElement(el)}) is not visible on the page (${invisible}): a real click at its place would land on ${describeElement(hit)}, so nothing was clicked. ` +
      "It is probably a copy for screen readers or a control that is not open yet: take a new browser_snapshot and click the element a person sees, or open its menu or list first.",
  );
}

/** The error for a watched click that changed nothing. */
export function noEffectError(ref: string, el: Element, invisible: string | null): PageError {
  const what = `clicked ref ${ref} (${describeElement(el)}), but the page showed no effect: no change to the DOM, focus, values, scroll or address`;
  if (invisible !== null) {
    const at = shownAt(el);
    return new PageError(
      `${what}. The element is not visible (${invisible}), so it is probably a copy for screen readers or a control that is not open yet` +
        `${at ? `; at its place the page shows ${describeElement(at)}` : ""}. Take a new browser_snapshot and click the element a person sees, or open its menu or list first.`,
    );
  }
  const selected = el.getAttribute("aria-selected") === "true" || el.getAttribute("aria-checked") === "true";
  return new PageError(
    `${what}.${selected ? " It was already selected." : ""} The page may react to a different element (the visible text, or its row); take a new browser_snapshot and check, or use browser_press_key (Enter) with it focused.`,
  );
}

/** The most same-origin frame documents an action's deep watch covers. */
const WATCHED_FRAMES_MAX = 16;

/**
 * Deep effect watches (EffectWatch with deep set) over doc and its
 * same-origin frames' documents: keys and pointer input may act in a frame.
 * stop() says whether any of them saw an effect.
 */
export function watchPageEffects(doc: Document): { stop(): boolean } {
  const docs: Document[] = [doc];
  for (let i = 0; i < docs.length && docs.length < WATCHED_FRAMES_MAX; i++) {
    for (const f of Array.from(docs[i]!.querySelectorAll("iframe, frame"))) {
      // null for a cross-origin frame: its own content script acts there.
      const d = frameDocument(f);
      if (d && !docs.includes(d) && docs.length < WATCHED_FRAMES_MAX) docs.push(d);
    }
  }
  const watches = docs.map((d) => new EffectWatch(d, true));
  return {
    stop: () => watches.map((w) => w.stop()).some((x) => x),
  };
}
