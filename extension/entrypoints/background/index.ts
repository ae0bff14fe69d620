// The service worker: keeps the offscreen document (which owns the socket)
// alive, builds the hello, keeps shares and slots, pushes tabs_changed, and
// executes every wire request the offscreen document relays. This file
// adds Chrome's listeners; each concern is a file of its own (CONTRIBUTING
// "Where each kind of change goes"): calls.ts, handlers.ts, shares.ts,
// offscreen.ts, store.ts, steer.ts, frames.ts…

import { defineBackground } from "wxt/utils/define-background";
import type { Reply } from "../../lib/messages";
import { dispatch } from "../../lib/worker/envelope";
import { unshareTab } from "../../lib/slots";
import { KEY_IDENTITY, KEY_PAIRED, KEY_SETTINGS, normalizeSettings } from "../../lib/storage";
import { needsReconnect } from "../../lib/settings-sync";
import { reported, setDiagSink } from "../../lib/diag";
import { forgetFrames, framedContent, frameRuleOfRef } from "./frames";
import { forgetRefBase } from "./ref-base";
import { forgetTab as forgetNetTab, installNetwork } from "./network";
import { forgetDebuggerTab, installDebugger } from "./debugger";
import { injectDocument } from "./inject";
import { forgetTabApps, forgetTabBadge, forgetTabPause, isPaused, loadSteer, showPauseBadge, sweepActingBadges } from "./steer";
import { endAsksInTab, reshowAsk } from "./ask";
import { createPointMenu, forgetPointed, personCommitted, pointAt, POINT_MENU_ID } from "./person";
import { recorder, recordingCommitted } from "./recording";
import { exec, pushTabs, scheduleTabsPush } from "./calls";
import { applyRetention, endApprovals, installSiteRules, leavesReach, loadRules } from "./siterules";
import { handlers } from "./handlers";
import { askReconnect, ensureOffscreen, openWelcome, servedNow } from "./offscreen";
import { arms, currentArm, pruneClosed, shared } from "./shares";
import { diagLog, lockStorage, readIdentity, readSettings, readShares, withIdentity } from "./store";

const KEEPALIVE_ALARM = "monkbrowse-keepalive";
/** The keyboard shortcut's command (wxt.config.ts): Stop or Resume the AI in this profile. */
const TOGGLE_PAUSE_COMMAND = "toggle-pause";

function onMessage(msg: unknown, sender: chrome.runtime.MessageSender, sendResponse: (r: Reply<unknown>) => void): boolean {
  const reply = dispatch(msg, sender, { id: chrome.runtime.id, origin: chrome.runtime.getURL("") }, handlers);
  if (!reply) return false;
  void reply.then(sendResponse);
  return true; // answer asynchronously
}

export default defineBackground(() => {
  setDiagSink((e) => void diagLog.add(e));
  chrome.runtime.onMessage.addListener(onMessage);
  lockStorage();
  // Before anything async: Chrome delivers events that woke the worker only
  // to listeners added in its first turn.
  installNetwork(readShares);
  installDebugger();
  installSiteRules({
    leave: (tabId, reason) => {
      // At once: the share gate refuses the tab from here on, before anything is injected into the new page (issue 44).
      shared.drop(tabId);
      exec.running.abortTab(tabId, reason);
      endApprovals((t) => t === tabId, reason);
      // The server hears of it once the share is gone (tabs_changed carries the reason).
      void shared.update((s) => ({ shares: unshareTab(s, tabId), out: undefined })).then(pushTabs);
    },
    shares: readShares,
    changed: scheduleTabsPush,
    frameRule: frameRuleOfRef,
    describe: async (tabId, refs) => (await framedContent(tabId, "describe", { refs })).targets,
  });

  chrome.runtime.onStartup.addListener(() => {
    // Tab ids are per browser session: shares of the last session would point
    // at whatever new tab happens to get the same id. Start with none.
    // Not touching pages: these ids may now name other, unshared tabs.
    void shared.update(() => ({ shares: {}, out: undefined }), { touchPages: false });
    void ensureOffscreen();
  });
  // "Show this to the AI" (issue 29): effective in shared tabs only.
  chrome.contextMenus?.onClicked.addListener((info, tab) => {
    if (info.menuItemId !== POINT_MENU_ID || tab?.id === undefined) return;
    const tabId = tab.id;
    void shared.load().then((ids) => (ids.has(tabId) ? pointAt(tabId, info.frameId ?? 0) : false)).catch(reported("pointing: Show this to the AI"));
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
    void applyRetention().catch(reported("policy: the activity log's retention"));
    void ensureOffscreen().then(async () => {
      if (needsReconnect(await readSettings(), servedNow())) await askReconnect("the settings changed since it connected");
    });
  });

  // Every document a SHARED tab commits gets the page side, as early as an
  // extension can (DECISIONS "Injection on demand": what this loses). Other tabs are
  // ignored before anything else is done.
  chrome.webNavigation.onCommitted.addListener((d) => {
    const go = (ids: ReadonlySet<number>) => {
      if (!ids.has(d.tabId)) return;
      // A shared tab that went to a "never" site leaves the AI's reach before anything is injected (issue 44).
      if (d.frameId === 0 && leavesReach(d.tabId, d.url)) return;
      const injected = injectDocument(d as typeof d & { documentId?: string; parentFrameId?: number }, currentArm(d.tabId));
      // A pending request to the person shows again on the tab's next page (a login's redirects).
      if (d.frameId === 0) void injected.then(() => reshowAsk(d.tabId)).catch(reported("ask: showing the request on the tab's new page"));
      void personCommitted(d).catch(reported("person: a navigation of a shared tab"));
      void recordingCommitted(d, injected).catch(reported("recording: a new document of the recording tab"));
    };
    const known = shared.known;
    if (known) go(known);
    else void loadRules().then(() => shared.load()).then(go);
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
    void recorder.tabGone(tabId).catch(reported("recording: stopping in a closed tab"));
    forgetTabBadge(tabId);
    arms.delete(tabId);
    void endAsksInTab(tabId, "the tab was closed").catch(reported("ask: ending a closed tab's requests"));
    void shared.update((s) => ({ shares: unshareTab(s, tabId), out: undefined }));
  });
  chrome.tabs.onReplaced.addListener((added, removed) => {
    // Prerendering swaps a tab's id: the share follows the tab.
    void shared.update((s) => {
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
    if (command === TOGGLE_PAUSE_COMMAND) void handlers.pause({ to: "bg", kind: "pause", paused: !isPaused() }, { fromPage: false });
  });
  void loadSteer()
    .then(showPauseBadge)
    .then(() => shared.load())
    .then((ids) => sweepActingBadges([...ids]))
    .catch(reported("badge: the worker's first badges"));

  void ensureOffscreen();
});
