// A page whose renderer is blocked (a native dialog opened before our hooks,
// a busy loop) answers no executeScript and no message: a wait on it is
// bounded, and after PROBE_AFTER_MS the page is probed (the probe is
// entrypoints/background/inject.ts's `responsive`, passed in). A page whose
// content script said it began a long job is busy, not blocked.

/** Resolves to the promise's value, or to `timedOut` after ms (the promise keeps running). */
export function within<T, U>(p: Promise<T>, ms: number, timedOut: U): Promise<T | U> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<U>((resolve) => {
      timer = setTimeout(() => resolve(timedOut), ms);
    }),
  ]);
}

/** A page that stopped answering (see inject.ts's responsive). */
export class BlockedPage extends Error {}

/** The error for a page that stopped answering. */
export function blockedError(tabId: number): Error {
  return new BlockedPage(
    `the page in tab ${tabId} is not responding. Most likely a native dialog (alert, confirm or prompt) is open in it: ` +
      "the page opened it before monkbrowse could answer dialogs there (for example while loading), and only the person can answer it in the browser " +
      "(its text cannot be read without the debugger). Otherwise the page is busy. Ask the person to answer the dialog, " +
      "or load another page in the tab with browser_navigate, which closes it.",
  );
}

/** How long an answer may take before the page is probed. */
export const PROBE_AFTER_MS = 5000;

export function createBusyWatch(now: () => number = Date.now) {
  /** When each tab's content script last said a long synchronous job began (the "busy" message). */
  const busySince = new Map<number, number>();
  return {
    /** The content script of tabId began a long synchronous job (a snapshot of a huge page). */
    noteBusy(tabId: number, at = now()): void {
      busySince.set(tabId, at);
    },

    /**
     * Waits for work, but when it has not settled after PROBE_AFTER_MS, probes
     * the page; a page that does not answer the probe fails the wait with
     * blockedError instead of hanging until the request's timeout. A page whose
     * content script said it began a long job after the work was sent is busy
     * with it, not blocked (a snapshot of 20,000 elements on a slow machine):
     * the work is waited for, bounded by the request's own timeout.
     */
    async unlessBlocked<T>(tabId: number, work: Promise<T>, probe: (tabId: number) => Promise<boolean>): Promise<T> {
      const sent = now();
      const settled = work.then(
        (v) => ({ v }),
        (e: unknown) => ({ e }),
      );
      for (;;) {
        const r = await within(settled, PROBE_AFTER_MS, null);
        if (r) {
          if ("e" in r) throw r.e;
          return r.v;
        }
        if ((busySince.get(tabId) ?? -Infinity) >= sent) continue;
        if (!(await probe(tabId))) throw blockedError(tabId);
      }
    },
  };
}
