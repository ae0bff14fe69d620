// Back, forward and reload (BrowserPort.history).

import { executeInTab } from "./gate";
import { beforeLeaving, probePage } from "./inject";
import { newPage } from "./navigation-events";

export async function historyNav(tabId: number, what: "back" | "forward" | "reload", signal?: AbortSignal): Promise<void> {
  if (what === "reload") {
    await beforeLeaving(tabId);
    return newPage(tabId, "reloading", () => chrome.tabs.reload(tabId), { signal });
  }
  const label = what === "back" ? "going back" : "going forward";
  const inPage = () =>
    executeInTab({
      target: { tabId, frameIds: [0] },
      world: "ISOLATED",
      func: (dir: string) => {
        if (dir === "back") globalThis.history.back();
        else globalThis.history.forward();
      },
      args: [what],
    });
  // history.back() runs in the page only when the page runs our scripts. A
  // page blocked by a native dialog (silent), or one Chrome does not let us
  // script (refused), goes through Chrome's history (which closes the dialog).
  if ((await probePage(tabId)) !== "ran") {
    return newPage(tabId, label, () => (what === "back" ? chrome.tabs.goBack(tabId) : chrome.tabs.goForward(tabId)), {
      signal,
    });
  }
  await beforeLeaving(tabId);
  return newPage(tabId, label, inPage, {
    noStartError: `there is no ${what === "back" ? "previous" : "next"} page in tab ${tabId}'s history`,
    signal,
  });
}
