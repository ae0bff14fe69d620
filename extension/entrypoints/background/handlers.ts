// The service worker's answer to each runtime message (lib/messages.ts
// BgMessages): from the offscreen document, the popup and options pages,
// and the few kinds a content script may send (senderMayAsk). A handler
// gets the message as sent and its sender as Chrome tells it
// (lib/worker/envelope.ts).

import { buildProfile } from "../../lib/hello";
import { resolveSecret } from "../../lib/pairing";
import { withAssigned } from "../../lib/identity";
import { SLEEP_MAX_MS } from "../../lib/messages";
import { shareAll, unshareTab } from "../../lib/slots";
import { KEY_IDENTITY, KEY_PAIRED, normalizePaired } from "../../lib/storage";
import { needsReconnect } from "../../lib/settings-sync";
import { entry } from "../../lib/diag";
import type { Handlers } from "../../lib/worker/envelope";
import { noteBusy } from "./inject";
import { isPaused, pausedFor, setPaused, setTabPaused } from "./steer";
import { answerFromPopup, endAllAsks, endAsksInTab } from "./ask";
import { answerSiteToolAsk, revokeSiteGrant } from "./sitetools";
import { isAnswer } from "../../lib/sitetools";
import { personInput, pointAt } from "./person";
import { recorder, recordStep, startRecording } from "./recording";
import { callLog, exec, listTabs, scheduleTabsPush } from "./calls";
import { answerApproval, currentPolicy, endApprovals, isNever, loadRules, shareRefusal } from "./siterules";
import { askReconnect, servedNow, setServed, writeStatus } from "./offscreen";
import { arms, shareOne, shared } from "./shares";
import { diagLog, readIdentity, readSettings, secretSource, withIdentity } from "./store";

export const handlers: Handlers = {
  "connect-info": async (m) => {
    const [settings, identity, tabs, pairing, paired] = await Promise.all([
      readSettings(),
      readIdentity(),
      listTabs(),
      resolveSecret(secretSource, m.refresh === true),
      chrome.storage.local.get(KEY_PAIRED).then((got) => normalizePaired(got[KEY_PAIRED])),
    ]);
    const policy = currentPolicy();
    const profile = buildProfile({ settings, identity, tabs, extVersion: chrome.runtime.getManifest().version, paused: isPaused(), ...(policy ? { policy } : {}) });
    setServed({ port: settings.port, label: settings.label });
    const pasted = paired[String(settings.port)];
    return { port: settings.port, extVersion: chrome.runtime.getManifest().version, profile, ...pairing, ...(pasted ? { pasted } : {}) };
  },
  exec: (m) => exec.run(m),
  refused: async (m) => {
    callLog.logRefused(m.tool, m.tabId, m.app);
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
    if (needsReconnect(await readSettings(), servedNow(), m.status)) void askReconnect("its status is for other settings");
    return null;
  },
  share: async (m) => {
    if (m.shared) {
      // A tab on a never site cannot be shared (issue 44).
      const never = await shareRefusal(m.tabId);
      if (never) throw new Error(never);
      return { slot: await shareOne(m.tabId) };
    }
    await shared.update((s) => ({ shares: unshareTab(s, m.tabId), out: undefined }));
    return { slot: null };
  },
  sleep: (m) => {
    const ms = typeof m.ms === "number" && Number.isFinite(m.ms) ? Math.min(Math.max(m.ms, 0), SLEEP_MAX_MS) : 0;
    return new Promise((resolve) => setTimeout(() => resolve(null), ms));
  },
  // Only about the sender's own tab, whatever the message says.
  "dialog-used": async (_m, { tabId }) => {
    if (tabId !== undefined) arms.delete(tabId);
    return null;
  },
  busy: async (_m, { tabId }) => {
    if (tabId !== undefined) noteBusy(tabId);
    return null;
  },
  pause: async (m) => {
    if (typeof m.tabId === "number") await setTabPaused(m.tabId, m.paused);
    else await setPaused(m.paused);
    // Running calls answer at once (the one abort path); queued and new
    // ones are refused by the server (told by tabs_changed) and at exec.
    if (m.paused) exec.running.abortPaused(typeof m.tabId === "number" ? m.tabId : undefined, pausedFor);
    // Actions waiting for the person's Allow there are refused with the pause (issue 44).
    if (m.paused) {
      const t = typeof m.tabId === "number" ? m.tabId : undefined;
      const why = pausedFor(t);
      if (why) endApprovals((x) => t === undefined || x === t, why);
    }
    // The AI's requests to the person end too (the tab's, or all), and their banners go.
    if (m.paused) {
      const tabId = m.tabId;
      const why = "the person pressed Stop in the monkbrowse popup";
      if (typeof tabId === "number") await endAsksInTab(tabId, why, { banner: true });
      else await endAllAsks(why);
    }
    return null;
  },
  "ask-answer": async (m, { fromPage }) => {
    if (typeof m.askId !== "string" || (m.answer !== "done" && m.answer !== "declined")) return null;
    // The popup's only (issue 40): senderMayAsk refuses this kind from a
    // content script already; a page's answer never counts. Who answered is
    // the sender's, never the message's.
    if (fromPage) return null;
    await answerFromPopup(m.askId, m.answer);
    return null;
  },
  "site-tool-answer": async (m, { fromPage }) => {
    // The popup's only (issue 43): never a page's, whatever it sends.
    if (fromPage || typeof m.id !== "string" || !isAnswer(m.answer)) return null;
    await answerSiteToolAsk(m.id, m.answer);
    return null;
  },
  "site-tool-revoke": async (m, { fromPage }) => {
    if (fromPage || typeof m.origin !== "string" || typeof m.app !== "string" || typeof m.tool !== "string") return null;
    await revokeSiteGrant({ origin: m.origin, app: m.app, tool: m.tool });
    return null;
  },
  "approval-answer": async (m, { fromPage }) => {
    // The popup's only, like the hand-off's answer (issue 44): a page's never counts.
    if (fromPage || typeof m.id !== "string" || (m.answer !== "allow" && m.answer !== "allow10" && m.answer !== "deny")) return null;
    await answerApproval(m.id, m.answer);
    return null;
  },
  diag: async (m, { tabId }) => {
    const from = tabId !== undefined ? `tab ${tabId}: ` : "offscreen: ";
    await diagLog.add(entry(from + String(m.where), String(m.message), Date.now()));
    return null;
  },
  person: async (m, { tabId, frameId }) => {
    if (tabId === undefined || !(await shared.load()).has(tabId)) return null;
    await personInput(tabId, frameId, m.edit, m.at, m.refHigh);
    return null;
  },
  point: async (m) => {
    if (!(await shared.load()).has(m.tabId)) return { pointed: false };
    return { pointed: await pointAt(m.tabId, typeof m.frameId === "number" ? m.frameId : 0) };
  },
  "record-step": async (m, { tabId, frameId, url }) => {
    if (tabId === undefined || !(await shared.load()).has(tabId)) return null;
    await recordStep({ tabId, frameId, url }, m.step, m.at);
    return null;
  },
  "record-start": async (m) => {
    if (!(await shared.load()).has(m.tabId)) throw new Error("Share the tab first: only a shared tab can be recorded.");
    await startRecording(m.tabId);
    return null;
  },
  "record-stop": async () => {
    await recorder.stop();
    return null;
  },
  "record-save": async (m) => {
    const r = await recorder.saveAs(String(m.name ?? ""), String(m.description ?? ""), m.renames ?? {});
    if (typeof r === "string") throw new Error(r);
    return { name: r.name };
  },
  "record-discard": async () => {
    await recorder.discard();
    return null;
  },
  "share-all": async () => {
    const tabs = await chrome.tabs.query({ windowType: "normal" });
    await loadRules();
    const ids = tabs
      .filter((t) => !isNever(t.url || t.pendingUrl || "")) // never sites stay unshared (issue 44)
      .slice()
      .sort((a, b) => a.windowId - b.windowId || a.index - b.index)
      .map((t) => t.id)
      .filter((id): id is number => id !== undefined);
    await shared.update((s) => ({ shares: shareAll(s, ids), out: undefined }));
    return null;
  },
};
