// The page's own pending work after an action, so the settle (settle.ts) can
// answer as soon as the page is quiet instead of after a fixed window.
//
// The MAIN-world hooks (page-hooks.ts's installPageHooks, shared tabs only) wrap
// setTimeout/clearTimeout, requestAnimationFrame/cancelAnimationFrame, fetch,
// XMLHttpRequest.prototype.send and the observe() of ResizeObserver and
// IntersectionObserver. Between "begin" and "end" (the isolated
// content script marks an action) they count what the page starts: short
// timers (delay ≤ WORK_TIMER_MAX_MS) and animation frames that have not run
// yet, and requests that have not finished; and they note when the last of
// them finished. Timers and requests started outside an action (a clock, a
// poll) are never counted, so a busy page is not held up by its own routine.
//
// The worlds share the DOM, not objects: the isolated side dispatches
// EVT_WORK with detail "begin", "query" or "end" on the document, and the
// hooks answer a query synchronously with EVT_WORK_REPLY, detail
// "<pending>,<lastDone>,<requests>,<layout>" (pending includes the requests;
// lastDone: performance.now() of the last finish, both worlds share the
// document's time origin; layout 1: the page observes layout, or the hooks
// came too late to know, so it may react in a frame without asking for one). A page could dispatch these
// events too: it can only make its own actions settle sooner or later, within
// the settle's cap.

import { report } from "../diag";

/** Isolated → MAIN: "begin" | "query" | "end". */
export const EVT_WORK = "__monkbrowse:work";
/** MAIN → isolated, in answer to "query": "<pending>,<lastDone>,<requests>,<layout 0|1>". */
export const EVT_WORK_REPLY = "__monkbrowse:work-reply";
/** Timers set during an action with at most this delay are waited for (a render tick, a short animation step). */
export const WORK_TIMER_MAX_MS = 50;

/** What the page started during the action and has not finished, and when the last of it finished. */
export interface PageWork {
  /** Timers, frames and requests not finished. */
  pending: number;
  lastDone: number;
  /** Of pending, the requests (they get a longer bound than timers: SETTLE_REQUEST_MAX_MS). */
  requests: number;
  /** The page may run work in a frame without asking (layout observers, or unknown). */
  layout: boolean;
}

type Put = (obj: Record<string, unknown>, key: string, ours: unknown) => void;
type AnyFn = (...a: unknown[]) => unknown;

/**
 * MAIN world: wraps the page's timer and request functions through put (which
 * restores the natives when the hooks are deactivated) and answers EVT_WORK.
 * Call once per activation; the EVT_WORK listener is added once per window.
 */
export function trackPageWork(win: Window & typeof globalThis, put: Put, isActive: () => boolean, listen: boolean): void {
  const w = win as unknown as Record<string, unknown>;
  const state = workState(win);
  const origSet = w.setTimeout as AnyFn;
  const origClear = w.clearTimeout as AnyFn;
  if (typeof origSet === "function" && typeof origClear === "function") {
    put(w, "setTimeout", function setTimeout(this: unknown, handler: unknown, timeout?: unknown, ...rest: unknown[]) {
      const delay = Number(timeout) || 0;
      if (!isActive() || !state.watching || typeof handler !== "function" || delay > WORK_TIMER_MAX_MS) {
        return origSet.call(win, handler, timeout, ...rest);
      }
      const run = function (this: unknown, ...a: unknown[]) {
        try {
          return (handler as AnyFn).apply(this, a);
        } finally {
          state.finish(state.timers.delete(id));
        }
      };
      // run reads id only when the timer fires, after this assignment.
      const id = origSet.call(win, run, timeout, ...rest);
      state.timers.add(id);
      return id;
    });
    put(w, "clearTimeout", function clearTimeout(this: unknown, id?: unknown) {
      state.finish(state.timers.delete(id));
      return origClear.call(win, id);
    });
  }
  const origRaf = w.requestAnimationFrame as AnyFn;
  const origCaf = w.cancelAnimationFrame as AnyFn;
  if (typeof origRaf === "function" && typeof origCaf === "function") {
    put(w, "requestAnimationFrame", function requestAnimationFrame(this: unknown, callback: unknown) {
      if (!isActive() || !state.watching || typeof callback !== "function") return origRaf.call(win, callback);
      const run = function (this: unknown, ...a: unknown[]) {
        try {
          return (callback as AnyFn).apply(this, a);
        } finally {
          state.finish(state.frames.delete(id));
        }
      };
      const id = origRaf.call(win, run);
      state.frames.add(id);
      return id;
    });
    put(w, "cancelAnimationFrame", function cancelAnimationFrame(this: unknown, id?: unknown) {
      state.finish(state.frames.delete(id));
      return origCaf.call(win, id);
    });
  }
  for (const name of ["ResizeObserver", "IntersectionObserver"]) {
    const proto = (w[name] as { prototype?: Record<string, unknown> } | undefined)?.prototype;
    const origObserve = proto?.observe as AnyFn | undefined;
    if (!proto || typeof origObserve !== "function") continue;
    put(proto, "observe", function observe(this: unknown, ...args: unknown[]) {
      state.layout = true;
      return origObserve.apply(this, args);
    });
  }
  const origFetch = w.fetch as AnyFn;
  if (typeof origFetch === "function") {
    put(w, "fetch", function fetch(this: unknown, ...args: unknown[]) {
      const p = origFetch.apply(this, args) as Promise<unknown>;
      if (isActive() && state.watching && p && typeof p.then === "function") {
        state.requests++;
        const done = () => {
          state.requests = Math.max(0, state.requests - 1);
          state.finish(true);
        };
        // A separate branch: the page's own handling (or not) of p is unchanged.
        p.then(done, done);
      }
      return p;
    });
  }
  const xhr = (w.XMLHttpRequest as { prototype?: Record<string, unknown> } | undefined)?.prototype;
  const origSend = xhr?.send as AnyFn | undefined;
  if (xhr && typeof origSend === "function") {
    put(xhr, "send", function send(this: XMLHttpRequest, ...args: unknown[]) {
      if (isActive() && state.watching) {
        state.requests++;
        const done = () => {
          state.requests = Math.max(0, state.requests - 1);
          state.finish(true);
        };
        try {
          this.addEventListener("loadend", done, { once: true });
        } catch {
          state.requests--;
        }
      }
      return origSend.apply(this, args);
    });
  }
  if (!listen) return;
  win.document.addEventListener(EVT_WORK, (ev) => {
    const d = (ev as CustomEvent).detail;
    if (d === "begin") state.begin();
    else if (d === "end") state.end();
    else if (d === "query") {
      const pending = state.watching ? state.timers.size + state.frames.size + state.requests : 0;
      const requests = state.watching ? state.requests : 0;
      const layout = state.layout ? 1 : 0;
      win.document.dispatchEvent(new CustomEvent(EVT_WORK_REPLY, { detail: `${pending},${state.lastDone},${requests},${layout}` }));
    }
  });
}

interface WorkState {
  /**
   * Whether the page may run work in a frame without asking for one: it
   * observes layout (ResizeObserver, IntersectionObserver), or the hooks came
   * after its first scripts (a tab shared after loading) and cannot know.
   */
  layout: boolean;
  watching: boolean;
  timers: Set<unknown>;
  frames: Set<unknown>;
  requests: number;
  lastDone: number;
  begin(): void;
  end(): void;
  finish(counted: boolean): void;
}

const STATE_KEY = Symbol.for("monkbrowse.pagework");

/** One state per window, kept across re-activations of the hooks. */
function workState(win: Window): WorkState {
  const holder = win as unknown as Record<symbol, WorkState | undefined>;
  const existing = holder[STATE_KEY];
  if (existing) return existing;
  const s: WorkState = {
    // Hooks that arrive while the document is still loading see every observer.
    layout: win.document.readyState !== "loading",
    watching: false,
    timers: new Set(),
    frames: new Set(),
    requests: 0,
    lastDone: -1,
    begin() {
      s.watching = true;
      s.timers.clear();
      s.frames.clear();
      s.requests = 0;
      s.lastDone = -1;
    },
    end() {
      s.watching = false;
      s.timers.clear();
      s.frames.clear();
      s.requests = 0;
    },
    finish(counted) {
      if (counted && s.watching) s.lastDone = win.performance.now();
    },
  };
  try {
    Object.defineProperty(win, STATE_KEY, { value: s, enumerable: false });
  } catch {
    // silent: in the page's own world (MAIN), which has no extension API and so no diagnostics log; a frozen window: a fresh state each time, still correct within one activation
  }
  return s;
}

/** Isolated world: marks an action's span and asks the hooks about the page's work. */
export interface WorkProbe {
  begin(): void;
  end(): void;
  /** The page's pending work, or undefined when no hooks answered (not injected in this document). */
  query(): PageWork | undefined;
}

export function workProbe(doc: Document): WorkProbe {
  const send = (detail: string) => {
    try {
      doc.dispatchEvent(new CustomEvent(EVT_WORK, { detail }));
    } catch (e) {
      // the document went away
      report("page: asking the page hooks for page work", e);
    }
  };
  return {
    begin: () => send("begin"),
    end: () => send("end"),
    query() {
      let answer: unknown;
      const on = (ev: Event) => {
        answer = (ev as CustomEvent).detail;
      };
      doc.addEventListener(EVT_WORK_REPLY, on);
      try {
        send("query");
      } finally {
        doc.removeEventListener(EVT_WORK_REPLY, on);
      }
      return parseWork(answer);
    },
  };
}

export function parseWork(detail: unknown): PageWork | undefined {
  if (typeof detail !== "string") return undefined;
  const [p, l, r, o] = detail.split(",");
  const pending = Number(p);
  const lastDone = Number(l);
  const requests = Number(r ?? 0);
  if (![pending, lastDone, requests].every(Number.isFinite) || pending < 0 || requests < 0 || requests > pending) return undefined;
  return { pending, lastDone, requests, layout: o !== "0" };
}
