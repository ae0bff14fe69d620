// MAIN-world hooks, at document_start in every frame: record console output,
// uncaught errors and unhandled rejections, and keep alert/confirm/prompt from
// blocking the page (recording them as "dialog" entries). Entries go to the
// isolated content script of the top frame as CustomEvents on the top
// document (see lib/page/console.ts). Runs with the page's privileges and no
// extension APIs.

import { defineContentScript } from "wxt/utils/define-content-script";
import { EVT_ENTRY, EVT_HELLO, EVT_NATIVE_DIALOGS, EVT_REPLAY, installPageHooks, type ConsoleEntry } from "../lib/page/console";

export default defineContentScript({
  matches: ["<all_urls>"],
  world: "MAIN",
  runAt: "document_start",
  allFrames: true,
  matchAboutBlank: true,
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

  const send = (e: ConsoleEntry) => {
    if (!topDoc) return;
    const entry = isTop ? e : { ...e, text: prefix + e.text, frame: true };
    try {
      topDoc.dispatchEvent(new CustomEvent(EVT_ENTRY, { detail: JSON.stringify(entry) }));
    } catch {
      // the top document went away
    }
  };
  // Only the top frame's dialogs go native while the debugger is attached.
  let native = false;
  if (isTop) {
    win.document.addEventListener(EVT_NATIVE_DIALOGS, (ev) => {
      native = (ev as CustomEvent).detail === "1";
    });
  }
  const buffer = installPageHooks(win, send, () => native);

  if (isTop) {
    // Keep frames' entries too, so a late isolated script gets the whole history.
    win.document.addEventListener(EVT_ENTRY, (ev) => {
      const d = (ev as CustomEvent).detail;
      if (typeof d !== "string" || !d.includes('"frame":true')) return;
      try {
        const o = JSON.parse(d) as ConsoleEntry & { frame?: boolean };
        if (o.frame) buffer.push({ level: String(o.level), text: String(o.text), time: Number(o.time) });
      } catch {
        // ignore
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
