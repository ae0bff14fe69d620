// Waiting for the page to settle after an action, before the content script
// answers: the server snapshots the page right after the answer, and a page
// that re-renders a moment after a click (a framework's render tick, a
// setTimeout, a quick fetch) should be snapshotted after that, not before.
//
// The wait is cheap and bounded: a MutationObserver on the whole document
// notes when the DOM last changed, and a short sleep loop checks it. A frame
// (a task turn in hidden tabs) lets the page's immediate reaction land; a
// page that then has not changed answers SETTLE_IDLE_MS later, one that has
// changed once it went SETTLE_QUIET_MS without a mutation, and any page after
// SETTLE_MAX_MS whatever happens.
//
// Hidden tabs (the person is looking at another one): Chrome runs a hidden
// page's timers only once a second and its animation frames not at all. The
// content script therefore sleeps there through the service worker (whose
// timers run on time; see entrypoints/content.ts) and skips the frame.

/** How long the document must stay unchanged, once it has changed, to count as settled. */
export const SETTLE_QUIET_MS = 50;
/** How long a document that has not changed at all is watched after the first frame. */
export const SETTLE_IDLE_MS = 15;
/** The longest the mutation wait lasts, for pages that never stop changing. */
export const SETTLE_MAX_MS = 300;
/** The longest the wait for one animation frame lasts (frames can stall). */
export const FRAME_MAX_MS = 100;

export type SettleOutcome = "quiet" | "capped";

export type Sleep = (ms: number) => Promise<void>;

export const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SettleOptions {
  quietMs?: number;
  idleMs?: number;
  maxMs?: number;
  frameMaxMs?: number;
  /** How to wait (default: setTimeout). */
  sleep?: Sleep;
}

/** One task turn of the page's event loop (MessageChannel: not throttled in hidden tabs). */
function taskTurn(): Promise<void> {
  return new Promise((resolve) => {
    try {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        ch.port1.close();
        resolve();
      };
      ch.port2.postMessage(null);
    } catch {
      setTimeout(resolve, 0);
    }
  });
}

/**
 * Resolves once the page is quiet after an action: first the page's
 * immediate reaction lands (one animation frame, or one task turn in a hidden
 * document); then, if the document has not changed at all, after
 * SETTLE_IDLE_MS more without a change; if it has changed, once it has been
 * SETTLE_QUIET_MS without a change (its framework may still be rendering),
 * plus one more frame for work the page scheduled on it. After SETTLE_MAX_MS
 * of changes it answers "capped". Never rejects.
 */
export async function settleDom(doc: Document, opts: SettleOptions = {}): Promise<SettleOutcome> {
  const quietMs = opts.quietMs ?? SETTLE_QUIET_MS;
  const idleMs = Math.min(opts.idleMs ?? SETTLE_IDLE_MS, quietMs);
  const maxMs = opts.maxMs ?? SETTLE_MAX_MS;
  const sleep = opts.sleep ?? timerSleep;
  const win = doc.defaultView;
  const MO = (win as (Window & typeof globalThis) | null)?.MutationObserver ?? globalThis.MutationObserver;
  const start = performance.now();
  let lastChange = -Infinity;
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
  } else {
    lastChange = start; // cannot tell: assume it changed
  }
  let outcome: SettleOutcome;
  let changedLate = false;
  try {
    if (win && doc.visibilityState !== "hidden") await nextFrame(win, opts.frameMaxMs);
    else await taskTurn();
    const beat = performance.now();
    for (;;) {
      const now = performance.now();
      const changed = lastChange > -Infinity;
      if (lastChange > beat) changedLate = true;
      const since = Math.max(beat, lastChange);
      const need = changed ? quietMs : idleMs;
      if (now - since >= need) {
        outcome = "quiet";
        break;
      }
      if (now - start >= maxMs) {
        outcome = "capped";
        break;
      }
      // Until the document would have been quiet long enough, or the cap.
      await sleep(Math.max(1, Math.min(since + need, start + maxMs) - now));
    }
  } catch {
    outcome = "capped"; // a sleep that failed: answer rather than hang
  } finally {
    observer?.disconnect();
  }
  if (changedLate) await nextFrame(win, opts.frameMaxMs);
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
