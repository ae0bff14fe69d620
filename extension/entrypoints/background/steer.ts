// The person sees and steers (issue 28, DESIGN §7.1): every wire request
// that touches a shared tab is written to the activity log (lib/activity.ts)
// with the AI app that made it and the element it targeted as the page
// names it; Stop pauses the AI in this profile; an app's new tabs go into a
// tab group named after it. The call watch is lib/worker/watch.ts, the pause
// lib/worker/pause.ts; this file keeps their state in Chrome and the badge.

import {
  ActivityLog,
  KEY_ACTIVITY,
  KEY_APP_GROUPS,
  KEY_PAUSE,
  KEY_TAB_APPS,
  PERSON_APP,
  PERSON_POINTED,
  UNKNOWN_APP,
  colorFor,
  groupKey,
  normalizeTabApps,
  verbOf,
  type ActivityEntry,
  type TabApps,
} from "../../lib/activity";
import type { CodedError } from "../../lib/peer";
import type { TabInfo } from "../../lib/protocol.gen";
import { PauseState } from "../../lib/worker/pause";
import { createBadges } from "../../lib/worker/badge";
import { KEY_SHARES } from "../../lib/storage";
import { afterEither, report, reported } from "../../lib/diag";

const log = new ActivityLog({
  get: (k) => chrome.storage.local.get(k),
  set: (items) => chrome.storage.local.set(items),
});
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes[KEY_ACTIVITY]) log.stored(changes[KEY_ACTIVITY].newValue);
});

// ---- state kept in memory, loaded once per worker ---------------------------

let tabApps: Record<string, TabApps> = {};
let tabAppsLoading: Promise<void> | undefined;

/** The person's Stop (lib/worker/pause.ts): stored in chrome.storage.local, shown on the toolbar icon. */
const pause = new PauseState({
  load: async () => (await chrome.storage.local.get(KEY_PAUSE))[KEY_PAUSE],
  save: (p) => chrome.storage.local.set({ [KEY_PAUSE]: p }),
  show: () => showPauseBadge(),
});

/** Loads the pause and the tab apps (the worker just started). */
export function loadSteer(): Promise<void> {
  tabAppsLoading ??= chrome.storage.local.get(KEY_TAB_APPS).then((got) => {
    tabApps = normalizeTabApps(got[KEY_TAB_APPS]);
  });
  return Promise.all([pause.load(), tabAppsLoading]).then(() => undefined);
}

let tabAppsChanged: () => void = () => undefined;
/** calls.ts: push tabs_changed when a tab's apps change. */
export function onTabAppsChanged(fn: () => void): void {
  tabAppsChanged = fn;
}

function saveTabApps(): void {
  void chrome.storage.local.set({ [KEY_TAB_APPS]: tabApps });
  tabAppsChanged();
}

/** The tabs with the app that opened each and the one that acted in it last. */
export function withTabApps(tabs: TabInfo[]): TabInfo[] {
  return tabs.map((t) => {
    const a = tabApps[String(t.tabId)];
    if (!a) return t;
    const out: TabInfo = { ...t };
    if (a.openedBy) out.openedBy = a.openedBy;
    if (a.lastApp) out.lastApp = a.lastApp;
    return out;
  });
}

export function forgetTabApps(tabId: number): void {
  if (tabApps[String(tabId)] === undefined) return;
  delete tabApps[String(tabId)];
  void chrome.storage.local.set({ [KEY_TAB_APPS]: tabApps });
}

// ---- the pause ----------------------------------------------------------------

export function isPaused(): boolean {
  return pause.paused;
}

/** Why a request on tabId may not run now (the profile or that tab is paused), or undefined. */
export function pausedFor(tabId: number | undefined): CodedError | undefined {
  return pause.pausedFor(tabId);
}

/** The tabs paused on their own. */
export function pausedTabs(): number[] {
  return pause.tabs();
}

/** calls.ts: tell the server at once (tabs_changed carries the pause). */
export function onPauseChanged(fn: () => Promise<void>): void {
  pause.onChanged(fn);
}

/** Stop (paused) or Resume the whole profile. */
export function setPaused(paused: boolean): Promise<void> {
  return pause.setPaused(paused);
}

/** Pause (or resume) the AI in one tab only. */
export function setTabPaused(tabId: number, paused: boolean): Promise<void> {
  return pause.setTabPaused(tabId, paused);
}

/** The tab is gone: its own pause goes with it. */
export function forgetTabPause(tabId: number): void {
  void pause.forgetTab(tabId)?.catch(reported("pause: forgetting a closed tab's pause"));
}

/** The toolbar badges (lib/worker/badge.ts) on chrome.action. */
const badges = createBadges({
  action: {
    getTitle: (d) => chrome.action.getTitle(d),
    setTitle: (d) => chrome.action.setTitle(d),
    getBadgeText: (d) => chrome.action.getBadgeText(d),
    // Chrome takes null to clear a tab's own text; its types say string.
    setBadgeText: (d) => chrome.action.setBadgeText(d as unknown as chrome.action.BadgeTextDetails),
    setBadgeBackgroundColor: (d) => chrome.action.setBadgeBackgroundColor(d),
  },
  paused: () => pause.paused,
  pausedTabs: () => pause.tabs(),
});
export const { noteConnection, setPointedBadge, setAskBadge, setRecordingBadge, actingIn, sweepActingBadges, forgetTabBadge, showPauseBadge } = badges;

// ---- the activity log (lib/worker/watch.ts watches the calls) -----------------

/** app's call in tabId succeeded (opened: the call opened the tab): the tab's apps for list_tabs. */
export function noteTabApp(tabId: number, app: string, opened: boolean): void {
  const key = String(tabId);
  const before = tabApps[key];
  const next: TabApps = { ...before, lastApp: app };
  if (opened) next.openedBy = app;
  if (before?.lastApp !== next.lastApp || before?.openedBy !== next.openedBy) {
    tabApps[key] = next;
    saveTabApps();
  }
}

/** Writes one entry that is not a wire request's (the end of a browser_ask_user request: ask.ts). */
export function appendActivity(e: ActivityEntry): Promise<void> {
  return log.append(e);
}

/** The person pointed at target in the tab ("Show this to the AI", issue 29): their own entry. */
export async function logPersonPointed(tabId: number, target: { role: string; name: string }): Promise<void> {
  const e: ActivityEntry = { at: Date.now(), app: PERSON_APP, tool: PERSON_POINTED, verb: verbOf(PERSON_POINTED), outcome: "done", tabId };
  if (target.role || target.name) e.target = { role: target.role, name: target.name };
  try {
    const slot = (await chrome.storage.local.get(KEY_SHARES))[KEY_SHARES] as Record<string, number> | undefined;
    if (slot?.[String(tabId)] !== undefined) e.slot = slot[String(tabId)];
    const url = (await chrome.tabs.get(tabId)).url;
    if (url) e.url = url;
  } catch (err) {
    report("activity: reading the pointed tab", err);
  }
  await log.append(e).catch((err: unknown) => console.warn("monkbrowse: could not write the activity log", err));
}

/** Every entry (the options page reads storage itself; this is for tests and the export). */
export function activityEntries(): Promise<ActivityEntry[]> {
  return log.list();
}

export function clearActivity(): Promise<void> {
  return log.clear();
}

/** The organisation's retention (issue 44, background/siterules.ts): entries before cutoff go. */
export function keepActivitySince(cutoff: number): Promise<void> {
  return log.keepSince(cutoff);
}

// ---- tab groups per app ------------------------------------------------------------

let groupsChain: Promise<unknown> = Promise.resolve();

/**
 * Puts a tab the app just opened into the app's group in that window,
 * creating the group (titled with the app's name, its colour) the first time.
 * The group is found again by its id (KEY_APP_GROUPS), never by its title: a
 * group the person renamed or moved stays the app's; one they closed or
 * emptied is gone, and the next tab gets a new one. A tab the person later
 * takes out of the group stays out.
 */
export function groupForApp(tabId: number, app: string): Promise<void> {
  if (app === UNKNOWN_APP || !chrome.tabGroups || !chrome.tabs.group) return Promise.resolve();
  const run = groupsChain.then(async () => {
    const tab = await chrome.tabs.get(tabId);
    const key = groupKey(app, tab.windowId);
    const got = await chrome.storage.local.get(KEY_APP_GROUPS);
    const groups = { ...((got[KEY_APP_GROUPS] as Record<string, number> | undefined) ?? {}) };
    const known = groups[key];
    if (known !== undefined) {
      // The person may have closed the group: look for it, without a failing get.
      const g = (await chrome.tabGroups.query({ windowId: tab.windowId })).find((x) => x.id === known);
      if (g && g.windowId === tab.windowId) {
        await chrome.tabs.group({ groupId: known, tabIds: [tabId] });
        return;
      }
    }
    const groupId = await chrome.tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } });
    await chrome.tabGroups.update(groupId, { title: app, color: colorFor(app) });
    groups[key] = groupId;
    await chrome.storage.local.set({ [KEY_APP_GROUPS]: groups });
  });
  groupsChain = afterEither(run);
  return run.catch((e: unknown) => console.warn(`monkbrowse: could not put tab ${tabId} into ${app}'s tab group`, e));
}
