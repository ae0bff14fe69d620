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
/** index.ts: push tabs_changed when a tab's apps change. */
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

/** index.ts: tell the server at once (tabs_changed carries the pause). */
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

let rejected = false;
/** undefined until index.ts tells it (a restarted worker: Chrome still shows the last one). */
let connectionTitle: string | undefined;
/**
 * index.ts: whether the connection badge says rejected ("!" wins over the
 * pause), and the toolbar title the connection's state gives.
 */
export function noteConnection(r: boolean, title: string): void {
  rejected = r;
  connectionTitle = title;
}

const PAUSED_TITLE = "monkbrowse: the AI is paused in this profile (open to resume)";

/** The toolbar title every tab without its own shows: the pause's, else the connection's. */
async function globalTitle(): Promise<string> {
  if (!rejected && pause.paused) return PAUSED_TITLE;
  if (connectionTitle !== undefined) return connectionTitle;
  const shown = await chrome.action.getTitle({});
  return shown === PAUSED_TITLE ? "monkbrowse" : shown;
}

/**
 * Tabs whose own title was set back to the global one. Chrome clears a
 * tab's own badge text with null but refuses null for its title (setTitle
 * throws "Missing required property 'title'"), so a tab's title is
 * "cleared" by giving it the global title, kept equal to it as that
 * changes (showPauseBadge).
 */
const resetTitles = new Set<number>();

/** The tab shows the global badge again (its own text unset) and the global title. */
async function clearTabBadge(tabId: number): Promise<void> {
  await chrome.action.setBadgeText({ tabId, text: null } as unknown as chrome.action.BadgeTextDetails);
  await chrome.action.setTitle({ tabId, title: await globalTitle() });
  resetTitles.add(tabId);
}

/** A tab gets a title of its own (no longer kept equal to the global one). */
function ownTitle(tabId: number): void {
  resetTitles.delete(tabId);
}

// ---- the toolbar badge ---------------------------------------------------------

/** What one tab's own badge shows (undefined: the global badge). */
interface TabBadge {
  text: string;
  color: string;
  title: string;
}

/** The least time the acting badge stays up, so a fast call does not flicker. */
export const ACTING_MIN_MS = 300;
const ACTING_COLOR = "#1a73e8";
const POINTED_COLOR = "#1a73e8";
const POINTED_TEXT = "◉";
const ASK_COLOR = "#e37400";
const ASK_TEXT = "?";
const PAUSED_COLOR = "#a05a00";

/** Tabs the AI acts in now: running calls, their app, since when, and the timer that holds the badge for ACTING_MIN_MS. */
interface Acting {
  calls: number;
  app: string;
  since: number;
  hold?: ReturnType<typeof setTimeout>;
}
const acting = new Map<number, Acting>();

/** The badge set on each tab now (text and title), so unchanged tabs cost nothing. */
const applied = new Map<number, string>();

/**
 * A tab's own badge, by precedence (DECISIONS "One badge precedence"): a
 * rejected connection's global "!" shows on every tab (a tab's badge would
 * hide it); then a tab paused on its own ("II"); then the profile's global
 * "II" (Stop); only then the AI acting in the tab ("AI").
 */
function wantedBadge(tabId: number): TabBadge | undefined {
  if (rejected) return undefined;
  if (pausedTabs().includes(tabId)) return { text: "II", color: PAUSED_COLOR, title: "monkbrowse: the AI is paused in this tab (open to resume)" };
  if (pause.paused) return undefined;
  // Above "AI": the AI's call waits in the tab meanwhile.
  if (asking.has(tabId)) return { text: ASK_TEXT, color: ASK_COLOR, title: "monkbrowse: the AI asks you something in this tab — open this to read it and answer" };
  const a = acting.get(tabId);
  if (a) return { text: "AI", color: ACTING_COLOR, title: `monkbrowse: ${a.app} is acting in this tab` };
  if (pointed.has(tabId)) return { text: POINTED_TEXT, color: POINTED_COLOR, title: "monkbrowse: you showed the AI something in this tab (it reads it with browser_get_selection)" };
  return undefined;
}

/** Tabs where the person pointed at something the AI has not read yet (person.ts). */
const pointed = new Set<number>();

/**
 * The tab's badge says the person showed the AI something ("◉") until the
 * AI reads it, below the pause's and the acting badge: it shows again when
 * the AI's call in the tab ends.
 */
export async function setPointedBadge(tabId: number, on: boolean): Promise<void> {
  if (on) pointed.add(tabId);
  else pointed.delete(tabId);
  await syncTabBadges();
}

/** Tabs with a pending request to the person (browser_ask_user; ask.ts). */
const asking = new Set<number>();
/** Tabs whose badge is set again even when it seems applied (a restarted worker knows none it set). */
const revisit = new Set<number>();

/**
 * The tab's badge says the AI asks the person something ("?"; the message
 * and Done/Decline are in the popup only, issue 40), below the pause's.
 */
export async function setAskBadge(tabId: number, on: boolean): Promise<void> {
  if (on) asking.add(tabId);
  else asking.delete(tabId);
  revisit.add(tabId);
  await syncTabBadges();
}

let badgeChain: Promise<unknown> = Promise.resolve();

/** Brings every tab's own badge to what wantedBadge says, one change at a time. */
function syncTabBadges(): Promise<void> {
  const run = badgeChain.then(async () => {
    const again = new Set(revisit);
    revisit.clear();
    for (const id of new Set([...applied.keys(), ...pausedTabs(), ...acting.keys(), ...pointed, ...asking, ...again])) {
      const want = wantedBadge(id);
      if (!again.has(id) && applied.get(id) === (want && `${want.text}\u0000${want.title}`)) continue;
      if (!want) {
        applied.delete(id);
        // The tab shows the global badge and title again. The tab may be gone.
        await clearTabBadge(id).catch(reported("badge: clearing a tab's badge"));
        continue;
      }
      try {
        ownTitle(id);
        await chrome.action.setBadgeText({ tabId: id, text: want.text });
        await chrome.action.setBadgeBackgroundColor({ tabId: id, color: want.color });
        await chrome.action.setTitle({ tabId: id, title: want.title });
        applied.set(id, `${want.text}\u0000${want.title}`);
      } catch (e) {
        report("badge: showing a tab's badge", e); // a tab closed meanwhile
      }
    }
  });
  badgeChain = afterEither(run);
  return run;
}

/**
 * The AI starts acting in tabId (a call reached the extension): its badge
 * says so until the returned function is called (however the call ends),
 * and at least ACTING_MIN_MS. Nothing is awaited: the call is not held up.
 */
export function actingIn(tabId: number, app: string): () => void {
  let a = acting.get(tabId);
  if (a) {
    clearTimeout(a.hold);
    a.hold = undefined;
    a.app = app;
  } else {
    a = { calls: 0, app, since: Date.now() };
    acting.set(tabId, a);
    void syncTabBadges();
  }
  a.calls++;
  const mine = a;
  let ended = false;
  return () => {
    if (ended || acting.get(tabId) !== mine) return; // ended already, or the tab was closed
    ended = true;
    if (--mine.calls > 0) return;
    const left = mine.since + ACTING_MIN_MS - Date.now();
    const drop = () => {
      if (acting.get(tabId) !== mine || mine.calls > 0) return;
      acting.delete(tabId);
      void syncTabBadges();
    };
    if (left <= 0) drop();
    else mine.hold = setTimeout(drop, left);
  };
}

/**
 * The worker just started: a tab whose badge still says "AI" lost its call
 * with the last worker (Chrome keeps a tab's badge, this worker's memory
 * does not), so it is cleared. tabIds: the tabs a call may have used.
 */
export async function sweepActingBadges(tabIds: number[]): Promise<void> {
  for (const id of tabIds) {
    if (acting.has(id) || applied.has(id)) continue;
    const text = await chrome.action.getBadgeText({ tabId: id }).catch(reported("badge: reading a tab's badge"));
    if (text === "AI") applied.set(id, "from the last worker");
    // Still unread when the last worker stopped (its pointing is kept in storage.session).
    if (text === POINTED_TEXT) pointed.add(id);
  }
  await syncTabBadges();
}

/** The tab is gone: whatever its badge said goes with it (no timer left). */
export function forgetTabBadge(tabId: number): void {
  clearTimeout(acting.get(tabId)?.hold);
  acting.delete(tabId);
  applied.delete(tabId);
  resetTitles.delete(tabId);
  pointed.delete(tabId);
}

/**
 * The toolbar icon says the AI is paused ("II", amber): for the whole
 * profile on the global badge, for a tab paused on its own on that tab's
 * badge; unless a rejected connection's "!" is shown, which a tab's badge
 * would hide. Tabs the AI acts in say "AI" when nothing above applies.
 */
export async function showPauseBadge(): Promise<void> {
  await syncTabBadges();
  const title = await globalTitle();
  await chrome.action.setTitle({ title });
  for (const id of resetTitles) {
    await chrome.action.setTitle({ tabId: id, title }).catch(() => resetTitles.delete(id)); // the tab is gone
  }
  if (rejected) return;
  if (pause.paused) {
    await chrome.action.setBadgeText({ text: "II" });
    await chrome.action.setBadgeBackgroundColor({ color: PAUSED_COLOR });
  } else {
    await chrome.action.setBadgeText({ text: "" });
    await chrome.action.setBadgeBackgroundColor({ color: "#6b6b6b" });
  }
}

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
