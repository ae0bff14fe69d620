// The events of a person's input, dispatched the way a browser fires them,
// and the pauses between them. The building blocks of the actions by ref
// (pointer.ts, typing.ts, keyboard.ts, select.ts, scroll.ts, upload.ts) and
// by point (xy.ts).
//
// Everything here is realm-safe: elements may live in a same-origin iframe,
// so constructors come from the element's own window (see dom.ts).

import { isDisabledElement, windowOf } from "./dom";
import { PageError } from "./refs";
import { describeElement } from "./describe";
import { report } from "../diag";

export type Win = Window & typeof globalThis;
export interface Point {
  x: number;
  y: number;
}

// ---------- yielding to the page ----------
//
// A person's input arrives as separate tasks: the page's microtasks, its
// framework's scheduled renders and the browser's own follow-up events
// (selectionchange, focus) run between a pointerdown and the pointerup,
// between focus and the first key. Actions therefore await the page between
// their phases: a task turn (a MessageChannel message, not throttled in
// hidden tabs) everywhere, an animation frame only between drag phases and
// only in a visible document (hidden tabs run no frames).

/** Lets the page run its pending microtasks and the tasks queued before now. */
export function pageTurn(): Promise<void> {
  return new Promise((resolve) => {
    let ch: MessageChannel;
    try {
      ch = new MessageChannel();
    } catch {
      setTimeout(resolve, 0);
      return;
    }
    ch.port1.onmessage = () => {
      ch.port1.close();
      resolve();
    };
    ch.port2.postMessage(null);
  });
}

export function scrollIntoViewCentered(el: Element): void {
  try {
    el.scrollIntoView?.({ block: "center", inline: "center", behavior: "instant" as ScrollBehavior });
  } catch (e) {
    // detached or unsupported: act where it is
    report("page: scrolling an element into view", e);
  }
}

export function centerOf(el: Element): Point {
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

const NON_BUBBLING = new Set(["pointerenter", "pointerleave", "mouseenter", "mouseleave"]);

/** Dispatches a pointer/mouse event at pt; returns false when a listener cancelled it. */
export function mouse(el: Element, type: string, pt: Point, init: MouseEventInit & { buttons?: number } = {}): boolean {
  const win = windowOf(el);
  const pointer = type.startsWith("pointer") || type.endsWith("pointercapture");
  const Ctor: typeof MouseEvent = pointer && typeof win.PointerEvent === "function" ? win.PointerEvent : win.MouseEvent;
  const bubbles = !NON_BUBBLING.has(type);
  const ev = new Ctor(type, {
    bubbles,
    cancelable: bubbles && type !== "pointermove" ? true : type === "mousemove",
    composed: true,
    view: win,
    clientX: pt.x,
    clientY: pt.y,
    screenX: pt.x + (win.screenX || 0),
    screenY: pt.y + (win.screenY || 0),
    button: 0,
    buttons: 0,
    ...(pointer ? { pointerId: 1, pointerType: "mouse", isPrimary: true, width: 1, height: 1, pressure: init.buttons ? 0.5 : 0 } : {}),
    ...init,
  } as PointerEventInit);
  return el.dispatchEvent(ev);
}


export function ensureEnabled(el: Element, ref: string, what: string): void {
  if (isDisabledElement(el)) {
    throw new PageError(
      `ref ${ref} (${describeElement(el)}) is disabled, so it cannot be ${what}; wait for the page to enable it or take a new browser_snapshot`,
    );
  }
}

export function inputEvent(el: Element, type: "beforeinput" | "input", inputType: string, data: string | null): boolean {
  const win = windowOf(el);
  const Ctor = typeof win.InputEvent === "function" ? win.InputEvent : win.Event;
  const ev = new Ctor(type, { bubbles: true, cancelable: type === "beforeinput", composed: true, inputType, data } as InputEventInit);
  return el.dispatchEvent(ev);
}

export function fire(el: Element, type: string): void {
  el.dispatchEvent(new (windowOf(el).Event)(type, { bubbles: true }));
}
