// The person's own edits and pointing in shared tabs (issue 29, DESIGN §7.1):
// the service worker's side. Content scripts report trusted input (the
// "person" message); chrome.webNavigation reports navigations; lib/person.ts
// decides what was the person's (the rule is written there) and keeps it in
// chrome.storage.session. "Show this to the AI" (the context menu, or the
// "point" message of the extension's own pages) records what the person
// points at, shows it on the toolbar badge and in the activity log.

import { Acting, PersonLog, personNavigation, type NewEdit } from "../../lib/person";
import type { GetSelectionResult, PersonEdit } from "../../lib/protocol.gen";
import { reported } from "../../lib/diag";
import { contentOpIn } from "./content-ops";
import { refBase, saveRefBase } from "./ref-base";
import { logPersonPointed, setPointedBadge } from "./steer";

/** The context menu item's id and title. */
export const POINT_MENU_ID = "monkbrowse-point";
export const POINT_MENU_TITLE = "Show this to the AI";
/**
 * A navigation this soon after monkbrowse's last request for the tab ended is
 * still taken for its own. None: the AI's navigations and the clicks that
 * start one wait for the new page, which commits before they answer.
 */
const NAV_GRACE_MS = 0;

const log = new PersonLog({
  get: (k) => chrome.storage.session.get(k),
  set: (items) => chrome.storage.session.set(items),
  remove: (k) => chrome.storage.session.remove(k),
});

const acting = new Acting();
/** When the person's own input in each tab was last recorded (for link navigations). */
const lastInput = new Map<number, number>();

/** monkbrowse begins a wire request for tabId: input until the returned function is called is its own. */
export function beginActing(tabId: number): () => void {
  const end = acting.begin(tabId, Date.now());
  return () => end(Date.now());
}

/** Whether monkbrowse was handling a request for tabId at time at (its input then is not the person's). */
export function actingAt(tabId: number, at: number): boolean {
  return acting.actingAt(tabId, at);
}

/** Keeps the ref base above the refs the content script gave the person's elements. */
async function keepRefBase(tabId: number, high: number): Promise<void> {
  if (!Number.isInteger(high) || high <= 0) return;
  if ((await refBase(tabId)) < high) await saveRefBase(tabId, high);
}

/** A trusted input event a shared tab's content script reported. */
export async function personInput(tabId: number, frameId: number | undefined, edit: NewEdit, at: number, refHigh: number): Promise<void> {
  if (typeof at !== "number" || !Number.isFinite(at)) return;
  if (acting.actingAt(tabId, at)) return; // monkbrowse's own input (the debugger mode's is trusted)
  if (edit.kind !== "typed" && edit.kind !== "clicked" && edit.kind !== "chose") return;
  const clean: NewEdit = { kind: edit.kind };
  if (typeof edit.role === "string") clean.role = edit.role;
  if (typeof edit.name === "string") clean.name = edit.name;
  // Refs only from the top frame's content script (frames' refs need the frame number).
  if (frameId === 0 && typeof edit.ref === "string") clean.ref = edit.ref;
  lastInput.set(tabId, Math.max(lastInput.get(tabId) ?? 0, at));
  if (frameId === 0) await keepRefBase(tabId, refHigh);
  await log.add(tabId, clean);
}

/** A document a shared tab committed: a top-frame navigation may be the person's; a new document drops the pointing. */
export async function personCommitted(d: { tabId: number; frameId: number; url: string; timeStamp: number; transitionType?: string; transitionQualifiers?: string[] }): Promise<void> {
  if (d.frameId !== 0) return;
  await forgetPointed(d.tabId, false);
  const kind = personNavigation(d, acting.actingAt(d.tabId, d.timeStamp, NAV_GRACE_MS), lastInput.get(d.tabId), acting.lastEnd(d.tabId));
  if (kind) await log.add(d.tabId, { kind, url: d.url });
}

/** person_edits: the tab's number and the edits after since. */
export function personEdits(tabId: number, since: number | undefined): Promise<{ seq: number; edits: PersonEdit[] }> {
  return log.since(tabId, since);
}

// ---- pointing -----------------------------------------------------------------

const pointedKey = (tabId: number) => `pointed:${tabId}`;

interface StoredPointed {
  refs: string[];
  role: string;
  name: string;
  text: string;
  url: string;
  at: number;
}

/** The tab's "◉" badge (steer.ts, below the pause's and the acting badge). */
async function showPointBadge(tabId: number, on: boolean): Promise<void> {
  // The tab may be gone: its badge with it.
  await setPointedBadge(tabId, on).catch(reported("pointing: the toolbar badge"));
}

/** "Show this to the AI" in a shared tab's frame: records what the person points at. Returns whether anything was. */
export async function pointAt(tabId: number, frameId: number): Promise<boolean> {
  const got = await contentOpIn(tabId, { frameId }, "pointed", {});
  const p = got?.pointed;
  if (!p) return false;
  const refs = frameId === 0 && Array.isArray(p.refs) ? p.refs.filter((r) => typeof r === "string").slice(0, 30) : [];
  if (frameId === 0) await keepRefBase(tabId, got.refHigh);
  const tab = await chrome.tabs.get(tabId);
  const stored: StoredPointed = {
    refs,
    role: String(p.role ?? ""),
    name: String(p.name ?? ""),
    text: String(p.text ?? ""),
    url: tab.url ?? "",
    at: Date.now(),
  };
  await chrome.storage.session.set({ [pointedKey(tabId)]: stored });
  const edit: NewEdit = { kind: "pointed", role: stored.role, name: stored.name };
  if (refs[0] !== undefined) edit.ref = refs[0];
  await log.add(tabId, edit);
  await showPointBadge(tabId, true);
  void logPersonPointed(tabId, { role: stored.role, name: stored.name });
  return true;
}

/** browser_get_selection: what the person last pointed at in the tab (the badge goes: the AI has read it). */
export async function pointed(tabId: number): Promise<Omit<GetSelectionResult, "tabId">> {
  const v = (await chrome.storage.session.get(pointedKey(tabId)))[pointedKey(tabId)] as StoredPointed | undefined;
  if (!v || typeof v !== "object" || !Array.isArray(v.refs)) return { pointed: false };
  await showPointBadge(tabId, false);
  const out: Omit<GetSelectionResult, "tabId"> = { pointed: true, refs: v.refs, role: v.role, name: v.name, url: v.url, at: v.at };
  if (v.text) out.text = v.text;
  return out;
}

/** Forgets what was pointed at in the tab (a new document, unshared, closed). */
export async function forgetPointed(tabId: number, all: boolean): Promise<void> {
  const had = (await chrome.storage.session.get(pointedKey(tabId)))[pointedKey(tabId)] !== undefined;
  if (had) {
    await chrome.storage.session.remove(pointedKey(tabId));
    await showPointBadge(tabId, false);
  }
  if (all) {
    await log.forget(tabId);
    acting.forget(tabId);
    lastInput.delete(tabId);
  }
}

/** The context menu item, on every page (it does something only in shared tabs). */
export function createPointMenu(): void {
  if (!chrome.contextMenus) return;
  chrome.contextMenus.removeAll(() => {
    chrome.contextMenus.create(
      { id: POINT_MENU_ID, title: POINT_MENU_TITLE, contexts: ["page", "selection", "link", "image", "editable"] },
      () => void chrome.runtime.lastError, // created twice (install and startup): the first one stays
    );
  });
}
