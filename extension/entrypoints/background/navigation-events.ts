// chrome.webNavigation as lib/navigation.ts's NavEvents: the main-frame
// events of a tab (BrowserPort.watchNavigation) or of every tab, and
// lib/navigation.ts's waitForNewPage bound to them.

import { waitForNewPage, type NavEvent, type NewPageOptions } from "../../lib/navigation";
import { PROBE_AFTER_MS, responsive } from "./inject";
import { report } from "../../lib/diag";

/**
 * Forwards the main frame's navigation events of every tab to listener until
 * the returned function is called. Prerendered pages have frame ids other
 * than 0, so they are not reported.
 */
export function watchMainFrames(listener: (tabId: number, e: NavEvent) => void): () => void {
  const main = (d: { frameId: number }) => d.frameId === 0;
  const emit = (tabId: number, e: NavEvent) => {
    try {
      listener(tabId, e);
    } catch (e) {
      // a listener's bug must not break Chrome's event dispatch
      report("navigation: an event listener", e);
    }
  };
  const onBefore = (d: chrome.webNavigation.WebNavigationBaseCallbackDetails) => {
    if (main(d)) emit(d.tabId, { kind: "start", url: d.url });
  };
  const onCommitted = (d: chrome.webNavigation.WebNavigationTransitionCallbackDetails) => {
    if (main(d)) emit(d.tabId, { kind: "commit", url: d.url });
  };
  const onSameDoc = (d: chrome.webNavigation.WebNavigationTransitionCallbackDetails) => {
    if (main(d)) emit(d.tabId, { kind: "same-document", url: d.url });
  };
  const onCompleted = (d: chrome.webNavigation.WebNavigationFramedCallbackDetails) => {
    if (main(d)) emit(d.tabId, { kind: "complete", url: d.url });
  };
  const onError = (d: chrome.webNavigation.WebNavigationFramedErrorCallbackDetails) => {
    if (main(d)) emit(d.tabId, { kind: "error", url: d.url, error: d.error });
  };
  const onRemoved = (id: number) => emit(id, { kind: "closed" });
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

/** BrowserPort.watchNavigation: the main-frame events of one tab. */
export function watchNavigation(tabId: number, listener: (e: NavEvent) => void): () => void {
  return watchMainFrames((id, e) => {
    if (id === tabId) listener(e);
  });
}

async function tabUrl(tabId: number): Promise<string | undefined> {
  try {
    const t = await chrome.tabs.get(tabId);
    return t.url ?? t.pendingUrl;
  } catch {
    return undefined;
  }
}

/** lib/navigation.ts's waitForNewPage over Chrome's events and the page probe. */
export function newPage(knownTabId: number | undefined, what: string, start: () => Promise<unknown>, opts: NewPageOptions = {}): Promise<void> {
  return waitForNewPage({ watch: watchMainFrames, tabUrl, responsive, probeEveryMs: PROBE_AFTER_MS }, knownTabId, what, start, opts);
}
