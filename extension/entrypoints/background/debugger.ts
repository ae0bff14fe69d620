// Debugger mode (opt-in per Chrome profile, consent.debugger): trusted input
// through Input.*, native dialogs answered with Page.handleJavaScriptDialog,
// response bodies, PDFs and one-capture full-page screenshots.
//
// Chrome shows "started debugging this browser" while an extension is
// attached, so we attach to one tab only while working in it and detach after
// DEFAULT_IDLE_MS without work; a detach waits for running work, so it never
// loses a call. With the mode off we never attach, and switching it off
// detaches at once.
//
// The debugger lets go (issue 21): switching the mode off, unsharing a tab
// and the worker starting detach every tab target this extension may still
// hold, including attachments a restarted worker lost track of
// (chrome.debugger.getTargets: every attached tab target is asked; Chrome
// detaches only our own session, so another client's is left alone). The
// person's Cancel on Chrome's "started debugging this browser" bar
// (onDetach reason canceled_by_user) switches the mode off for the profile
// until the person switches it on again; the popup shows it and the AI is
// told in its next answer. A canceled_by_user within CANCEL_GRACE_MS of our
// own detach or of the tab closing is not the person's cancel. Every attach and detach is written to the attach log
// (chrome.storage.session "debuggerLog"), which tests read: a test's own CDP
// session also makes a tab look "attached", so that cannot tell.

import { CONSENT_DEBUGGER_CANCELLED, KEY_CONSENT, normalizeConsent, withSwitch } from "../../lib/storage";
import { CodedError, errorText } from "../../lib/peer";
import { attachDebugger } from "./gate";
import { reported } from "../../lib/diag";
import { consentUnderPolicy } from "./siterules";
import { AttachError } from "../../lib/debugger-fallback";
import { createAttachLog, createCancelWatch, createDebuggerEvents, type Body, type LogEntry } from "../../lib/worker/debugging";

export { CANCEL_GRACE_MS, dialogDefault, type Body, type LogEntry } from "../../lib/worker/debugging";

export const DEFAULT_IDLE_MS = 5_000;
/** chrome.storage.local key that shortens the idle time (tests). */
export const KEY_DEBUGGER_IDLE = "debuggerIdleMs";
export const LOG_KEY = "debuggerLog";
const PROTOCOL = "1.3";

interface Session {
  tabId: number;
  busy: number;
  idleTimer?: ReturnType<typeof setTimeout>;
  detaching?: Promise<void>;
  /** CDP request id → URL of responses seen while attached. */
  responses: Map<string, { url: string }>;
}

/** chrome.storage.session key: the notice for the AI's next answer after the person cancelled debugging. */
export const KEY_CANCEL_NOTICE = "debuggerCancelNotice";

export const CANCELLED_NOTICE =
  "The person cancelled Chrome's debugging (the Cancel button on the \"started debugging this browser\" bar): " +
  "monkbrowse switched debugger mode off for this Chrome profile and works without the debugger (no trusted input, " +
  "no native dialog answers, no response bodies, no PDFs) until the person switches \"Use Chrome's debugger\" on again in the monkbrowse popup.";

const sessions = new Map<number, Session>();
/** The worker's first release of lost attachments; attach waits for it. */
let startRelease: Promise<void> = Promise.resolve();
let enabled = false;
let idleMs = DEFAULT_IDLE_MS;

const log = createAttachLog({
  load: async () => (await chrome.storage.session.get(LOG_KEY))[LOG_KEY],
  save: (list: LogEntry[]) => chrome.storage.session.set({ [LOG_KEY]: list }),
  reported,
});
/** Our own detaches and closed tabs, so a canceled_by_user after them is not the person's. */
const cancels = createCancelWatch((tabId) => {
  // Every other tab lets go too: the person said no to the debugger.
  enabled = false;
  void personCancelled(tabId).then(() => releaseAll("cancelled by the person"));
});
const events = createDebuggerEvents({
  send: (tabId, method, params) => chrome.debugger.sendCommand({ tabId }, method, params),
  log,
  reported,
});

export async function debuggerEnabled(): Promise<boolean> {
  const got = await chrome.storage.local.get([KEY_CONSENT, KEY_DEBUGGER_IDLE]);
  // The organisation's policy may forbid the debugger whatever the person chose (issue 44).
  enabled = (await consentUnderPolicy(normalizeConsent(got[KEY_CONSENT]))).debugger;
  const idle = got[KEY_DEBUGGER_IDLE];
  idleMs = typeof idle === "number" && idle >= 100 && idle <= 600_000 ? idle : DEFAULT_IDLE_MS;
  return enabled;
}

export type Send = <T = unknown>(method: string, params?: Record<string, unknown>) => Promise<T>;

function sender(tabId: number): Send {
  return async <T>(method: string, params?: Record<string, unknown>) => {
    try {
      return (await chrome.debugger.sendCommand({ tabId }, method, params)) as T;
    } catch (e) {
      throw new Error(`${method} failed in tab ${tabId}: ${errorText(e)}`);
    }
  };
}

/** Tells the page's hooks to let alert/confirm/prompt through to Chrome (we answer them). */
let setNativeDialogs: (tabId: number, on: boolean) => Promise<void> = async () => undefined;
export function onNativeDialogs(fn: (tabId: number, on: boolean) => Promise<void>): void {
  setNativeDialogs = fn;
}

async function attach(tabId: number): Promise<Session> {
  await startRelease;
  let s = sessions.get(tabId);
  if (s?.detaching) await s.detaching;
  s = sessions.get(tabId);
  if (s) return s;
  try {
    await attachDebugger(tabId, PROTOCOL);
  } catch (e) {
    if (e instanceof CodedError) throw e;
    const m = errorText(e);
    if (!/already attached/i.test(m)) {
      log({ tabId, event: "refused", detail: m });
      // Names the reason (a policy, another debugger, a protected page) and what the person can do (issue 44).
      throw new AttachError(tabId, m);
    }
  }
  s = { tabId, busy: 0, responses: new Map() };
  sessions.set(tabId, s);
  log({ tabId, event: "attach" });
  const send = sender(tabId);
  await send("Page.enable").catch(reported("debugger: Page.enable"));
  await send("Network.enable", { maxTotalBufferSize: 10_000_000, maxResourceBufferSize: 2_000_000 }).catch(reported("debugger: Network.enable"));
  await setNativeDialogs(tabId, true).catch(reported("debugger: dialogs to the debugger"));
  return s;
}

async function detach(tabId: number, reason: string): Promise<void> {
  const s = sessions.get(tabId);
  if (!s || s.detaching) return s?.detaching;
  if (s.idleTimer) clearTimeout(s.idleTimer);
  s.detaching = (async () => {
    // The hooks take dialogs back first, so none opens natively with no one to answer it.
    await setNativeDialogs(tabId, false).catch(reported("debugger: dialogs back to the page hooks"));
    cancels.ownDetach(tabId);
    await chrome.debugger.detach({ tabId }).catch(reported("debugger: detach"));
    sessions.delete(tabId);
    log({ tabId, event: "detach", detail: reason });
  })();
  return s.detaching;
}

function scheduleIdle(s: Session): void {
  if (s.idleTimer) clearTimeout(s.idleTimer);
  s.idleTimer = setTimeout(() => {
    if (s.busy === 0) void detach(s.tabId, "idle");
  }, idleMs);
}

/**
 * Runs fn attached to the tab. Throws when the mode is off (callers check
 * debuggerEnabled first). The tab stays attached while any fn runs.
 */
export async function withDebugger<T>(tabId: number, fn: (send: Send) => Promise<T>): Promise<T> {
  if (!(await debuggerEnabled())) throw new Error("the debugger mode is off in this Chrome profile");
  const s = await attach(tabId);
  s.busy++;
  if (s.idleTimer) clearTimeout(s.idleTimer);
  try {
    return await fn(sender(tabId));
  } finally {
    s.busy--;
    if (sessions.get(tabId) === s && s.busy === 0) scheduleIdle(s);
  }
}

export function bodiesOf(tabId: number): Body[] {
  return events.bodiesOf(tabId);
}

/**
 * Detaches every tab target this extension may hold for which which(tabId)
 * says so: our sessions through detach (hooks first), and attached tab
 * targets we have no session for (a restarted worker lost them) straight
 * away. Chrome refuses to detach a session that is not ours, so another
 * client's attachment (DevTools, a test's CDP) stays.
 */
export async function releaseAll(reason: string, which: (tabId: number) => boolean = () => true): Promise<void> {
  const work: Promise<unknown>[] = [];
  for (const id of [...sessions.keys()]) if (which(id)) work.push(detach(id, reason));
  let targets: chrome.debugger.TargetInfo[] = [];
  try {
    targets = await chrome.debugger.getTargets();
  } catch {
    targets = [];
  }
  for (const t of targets) {
    const id = t.tabId;
    if (!t.attached || id === undefined || sessions.has(id) || !which(id)) continue;
    cancels.ownDetach(id);
    work.push(
      chrome.debugger.detach({ tabId: id }).then(
        () => log({ tabId: id, event: "detach", detail: `${reason} (an attachment this worker had lost track of)` }),
        () => undefined, // silent: not ours: another debugger (DevTools) holds it, and it is not ours to take
      ),
    );
  }
  await Promise.all(work);
}

/** A tab that is no longer shared is detached at once (never debugged while unshared). */
export function detachUnshared(sharedIds: ReadonlySet<number>): Promise<void> {
  // The response bodies of a tab that is no longer shared go with it.
  events.keepShared(sharedIds);
  return releaseAll("unshared", (id) => !sharedIds.has(id));
}

export function forgetDebuggerTab(tabId: number, now = Date.now()): void {
  events.forget(tabId);
  sessions.delete(tabId);
  cancels.closed(tabId, now);
}

/** The person cancelled debugging: the mode off for the profile, the popup and the AI told. */
async function personCancelled(tabId: number): Promise<void> {
  log({ tabId, event: "detach", detail: "cancelled by the person" });
  const got = await chrome.storage.local.get(KEY_CONSENT);
  const next = { ...withSwitch(got[KEY_CONSENT], "debugger", false), [CONSENT_DEBUGGER_CANCELLED]: Date.now() };
  enabled = false;
  await chrome.storage.local.set({ [KEY_CONSENT]: next });
  await chrome.storage.session.set({ [KEY_CANCEL_NOTICE]: CANCELLED_NOTICE });
}

/** The notice for the AI, once (the next answer after the person cancelled debugging carries it). */
export async function takeCancelNotice(): Promise<string | undefined> {
  const got = await chrome.storage.session.get(KEY_CANCEL_NOTICE);
  const n = got[KEY_CANCEL_NOTICE];
  if (typeof n !== "string") return undefined;
  await chrome.storage.session.remove(KEY_CANCEL_NOTICE);
  return n;
}

/** Chrome detached the tab on its own (canceled_by_user may be the person's Cancel: lib/worker/debugging.ts). */
function onChromeDetach(tabId: number, reason: string): void {
  if (sessions.delete(tabId)) log({ tabId, event: "detach", detail: `by Chrome: ${reason}` });
  cancels.detached(tabId, reason);
}

export function installDebugger(): void {
  // A new worker holds no session: whatever is attached is lost from an old one.
  startRelease = releaseAll("worker started").catch(reported("debugger: releasing attachments at start"));
  void debuggerEnabled();
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== "local" || (!changes[KEY_CONSENT] && !changes[KEY_DEBUGGER_IDLE])) return;
    void debuggerEnabled().then((on) => {
      if (!on) void releaseAll("switched off");
      // Switched on again: the AI need not hear of an old cancel.
      else void chrome.storage.session.remove(KEY_CANCEL_NOTICE).catch(reported("debugger: forgetting the cancel notice"));
    });
  });
  chrome.debugger.onDetach.addListener((src, reason) => {
    if (src.tabId === undefined) return;
    onChromeDetach(src.tabId, String(reason));
  });
  chrome.debugger.onEvent.addListener((src, method, params) => {
    const tabId = src.tabId;
    const s = tabId === undefined ? undefined : sessions.get(tabId);
    if (tabId === undefined || !s) return;
    events.event(tabId, s, () => sessions.get(tabId) === s, method, params);
  });
}
