// The wire requests the offscreen document relays: the executor
// (lib/executor.ts over chrome-port.ts) run through the exec module
// (lib/worker/exec.ts: the pause gate, the abort registry, the call watch),
// and the tabs_changed push that tells the server the shared tabs and the
// pause.

import { Executor } from "../../lib/executor";
import { Exec, tabOf, withNotice } from "../../lib/worker/exec";
import { currentPolicy, leftNow, loadRules, siteGate, takeLeft, withRules } from "./siterules";
import { createCallLog } from "../../lib/worker/watch";
import { contentOp } from "./content-ops";
import { Debounce } from "../../lib/worker/debounce";
import { report, reported } from "../../lib/diag";
import { makeChromePort } from "./chrome-port";
import { takeCancelNotice } from "./debugger";
import { beginActing } from "./person";
import {
  actingIn,
  groupForApp,
  isPaused,
  loadSteer,
  onPauseChanged,
  onTabAppsChanged,
  pausedFor,
  pausedTabs,
  noteTabApp,
  appendActivity,
  withTabApps,
} from "./steer";
import { sendToOffscreen } from "./offscreen";
import { armDialog, shareOne, wireShares } from "./shares";
import { readConsent, readShares } from "./store";

const TABS_DEBOUNCE_MS = 200;
const TABS_MAX_WAIT_MS = 1000;

export const executor = new Executor(makeChromePort({ getShares: readShares, share: shareOne, getConsent: readConsent, armDialog }));

/** The shared tabs, each with the AI app that opened it, the one that acted in it last, and whether it is paused on its own. */
export async function listTabs() {
  await Promise.all([loadSteer(), loadRules()]);
  return withRules(withPausedTabs(withTabApps(await executor.listTabs())));
}
function withPausedTabs<T extends { tabId: number }>(tabs: T[]): T[] {
  const paused = pausedTabs();
  return tabs.map((t) => (paused.includes(t.tabId) ? { ...t, paused: true } : t));
}

// Debounced (TABS_DEBOUNCE_MS after the last change), but never held back
// more than TABS_MAX_WAIT_MS while changes keep coming.
const tabsPush = new Debounce(() => void pushTabs(), TABS_DEBOUNCE_MS, TABS_MAX_WAIT_MS);
export function scheduleTabsPush(): void {
  tabsPush.schedule();
}

export async function pushTabs(): Promise<void> {
  try {
    const tabs = await listTabs();
    // The organisation's policy and the tabs that left the AI's reach ride along (issue 44).
    const left = takeLeft();
    const policy = currentPolicy();
    await sendToOffscreen({ to: "off", kind: "tabs-push", tabs, paused: isPaused(), ...(policy ? { policy } : {}), ...(left.length > 0 ? { left } : {}) });
  } catch (e) {
    // No offscreen document right now? The next hello carries the tabs.
    report("tabs: pushing tabs_changed to the offscreen document", e);
  }
}

onTabAppsChanged(scheduleTabsPush);
// The server hears Stop and Resume at once (not debounced): it stops the
// calls it holds for this profile (issue 28).
onPauseChanged(pushTabs);

/** The activity log's watch over the calls (lib/worker/watch.ts). */
export const callLog = createCallLog({
  ready: loadSteer,
  resolveTab: (tabId) => executor.resolveTab(tabId),
  slotOf: async (tabId) => (await readShares())[String(tabId)],
  describe: (tabId, refs) => contentOp(tabId, "describe", { refs }),
  tab: (tabId) => chrome.tabs.get(tabId),
  append: appendActivity,
  acted: noteTabApp,
  pausedFor,
});

/** Wire requests: the pause gate, the abort registry, the call watch (lib/worker/exec.ts). */
export const exec = new Exec({
  ready: loadSteer,
  pausedFor,
  logPaused: (type, payload, err) => callLog.logPaused(type, payload, err),
  watch: (type, payload) => callLog.watch(type, payload),
  beginActing,
  actingIn,
  execute: async (type, payload, signal) => {
    // The site rules and the organisation's policy (issue 44): refused, or waiting for the person's Allow.
    await siteGate(type, payload, tabOf(payload), (t) => executor.resolveTab(t), async (t) => (await readShares())[String(t)], signal);
    return executor.execute(type, payload, signal);
  },
  answer: async (type, result, app) => {
    let r = result;
    if (type === "list_tabs" && r && typeof r === "object" && Array.isArray((r as { tabs?: unknown }).tabs)) {
      const tabs = withRules(withPausedTabs(withTabApps((r as { tabs: Parameters<typeof withTabApps>[0] }).tabs)));
      // Tabs that went to a never site: the owner explains a call naming them (issue 44).
      const left = leftNow(new Set(tabs.map((t) => t.slot)));
      r = { ...r, tabs, ...(left.length > 0 ? { left } : {}) };
    }
    const opened = type === "browser_new_tab" ? (r as { tabId?: unknown } | null)?.tabId : undefined;
    if (typeof opened === "number") await groupForApp(opened, app);
    const notice = await takeCancelNotice();
    // The AI hears that the person cancelled debugging in its next answer.
    return notice !== undefined && r !== null && typeof r === "object" ? { ...r, notice } : r;
  },
  failure: async (e) => withNotice(e, await takeCancelNotice().catch(reported("debugger: reading the cancel notice"))),
});

// An unshare stops the tab's running calls; a share change is pushed.
wireShares({ tabsChanged: scheduleTabsPush, abortTab: (tabId, reason) => exec.running.abortTab(tabId, reason) });
