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
// Where the page's hooks are in (shared tabs: pagework.ts), the settle knows
// what the page itself started during the action: short timers and frames
// not yet run and requests not yet finished. Then it waits exactly for those
// (timers and frames bounded by SETTLE_MAX_MS, requests by
// SETTLE_REQUEST_MAX_MS), lets SETTLE_AFTER_WORK_MS pass after the last of them
// finished or the DOM last changed, and answers one task turn after the
// frame when the page started nothing and changed nothing after its
// immediate reaction — instead of the fixed idle and quiet windows above,
// which remain for documents without hooks.
//
// Hidden tabs (the person is looking at another one): Chrome runs a hidden
// page's timers only once a second and its animation frames not at all. The
// content script therefore sleeps there through the service worker (whose
// timers run on time; see entrypoints/content.ts) and skips the frame.

import { pageTurn } from "./events";
import type { PageWork } from "./pagework";

/** How long the document must stay unchanged, once it has changed, to count as settled. */
export const SETTLE_QUIET_MS = 50;
/** How long a document that has not changed at all is watched after the first frame. */
export const SETTLE_IDLE_MS = 15;
/** The longest the mutation wait lasts, for pages that never stop changing. */
export const SETTLE_MAX_MS = 300;
/** With the page's work known: how long after its last timer or request finished, or its DOM last changed, it counts as settled. */
export const SETTLE_AFTER_WORK_MS = 16;
/**
 * With the page's work known: the longest wait for requests the action
 * started (a search-as-you-type fetch per key, a "load more"); timers and
 * frames keep SETTLE_MAX_MS.
 */
export const SETTLE_REQUEST_MAX_MS = 1500;
/** With the page's work known: how often a pending timer or request is looked at again. */
export const SETTLE_POLL_MS = 4;
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
  /** With the page's work known, the bound for requests (default SETTLE_REQUEST_MAX_MS). */
  requestMaxMs?: number;
  /** The page's own pending work (pagework.ts), or undefined where no hooks answer. */
  work?: () => PageWork | undefined;
  /**
   * When to wait for an animation frame first, where the page's work is known
   * (without it, always). "always" (default). "asked": only when the page
   * asked for one (a requested frame is pending work); layout-driven
   * callbacks (ResizeObserver, IntersectionObserver) are then not waited for.
   * "layout": as "asked", but always when the page observes layout or may
   * (PageWork.layout).
   */
  frame?: "always" | "asked" | "layout";
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
    const visible = !!win && doc.visibilityState !== "hidden";
    // Hidden documents keep the windows: their timers run once a second, so
    // waiting for a page's short timer there would mean waiting for the cap.
    const first = visible ? opts.work?.() : undefined;
    const work = first ? opts.work : undefined;
    // With the page's work known, a frame is waited for only when the page
    // asked for one (it is pending work) or the caller wants one anyway.
    const frame = opts.frame ?? "always";
    const skipFrame = !!first && (frame === "asked" || (frame === "layout" && !first.layout));
    if (visible && !skipFrame) await nextFrame(win, opts.frameMaxMs);
    else await pageTurn();
    const beat = performance.now();
    const known = work ? await settleKnown(work, beat, () => lastChange, start, maxMs, opts.requestMaxMs ?? SETTLE_REQUEST_MAX_MS, sleep) : undefined;
    outcome = known ?? (await settleByWindows(beat, () => lastChange, start, quietMs, idleMs, maxMs, sleep));
    changedLate = lastChange > beat;
  } catch {
    outcome = "capped"; // a sleep that failed: answer rather than hang
  } finally {
    observer?.disconnect();
  }
  if (changedLate) await nextFrame(win, opts.frameMaxMs);
  return outcome;
}

/** The settle by fixed windows (see settleDom): idle after no change, quiet after a change. */
async function settleByWindows(
  beat: number,
  lastChange: () => number,
  start: number,
  quietMs: number,
  idleMs: number,
  maxMs: number,
  sleep: Sleep,
): Promise<SettleOutcome> {
  for (;;) {
    const now = performance.now();
    const changed = lastChange() > -Infinity;
    const since = Math.max(beat, lastChange());
    const need = changed ? quietMs : idleMs;
    if (now - since >= need) return "quiet";
    if (now - start >= maxMs) return "capped";
    // Until the document would have been quiet long enough, or the cap.
    await sleep(Math.max(1, Math.min(since + need, start + maxMs) - now));
  }
}

/**
 * The settle where the page's work is known (see the file comment): resolves
 * "quiet" or "capped".
 */
async function settleKnown(
  work: () => PageWork | undefined,
  beat: number,
  lastChange: () => number,
  start: number,
  maxMs: number,
  requestMaxMs: number,
  sleep: Sleep,
): Promise<SettleOutcome> {
  let turned = false;
  for (;;) {
    const w = work();
    const now = performance.now();
    const cap = start + (w && w.requests > 0 ? Math.max(maxMs, requestMaxMs) : maxMs);
    if (now >= cap) return "capped";
    if (w && w.pending > 0) {
      await sleep(Math.max(1, Math.min(SETTLE_POLL_MS, cap - now)));
      continue;
    }
    if (now - start >= maxMs) return "capped";
    const last = Math.max(lastChange(), w ? w.lastDone : -Infinity);
    if (last > beat) {
      // Something happened after the immediate reaction: a short quiet spell.
      const left = last + SETTLE_AFTER_WORK_MS - now;
      if (left <= 0) return "quiet";
      await sleep(Math.max(1, Math.min(left, start + maxMs - now)));
      continue;
    }
    if (turned) return "quiet";
    // Nothing started, nothing changed since the frame: one more task turn
    // for work the page queued as a task (a scheduler's MessageChannel).
    await pageTurn();
    turned = true;
  }
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
