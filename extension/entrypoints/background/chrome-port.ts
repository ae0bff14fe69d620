// The BrowserPort of lib/executor.ts, made of Chrome APIs. Kept thin: the
// decisions (which tab, shared or not, restricted or not) are in lib/.

import type { BrowserPort, TabLike } from "../../lib/executor";
import { abandonedNavigationError, NAV_ABANDONED_MS, type NavEvent } from "../../lib/navigation";
import { errorText } from "../../lib/peer";
import { TIMEOUTS_MS } from "../../lib/protocol.gen";
import type { Consent, Shares } from "../../lib/storage";
import { contentOp } from "./content-ops";
import { onNativeDialogs } from "./debugger";
import { evaluate } from "./evaluate";
import { beforeLeaving, PROBE_AFTER_MS, responsive, within } from "./inject";
import { downloads } from "./network";
import { pdf } from "./pdf";
import { refBase, saveRefBase } from "./ref-base";
import { network } from "./response-bodies";
import { screenshot, screenshotElement, screenshotFullPage } from "./screenshots";
import { content } from "./trusted-input";

/** Longest a navigation may take before we answer anyway (5 s below its wire timeout, issue 12). */
const NAV_TIMEOUT_MS = TIMEOUTS_MS.browser_navigate - 5_000;
/** Once the new page has committed, how long to wait for its load event. */
const LOAD_AFTER_COMMIT_MS = 35_000;

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


onNativeDialogs(async (tabId, on) => {
  await contentOp(tabId, "native_dialogs", { on });
});

async function activeTab(): Promise<TabLike | undefined> {
  let tabs = await chrome.tabs.query({ active: true, lastFocusedWindow: true, windowType: "normal" });
  if (tabs.length === 0) tabs = await chrome.tabs.query({ active: true, windowType: "normal" });
  const t = tabs[0];
  return t ? toTabLike(t) : undefined;
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
    network,
    downloads,
    pdf,
  };
}
