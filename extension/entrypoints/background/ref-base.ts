// Snapshot ref bases per tab (BrowserPort.refBase / saveRefBase).

import { reported } from "../../lib/diag";

// The highest snapshot ref per tab lives in chrome.storage.session: it
// survives the service worker being suspended and is gone with the browser
// session, like the tab ids it is keyed by.
const refBaseKey = (tabId: number) => `refBase:${tabId}`;

export async function refBase(tabId: number): Promise<number> {
  const got = await chrome.storage.session.get(refBaseKey(tabId));
  const v = got[refBaseKey(tabId)];
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : 0;
}

export async function saveRefBase(tabId: number, high: number): Promise<void> {
  await chrome.storage.session.set({ [refBaseKey(tabId)]: high });
}

export function forgetRefBase(tabId: number): void {
  chrome.storage.session.remove(refBaseKey(tabId)).catch(reported("refs: forgetting a closed tab's ref base"));
}
