// Waiting for navigations, from a tab's main-frame events (NavEvent), in two
// shapes with one set of timeouts (NavTiming):
//
// - waitForNewPage: a navigation we start (browser_navigate, back, forward,
//   reload, a new tab) is done when the tab has committed a new document and
//   loaded it.
// - NavigationWatch: a navigation an action may have started (a link
//   clicked, a form submitted with Enter, a select whose change handler loads
//   another page). The server snapshots the tab right after the action's
//   answer, so the answer must wait for the new page, as Playwright does.
//
// A NavigationWatch is started before the action is sent (so no event is
// missed) and listens to the main frame of the tab through the BrowserPort.
// After the action it waits while a cross-document navigation is in flight,
// for one that starts within a short grace period, and never longer than
// NAV_LOAD_TIMEOUT_MS; then it answers (the snapshot shows whatever is there).

import { errorText } from "./peer";
import { DEFAULT_TIMEOUT_MS, TIMEOUTS_MS } from "./protocol.gen";

/** A main-frame (frameId 0) navigation event of one tab, from chrome.webNavigation. */
export type NavEvent =
  /** onBeforeNavigate: a new document is being requested. */
  | { kind: "start"; url: string }
  /** onCommitted: the new document replaced the old one. */
  | { kind: "commit"; url: string }
  /** onHistoryStateUpdated / onReferenceFragmentUpdated: the URL changed in the same document. */
  | { kind: "same-document"; url: string }
  /** onCompleted: the document and its resources have loaded. */
  | { kind: "complete"; url: string }
  /** onErrorOccurred: the navigation failed or was abandoned (net::ERR_ABORTED: replaced, a download, a 204). */
  | { kind: "error"; url: string; error: string }
  /** The tab was closed. */
  | { kind: "closed" };

/** Subscribes to a tab's main-frame navigation events; listening has begun when it returns. Returns the unsubscribe. */
export type WatchNavigation = (tabId: number, listener: (e: NavEvent) => void) => () => void;

/** Subscribes to the main-frame navigation events of every tab (for a wait that learns its tab only later). Returns the unsubscribe. */
export type WatchAllNavigation = (listener: (tabId: number, e: NavEvent) => void) => () => void;

/** Counted from when the action was sent: a navigation starting before then is the action's. */
export const NAV_GRACE_MS = 150;
/** At least this long after the action's answer, since Chrome delivers navigation events on their own. */
export const NAV_GRACE_AFTER_REPLY_MS = 50;
/**
 * When the page itself reports that no navigation began during the action
 * and its settle, only this long after the answer is left for Chrome's
 * navigation events to arrive, instead of the full grace period.
 */
export const NAV_QUIET_AFTER_REPLY_MS = 20;
/** The longest wait for the new page's load, from the first navigation seen; then the answer is given anyway (5 s below an action's wire timeout). */
export const NAV_LOAD_TIMEOUT_MS = DEFAULT_TIMEOUT_MS - 5_000;
/** After an abandoned navigation, how long to look for the one that replaced it. */
export const NAV_REPLACED_MS = 50;
/**
 * browser_navigate: after the navigation was abandoned (net::ERR_ABORTED)
 * with nothing committed, how long to wait for a navigation replacing it
 * before answering that the tab stayed where it was.
 */
export const NAV_ABANDONED_MS = 750;
/** The longest wait for a navigation we started (5 s below browser_navigate's wire timeout, issue 12). */
export const NAV_PAGE_TIMEOUT_MS = TIMEOUTS_MS.browser_navigate - 5_000;
/** Once the new page has committed, how long to wait for its load event (5 s below NAV_PAGE_TIMEOUT_MS). */
export const NAV_LOAD_AFTER_COMMIT_MS = NAV_PAGE_TIMEOUT_MS - 5_000;
/** Back and forward: how long a history navigation may take to start before there is taken to be no page to go to. */
export const NAV_START_MS = 3_000;

/**
 * The answer to a browser_navigate whose navigation was abandoned without
 * loading anything. Chrome aborts an extension's chrome.tabs.update to a
 * data: URL (top-level data: navigations are only allowed when the person
 * types them, or in a new tab), and a download or a 204 response ends the
 * same way; without this the call waited for its 50 s timeout.
 */
export function abandonedNavigationError(url: string, currentUrl?: string): string {
  const stays = currentUrl ? `; the tab stays on ${currentUrl}` : "; the tab stays on its page";
  if (/^data:/i.test(url)) {
    return `Chrome did not open ${clip(url)} in this tab: it blocks data: URLs loaded into an existing tab${stays}. Open it in a new tab with browser_new_tab (url: the same data: URL), which Chrome allows.`;
  }
  return `navigating to ${clip(url)} was abandoned without loading a new page (a download, an empty 204 response, or Chrome blocked it)${stays}.`;
}

function clip(url: string): string {
  return url.length > 200 ? url.slice(0, 200) + "…" : url;
}

/** Every navigation timeout, in ms (the constants above; tests shorten them). */
export interface NavTiming {
  // NavigationWatch
  graceMs: number;
  graceAfterReplyMs: number;
  quietAfterReplyMs: number;
  loadTimeoutMs: number;
  replacedMs: number;
  // waitForNewPage
  pageTimeoutMs: number;
  loadAfterCommitMs: number;
  abandonedMs: number;
  startMs: number;
}

export const DEFAULT_NAV_TIMING: NavTiming = {
  graceMs: NAV_GRACE_MS,
  graceAfterReplyMs: NAV_GRACE_AFTER_REPLY_MS,
  quietAfterReplyMs: NAV_QUIET_AFTER_REPLY_MS,
  loadTimeoutMs: NAV_LOAD_TIMEOUT_MS,
  replacedMs: NAV_REPLACED_MS,
  pageTimeoutMs: NAV_PAGE_TIMEOUT_MS,
  loadAfterCommitMs: NAV_LOAD_AFTER_COMMIT_MS,
  abandonedMs: NAV_ABANDONED_MS,
  startMs: NAV_START_MS,
};

/** What waitForNewPage needs from the browser. */
export interface NewPageDeps {
  watch: WatchAllNavigation;
  /** The tab's URL now (for the answer to an abandoned navigation); undefined when unknown. */
  tabUrl: (tabId: number) => Promise<string | undefined>;
  /** The page probe (inject.ts's responsive) and how often to ask it once the new page has committed. */
  responsive: (tabId: number) => Promise<boolean>;
  probeEveryMs: number;
  timing?: NavTiming;
}

export interface NewPageOptions {
  /** Ignore commits of about:blank (a new tab's initial document) when the target is a real page. */
  ignoreBlank?: boolean;
  /** Fail with this error when no navigation has even started within timing.startMs. */
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

/**
 * waitForNewPage runs start() and resolves when the tab's top frame has
 * committed a new document after that call and finished loading it. The old
 * page's load events are ignored because nothing counts until a commit that
 * happens after start(). Same-document navigations (fragment, history API)
 * count as done at once. Bounded: after a commit, a page that never fires
 * load is accepted after timing.loadAfterCommitMs, or as soon as it stops
 * answering the probe (a native dialog opened while loading, before our
 * hooks: the next request reports it); without any commit the wait fails
 * after timing.pageTimeoutMs.
 *
 * With knownTabId undefined, start() creates the tab and resolves to its id;
 * events that arrive before the id is known are kept and replayed.
 */
export function waitForNewPage(
  deps: NewPageDeps,
  knownTabId: number | undefined,
  what: string,
  start: () => Promise<unknown>,
  opts: NewPageOptions = {},
): Promise<void> {
  const timing = deps.timing ?? DEFAULT_NAV_TIMING;
  let tabId = knownTabId ?? -1;
  const early: { tabId: number; e: NavEvent }[] = [];
  return new Promise<void>((resolve, reject) => {
    let committed = false;
    let begun = false;
    let done = false;
    let started = false;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const later = (fn: () => void, ms: number) => {
      const t = setTimeout(fn, ms);
      timers.push(t);
      return t;
    };
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      unwatch();
      opts.signal?.removeEventListener("abort", onAbort);
      if (err) reject(err);
      else resolve();
    };
    const isBlank = (url: string) => opts.ignoreBlank === true && url === "about:blank";
    // Set when the navigation was abandoned with nothing committed; a new
    // navigation of the tab (one replacing it) clears it.
    let abandoned: ReturnType<typeof setTimeout> | undefined;
    const probe = () => {
      if (done) return;
      void deps.responsive(tabId).then((ok) => {
        if (!ok) finish();
        else if (!done) later(probe, deps.probeEveryMs);
      });
    };
    const onEvent = (e: NavEvent) => {
      if (done) return;
      switch (e.kind) {
        case "start":
          if (isBlank(e.url)) return;
          begun = true;
          if (abandoned !== undefined) clearTimeout(abandoned);
          abandoned = undefined;
          return;
        case "commit":
          if (committed || isBlank(e.url)) return;
          committed = true;
          begun = true;
          later(() => finish(), timing.loadAfterCommitMs);
          later(probe, deps.probeEveryMs);
          return;
        case "complete":
          if (committed) finish();
          return;
        case "error": {
          // An aborted load that is replaced by another navigation also lands
          // here; only fail when nothing committed. When nothing replaces it
          // (Chrome blocked a data: URL, a download), answer instead of
          // waiting for the timeout.
          if (e.error !== "net::ERR_ABORTED") {
            finish(new Error(`${what} failed: ${e.error} (${e.url})`));
            return;
          }
          if (committed || opts.failAbandoned === undefined) return;
          if (abandoned !== undefined) clearTimeout(abandoned);
          const url = opts.failAbandoned;
          abandoned = later(() => {
            if (committed) return;
            void deps.tabUrl(tabId).then((now) => finish(new Error(abandonedNavigationError(url, now))));
          }, timing.abandonedMs);
          return;
        }
        case "same-document":
          if (committed || isBlank(e.url)) return;
          begun = true;
          finish();
          return;
        case "closed":
          finish(new Error(`tab ${tabId} was closed during ${what}`));
          return;
      }
    };
    const unwatch = deps.watch((id, e) => {
      if (!started) return;
      if (tabId === -1) {
        if (early.length < 200) early.push({ tabId: id, e });
        return;
      }
      if (id === tabId) onEvent(e);
    });
    later(() => finish(new Error(`${what} did not load a new page within ${timing.pageTimeoutMs / 1000} s`)), timing.pageTimeoutMs);
    const onAbort = () => finish(new Error(`${what} was cancelled by the server; the page may still be loading`));
    if (opts.signal?.aborted) {
      onAbort();
      return;
    }
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.noStartError !== undefined) {
      const err = opts.noStartError;
      later(() => {
        if (!begun) finish(new Error(err));
      }, timing.startMs);
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
        for (const x of early.splice(0)) if (x.tabId === id) onEvent(x.e);
      },
      (e: unknown) => finish(new Error(`${what} failed: ${errorText(e)}`)),
    );
  });
}

/** How a watch ended, for tests and logs. */
export type NavOutcome =
  | "none" // nothing navigated within the grace period
  | "loaded" // a new document loaded (or failed to: the error page is there)
  | "same-document" // history API or fragment: nothing to wait for
  | "timeout" // a navigation was still loading after loadTimeoutMs
  | "closed"; // the tab went away

/**
 * The content script's answer was lost: the page it ran in went away (it
 * navigated or was put in the back/forward cache) before it could answer.
 * Matches Chrome's runtime.sendMessage errors and contentOp's wording of them.
 */
export function isLostReply(err: unknown): boolean {
  return /message port closed|message channel (is )?closed|Receiving end does not exist|Could not establish connection|back\/forward cache|did not answer|gave no answer/i.test(
    errorText(err),
  );
}

export class NavigationWatch {
  private readonly sentAt: number;
  private readonly stopListening: () => void;
  private stopped = false;
  /** A cross-document navigation was seen (started or committed). */
  private crossDocument = false;
  private sameDocument = false;
  private loading = false;
  private closed = false;
  private firstStartAt: number | undefined;
  /** When the last navigation in flight was abandoned (ERR_ABORTED), while nothing else is loading. */
  private abortedAt: number | undefined;
  private wake: (() => void) | undefined;

  constructor(
    watch: WatchNavigation,
    tabId: number,
    private readonly timing: NavTiming = DEFAULT_NAV_TIMING,
  ) {
    this.sentAt = Date.now();
    this.stopListening = watch(tabId, (e) => this.onEvent(e));
  }

  /** A new document was requested or committed since the watch began. */
  get navigated(): boolean {
    return this.crossDocument;
  }

  private onEvent(e: NavEvent): void {
    if (this.stopped) return;
    switch (e.kind) {
      case "start":
      case "commit":
        if (this.firstStartAt === undefined) this.firstStartAt = Date.now();
        this.crossDocument = true;
        this.loading = true;
        this.abortedAt = undefined;
        break;
      case "complete":
        // A load that was under way before the action began is not ours.
        if (this.loading) this.loading = false;
        break;
      case "error":
        if (this.loading) {
          this.loading = false;
          if (e.error === "net::ERR_ABORTED") this.abortedAt = Date.now();
        }
        break;
      case "same-document":
        this.sameDocument = true;
        break;
      case "closed":
        this.closed = true;
        break;
    }
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Sleeps until an event arrives or ms pass. */
  private nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, Math.max(0, ms));
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private graceEnd(repliedAt: number): number {
    return Math.max(this.sentAt + this.timing.graceMs, repliedAt + this.timing.graceAfterReplyMs);
  }

  /**
   * After the action's reply was lost: resolves true when a cross-document
   * navigation (or the tab closing) explains it, looking until the grace
   * period is over.
   */
  async explainsLostReply(): Promise<boolean> {
    const end = this.graceEnd(Date.now());
    while (!this.crossDocument && !this.closed && !this.stopped && Date.now() < end) await this.nap(end - Date.now());
    return this.crossDocument || this.closed;
  }

  /**
   * After the action answered: waits for a navigation it started to finish
   * loading, bounded. Same-document navigations count as done at once.
   * pageSawNone: the page reported that no navigation began during the
   * action, so a short look for Chrome's events replaces the grace period.
   */
  async settle(pageSawNone = false): Promise<NavOutcome> {
    const graceEnd = pageSawNone ? Date.now() + this.timing.quietAfterReplyMs : this.graceEnd(Date.now());
    for (;;) {
      const now = Date.now();
      if (this.closed) return "closed";
      if (this.stopped) return "none"; // abandoned (the call was cancelled)
      if (this.loading) {
        const deadline = (this.firstStartAt ?? now) + this.timing.loadTimeoutMs;
        if (now >= deadline) return "timeout";
        await this.nap(deadline - now);
        continue;
      }
      if (this.abortedAt !== undefined) {
        // An abandoned navigation: give the one that replaced it a moment to show up.
        const until = this.abortedAt + this.timing.replacedMs;
        if (now < until) {
          await this.nap(until - now);
          continue;
        }
        return "loaded";
      }
      if (this.crossDocument) return "loaded";
      if (this.sameDocument) return "same-document";
      if (now >= graceEnd) return "none";
      await this.nap(graceEnd - now);
    }
  }

  /** Stops listening (always call it, in a finally). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopListening();
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}
