// Roles and states a web component sets through ElementInternals (issue 41):
// `this.#internals = this.attachInternals(); this.#internals.role = "option"`
// leaves no attribute, so the isolated world, which sees only the DOM, cannot
// read them. The MAIN-world hooks (page-hooks.ts), which run before the
// page's scripts in the documents a shared tab commits, wrap
// HTMLElement.prototype.attachInternals and keep each element's internals;
// the snapshot asks for them element by element over the private channel
// (console.ts channelOf):
//
//   isolated → the element: CustomEvent(channel.internals), not bubbling, not
//              composed: only listeners on that element hear it;
//   MAIN → the same element: CustomEvent(channel.internalsReply) whose detail
//              is the JSON of the internals' role and ARIA properties.
//
// The MAIN world listens for the request only on the elements that called
// attachInternals, and the event types carry the tab's secret, so a page can
// neither answer for an element that has no internals nor hear the request.
// What a component says there is no more trusted than a role attribute the
// page could set: it goes through the same role set (aam.ts validRole) and
// an author's attribute wins over it, as in ARIA. A document the hooks
// reached after its scripts ran (a tab shared after it loaded) says so
// (late), and the snapshot says once that such roles may be missing.

import type { Channel } from "./console";

/** What the snapshot reads of an element's ElementInternals. */
export interface InternalsInfo {
  role?: string;
  label?: string;
  checked?: string;
  selected?: string;
  expanded?: string;
  disabled?: string;
  pressed?: string;
  level?: string;
  required?: string;
  valueNow?: string;
  valueText?: string;
  hidden?: string;
}

/** InternalsInfo's keys and the ElementInternals properties they come from. */
const PROPS: ReadonlyArray<[keyof InternalsInfo, string]> = [
  ["role", "role"], ["label", "ariaLabel"], ["checked", "ariaChecked"], ["selected", "ariaSelected"],
  ["expanded", "ariaExpanded"], ["disabled", "ariaDisabled"], ["pressed", "ariaPressed"], ["level", "ariaLevel"],
  ["required", "ariaRequired"], ["valueNow", "ariaValueNow"], ["valueText", "ariaValueText"], ["hidden", "ariaHidden"],
];

/** Longest property value carried (a label); longer ones are cut. */
const MAX_VALUE = 1000;

/** The parts of a JSON detail that are InternalsInfo: known keys, string values, cut. */
export function parseInternals(detail: unknown): InternalsInfo | null {
  if (typeof detail !== "string" || detail.length > 20_000) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(detail);
  } catch {
    return null;
  }
  if (raw === null || typeof raw !== "object") return null;
  const out: InternalsInfo = {};
  for (const [k] of PROPS) {
    const v = (raw as Record<string, unknown>)[k];
    if (typeof v === "string") out[k] = v.slice(0, MAX_VALUE);
  }
  return out;
}

// ---- MAIN world ------------------------------------------------------------

type Put = (obj: Record<string, unknown>, key: string, ours: unknown) => void;

/** What the hooks keep between installs of one window. */
interface Tracker {
  /** Each element that attached internals, and them. */
  internals: WeakMap<Element, object>;
  /** The same elements, to listen on when a new channel is claimed. */
  elements: Array<WeakRef<Element>>;
  channel: Channel | null;
  /** Components of the document were upgraded before the hooks arrived. */
  late: boolean;
}

const trackers = new WeakMap<object, Tracker>();

/**
 * Whether doc already holds a custom element that was upgraded (its
 * constructor ran, so it may have attached internals the hooks never saw):
 * the hooks came too late for it (a tab shared after it loaded, or a page
 * whose inline scripts beat the injection).
 */
function anyUpgraded(doc: Document): boolean {
  const all = doc.getElementsByTagName("*");
  for (let i = 0; i < all.length; i++) {
    const el = all[i]!;
    if (el.localName.includes("-") && el.matches(":defined")) return true;
  }
  return false;
}

/**
 * Wraps win's HTMLElement.prototype.attachInternals (through put, so a sleep
 * puts the native back) to keep each element's internals and listen on the
 * element for the channel's requests. Everything used later is taken now,
 * before a page script can wrap it. Returns the function to call on a claim.
 */
export function trackInternals(win: Window & typeof globalThis, put: Put): (ch: Channel) => void {
  let t = trackers.get(win);
  if (!t) {
    t = { internals: new WeakMap(), elements: [], channel: null, late: anyUpgraded(win.document) };
    trackers.set(win, t);
  }
  const tr = t;
  const apply = Reflect.apply;
  const proto = win.HTMLElement?.prototype as unknown as Record<string, unknown> | undefined;
  const EI = (win as unknown as { ElementInternals?: { prototype: object } }).ElementInternals;
  const orig = proto?.attachInternals;
  if (!proto || typeof orig !== "function" || !EI) return () => undefined;
  const listen = win.EventTarget.prototype.addEventListener;
  const dispatch = win.EventTarget.prototype.dispatchEvent;
  const Custom = win.CustomEvent;
  const stringify = JSON.stringify;
  // The getters of the properties, taken now: a page that redefines them later answers nothing of ours.
  const getters: Array<[keyof InternalsInfo, (this: object) => unknown]> = [];
  for (const [k, prop] of PROPS) {
    const g = Object.getOwnPropertyDescriptor(EI.prototype, prop)?.get;
    if (typeof g === "function") getters.push([k, g as (this: object) => unknown]);
  }
  const read = (internals: object): string => {
    const out: Record<string, string> = {};
    // internals is a real ElementInternals (see the wrapper): its getters do not throw.
    for (const [k, g] of getters) {
      const v = apply(g, internals, []);
      if (typeof v === "string") out[k] = v;
    }
    return stringify(out);
  };
  const wire = (el: Element, ch: Channel) => {
    apply(listen, el, [ch.internals, (ev: Event) => {
      const internals = tr.internals.get(el);
      if (!internals || tr.channel !== ch || ev.target !== el) return;
      apply(dispatch, el, [new Custom(ch.internalsReply, { detail: read(internals) })]);
    }]);
  };
  put(proto, "attachInternals", function attachInternals(this: Element, ...a: unknown[]) {
    const internals = apply(orig as (...x: unknown[]) => unknown, this, a);
    // Only a real ElementInternals is kept (a late hook may wrap a page's wrapper).
    if (internals instanceof (EI as unknown as new () => object) && !tr.internals.has(this)) {
      tr.internals.set(this, internals);
      tr.elements.push(new WeakRef(this));
      if (tr.channel) wire(this, tr.channel);
    }
    return internals;
  });
  return (ch: Channel) => {
    tr.channel = ch;
    tr.elements = tr.elements.filter((w) => w.deref() !== undefined);
    for (const w of tr.elements) {
      const el = w.deref();
      if (el) wire(el, ch);
    }
    // The document's own question: were the hooks in time?
    apply(listen, win.document, [ch.internalsLate, () => {
      if (tr.channel !== ch) return;
      apply(dispatch, win.document, [new Custom(ch.internalsReply, { detail: tr.late ? "late" : "in time" })]);
    }]);
  };
}

// ---- isolated world --------------------------------------------------------

/** Reads elements' internals over the channel during one snapshot. */
export interface InternalsReader {
  /** el's internals, or null when it has none (or the hooks do not know them). */
  read(el: Element): InternalsInfo | null;
  /** Whether doc's hooks came too late (or are not there) to see the internals its components attached. */
  late(doc: Document): boolean;
}

/** A reader over channel ch: one question per custom element, answered synchronously by the hooks. */
export function channelReader(ch: Channel): InternalsReader {
  const cache = new Map<Element, InternalsInfo | null>();
  const lateOf = new Map<Document, boolean>();
  const ask = (target: EventTarget, type: string): unknown => {
    let answer: unknown = undefined;
    const on = (ev: Event) => {
      answer = (ev as CustomEvent).detail;
    };
    target.addEventListener(ch.internalsReply, on);
    try {
      target.dispatchEvent(new CustomEvent(type));
    } finally {
      target.removeEventListener(ch.internalsReply, on);
    }
    return answer;
  };
  return {
    read(el) {
      if (!el.localName.includes("-")) return null; // only autonomous custom elements can attach internals
      let info = cache.get(el);
      if (info === undefined) {
        info = parseInternals(ask(el, ch.internals));
        cache.set(el, info);
      }
      return info;
    },
    late(doc) {
      let l = lateOf.get(doc);
      if (l === undefined) {
        l = ask(doc, ch.internalsLate) !== "in time";
        lateOf.set(doc, l);
      }
      return l;
    },
  };
}

/** The reader when there is no channel to the hooks: nothing read, and every document said late. */
export const NO_INTERNALS: InternalsReader = { read: () => null, late: () => true };
