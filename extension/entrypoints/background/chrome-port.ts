// The BrowserPort of lib/executor.ts, made of Chrome APIs. Kept thin: the
// decisions (which tab, shared or not, restricted or not) are in lib/.

import type { BrowserPort, TabLike } from "../../lib/executor";
import { abandonedNavigationError, NAV_ABANDONED_MS, type NavEvent } from "../../lib/navigation";
import type { CsMessage, CsOp, CsOps, CsReply } from "../../lib/messages";
import { errorText } from "../../lib/peer";
import { TIMEOUTS_MS } from "../../lib/protocol.gen";
import type { Consent, Shares } from "../../lib/storage";
import { evalInPage, EVAL_CSP_ERROR } from "./evaluate";
import { downloads, networkRequests } from "./network";
import { bodiesOf, debuggerEnabled, onNativeDialogs, withDebugger, type Send } from "./debugger";
import { parseKeyCombo, type KeyPress } from "../../lib/page/keys";
import { beforeLeaving, BlockedPage, CONTENT_SCRIPT_FILE, PAGE_HOOKS_FILE, PROBE_AFTER_MS, responsive, unlessBlocked, within } from "./inject";

/** Longest a navigation may take before we answer anyway (5 s below its wire timeout, issue 12). */
const NAV_TIMEOUT_MS = TIMEOUTS_MS.browser_navigate - 5_000;
/** Once the new page has committed, how long to wait for its load event. */
const LOAD_AFTER_COMMIT_MS = 35_000;
export const BODIES_NEED_DEBUGGER =
  "Response bodies need the debugger mode, which is off: the person can switch it on in the monkbrowse options (For this Chrome profile).";
export const BODIES_ONLY_ATTACHED =
  "Requests without a body were made while monkbrowse's debugger was not attached to the tab (it attaches only while working there) or have no body; repeat the action that makes them, then ask again.";
export const PDF_NEEDS_DEBUGGER =
  "browser_pdf needs the debugger mode, which is off in this Chrome profile: ask the person to switch on \"Use Chrome's debugger\" in the monkbrowse options (For this Chrome profile). Chrome then shows a banner while monkbrowse works in the tab.";

export function toTabLike(t: chrome.tabs.Tab): TabLike | undefined {
  if (t.id === undefined || t.id === chrome.tabs.TAB_ID_NONE) return undefined;
  return {
    id: t.id,
    windowId: t.windowId,
    url: t.url ?? t.pendingUrl ?? "",
    title: t.title ?? "",
    active: t.active,
  };
}

async function getTab(tabId: number): Promise<TabLike | undefined> {
  try {
    return toTabLike(await chrome.tabs.get(tabId));
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * waitForNewPage runs start() and resolves when the tab's top frame has
 * committed a new document after that call and finished loading it. The old
 * page's load events are ignored because nothing counts until a commit that
 * happens after start(). Same-document navigations (fragment, history API)
 * count as done at once. Bounded: after a commit, a page that never fires
 * load is accepted after LOAD_AFTER_COMMIT_MS; without any commit the wait
 * fails after NAV_TIMEOUT_MS.
 */
export interface WaitOptions {
  /** Ignore commits of about:blank (a new tab's initial document) when the target is a real page. */
  ignoreBlank?: boolean;
  /** Fail with noStartError when no navigation has even started within this many ms. */
  startTimeoutMs?: number;
  noStartError?: string;
  /**
   * The URL navigated to, when an abandoned navigation (net::ERR_ABORTED
   * with nothing committed and nothing replacing it) should fail the wait
   * at once instead of running into the timeout.
   */
  failAbandoned?: string;
  /** Stop waiting when it aborts (the server cancelled the call); the navigation itself may go on. */
  signal?: AbortSignal;
}

export function waitForNewPage(
  knownTabId: number | undefined,
  what: string,
  start: () => Promise<unknown>,
  opts: WaitOptions = {},
): Promise<void> {
  // With knownTabId undefined, start() creates the tab and resolves to its
  // id; events that arrive before the id is known are kept and replayed.
  let tabId = knownTabId ?? -1;
  const early: { tabId: number; run: () => void }[] = [];
  return new Promise<void>((resolve, reject) => {
    let committed = false;
    let begun = false;
    let done = false;
    let started = false;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      chrome.webNavigation.onBeforeNavigate.removeListener(onBefore);
      chrome.webNavigation.onCommitted.removeListener(onCommitted);
      chrome.webNavigation.onCompleted.removeListener(onCompleted);
      chrome.webNavigation.onErrorOccurred.removeListener(onError);
      chrome.webNavigation.onReferenceFragmentUpdated.removeListener(onSameDoc);
      chrome.webNavigation.onHistoryStateUpdated.removeListener(onSameDoc);
      chrome.tabs.onRemoved.removeListener(onRemoved);
      opts.signal?.removeEventListener("abort", onAbort);
      if (err) reject(err);
      else resolve();
    };
    const mine = (d: { tabId: number; frameId: number }) => started && d.tabId === tabId && d.frameId === 0;
    // Wraps a listener so that, while the tab id is unknown, its events wait.
    const routed =
      <D extends { tabId: number }>(h: (d: D) => void) =>
      (d: D) => {
        if (tabId === -1) {
          if (started && early.length < 200) early.push({ tabId: d.tabId, run: () => h(d) });
          return;
        }
        h(d);
      };
    const isBlank = (url: string) => opts.ignoreBlank === true && url === "about:blank";
    // Set when the navigation was abandoned with nothing committed; a new
    // navigation of the tab (one replacing it) clears it.
    let abandoned: ReturnType<typeof setTimeout> | undefined;
    const onBefore = routed((d: chrome.webNavigation.WebNavigationBaseCallbackDetails) => {
      if (mine(d) && !isBlank(d.url)) {
        begun = true;
        if (abandoned !== undefined) clearTimeout(abandoned);
        abandoned = undefined;
      }
    });
    const onCommitted = routed((d: chrome.webNavigation.WebNavigationTransitionCallbackDetails) => {
      if (!mine(d) || committed || isBlank(d.url)) return;
      committed = true;
      begun = true;
      timers.push(setTimeout(() => finish(), LOAD_AFTER_COMMIT_MS));
      // A page that opened a native dialog while loading (before our hooks)
      // never fires load: stop waiting once it stops answering, and let the
      // next request report the dialog.
      const probe = () => {
        if (done) return;
        void responsive(tabId).then((ok) => {
          if (!ok) finish();
          else if (!done) timers.push(setTimeout(probe, PROBE_AFTER_MS));
        });
      };
      timers.push(setTimeout(probe, PROBE_AFTER_MS));
    });
    const onCompleted = routed((d: chrome.webNavigation.WebNavigationFramedCallbackDetails) => {
      if (mine(d) && committed) finish();
    });
    const onError = routed((d: chrome.webNavigation.WebNavigationFramedErrorCallbackDetails) => {
      if (!mine(d)) return;
      // An aborted load that is replaced by another navigation also lands here;
      // only fail when nothing committed.
      // When nothing replaces it (Chrome blocked a data: URL, a download),
      // answer instead of waiting for the timeout.
      if (d.error === "net::ERR_ABORTED") {
        if (committed || opts.failAbandoned === undefined) return;
        if (abandoned !== undefined) clearTimeout(abandoned);
        const url = opts.failAbandoned;
        abandoned = setTimeout(() => {
          if (committed) return;
          void getTab(tabId).then((t) => finish(new Error(abandonedNavigationError(url, t?.url))));
        }, NAV_ABANDONED_MS);
        timers.push(abandoned);
        return;
      }
      finish(new Error(`${what} failed: ${d.error} (${d.url})`));
    });
    const onSameDoc = routed((d: chrome.webNavigation.WebNavigationTransitionCallbackDetails) => {
      if (mine(d) && !committed && !isBlank(d.url)) {
        begun = true;
        finish();
      }
    });
    const onRemoved = (id: number) => {
      if (id === tabId) finish(new Error(`tab ${tabId} was closed during ${what}`));
    };
    chrome.webNavigation.onBeforeNavigate.addListener(onBefore);
    chrome.webNavigation.onCommitted.addListener(onCommitted);
    chrome.webNavigation.onCompleted.addListener(onCompleted);
    chrome.webNavigation.onErrorOccurred.addListener(onError);
    chrome.webNavigation.onReferenceFragmentUpdated.addListener(onSameDoc);
    chrome.webNavigation.onHistoryStateUpdated.addListener(onSameDoc);
    chrome.tabs.onRemoved.addListener(onRemoved);
    timers.push(
      setTimeout(
        () => finish(new Error(`${what} did not load a new page within ${NAV_TIMEOUT_MS / 1000} s`)),
        NAV_TIMEOUT_MS,
      ),
    );
    const onAbort = () => finish(new Error(`${what} was cancelled by the server; the page may still be loading`));
    if (opts.signal?.aborted) {
      onAbort();
      return;
    }
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.startTimeoutMs !== undefined) {
      const ms = opts.startTimeoutMs;
      timers.push(
        setTimeout(() => {
          if (!begun) finish(new Error(opts.noStartError ?? `${what} did not start within ${ms} ms`));
        }, ms),
      );
    }
    started = true;
    start().then(
      (id) => {
        if (tabId !== -1) return;
        if (typeof id !== "number") {
          finish(new Error(`${what} failed: no tab`));
          return;
        }
        tabId = id;
        for (const e of early.splice(0)) if (e.tabId === id && !done) e.run();
      },
      (e: unknown) => finish(new Error(`${what} failed: ${errorText(e)}`)),
    );
  });
}

/**
 * Forwards the main frame's navigation events of one tab to listener until
 * the returned function is called (BrowserPort.watchNavigation). Prerendered
 * pages have frame ids other than 0, so they are not reported.
 */
export function watchNavigation(tabId: number, listener: (e: NavEvent) => void): () => void {
  const mine = (d: { tabId: number; frameId: number }) => d.tabId === tabId && d.frameId === 0;
  const emit = (e: NavEvent) => {
    try {
      listener(e);
    } catch {
      // a listener's bug must not break Chrome's event dispatch
    }
  };
  const onBefore = (d: chrome.webNavigation.WebNavigationBaseCallbackDetails) => {
    if (mine(d)) emit({ kind: "start", url: d.url });
  };
  const onCommitted = (d: chrome.webNavigation.WebNavigationTransitionCallbackDetails) => {
    if (mine(d)) emit({ kind: "commit", url: d.url });
  };
  const onSameDoc = (d: chrome.webNavigation.WebNavigationTransitionCallbackDetails) => {
    if (mine(d)) emit({ kind: "same-document", url: d.url });
  };
  const onCompleted = (d: chrome.webNavigation.WebNavigationFramedCallbackDetails) => {
    if (mine(d)) emit({ kind: "complete", url: d.url });
  };
  const onError = (d: chrome.webNavigation.WebNavigationFramedErrorCallbackDetails) => {
    if (mine(d)) emit({ kind: "error", url: d.url, error: d.error });
  };
  const onRemoved = (id: number) => {
    if (id === tabId) emit({ kind: "closed" });
  };
  chrome.webNavigation.onBeforeNavigate.addListener(onBefore);
  chrome.webNavigation.onCommitted.addListener(onCommitted);
  chrome.webNavigation.onHistoryStateUpdated.addListener(onSameDoc);
  chrome.webNavigation.onReferenceFragmentUpdated.addListener(onSameDoc);
  chrome.webNavigation.onCompleted.addListener(onCompleted);
  chrome.webNavigation.onErrorOccurred.addListener(onError);
  chrome.tabs.onRemoved.addListener(onRemoved);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    chrome.webNavigation.onBeforeNavigate.removeListener(onBefore);
    chrome.webNavigation.onCommitted.removeListener(onCommitted);
    chrome.webNavigation.onHistoryStateUpdated.removeListener(onSameDoc);
    chrome.webNavigation.onReferenceFragmentUpdated.removeListener(onSameDoc);
    chrome.webNavigation.onCompleted.removeListener(onCompleted);
    chrome.webNavigation.onErrorOccurred.removeListener(onError);
    chrome.tabs.onRemoved.removeListener(onRemoved);
  };
}

function sendToFrame0(tabId: number, msg: CsMessage): Promise<CsReply | undefined> {
  return chrome.tabs.sendMessage(tabId, msg, { frameId: 0 }) as Promise<CsReply | undefined>;
}

function isNoReceiver(e: unknown): boolean {
  const m = errorText(e);
  return m.includes("Receiving end does not exist") || m.includes("Could not establish connection");
}

export async function contentOp<K extends CsOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]> {
  const msg: CsMessage<K> = { cs: true, op, args };
  let reply: CsReply | undefined;
  try {
    reply = await unlessBlocked(tabId, sendToFrame0(tabId, msg));
  } catch (e) {
    if (e instanceof BlockedPage) throw e;
    if (!isNoReceiver(e)) throw new Error(`the page did not answer (${errorText(e)})`);
    reply = undefined;
  }
  if (reply === undefined) {
    // Nothing answered: the injection at share or commit time lost a race
    // (a prerendered page, an extension reload). The executor only gets
    // here for a shared tab: inject and try once more.
    try {
      // The MAIN-world hooks first, so console output and dialogs are
      // captured from now on.
      await unlessBlocked(
        tabId,
        chrome.scripting
          .executeScript({ target: { tabId, allFrames: true }, world: "MAIN", files: [PAGE_HOOKS_FILE], injectImmediately: true })
          .catch(() => undefined),
      );
      await unlessBlocked(tabId, chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, files: [CONTENT_SCRIPT_FILE], injectImmediately: true }));
    } catch (e) {
      if (e instanceof BlockedPage) throw e;
      throw new Error(`cannot reach the page in tab ${tabId}: ${errorText(e)}`);
    }
    try {
      reply = await unlessBlocked(tabId, sendToFrame0(tabId, msg));
    } catch (e) {
      if (e instanceof BlockedPage) throw e;
      throw new Error(`the page in tab ${tabId} did not answer even after injecting the content script (${errorText(e)}); reload the tab and try again`);
    }
  }
  if (!reply || typeof reply !== "object" || typeof reply.ok !== "boolean") {
    throw new Error(`the page in tab ${tabId} gave no answer to "${op}"; reload the tab and try again`);
  }
  if (!reply.ok) throw new Error(reply.error);
  return reply.result as CsOps[K]["result"];
}

// ---- debugger mode: trusted input --------------------------------------------

type MouseButton = "left" | "right" | "middle" | "none";

async function mouseEvent(send: Send, type: string, x: number, y: number, button: MouseButton = "none", clickCount = 0, buttons = 0): Promise<void> {
  await send("Input.dispatchMouseEvent", { type, x, y, button, clickCount, buttons });
}

async function trustedClick(send: Send, x: number, y: number, button: MouseButton = "left", count = 1): Promise<void> {
  const mask = button === "left" ? 1 : button === "right" ? 2 : 4;
  await mouseEvent(send, "mouseMoved", x, y);
  for (let n = 1; n <= count; n++) {
    await mouseEvent(send, "mousePressed", x, y, button, n, mask);
    await mouseEvent(send, "mouseReleased", x, y, button, n, 0);
  }
}

function modifierBits(kp: KeyPress): number {
  const m = kp.modifiers;
  return (m.alt ? 1 : 0) | (m.ctrl ? 2 : 0) | (m.meta ? 4 : 0) | (m.shift ? 8 : 0);
}

async function trustedKey(send: Send, kp: KeyPress): Promise<void> {
  const modifiers = modifierBits(kp);
  const printable = kp.text !== "" && !kp.modifiers.ctrl && !kp.modifiers.meta && !kp.modifiers.alt;
  const base = { key: kp.key, code: kp.code, windowsVirtualKeyCode: kp.keyCode, nativeVirtualKeyCode: kp.keyCode, modifiers };
  const commands = kp.modifiers.ctrl && kp.key.toLowerCase() === "a" ? { commands: ["selectAll"] } : {};
  await send("Input.dispatchKeyEvent", { type: printable ? "keyDown" : "rawKeyDown", ...base, ...(printable ? { text: kp.text, unmodifiedText: kp.text } : {}), ...commands });
  await send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
}

function center(box: { visible: { x: number; y: number; width: number; height: number } }, ref: string): { x: number; y: number } {
  const v = box.visible;
  if (v.width < 1 || v.height < 1) throw new Error(`ref ${ref} is not in the visible area even after scrolling to it; take a new browser_snapshot`);
  return { x: v.x + v.width / 2, y: v.y + v.height / 2 };
}

/** Where a ref's element is on screen, scrolled into view, for real input. */
async function refPoint(tabId: number, ref: string): Promise<{ x: number; y: number }> {
  return center(await contentOp(tabId, "rect", { ref }), ref);
}

/** The ops that become real input when the debugger mode is on, each as input events. */
const TRUSTED: { [K in "click" | "hover" | "type" | "press_key" | "click_xy" | "drag_xy"]: (send: Send, tabId: number, args: CsOps[K]["args"]) => Promise<void> } = {
  click: async (send, tabId, { ref }) => {
    const p = await refPoint(tabId, ref);
    await trustedClick(send, p.x, p.y);
  },
  hover: async (send, tabId, { ref }) => {
    const p = await refPoint(tabId, ref);
    await mouseEvent(send, "mouseMoved", p.x, p.y);
  },
  type: async (send, tabId, { ref, text, submit }) => {
    const p = await refPoint(tabId, ref);
    await trustedClick(send, p.x, p.y);
    await trustedKey(send, parseKeyCombo("Ctrl+A"));
    if (text === "") await trustedKey(send, parseKeyCombo("Backspace"));
    else await send("Input.insertText", { text });
    if (submit === true) await trustedKey(send, parseKeyCombo("Enter"));
  },
  press_key: (send, _tabId, { key }) => trustedKey(send, parseKeyCombo(key)),
  click_xy: (send, _tabId, { x, y, button, double }) =>
    trustedClick(send, x, y, button === "right" || button === "middle" ? button : "left", double === true ? 2 : 1),
  drag_xy: async (send, _tabId, { startX: sx, startY: sy, endX: ex, endY: ey }) => {
    await mouseEvent(send, "mouseMoved", sx, sy);
    await mouseEvent(send, "mousePressed", sx, sy, "left", 1, 1);
    for (let i = 1; i <= 10; i++) {
      await mouseEvent(send, "mouseMoved", sx + ((ex - sx) * i) / 10, sy + ((ey - sy) * i) / 10, "left", 0, 1);
    }
    await mouseEvent(send, "mouseReleased", ex, ey, "left", 1, 0);
  },
};

type TrustedOp = keyof typeof TRUSTED;

/** One action as real input through the debugger, then the page's settle. */
async function trustedOp<K extends TrustedOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<void> {
  await withDebugger(tabId, (send) => TRUSTED[op](send, tabId, args));
  // Wait for the page to settle, as the DOM actions do (a navigation the
  // input started makes this answer go missing: csNavigating handles that).
  await contentOp(tabId, "settle", {});
}

/** BrowserPort.content: real input for the acting ops when the debugger mode is on. */
async function content<K extends CsOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]> {
  if (!Object.hasOwn(TRUSTED, op) || !(await debuggerEnabled())) return contentOp(tabId, op, args);
  // TypeScript cannot carry the check on op over to args (K may be a union);
  // each trusted handler is typed by the table. The answer is the notes only
  // (the executor reads no more of a trusted op's answer).
  await trustedOp(tabId, op as K & TrustedOp, args as CsOps[K & TrustedOp]["args"]);
  return {} as CsOps[K]["result"];
}

onNativeDialogs(async (tabId, on) => {
  await contentOp(tabId, "native_dialogs", { on });
});

async function activeTab(): Promise<TabLike | undefined> {
  let tabs = await chrome.tabs.query({ active: true, lastFocusedWindow: true, windowType: "normal" });
  if (tabs.length === 0) tabs = await chrome.tabs.query({ active: true, windowType: "normal" });
  const t = tabs[0];
  return t ? toTabLike(t) : undefined;
}

/** Runs fn with the tab shown in its window, then gives the person's tab back. */
async function withTabShown<T>(tab: TabLike, fn: () => Promise<T>): Promise<T> {
  const [previous] = await chrome.tabs.query({ active: true, windowId: tab.windowId });
  const switched = previous?.id !== undefined && previous.id !== tab.id;
  try {
    if (switched) {
      await chrome.tabs.update(tab.id, { active: true });
      // Give the compositor a frame or two to paint the newly shown tab.
      await sleep(150);
    }
    return await fn();
  } finally {
    if (switched && previous?.id !== undefined) {
      await chrome.tabs.update(previous.id, { active: true }).catch(() => undefined);
    }
  }
}

let lastCapture = 0;
/** captureVisibleTab as a data: URL, paced under Chrome's limit of 2 calls a second. */
async function captureDataUrl(tab: TabLike): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const wait = lastCapture + 520 - Date.now();
    if (wait > 0) await sleep(wait);
    lastCapture = Date.now();
    try {
      return await chrome.tabs.captureVisibleTab(tab.windowId, { format: "png" });
    } catch (e) {
      if (attempt < 3 && /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(errorText(e))) {
        await sleep(600);
        continue;
      }
      throw new Error(`screenshot of tab ${tab.id} failed: ${errorText(e)}`);
    }
  }
}

function stripDataUrl(dataUrl: string): string {
  const comma = dataUrl.indexOf(",");
  return comma >= 0 ? dataUrl.slice(comma + 1) : dataUrl;
}

async function bitmapOf(dataUrl: string): Promise<ImageBitmap> {
  const blob = await (await fetch(dataUrl)).blob();
  return createImageBitmap(blob);
}

async function pngBase64(canvas: OffscreenCanvas): Promise<string> {
  const blob = await canvas.convertToBlob({ type: "image/png" });
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

async function screenshot(tab: TabLike): Promise<string> {
  return withTabShown(tab, async () => stripDataUrl(await captureDataUrl(tab)));
}

/** The most viewports a stitched full-page screenshot captures. */
export const MAX_STITCH = 10;
/** The largest canvas side we stitch into (Chrome's canvas limit is higher; PNGs this big are already huge). */
const MAX_CANVAS_SIDE = 16_384;

async function screenshotElement(tab: TabLike, ref: string): Promise<{ data: string; note?: string }> {
  return withTabShown(tab, async () => {
    const box = await contentOp(tab.id, "rect", { ref });
    const v = box.visible;
    if (v.width < 1 || v.height < 1) throw new Error(`ref ${ref} is not in the visible area even after scrolling to it; take a new browser_snapshot`);
    const bmp = await bitmapOf(await captureDataUrl(tab));
    // The capture's scale: device pixels per CSS pixel (zoom included).
    const scale = bmp.width / box.viewportWidth;
    const sx = Math.round(v.x * scale);
    const sy = Math.round(v.y * scale);
    const w = Math.max(1, Math.min(bmp.width - sx, Math.round(v.width * scale)));
    const h = Math.max(1, Math.min(bmp.height - sy, Math.round(v.height * scale)));
    const canvas = new OffscreenCanvas(w, h);
    canvas.getContext("2d")!.drawImage(bmp, sx, sy, w, h, 0, 0, w, h);
    bmp.close();
    const cut = v.width < box.width - 1 || v.height < box.height - 1;
    return {
      data: await pngBase64(canvas),
      note: cut ? `The element is larger than the visible area (${Math.round(box.width)}×${Math.round(box.height)} CSS pixels): only its visible part is shown.` : undefined,
    };
  });
}

/** A whole-page screenshot: one capture in the debugger mode, else stitched from viewport captures. */
async function screenshotFullPage(tab: TabLike): Promise<{ data: string; note?: string }> {
  const m = await contentOp(tab.id, "metrics", {});
  if (await debuggerEnabled()) {
    const r = await withDebugger(tab.id, (send) =>
      send<{ data: string }>("Page.captureScreenshot", {
        format: "png",
        captureBeyondViewport: true,
        clip: { x: 0, y: 0, width: m.width, height: Math.min(m.height, MAX_CANVAS_SIDE), scale: 1 },
      }),
    );
    return { data: r.data, note: m.height > MAX_CANVAS_SIDE ? `Cut at ${MAX_CANVAS_SIDE} CSS pixels of the page's ${m.height}.` : undefined };
  }
  const screens = Math.ceil(m.height / Math.max(1, m.viewportHeight));
  if (screens > MAX_STITCH) {
    throw new Error(
      `the page is ${m.height} CSS pixels tall, ${screens} screens; a full-page screenshot without the debugger mode stitches at most ${MAX_STITCH}. ` +
        "Take screenshots of parts (browser_scroll, then browser_screenshot, or ref for one element), or ask the person to switch on the debugger mode in the monkbrowse options for a single full-page capture",
    );
  }
  return withTabShown(tab, async () => {
    const home = { x: m.scrollX, y: m.scrollY };
    let canvas: OffscreenCanvas | undefined;
    let ctx: OffscreenCanvasRenderingContext2D | undefined;
    let scale = 1;
    try {
      for (let i = 0; i < screens; i++) {
        const at = await contentOp(tab.id, "scroll_to", { x: 0, y: i * m.viewportHeight });
        const bmp = await bitmapOf(await captureDataUrl(tab));
        if (!canvas) {
          scale = bmp.width / m.viewportWidth;
          const w = Math.min(MAX_CANVAS_SIDE, bmp.width);
          const h = Math.min(MAX_CANVAS_SIDE, Math.round(m.height * scale));
          canvas = new OffscreenCanvas(w, h);
          ctx = canvas.getContext("2d")!;
        }
        ctx!.drawImage(bmp, 0, Math.round(at.scrollY * scale));
        bmp.close();
        if (at.scrollY + m.viewportHeight >= m.height) break;
      }
    } finally {
      await contentOp(tab.id, "scroll_to", home).catch(() => undefined);
    }
    return {
      data: await pngBase64(canvas!),
      note: screens > 1 ? `Stitched from ${screens} screens; fixed or sticky elements may repeat.` : undefined,
    };
  });
}

async function pdf(tab: TabLike): Promise<{ path: string; size: number }> {
  if (!(await debuggerEnabled())) throw new Error(PDF_NEEDS_DEBUGGER);
  const r = await withDebugger(tab.id, (send) => send<{ data: string }>("Page.printToPDF", { printBackground: true }));
  // eslint-disable-next-line no-control-regex -- control characters are what a file name must not hold
  const base = (tab.title || "page").replace(/[\\/:*?"<>|\x00-\x1f]+/g, " ").trim().slice(0, 80) || "page";
  const id = await chrome.downloads.download({
    url: `data:application/pdf;base64,${r.data}`,
    filename: `monkbrowse/${base}.pdf`,
    conflictAction: "uniquify",
    saveAs: false,
  });
  // Wait for Chrome to write the file (bounded).
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [item] = await chrome.downloads.search({ id });
    if (item?.state === "complete") return { path: item.filename, size: item.fileSize > 0 ? item.fileSize : item.bytesReceived };
    if (item?.state === "interrupted") throw new Error(`saving the PDF failed: ${item.error ?? "interrupted"}`);
    if (Date.now() > deadline) throw new Error("saving the PDF did not finish within 30 s");
    await sleep(100);
  }
}

async function evaluate(tabId: number, expression: string): Promise<unknown> {
  let results: chrome.scripting.InjectionResult<unknown>[];
  try {
    results = await unlessBlocked(
      tabId,
      chrome.scripting.executeScript({
        target: { tabId, frameIds: [0] },
        world: "MAIN",
        func: evalInPage,
        args: [expression],
      }),
    );
  } catch (e) {
    if (e instanceof BlockedPage) throw e;
    throw new Error(`cannot evaluate in tab ${tabId}: ${errorText(e)}`);
  }
  const r = results[0]?.result as { ok: boolean; value?: unknown; error?: string; csp?: boolean } | undefined;
  if (!r) throw new Error(`evaluating in tab ${tabId} returned nothing (the page may have navigated away)`);
  if (r.csp) throw new Error(EVAL_CSP_ERROR);
  if (!r.ok) throw new Error(r.error ?? "the expression threw an error");
  return r.value === undefined ? null : r.value;
}

async function openTab(url: string): Promise<TabLike> {
  const wins = await chrome.windows.getAll({ windowTypes: ["normal"] });
  const focused = wins.find((w) => w.focused) ?? wins[0];
  let id: number | undefined;
  const create = async (): Promise<number> => {
    const created =
      focused?.id !== undefined
        ? await chrome.tabs.create({ url, active: true, windowId: focused.id })
        : (await chrome.windows.create({ url, focused: true }))?.tabs?.[0];
    if (created?.id === undefined) throw new Error("Chrome did not open a tab");
    id = created.id;
    return created.id;
  };
  if (url === "about:blank") await create();
  else await waitForNewPage(undefined, `opening ${url}`, create, { ignoreBlank: true });
  if (id === undefined) throw new Error("Chrome did not open a tab");
  const t = toTabLike(await chrome.tabs.get(id));
  if (!t) throw new Error("Chrome opened a tab without an id");
  return t;
}

const PROBE_TIMEOUT = 3000;

async function historyNav(tabId: number, what: "back" | "forward" | "reload", signal?: AbortSignal): Promise<void> {
  if (what === "reload") {
    await beforeLeaving(tabId);
    return waitForNewPage(tabId, "reloading", () => chrome.tabs.reload(tabId), { signal });
  }
  const label = what === "back" ? "going back" : "going forward";
  const inPage = () =>
    chrome.scripting.executeScript({
      target: { tabId, frameIds: [0] },
      world: "ISOLATED",
      func: (dir: string) => {
        if (dir === "back") globalThis.history.back();
        else globalThis.history.forward();
      },
      args: [what],
    });
  // A page blocked by a native dialog does not run scripts: go through
  // Chrome's history then (which closes the dialog).
  const scriptable = await within(
    chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, func: () => true, injectImmediately: true }).then(
      () => true,
      () => false,
    ),
    PROBE_TIMEOUT,
    false,
  );
  if (scriptable) await beforeLeaving(tabId);
  if (!scriptable) {
    return waitForNewPage(tabId, label, () => (what === "back" ? chrome.tabs.goBack(tabId) : chrome.tabs.goForward(tabId)), {
      signal,
    });
  }
  return waitForNewPage(tabId, label, inPage, {
    startTimeoutMs: 3000,
    noStartError: `there is no ${what === "back" ? "previous" : "next"} page in tab ${tabId}'s history`,
    signal,
  });
}

async function activate(tab: TabLike): Promise<void> {
  await chrome.tabs.update(tab.id, { active: true });
  await chrome.windows.update(tab.windowId, { focused: true });
}

// The highest snapshot ref per tab lives in chrome.storage.session: it
// survives the service worker being suspended and is gone with the browser
// session, like the tab ids it is keyed by.
const refBaseKey = (tabId: number) => `refBase:${tabId}`;

async function refBase(tabId: number): Promise<number> {
  const got = await chrome.storage.session.get(refBaseKey(tabId));
  const v = got[refBaseKey(tabId)];
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : 0;
}

async function saveRefBase(tabId: number, high: number): Promise<void> {
  await chrome.storage.session.set({ [refBaseKey(tabId)]: high });
}

export function forgetRefBase(tabId: number): void {
  chrome.storage.session.remove(refBaseKey(tabId)).catch(() => undefined);
}

export function makeChromePort(deps: {
  getShares: () => Promise<Shares>;
  share: (tabId: number) => Promise<number>;
  getConsent: () => Promise<Consent>;
  armDialog: BrowserPort["armDialog"];
}): BrowserPort {
  return {
    ownExtensionId: chrome.runtime.id,
    getTab,
    activeTab,
    getShares: deps.getShares,
    getConsent: deps.getConsent,
    armDialog: deps.armDialog,
    share: deps.share,
    navigate: async (tabId, url, signal) => {
      // "Leave site?" never holds up a navigation the AI asked for.
      await beforeLeaving(tabId);
      return waitForNewPage(tabId, `navigating to ${url}`, () => chrome.tabs.update(tabId, { url }), {
        ignoreBlank: url !== "about:blank",
        failAbandoned: url,
        signal,
      });
    },
    history: historyNav,
    watchNavigation,
    content,
    refBase,
    saveRefBase,
    screenshot,
    screenshotElement,
    screenshotFullPage,
    evaluate,
    openTab,
    activate,
    closeTab: async (tabId) => {
      await beforeLeaving(tabId);
      await chrome.tabs.remove(tabId);
    },
    network: async (tabId, opts) => {
      const r = await networkRequests(tabId, opts);
      if (!opts.includeBodies) return r;
      if (!(await debuggerEnabled())) return { ...r, bodiesNote: BODIES_NEED_DEBUGGER };
      // Match bodies (newest first) to requests of the same URL, newest first.
      const pool = [...bodiesOf(tabId)];
      let found = 0;
      for (let i = r.requests.length - 1; i >= 0; i--) {
        const q = r.requests[i]!;
        const j = pool.map((b) => b.url).lastIndexOf(q.url);
        if (j < 0) continue;
        const b = pool.splice(j, 1)[0]!;
        q.body = b.body;
        if (b.base64) q.bodyBase64 = true;
        if (b.truncated) q.bodyTruncated = true;
        found++;
      }
      return found === r.requests.length ? r : { ...r, bodiesNote: BODIES_ONLY_ATTACHED };
    },
    downloads,
    pdf,
  };
}
