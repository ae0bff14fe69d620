// Waiting for a navigation that an action started (a link clicked, a form
// submitted with Enter, a select whose change handler loads another page).
// The server snapshots the tab right after the action's answer, so the answer
// must wait for the new page, as Playwright does.
//
// A NavigationWatch is started before the action is sent (so no event is
// missed) and listens to the main frame of the tab through the BrowserPort.
// After the action it waits while a cross-document navigation is in flight,
// for one that starts within a short grace period, and never longer than
// NAV_LOAD_TIMEOUT_MS; then it answers (the snapshot shows whatever is there).

import { errorText } from "./peer";
import { DEFAULT_TIMEOUT_MS } from "./protocol.gen";

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

export interface NavTiming {
  graceMs: number;
  graceAfterReplyMs: number;
  quietAfterReplyMs: number;
  loadTimeoutMs: number;
  replacedMs: number;
}

export const DEFAULT_NAV_TIMING: NavTiming = {
  graceMs: NAV_GRACE_MS,
  graceAfterReplyMs: NAV_GRACE_AFTER_REPLY_MS,
  quietAfterReplyMs: NAV_QUIET_AFTER_REPLY_MS,
  loadTimeoutMs: NAV_LOAD_TIMEOUT_MS,
  replacedMs: NAV_REPLACED_MS,
};

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
