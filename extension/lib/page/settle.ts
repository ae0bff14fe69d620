// Waiting for the page to settle after an action, before the content script
// answers: the server snapshots the page right after the answer, and a page
// that re-renders a moment after a click (a framework's render tick, a
// setTimeout, a quick fetch) should be snapshotted after that, not before.
//
// The wait is cheap and bounded: a MutationObserver on the whole document
// notes when the DOM last changed, and a short sleep loop checks it. It ends
// when the document has had no mutation for SETTLE_QUIET_MS, or after
// SETTLE_MAX_MS whatever happens, and then lets one animation frame pass so
// the page's requestAnimationFrame work lands too.
//
// Hidden tabs (the person is looking at another one): Chrome runs a hidden
// page's timers only once a second and its animation frames not at all. The
// content script therefore sleeps there through the service worker (whose
// timers run on time; see entrypoints/content.ts) and skips the frame.

/** How long the document must stay unchanged to count as settled. */
export const SETTLE_QUIET_MS = 50;
/** The longest the mutation wait lasts, for pages that never stop changing. */
export const SETTLE_MAX_MS = 300;
/** The longest the wait for one animation frame lasts (frames can stall). */
export const FRAME_MAX_MS = 100;

export type SettleOutcome = "quiet" | "capped";

export type Sleep = (ms: number) => Promise<void>;

export const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SettleOptions {
  quietMs?: number;
  maxMs?: number;
  frameMaxMs?: number;
  /** How to wait (default: setTimeout). */
  sleep?: Sleep;
}

/**
 * Resolves once a frame has passed after the document went SETTLE_QUIET_MS
 * without a DOM mutation ("quiet"), or after SETTLE_MAX_MS of changes
 * ("capped"). Never rejects.
 */
export async function settleDom(doc: Document, opts: SettleOptions = {}): Promise<SettleOutcome> {
  const quietMs = opts.quietMs ?? SETTLE_QUIET_MS;
  const maxMs = opts.maxMs ?? SETTLE_MAX_MS;
  const sleep = opts.sleep ?? timerSleep;
  const win = doc.defaultView;
  const MO = (win as (Window & typeof globalThis) | null)?.MutationObserver ?? globalThis.MutationObserver;
  const start = performance.now();
  let lastChange = start;
  let observer: MutationObserver | undefined;
  if (typeof MO === "function") {
    try {
      observer = new MO(() => {
        lastChange = performance.now();
      });
      observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    } catch {
      observer = undefined;
    }
  }
  let outcome: SettleOutcome;
  try {
    for (;;) {
      const now = performance.now();
      if (now - lastChange >= quietMs) {
        outcome = "quiet";
        break;
      }
      if (now - start >= maxMs) {
        outcome = "capped";
        break;
      }
      // Until the document would have been quiet long enough, or the cap.
      await sleep(Math.max(1, Math.min(lastChange + quietMs, start + maxMs) - now));
    }
  } catch {
    outcome = "capped"; // a sleep that failed: answer rather than hang
  } finally {
    observer?.disconnect();
  }
  await nextFrame(win, opts.frameMaxMs);
  return outcome;
}

/**
 * Resolves after the next animation frame has run (and the task after it),
 * at most frameMaxMs later. In a hidden document, where frames do not run,
 * it resolves at once.
 */
export function nextFrame(win: Window | null, frameMaxMs: number = FRAME_MAX_MS): Promise<void> {
  return new Promise((resolve) => {
    if (!win || win.document?.visibilityState === "hidden" || typeof win.requestAnimationFrame !== "function") {
      resolve();
      return;
    }
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(finish, frameMaxMs);
    try {
      win.requestAnimationFrame(() => setTimeout(finish, 0));
    } catch {
      finish();
    }
  });
}
