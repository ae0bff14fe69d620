// The shared tabs (lib/worker/shares.ts) wired to chrome.storage.local and
// to what a share or an unshare sets off: the page side injected or put to
// sleep, the network log and the debugger told, the tab's running calls,
// requests to the person and pointing ended; and the dialog answers
// browser_handle_dialog arms, per tab.

import { SharedTabs } from "../../lib/worker/shares";
import { DIALOG_ARM_TTL_MS } from "../../lib/protocol.gen";
import { pruneShares, shareTab } from "../../lib/slots";
import { KEY_SHARES } from "../../lib/storage";
import type { DialogArm } from "../../lib/page/console";
import { reported } from "../../lib/diag";
import { setArmSource } from "./frames";
import { setShared } from "./network";
import { detachUnshared } from "./debugger";
import { armTab, injectTab, makeDormant } from "./inject";
import { setShareState, unsharedError } from "./gate";
import { endAsksInTab } from "./ask";
import { forgetPointed } from "./person";
import { recorder } from "./recording";
import { readShares } from "./store";
import { endApprovals, noteShareSlots } from "./siterules";

/** What calls.ts gives this file (set once when it loads: it imports this one). */
const hooks = {
  tabsChanged: (): void => undefined,
  abortTab: (_tabId: number, _reason: Error): void => undefined,
};
export function wireShares(h: typeof hooks): void {
  Object.assign(hooks, h);
}

export const shared = new SharedTabs({
  read: readShares,
  write: (shares) => chrome.storage.local.set({ [KEY_SHARES]: shares }),
  changed: (before, shares, touchPages) => {
    setShared(shares);
    noteShareSlots(shares);
    void detachUnshared(new Set(Object.keys(shares).map(Number)));
    hooks.tabsChanged();
    // Newly shared tabs get the page side now; unshared ones lose it.
    if (touchPages) for (const k of Object.keys(shares)) if (before[k] === undefined) void injectTab(Number(k), currentArm(Number(k)));
    for (const k of Object.keys(before)) {
      if (shares[k] === undefined) {
        hooks.abortTab(Number(k), unsharedError(Number(k)));
        endApprovals((t) => t === Number(k), unsharedError(Number(k)));
        void endAsksInTab(Number(k), "the person stopped sharing the tab").catch(reported("ask: ending an unshared tab's requests"));
        void forgetPointed(Number(k), true).catch(reported("pointing: forgetting an unshared tab"));
        void recorder.tabGone(Number(k)).catch(reported("recording: stopping in an unshared tab"));
      }
      if (touchPages && shares[k] === undefined) {
        arms.delete(Number(k));
        void makeDormant(Number(k));
      }
    }
  },
});

// The share gate reads the in-memory shared ids (updated by shared.update
// before anything else is done about a change).
setShareState({
  ready: () => shared.load().then(() => undefined),
  shared: (tabId) => shared.has(tabId),
});

// ---- dialog answers armed by browser_handle_dialog ------------------------

// In memory: a worker suspended for 30 s loses it, and with it at most the
// rest of a 60 s arm; the page's own copy still answers in that document.
export const arms = new Map<number, DialogArm>();

export function currentArm(tabId: number): DialogArm | null {
  const a = arms.get(tabId);
  if (!a) return null;
  if (a.expiresAt <= Date.now()) {
    arms.delete(tabId);
    return null;
  }
  return a;
}

// An action in a frame takes the armed answer there for its time (frames.ts).
setArmSource(currentArm);

export async function armDialog(tabId: number, answer: { accept: boolean; promptText?: string }): Promise<number> {
  const a: DialogArm = { accept: answer.accept, expiresAt: Date.now() + DIALOG_ARM_TTL_MS };
  if (answer.promptText !== undefined) a.promptText = answer.promptText;
  arms.set(tabId, a);
  await armTab(tabId, a);
  return DIALOG_ARM_TTL_MS;
}

export const shareOne = (tabId: number) =>
  shared.update((s) => {
    const r = shareTab(s, tabId);
    return { shares: r.shares, out: r.slot };
  });

async function openTabIds(): Promise<number[]> {
  const tabs = await chrome.tabs.query({});
  return tabs.map((t) => t.id).filter((id): id is number => id !== undefined);
}

export async function pruneClosed(): Promise<void> {
  const open = await openTabIds();
  await shared.update((s) => ({ shares: pruneShares(s, open), out: undefined }));
}

// ---- tabs ------------------------------------------------------------------
