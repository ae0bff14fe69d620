// The service worker: keeps the offscreen document (which owns the socket)
// alive, builds the hello, keeps shares and slots, pushes tabs_changed, and
// executes every wire request the offscreen document relays.

import { defineBackground } from "wxt/utils/define-background";
import { Executor } from "../../lib/executor";
import { Exec, withNotice } from "../../lib/worker/exec";
import { buildProfile } from "../../lib/hello";
import { NATIVE_HOST_NAME, parseHostReply, resolveSecret, type SecretSource } from "../../lib/pairing";
import { ensureIdentity, withAssigned } from "../../lib/identity";
import { isBgMessage, senderMayAsk, SLEEP_MAX_MS, type BgMessage, type BgMessages, type OffMessage, type Reply } from "../../lib/messages";
import { errorCode, errorText } from "../../lib/peer";
import { DIALOG_ARM_TTL_MS } from "../../lib/protocol.gen";
import { pruneShares, shareAll, shareTab, unshareTab } from "../../lib/slots";
import {
  KEY_CONSENT,
  KEY_IDENTITY,
  KEY_PAIRED,
  KEY_SETTINGS,
  KEY_SHARES,
  KEY_STATUS,
  isValidPort,
  normalizeConsent,
  normalizePaired,
  normalizeSettings,
  normalizeShares,
  type Consent,
  type Identity,
  type Settings,
  type Shares,
  type Status,
} from "../../lib/storage";
import { needsReconnect, type Served } from "../../lib/settings-sync";
import { makeChromePort } from "./chrome-port";
import { forgetFrames, setArmSource } from "./frames";
import { forgetRefBase } from "./ref-base";
import { forgetTab as forgetNetTab, installNetwork, setShared } from "./network";
import { detachUnshared, forgetDebuggerTab, installDebugger, takeCancelNotice } from "./debugger";
import { armTab, injectDocument, injectTab, makeDormant, noteBusy } from "./inject";
import { setShareState, unsharedError } from "./gate";
import {
  actingIn,
  forgetTabApps,
  forgetTabBadge,
  forgetTabPause,
  groupForApp,
  isPaused,
  logPaused,
  loadSteer,
  logRefused,
  noteConnection,
  onPauseChanged,
  onTabAppsChanged,
  pausedFor,
  pausedTabs,
  setPaused,
  setTabPaused,
  showPauseBadge,
  sweepActingBadges,
  watchCall,
  withTabApps,
} from "./steer";
import type { DialogArm } from "../../lib/page/console";
import { answerFromPopup, endAllAsks, endAsksInTab, reshowAsk } from "./ask";
import { beginActing, createPointMenu, forgetPointed, personCommitted, personInput, pointAt, POINT_MENU_ID } from "./person";
import { afterEither, DIAG_KEY, DiagLog, entry, report, reported, setDiagSink, type DiagEntry } from "../../lib/diag";

const OFFSCREEN_PATH = "offscreen.html";
const WELCOME_PATH = "welcome.html";
// A file of this name in the extension's folder suppresses the welcome page
// (the test harness and benchmarks write it into their copy).
const NO_WELCOME_MARKER = "no-welcome";
const KEEPALIVE_ALARM = "monkbrowse-keepalive";
/** The keyboard shortcut's command (wxt.config.ts): Stop or Resume the AI in this profile. */
const TOGGLE_PAUSE_COMMAND = "toggle-pause";
const TABS_DEBOUNCE_MS = 200;
const TABS_MAX_WAIT_MS = 1000;

// ---- first run ---------------------------------------------------------------

/** Opens the welcome page once, on installation, unless suppressed. */
async function openWelcome(): Promise<void> {
  // No marker: a fetch of a missing packaged file fails.
  const marked = await fetch(chrome.runtime.getURL(NO_WELCOME_MARKER)).then(
    (r) => r.ok,
    () => false,
  );
  if (marked) return;
  await chrome.tabs.create({ url: chrome.runtime.getURL(WELCOME_PATH) });
}

// ---- storage helpers -------------------------------------------------------

/**
 * Keeps this profile's shares, consent switches and settings out of reach of
 * our content script: it runs in the page's renderer process, which a
 * malicious page may have compromised, and by default chrome.storage.local is
 * open to content scripts. None of ours needs storage, so only the extension's
 * own pages and this worker may read or write it (Chrome 102+ for the call;
 * older builds keep the default and we carry on).
 */
function lockStorage(): void {
  chrome.storage.local.setAccessLevel({ accessLevel: "TRUSTED_CONTEXTS" }).catch((err: unknown) => {
    console.warn("monkbrowse: could not restrict chrome.storage.local to the extension's own pages", err);
  });
}

async function readSettings(): Promise<Settings> {
  const got = await chrome.storage.local.get(KEY_SETTINGS);
  return normalizeSettings(got[KEY_SETTINGS]);
}

// Identity reads and writes are chained: two first-time reads racing (on
// install, the hello and onInstalled) must not mint two profileIds.
let identityChain: Promise<unknown> = Promise.resolve();
function withIdentity<T>(fn: (identity: Identity) => Promise<T>): Promise<T> {
  const run = identityChain.then(async () => {
    const got = await chrome.storage.local.get(KEY_IDENTITY);
    const { identity, changed } = ensureIdentity(got[KEY_IDENTITY], () => crypto.randomUUID());
    if (changed) await chrome.storage.local.set({ [KEY_IDENTITY]: identity });
    return fn(identity);
  });
  identityChain = afterEither(run);
  return run;
}

const readIdentity = () => withIdentity(async (identity) => identity);

async function readConsent(): Promise<Consent> {
  const got = await chrome.storage.local.get(KEY_CONSENT);
  return normalizeConsent(got[KEY_CONSENT]);
}

async function readShares(): Promise<Shares> {
  const got = await chrome.storage.local.get(KEY_SHARES);
  return normalizeShares(got[KEY_SHARES]);
}

// The shared tab ids, kept in memory so the navigation listener can tell a
// shared tab at once (every millisecond lost there is lost to the page's own
// scripts). Loaded from storage when the worker starts; updated with shares.
let sharedIds: Set<number> | undefined;
let sharedIdsLoading: Promise<Set<number>> | undefined;
function loadSharedIds(): Promise<Set<number>> {
  if (sharedIds) return Promise.resolve(sharedIds);
  sharedIdsLoading ??= readShares().then((s) => {
    sharedIds ??= new Set(Object.keys(s).map(Number));
    return sharedIds;
  });
  return sharedIdsLoading;
}

// Every change to shares goes through this chain, so two quick toggles (or a
// toggle racing a tab close) never lose an update or hand out one slot twice.
let sharesChain: Promise<unknown> = Promise.resolve();
function updateShares<T>(fn: (s: Shares) => { shares: Shares; out: T }, opts: { touchPages?: boolean } = {}): Promise<T> {
  const touchPages = opts.touchPages ?? true;
  const run = sharesChain.then(async () => {
    const before = await readShares();
    const { shares, out } = fn(before);
    if (shares !== before) {
      sharedIds = new Set(Object.keys(shares).map(Number));
      await chrome.storage.local.set({ [KEY_SHARES]: shares });
      setShared(shares);
      void detachUnshared(new Set(Object.keys(shares).map(Number)));
      scheduleTabsPush();
      // Newly shared tabs get the page side now; unshared ones lose it.
      if (touchPages) for (const k of Object.keys(shares)) if (before[k] === undefined) void injectTab(Number(k), currentArm(Number(k)));
      for (const k of Object.keys(before)) {
        if (shares[k] === undefined) {
          abortTab(Number(k), unsharedError(Number(k)));
          void endAsksInTab(Number(k), "the person stopped sharing the tab").catch(reported("ask: ending an unshared tab's requests"));
          void forgetPointed(Number(k), true).catch(reported("pointing: forgetting an unshared tab"));
        }
        if (touchPages && shares[k] === undefined) {
          arms.delete(Number(k));
          void makeDormant(Number(k));
        }
      }
    }
    return out;
  });
  sharesChain = afterEither(run);
  return run;
}

// ---- dialog answers armed by browser_handle_dialog ------------------------

// In memory: a worker suspended for 30 s loses it, and with it at most the
// rest of a 60 s arm; the page's own copy still answers in that document.
const arms = new Map<number, DialogArm>();

function currentArm(tabId: number): DialogArm | null {
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

async function armDialog(tabId: number, answer: { accept: boolean; promptText?: string }): Promise<number> {
  const a: DialogArm = { accept: answer.accept, expiresAt: Date.now() + DIALOG_ARM_TTL_MS };
  if (answer.promptText !== undefined) a.promptText = answer.promptText;
  arms.set(tabId, a);
  await armTab(tabId, a);
  return DIALOG_ARM_TTL_MS;
}

const shareOne = (tabId: number) =>
  updateShares((s) => {
    const r = shareTab(s, tabId);
    return { shares: r.shares, out: r.slot };
  });

async function openTabIds(): Promise<number[]> {
  const tabs = await chrome.tabs.query({});
  return tabs.map((t) => t.id).filter((id): id is number => id !== undefined);
}

async function pruneClosed(): Promise<void> {
  const open = await openTabIds();
  await updateShares((s) => ({ shares: pruneShares(s, open), out: undefined }));
}

// ---- tabs ------------------------------------------------------------------

// Debounced (TABS_DEBOUNCE_MS after the last change), but never held back
// more than TABS_MAX_WAIT_MS while changes keep coming.
let tabsTimer: ReturnType<typeof setTimeout> | undefined;
let tabsFirstPending: number | undefined;
function scheduleTabsPush(): void {
  const now = Date.now();
  tabsFirstPending ??= now;
  if (tabsTimer !== undefined) clearTimeout(tabsTimer);
  const wait = Math.max(0, Math.min(TABS_DEBOUNCE_MS, tabsFirstPending + TABS_MAX_WAIT_MS - now));
  tabsTimer = setTimeout(() => {
    tabsTimer = undefined;
    tabsFirstPending = undefined;
    void pushTabs();
  }, wait);
}

async function pushTabs(): Promise<void> {
  try {
    const tabs = await listTabs();
    await sendToOffscreen({ to: "off", kind: "tabs-push", tabs, paused: isPaused() });
  } catch (e) {
    // No offscreen document right now? The next hello carries the tabs.
    report("tabs: pushing tabs_changed to the offscreen document", e);
  }
}

async function sendToOffscreen(msg: OffMessage): Promise<void> {
  await chrome.runtime.sendMessage(msg);
}

// ---- offscreen document ----------------------------------------------------

/** What connect-info last gave the connection (lib/settings-sync.ts). */
let served: Served | undefined;

/** Tells the offscreen connection to reconnect now, creating it if needed. */
async function askReconnect(why: string): Promise<void> {
  console.debug(`monkbrowse: reconnecting: ${why}`);
  await ensureOffscreen();
  await sendToOffscreen({ to: "off", kind: "reconnect" }).catch(reported("connection: asking the offscreen document to reconnect"));
}

let creating: Promise<void> | undefined;
async function ensureOffscreen(): Promise<void> {
  if (creating) return creating;
  creating = (async () => {
    const url = chrome.runtime.getURL(OFFSCREEN_PATH);
    const contexts = await chrome.runtime.getContexts({
      contextTypes: ["OFFSCREEN_DOCUMENT" as chrome.runtime.ContextType],
      documentUrls: [url],
    });
    if (contexts.length > 0) return;
    try {
      await chrome.offscreen.createDocument({
        url: OFFSCREEN_PATH,
        reasons: ["WORKERS" as chrome.offscreen.Reason],
        justification:
          "Keeps the WebSocket connection to the local monkbrowse server open while the service worker sleeps.",
      });
    } catch (e) {
      // Another caller won the race: one offscreen document is all we want.
      if (!/single offscreen|only one|already/i.test(errorText(e))) throw e;
    }
  })().finally(() => {
    creating = undefined;
  });
  return creating;
}

// ---- status and badge ------------------------------------------------------

async function writeStatus(status: Status): Promise<void> {
  if (!isValidPort(status.port)) status = { ...status, port: (await readSettings()).port };
  await chrome.storage.local.set({ [KEY_STATUS]: status });
  const badge = status.state === "rejected" ? "!" : status.state === "connected" ? "" : "…";
  await chrome.action.setBadgeText({ text: badge });
  if (status.state === "rejected") await chrome.action.setBadgeBackgroundColor({ color: "#b3261e" });
  else await chrome.action.setBadgeBackgroundColor({ color: "#6b6b6b" });
  const title =
    status.state === "connected"
      ? `monkbrowse: connected to 127.0.0.1:${status.port}`
      : `monkbrowse: ${status.state}${status.reason ? ` (${status.reason})` : ""}`;
  noteConnection(status.state === "rejected", title);
  await showPauseBadge(); // the title, and a paused AI on the icon unless "!" shows
}

// ---- messages from the offscreen document and the popup ------------------

const executor = new Executor(makeChromePort({ getShares: readShares, share: shareOne, getConsent: readConsent, armDialog }));

/** The shared tabs, each with the AI app that opened it, the one that acted in it last, and whether it is paused on its own. */
async function listTabs() {
  await loadSteer();
  return withPausedTabs(withTabApps(await executor.listTabs()));
}
function withPausedTabs<T extends { tabId: number }>(tabs: T[]): T[] {
  const paused = pausedTabs();
  return tabs.map((t) => (paused.includes(t.tabId) ? { ...t, paused: true } : t));
}
onTabAppsChanged(scheduleTabsPush);
// The server hears Stop and Resume at once (not debounced): it stops the
// calls it holds for this profile (issue 28).
onPauseChanged(pushTabs);
const steerPort = {
  resolveTab: (tabId: number | undefined) => executor.resolveTab(tabId),
  slotOf: async (tabId: number) => (await readShares())[String(tabId)],
};

// The share gate reads the in-memory shared ids (updated in updateShares
// before anything else is done about a change).
setShareState({
  ready: () => loadSharedIds().then(() => undefined),
  shared: (tabId) => sharedIds?.has(tabId) ?? false,
});

/** Wire requests: the pause gate, the abort registry, the call watch (lib/worker/exec.ts). */
const exec = new Exec({
  ready: loadSteer,
  pausedFor,
  logPaused: (type, payload, err) => logPaused(type, payload, steerPort, err),
  watch: (type, payload) => watchCall(type, payload, steerPort),
  beginActing,
  actingIn,
  execute: (type, payload, signal) => executor.execute(type, payload, signal),
  answer: async (type, result, app) => {
    let r = result;
    if (type === "list_tabs" && r && typeof r === "object" && Array.isArray((r as { tabs?: unknown }).tabs)) {
      r = { ...r, tabs: withPausedTabs(withTabApps((r as { tabs: Parameters<typeof withTabApps>[0] }).tabs)) };
    }
    const opened = type === "browser_new_tab" ? (r as { tabId?: unknown } | null)?.tabId : undefined;
    if (typeof opened === "number") await groupForApp(opened, app);
    const notice = await takeCancelNotice();
    // The AI hears that the person cancelled debugging in its next answer.
    return notice !== undefined && r !== null && typeof r === "object" ? { ...r, notice } : r;
  },
  failure: async (e) => withNotice(e, await takeCancelNotice().catch(reported("debugger: reading the cancel notice"))),
});

/** Stops every running call on the tab (the person unshared it): each answers with reason. */
function abortTab(tabId: number, reason: Error): void {
  exec.running.abortTab(tabId, reason);
}

/**
 * The pairing secret (DESIGN §5.2): fetched from monkbrowse's native host
 * (registered by `monkbrowse install`) and kept in session storage, which
 * Chrome holds in memory only, until the browser quits.
 */
const SECRET_KEY = "pairingSecret";
const secretSource: SecretSource = {
  cached: async () => {
    const v = (await chrome.storage.session.get(SECRET_KEY))[SECRET_KEY];
    return typeof v === "string" && v !== "" ? v : undefined;
  },
  store: async (secret) => {
    await chrome.storage.session.set({ [SECRET_KEY]: secret });
  },
  fetchNative: async () => {
    try {
      return parseHostReply(await chrome.runtime.sendNativeMessage(NATIVE_HOST_NAME, { type: "pairing" }));
    } catch (e) {
      throw new Error(e instanceof Error ? e.message : String(e));
    }
  },
};

type Handlers = { [K in keyof BgMessages]: (m: BgMessage<K>) => Promise<BgMessages[K]["res"]> };

const handlers: Handlers = {
  "connect-info": async (m) => {
    const [settings, identity, tabs, pairing, paired] = await Promise.all([
      readSettings(),
      readIdentity(),
      listTabs(),
      resolveSecret(secretSource, m.refresh === true),
      chrome.storage.local.get(KEY_PAIRED).then((got) => normalizePaired(got[KEY_PAIRED])),
    ]);
    const profile = buildProfile({ settings, identity, tabs, extVersion: chrome.runtime.getManifest().version, paused: isPaused() });
    served = { port: settings.port, label: settings.label };
    const pasted = paired[String(settings.port)];
    return { port: settings.port, extVersion: chrome.runtime.getManifest().version, profile, ...pairing, ...(pasted ? { pasted } : {}) };
  },
  exec: (m) => exec.run(m),
  refused: async (m) => {
    logRefused(m.tool, m.tabId, m.app, steerPort);
    return null;
  },
  cancel: async (m) => {
    exec.cancel(m.callId);
    return null;
  },
  accepted: async (m) => {
    await withIdentity((identity) =>
      chrome.storage.local.set({ [KEY_IDENTITY]: withAssigned(identity, m.assignedLabel, m.assignedSlug) }),
    );
    // Tabs may have changed between building the hello and its ack.
    scheduleTabsPush();
    return null;
  },
  status: async (m) => {
    await writeStatus(m.status);
    // A settings change whose reconnect message missed the connection
    // (issue 12): the connection reports on other settings than the stored.
    if (needsReconnect(await readSettings(), served, m.status)) void askReconnect("its status is for other settings");
    return null;
  },
  share: async (m) => {
    if (m.shared) return { slot: await shareOne(m.tabId) };
    await updateShares((s) => ({ shares: unshareTab(s, m.tabId), out: undefined }));
    return { slot: null };
  },
  sleep: (m) => {
    const ms = typeof m.ms === "number" && Number.isFinite(m.ms) ? Math.min(Math.max(m.ms, 0), SLEEP_MAX_MS) : 0;
    return new Promise((resolve) => setTimeout(() => resolve(null), ms));
  },
  "dialog-used": async (m) => {
    const tabId = (m as BgMessage<"dialog-used"> & { senderTabId?: number }).senderTabId;
    if (tabId !== undefined) arms.delete(tabId);
    return null;
  },
  busy: async (m) => {
    const tabId = (m as BgMessage<"busy"> & { senderTabId?: number }).senderTabId;
    if (tabId !== undefined) noteBusy(tabId);
    return null;
  },
  pause: async (m) => {
    if (typeof m.tabId === "number") await setTabPaused(m.tabId, m.paused);
    else await setPaused(m.paused);
    // Running calls answer at once (the one abort path); queued and new
    // ones are refused by the server (told by tabs_changed) and at exec.
    if (m.paused) exec.running.abortPaused(typeof m.tabId === "number" ? m.tabId : undefined, pausedFor);
    // The AI's requests to the person end too (the tab's, or all), and their banners go.
    if (m.paused) {
      const tabId = m.tabId;
      const why = "the person pressed Stop in the monkbrowse popup";
      if (typeof tabId === "number") await endAsksInTab(tabId, why, { banner: true });
      else await endAllAsks(why);
    }
    return null;
  },
  "ask-answer": async (m) => {
    const s = m as BgMessage<"ask-answer"> & { fromPage?: boolean };
    if (typeof s.askId !== "string" || (s.answer !== "done" && s.answer !== "declined")) return null;
    // The popup's only (issue 40): senderMayAsk refuses this kind from a
    // content script already; a page's answer never counts.
    if (s.fromPage) return null;
    await answerFromPopup(s.askId, s.answer);
    return null;
  },
  diag: async (m) => {
    const tabId = (m as BgMessage<"diag"> & { senderTabId?: number }).senderTabId;
    const from = tabId !== undefined ? `tab ${tabId}: ` : "offscreen: ";
    await diagLog.add(entry(from + String(m.where), String(m.message), Date.now()));
    return null;
  },
  person: async (m) => {
    const sender = m as BgMessage<"person"> & { senderTabId?: number; senderFrameId?: number };
    const tabId = sender.senderTabId;
    if (tabId === undefined || !(await loadSharedIds()).has(tabId)) return null;
    await personInput(tabId, sender.senderFrameId, m.edit, m.at, m.refHigh);
    return null;
  },
  point: async (m) => {
    if (!(await loadSharedIds()).has(m.tabId)) return { pointed: false };
    return { pointed: await pointAt(m.tabId, typeof m.frameId === "number" ? m.frameId : 0) };
  },
  "share-all": async () => {
    const tabs = await chrome.tabs.query({ windowType: "normal" });
    const ids = tabs
      .slice()
      .sort((a, b) => a.windowId - b.windowId || a.index - b.index)
      .map((t) => t.id)
      .filter((id): id is number => id !== undefined);
    await updateShares((s) => ({ shares: shareAll(s, ids), out: undefined }));
    return null;
  },
};

function onMessage(msg: unknown, sender: chrome.runtime.MessageSender, sendResponse: (r: Reply<unknown>) => void): boolean {
  if (!isBgMessage(msg)) return false;
  if (!senderMayAsk(msg.kind, sender, { id: chrome.runtime.id, origin: chrome.runtime.getURL("") })) {
    sendResponse({ ok: false, error: `internal message "${msg.kind}" is not accepted from this sender` });
    return false;
  }
  if (msg.kind === "dialog-used" || msg.kind === "busy" || msg.kind === "diag" || msg.kind === "person") {
    // Only about the sender's own tab, whatever the message says.
    (msg as BgMessage & { senderTabId?: number; senderFrameId?: number }).senderTabId = sender.tab?.id;
    (msg as BgMessage & { senderTabId?: number; senderFrameId?: number }).senderFrameId = sender.frameId;
  }
  if (msg.kind === "ask-answer") {
    // Who answered is the sender's, never the message's: only the
    // extension's own pages (the popup) answer.
    (msg as BgMessage & { fromPage?: boolean }).fromPage = !(sender.url ?? "").startsWith(chrome.runtime.getURL(""));
  }
  const h = handlers[msg.kind] as ((m: BgMessage) => Promise<unknown>) | undefined;
  if (!h) {
    sendResponse({ ok: false, error: `unknown internal message "${msg.kind}"` });
    return false;
  }
  h(msg).then(
    (result) => sendResponse({ ok: true, result }),
    (e: unknown) => sendResponse({ ok: false, error: errorText(e), code: errorCode(e) }),
  );
  return true; // answer asynchronously
}

// ---- wiring ---------------------------------------------------------------

// ---- diagnostics ------------------------------------------------------------

// Failures the worker goes on without, and those content scripts and the
// offscreen document send ("diag"): the last DIAG_MAX in chrome.storage.session,
// shown by the options page (lib/diag.ts).
const diagLog = new DiagLog({
  get: async () => {
    const got = await chrome.storage.session.get(DIAG_KEY);
    const v = got[DIAG_KEY];
    return Array.isArray(v) ? (v as DiagEntry[]) : [];
  },
  set: (entries) => chrome.storage.session.set({ [DIAG_KEY]: entries }),
});

export default defineBackground(() => {
  setDiagSink((e) => void diagLog.add(e));
  chrome.runtime.onMessage.addListener(onMessage);
  lockStorage();
  // Before anything async: Chrome delivers events that woke the worker only
  // to listeners added in its first turn.
  installNetwork(readShares);
  installDebugger();

  chrome.runtime.onStartup.addListener(() => {
    // Tab ids are per browser session: shares of the last session would point
    // at whatever new tab happens to get the same id. Start with none.
    // Not touching pages: these ids may now name other, unshared tabs.
    void updateShares(() => ({ shares: {}, out: undefined }), { touchPages: false });
    void ensureOffscreen();
  });
  // "Show this to the AI" (issue 29): effective in shared tabs only.
  chrome.contextMenus?.onClicked.addListener((info, tab) => {
    if (info.menuItemId !== POINT_MENU_ID || tab?.id === undefined) return;
    const tabId = tab.id;
    void loadSharedIds().then((ids) => (ids.has(tabId) ? pointAt(tabId, info.frameId ?? 0) : false)).catch(reported("pointing: Show this to the AI"));
  });
  chrome.runtime.onInstalled.addListener((details) => {
    createPointMenu();
    void readIdentity();
    void pruneClosed();
    void ensureOffscreen();
    if (details.reason === "install") void openWelcome();
  });

  chrome.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 1 });
  chrome.alarms.onAlarm.addListener((a) => {
    if (a.name !== KEEPALIVE_ALARM) return;
    void ensureOffscreen().then(async () => {
      if (needsReconnect(await readSettings(), served)) await askReconnect("the settings changed since it connected");
    });
  });

  // Every document a SHARED tab commits gets the page side, as early as an
  // extension can (DECISIONS "Injection on demand": what this loses). Other tabs are
  // ignored before anything else is done.
  chrome.webNavigation.onCommitted.addListener((d) => {
    const go = (ids: Set<number>) => {
      if (!ids.has(d.tabId)) return;
      const injected = injectDocument(d as typeof d & { documentId?: string; parentFrameId?: number }, currentArm(d.tabId));
      // A pending request to the person shows again on the tab's next page (a login's redirects).
      if (d.frameId === 0) void injected.then(() => reshowAsk(d.tabId)).catch(reported("ask: showing the request on the tab's new page"));
      void personCommitted(d).catch(reported("person: a navigation of a shared tab"));
    };
    if (sharedIds) go(sharedIds);
    else void loadSharedIds().then(go);
  });

  chrome.tabs.onCreated.addListener(() => scheduleTabsPush());
  chrome.tabs.onUpdated.addListener((tabId, change) => {
    if (change.url !== undefined || change.title !== undefined || change.status !== undefined) {
      void readShares().then((s) => {
        if (s[String(tabId)] !== undefined) scheduleTabsPush();
      });
    }
  });
  chrome.tabs.onActivated.addListener(() => scheduleTabsPush());
  chrome.tabs.onRemoved.addListener((tabId) => {
    forgetRefBase(tabId);
    forgetFrames(tabId);
    forgetNetTab(tabId);
    forgetDebuggerTab(tabId);
    forgetTabApps(tabId);
    forgetTabPause(tabId);
    void forgetPointed(tabId, true).catch(reported("pointing: forgetting a closed tab"));
    forgetTabBadge(tabId);
    arms.delete(tabId);
    void endAsksInTab(tabId, "the tab was closed").catch(reported("ask: ending a closed tab's requests"));
    void updateShares((s) => ({ shares: unshareTab(s, tabId), out: undefined }));
  });
  chrome.tabs.onReplaced.addListener((added, removed) => {
    // Prerendering swaps a tab's id: the share follows the tab.
    void updateShares((s) => {
      const slot = s[String(removed)];
      if (slot === undefined) return { shares: s, out: undefined };
      const next = { ...unshareTab(s, removed), [String(added)]: slot };
      return { shares: next, out: undefined };
    });
  });

  chrome.storage.onChanged.addListener((changes, area) => {
    // A code pasted in the options page: connect with its secret now.
    if (area === "local" && changes[KEY_PAIRED]) void askReconnect("paired with a code");
    if (area !== "local" || !changes[KEY_SETTINGS]) return;
    const before = normalizeSettings(changes[KEY_SETTINGS].oldValue);
    const after = normalizeSettings(changes[KEY_SETTINGS].newValue);
    void (async () => {
      if (before.label !== after.label) {
        // A new label gets a new slug from the server.
        await withIdentity((identity) => chrome.storage.local.set({ [KEY_IDENTITY]: { profileId: identity.profileId } }));
      }
      await askReconnect("the settings changed");
    })();
  });

  chrome.commands?.onCommand.addListener((command) => {
    if (command === TOGGLE_PAUSE_COMMAND) void handlers.pause({ to: "bg", kind: "pause", paused: !isPaused() });
  });
  void loadSteer()
    .then(showPauseBadge)
    .then(loadSharedIds)
    .then((ids) => sweepActingBadges([...ids]))
    .catch(reported("badge: the worker's first badges"));

  void ensureOffscreen();
});
