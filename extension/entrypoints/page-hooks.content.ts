// MAIN-world hooks, injected by the service worker into every frame of a
// SHARED tab only (entrypoints/background/inject.ts: when it is shared, and
// into each document it commits afterwards): record console output, uncaught
// errors and unhandled rejections, and answer alert/confirm/prompt without
// blocking the page (recording them as "dialog" entries). Entries go to the
// isolated content script of the top frame as CustomEvents on the top
// document, on the private channel of the secret the service worker claims
// the hooks with (lib/page/console.ts channelOf; nothing is sent before a
// claim); a frame whose top document is of another origin keeps them in its
// own document, for its own content script. Runs with the page's privileges and no extension APIs. Not in the
// manifest: nothing runs in tabs that are not shared.

import { defineContentScript } from "wxt/utils/define-content-script";
import { channelOf, type Channel, type HookEntry } from "../lib/page/console";
import { installPageHooks } from "../lib/page/page-hooks";

export default defineContentScript({
  matches: ["<all_urls>"],
  registration: "runtime",
  world: "MAIN",
  main() {
    setup(window);
  },
});

/**
 * Wires the hooks of win to the channel. Exported for tests. Everything the
 * channel uses is taken here, when the hooks file runs: a page script that
 * runs later and wraps dispatchEvent, addEventListener, CustomEvent or JSON
 * sees nothing of the channel's event types.
 */
export function setup(win: Window & typeof globalThis): void {
  const apply = Reflect.apply;
  const proto = win.EventTarget.prototype;
  const dispatch = proto.dispatchEvent;
  const listen = proto.addEventListener;
  const unlisten = proto.removeEventListener;
  const Custom = win.CustomEvent;
  const stringify = JSON.stringify;
  const parse = JSON.parse;

  const isTop = win === win.top;
  let topDoc: Document | null = null;
  try {
    topDoc = isTop ? win.document : (win.top?.document ?? null);
  } catch {
    topDoc = null;
  }
  // Entries of a same-origin iframe go to the top document, marked with the frame.
  // A cross-origin frame's entries are never posted to the top page (that
  // would hand one origin's console to another): the frame's own content
  // script reads them (issue 26; the service worker marks them with the
  // frame's origin). readsHere: this document is where its entries are read.
  const ownReader = topDoc === null;
  const readsHere = isTop || ownReader;
  if (ownReader) topDoc = win.document;
  const prefix = readsHere ? "" : `[iframe ${truncateUrl(win.location.href)}] `;
  let channel: Channel | null = null;
  const fire = (target: Document, type: string, detail: string) => {
    apply(dispatch, target, [new Custom(type, { detail })]);
  };

  const send = (e: HookEntry) => {
    if (!topDoc || !channel) return;
    const entry = readsHere ? e : { ...e, text: prefix + e.text, frame: true };
    try {
      fire(topDoc, channel.entry, stringify(entry));
    } catch {
      // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; the top document went away
    }
  };
  // Only the top frame's dialogs go native while the debugger is attached.
  let native = false;
  // The listeners of the current channel (a new claim replaces them).
  let unwire = () => undefined as void;
  const onClaim = (secret: string) => {
    unwire();
    channel = channelOf(secret);
    if (!readsHere) return;
    const ch = channel;
    const doc = win.document;
    const onNative = (ev: Event) => {
      native = (ev as CustomEvent).detail === "1";
    };
    // Keep frames' entries too, so a late isolated script gets the whole history.
    const onEntry = (ev: Event) => {
      const d = (ev as CustomEvent).detail;
      if (typeof d !== "string" || !d.includes('"frame":true')) return;
      try {
        const o = parse(d) as HookEntry & { frame?: boolean };
        if (o.frame) hooks?.buffer.push({ level: String(o.level), text: String(o.text), time: Number(o.time) });
      } catch {
        // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; not ours: any script in the page can dispatch this event
      }
    };
    const onHello = () => {
      if (hooks) fire(doc, ch.replay, stringify(hooks.buffer.list()));
    };
    // Only the top frame's dialogs go native.
    if (isTop) apply(listen, doc, [ch.native, onNative]);
    apply(listen, doc, [ch.entry, onEntry]);
    apply(listen, doc, [ch.hello, onHello]);
    unwire = () => {
      apply(unlisten, doc, [ch.native, onNative]);
      apply(unlisten, doc, [ch.entry, onEntry]);
      apply(unlisten, doc, [ch.hello, onHello]);
    };
  };
  // The page's pointer capture, told on the element itself (composed: through shadow roots).
  const onCapture = (el: Element, on: boolean) => {
    if (!channel) return;
    apply(dispatch, el, [new Custom(channel.capture, { detail: on ? "1" : "0", bubbles: true, composed: true })]);
  };
  const { hooks } = installPageHooks(win, send, () => native, onClaim, onCapture);
}

function truncateUrl(u: string): string {
  return u.length > 100 ? `${u.slice(0, 99)}…` : u;
}
