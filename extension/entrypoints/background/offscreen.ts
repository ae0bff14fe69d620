// The offscreen document (which owns the socket to monkbrowse): created
// when missing, asked to reconnect, told the connection's status for the
// toolbar; and the welcome page of a first install.

import type { OffMessage } from "../../lib/messages";
import { errorText } from "../../lib/peer";
import { KEY_STATUS, isValidPort, type Status } from "../../lib/storage";
import type { Served } from "../../lib/settings-sync";
import { reported } from "../../lib/diag";
import { noteConnection, showPauseBadge } from "./steer";
import { readSettings } from "./store";

const OFFSCREEN_PATH = "offscreen.html";
const WELCOME_PATH = "welcome.html";
// A file of this name in the extension's folder suppresses the welcome page
// (the test harness and benchmarks write it into their copy).
const NO_WELCOME_MARKER = "no-welcome";

// ---- first run ---------------------------------------------------------------

/** Opens the welcome page once, on installation, unless suppressed. */
export async function openWelcome(): Promise<void> {
  // No marker: a fetch of a missing packaged file fails.
  const marked = await fetch(chrome.runtime.getURL(NO_WELCOME_MARKER)).then(
    (r) => r.ok,
    () => false,
  );
  if (marked) return;
  await chrome.tabs.create({ url: chrome.runtime.getURL(WELCOME_PATH) });
}

export async function sendToOffscreen(msg: OffMessage): Promise<void> {
  await chrome.runtime.sendMessage(msg);
}

// ---- offscreen document ----------------------------------------------------

/** What connect-info last gave the connection (lib/settings-sync.ts). */
let served: Served | undefined;
export const servedNow = () => served;
export function setServed(s: Served): void {
  served = s;
}

/** Tells the offscreen connection to reconnect now, creating it if needed. */
export async function askReconnect(why: string): Promise<void> {
  console.debug(`monkbrowse: reconnecting: ${why}`);
  await ensureOffscreen();
  await sendToOffscreen({ to: "off", kind: "reconnect" }).catch(reported("connection: asking the offscreen document to reconnect"));
}

let creating: Promise<void> | undefined;
export async function ensureOffscreen(): Promise<void> {
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

export async function writeStatus(status: Status): Promise<void> {
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

