// Focus as a person's click or Tab moves it, in a window that may not have
// focus, and the tab order.

import { deepActiveElement, editingHost, isContentEditable, isDisabledElement, isTextField, parentOrHost, supportsSelection, tagOf, windowOf } from "./dom";
import { report } from "../diag";

// ---------- focus without a focused window ----------
//
// When the document does not have focus (Chrome in the background, headless),
// el.focus() moves the active element but fires no focus/blur events. These
// helpers call the real methods and dispatch the events the browser would
// have fired in a focused window, only when it fired none itself.

function focusEvent(el: Element, type: "focus" | "blur" | "focusin" | "focusout", related: Element | null): void {
  const win = windowOf(el);
  const Ctor = typeof win.FocusEvent === "function" ? win.FocusEvent : win.Event;
  el.dispatchEvent(
    new Ctor(type, { bubbles: type === "focusin" || type === "focusout", composed: true, relatedTarget: related, view: win } as FocusEventInit),
  );
}

/** Runs fn and reports whether el received type meanwhile. */
function sawEvent(el: Element, type: string, fn: () => void): boolean {
  let seen = false;
  const on = (ev: Event) => {
    if (ev.target === el || ev.composedPath?.()[0] === el) seen = true;
  };
  el.addEventListener(type, on, true);
  try {
    fn();
  } finally {
    el.removeEventListener(type, on, true);
  }
  return seen;
}

/** The focused element of el's own document (or shadow root), deeply. */
export function activeIn(el: Element): Element | null {
  return deepActiveElement(el.ownerDocument);
}

// When each document's focus last moved to an element (our actions', or the page's during them).
const focusedAt = new WeakMap<Document, number>();

/** The focus moved in doc just now. */
export function noteFocus(doc: Document): void {
  focusedAt.set(doc, performance.now());
}

/** Milliseconds since the focus last moved in doc (Infinity when it did not during an action). */
export function sinceFocus(doc: Document): number {
  const t = focusedAt.get(doc);
  return t === undefined ? Infinity : performance.now() - t;
}

/** Focuses el like a click or Tab in a focused window would, events included. */
export function focusElement(el: HTMLElement, opts: FocusOptions = { preventScroll: true }): void {
  focusFrameOf(el);
  const prev = activeIn(el);
  if (prev === el) return;
  noteFocus(el.ownerDocument);
  const prevReal = prev && prev !== el.ownerDocument.body && prev !== el.ownerDocument.documentElement ? prev : null;
  let blurred = false;
  const focused = sawEvent(el, "focus", () => {
    if (prevReal) blurred = sawEvent(prevReal, "blur", () => el.focus(opts));
    else el.focus(opts);
  });
  if (focused || activeIn(el) !== el) return; // the browser fired them, or el took no focus
  if (prevReal && !blurred && prevReal.isConnected) {
    focusEvent(prevReal, "blur", el);
    focusEvent(prevReal, "focusout", el);
  }
  focusEvent(el, "focus", prevReal);
  focusEvent(el, "focusin", prevReal);
}

/**
 * Makes el's same-origin iframe (and its frames up) the focused element of
 * the parent document, as a click into the frame does: in a window without
 * focus, focusing inside a frame does not move the parent's focus, and keys
 * go to the parent's focused element.
 */
function focusFrameOf(el: Element): void {
  let frame: Element | null = null;
  try {
    frame = el.ownerDocument.defaultView?.frameElement ?? null;
  } catch {
    return; // cross-origin parent
  }
  if (!frame) return;
  focusFrameOf(frame);
  if (frame.ownerDocument.activeElement !== frame) (frame as HTMLElement).focus?.({ preventScroll: true });
}

const isRealFocus = (e: Element | null): e is Element =>
  !!e && e !== e.ownerDocument.body && e !== e.ownerDocument.documentElement;

/**
 * Notices focus moves the page makes itself during an action (react-select
 * calls input.focus() in its mousedown handler; a dialog focuses its first
 * field) and, in a document without focus, dispatches the blur/focus events a
 * focused window would have fired. sync() after each phase; stop() at the end.
 */
export class FocusWatch {
  private last: Element | null;
  private readonly focused = new Set<EventTarget>();
  private readonly blurred = new Set<EventTarget>();
  private readonly onFocus = (e: Event) => this.focused.add(e.composedPath?.()[0] ?? e.target!);
  private readonly onBlur = (e: Event) => this.blurred.add(e.composedPath?.()[0] ?? e.target!);

  constructor(private readonly doc: Document) {
    this.last = deepActiveElement(doc);
    doc.addEventListener("focus", this.onFocus, true);
    doc.addEventListener("blur", this.onBlur, true);
  }

  sync(): void {
    const now = deepActiveElement(this.doc);
    if (now === this.last) return;
    const prev = this.last;
    this.last = now;
    const prevReal = isRealFocus(prev) && prev.isConnected ? prev : null;
    if (isRealFocus(now)) noteFocus(now.ownerDocument);
    if (prevReal && !this.blurred.has(prevReal)) {
      focusEvent(prevReal, "blur", isRealFocus(now) ? now : null);
      focusEvent(prevReal, "focusout", isRealFocus(now) ? now : null);
    }
    if (isRealFocus(now) && !this.focused.has(now)) {
      focusEvent(now, "focus", prevReal);
      focusEvent(now, "focusin", prevReal);
    }
    this.focused.clear();
    this.blurred.clear();
  }

  stop(): void {
    this.sync();
    this.doc.removeEventListener("focus", this.onFocus, true);
    this.doc.removeEventListener("blur", this.onBlur, true);
  }
}

/** Blurs el (the focused element) like a click elsewhere would, events included. */
export function blurElement(el: HTMLElement): void {
  if (activeIn(el) !== el) return;
  const blurred = sawEvent(el, "blur", () => el.blur?.());
  if (blurred || activeIn(el) === el) return;
  focusEvent(el, "blur", null);
  focusEvent(el, "focusout", null);
}


const FOCUSABLE_TAGS = new Set(["button", "select", "textarea", "iframe", "summary"]);

function isFocusable(el: Element): boolean {
  if (isDisabledElement(el) && !el.hasAttribute("aria-disabled")) return false;
  const t = tagOf(el);
  if (FOCUSABLE_TAGS.has(t)) return true;
  if (t === "input") return (el as HTMLInputElement).type !== "hidden";
  if ((t === "a" || t === "area") && el.hasAttribute("href")) return true;
  if (el.hasAttribute("tabindex")) return true;
  return isContentEditable(el) && editingHost(el) === el;
}

export function focusTarget(el: Element): HTMLElement | null {
  for (let e: Element | null = el; e; e = parentOrHost(e)) {
    if (isFocusable(e)) return e as HTMLElement;
  }
  return null;
}

export function tabbables(doc: Document): HTMLElement[] {
  const pos: HTMLElement[] = [];
  const zero: HTMLElement[] = [];
  const win = doc.defaultView;
  const walk = (root: Element | ShadowRoot) => {
    for (let c = root.firstElementChild; c; c = c.nextElementSibling) {
      const style = win?.getComputedStyle(c);
      if (style?.display === "none" || c.hasAttribute("inert") || c.hasAttribute("hidden")) continue;
      const el = c as HTMLElement;
      if (isFocusable(el) && style?.visibility !== "hidden" && !isDisabledElement(el)) {
        const ti = el.tabIndex;
        if (ti > 0) pos.push(el);
        else if (ti === 0 || (ti === -1 && !el.hasAttribute("tabindex") && isFocusableByDefault(el))) zero.push(el);
      }
      if (el.shadowRoot) walk(el.shadowRoot);
      walk(el);
    }
  };
  if (doc.body) walk(doc.body);
  pos.sort((a, b) => a.tabIndex - b.tabIndex);
  return [...pos, ...zero];
}

function isFocusableByDefault(el: Element): boolean {
  const t = tagOf(el);
  return FOCUSABLE_TAGS.has(t) || t === "input" || ((t === "a" || t === "area") && el.hasAttribute("href"));
}

export function moveFocus(from: Element, back: boolean): void {
  const doc = from.ownerDocument;
  const list = tabbables(doc);
  if (list.length === 0) return;
  const i = list.indexOf(from as HTMLElement);
  let next: HTMLElement;
  if (i < 0) next = back ? list[list.length - 1]! : list[0]!;
  else next = list[(i + (back ? list.length - 1 : 1)) % list.length]!;
  focusElement(next, { preventScroll: false });
  if (isTextField(next) && supportsSelection(next)) {
    try {
      next.select();
    } catch (e) {
      report("page: selecting the next field's text", e);
    }
  }
}
