// The BrowserPort of lib/executor.ts, assembled from the Chrome-side files
// beside it (one per concern, DESIGN §3), plus the few tab calls that are
// one Chrome API each. The decisions (which tab, shared or not, restricted or
// not) are in lib/.

import type { BrowserPort, TabLike } from "../../lib/executor";
import type { Consent, Shares } from "../../lib/storage";
import { contentOp } from "./content-ops";
import { onNativeDialogs } from "./debugger";
import { evaluate } from "./evaluate";
import { historyNav } from "./history";
import { beforeLeaving } from "./inject";
import { newPage, watchNavigation } from "./navigation-events";
import { downloads } from "./network";
import { askEnd, askUser, askWait } from "./ask";
import { callSiteTool, countSiteTools, listSiteTools } from "./sitetools";
import { pdf } from "./pdf";
import { refBase, saveRefBase } from "./ref-base";
import { network } from "./response-bodies";
import { screenshot, screenshotElement, screenshotFullPage } from "./screenshots";
import { content } from "./trusted-input";
import { personEdits, pointed } from "./person";
import { KEY_RECORDINGS } from "../../lib/recordings";

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
  else await newPage(undefined, `opening ${url}`, create, { ignoreBlank: true });
  if (id === undefined) throw new Error("Chrome did not open a tab");
  const t = toTabLike(await chrome.tabs.get(id));
  if (!t) throw new Error("Chrome opened a tab without an id");
  return t;
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
    personEdits,
    pointed,
    share: deps.share,
    navigate: async (tabId, url, signal) => {
      // "Leave site?" never holds up a navigation the AI asked for.
      await beforeLeaving(tabId);
      return newPage(tabId, `navigating to ${url}`, () => chrome.tabs.update(tabId, { url }), {
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
    ask: askUser,
    askWait,
    askEnd,
    siteTools: listSiteTools,
    siteToolCount: countSiteTools,
    siteToolCall: callSiteTool,
    pdf,
    recordings: async () => (await chrome.storage.local.get(KEY_RECORDINGS))[KEY_RECORDINGS],
  };
}
