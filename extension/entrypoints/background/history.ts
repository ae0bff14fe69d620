// Back, forward and reload (BrowserPort.history).

import { beforeLeaving, within } from "./inject";
import { newPage } from "./navigation-events";

const PROBE_TIMEOUT = 3000;

export async function historyNav(tabId: number, what: "back" | "forward" | "reload", signal?: AbortSignal): Promise<void> {
  if (what === "reload") {
    await beforeLeaving(tabId);
    return newPage(tabId, "reloading", () => chrome.tabs.reload(tabId), { signal });
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
    return newPage(tabId, label, () => (what === "back" ? chrome.tabs.goBack(tabId) : chrome.tabs.goForward(tabId)), {
      signal,
    });
  }
  return newPage(tabId, label, inPage, {
    noStartError: `there is no ${what === "back" ? "previous" : "next"} page in tab ${tabId}'s history`,
    signal,
  });
}
