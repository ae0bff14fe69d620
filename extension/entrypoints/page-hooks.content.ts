// MAIN-world hooks, injected by the service worker into every frame of a
// SHARED tab only (entrypoints/background/inject.ts: when it is shared, and
// into each document it commits afterwards): record console output, uncaught
// errors and unhandled rejections, and answer alert/confirm/prompt without
// blocking the page (recording them as "dialog" entries). Entries go to the
// isolated content script of the top frame as CustomEvents on the top
// document (see lib/page/console.ts). Runs with the page's privileges and no
// extension APIs. Not in the manifest: nothing runs in tabs that are not shared.

import { defineContentScript } from "wxt/utils/define-content-script";
import { EVT_ENTRY, EVT_HELLO, EVT_NATIVE_DIALOGS, EVT_REPLAY, type HookEntry } from "../lib/page/console";
import { installPageHooks } from "../lib/page/page-hooks";

export default defineContentScript({
  matches: ["<all_urls>"],
  registration: "runtime",
  world: "MAIN",
  main() {
    setup(window);
  },
});

function setup(win: Window & typeof globalThis): void {
  const isTop = win === win.top;
  // Entries of a same-origin iframe go to the top document, marked with the frame.
  // A cross-origin frame's entries are not forwarded: posting them to the top
  // page would hand one origin's console to another.
  let topDoc: Document | null = null;
  try {
    topDoc = isTop ? win.document : (win.top?.document ?? null);
  } catch {
    topDoc = null;
  }
  const prefix = isTop ? "" : `[iframe ${truncateUrl(win.location.href)}] `;

  const send = (e: HookEntry) => {
    if (!topDoc) return;
    const entry = isTop ? e : { ...e, text: prefix + e.text, frame: true };
    try {
      topDoc.dispatchEvent(new CustomEvent(EVT_ENTRY, { detail: JSON.stringify(entry) }));
    } catch {
      // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; the top document went away
    }
  };
  // Only the top frame's dialogs go native while the debugger is attached.
  let native = false;
  const { hooks, fresh } = installPageHooks(win, send, () => native);
  const buffer = hooks.buffer;
  if (isTop && fresh) {
    win.document.addEventListener(EVT_NATIVE_DIALOGS, (ev) => {
      native = (ev as CustomEvent).detail === "1";
    });
  }

  if (isTop && fresh) {
    // Keep frames' entries too, so a late isolated script gets the whole history.
    win.document.addEventListener(EVT_ENTRY, (ev) => {
      const d = (ev as CustomEvent).detail;
      if (typeof d !== "string" || !d.includes('"frame":true')) return;
      try {
        const o = JSON.parse(d) as HookEntry & { frame?: boolean };
        if (o.frame) buffer.push({ level: String(o.level), text: String(o.text), time: Number(o.time) });
      } catch {
        // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; not ours: any script in the page can dispatch this event
      }
    });
    win.document.addEventListener(EVT_HELLO, () => {
      win.document.dispatchEvent(new CustomEvent(EVT_REPLAY, { detail: JSON.stringify(buffer.list()) }));
    });
  }
}

function truncateUrl(u: string): string {
  return u.length > 100 ? `${u.slice(0, 99)}…` : u;
}
