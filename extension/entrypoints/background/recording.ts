// Recording (issue 42), the Chrome side: lib/recorder.ts's port over
// chrome.storage (the recording under way in session storage, the person's
// recordings in local storage), the content scripts of the recording tab and
// its toolbar badge. index.ts routes the popup's and the pages' messages here.

import { KEY_RECORDINGS } from "../../lib/recordings";
import { frameAddress, KEY_RECORDING, Recorder } from "../../lib/recorder";
import type { CsMessage } from "../../lib/messages";
import { reported } from "../../lib/diag";
import { actingAt } from "./person";
import { setRecordingBadge } from "./steer";

function recordMessage(on: boolean): CsMessage<"record"> {
  return { cs: true, op: "record", args: { on } };
}

export const recorder = new Recorder({
  load: async () => (await chrome.storage.session.get(KEY_RECORDING))[KEY_RECORDING],
  store: async (st) => {
    if (st) await chrome.storage.session.set({ [KEY_RECORDING]: st });
    else await chrome.storage.session.remove(KEY_RECORDING);
  },
  // Every frame's content script of the tab, each waited for: once this
  // returns, every document of the tab that has one listens (or stopped).
  // A frame without one (about:blank, a page Chrome keeps extensions out of)
  // cannot answer and has nothing to record; a closed tab has no frames.
  listen: async (tabId, on) => {
    const frames = (await chrome.webNavigation.getAllFrames({ tabId }).catch(reported("recording: the tab's frames"))) ?? [];
    await Promise.allSettled(frames.map((f) => chrome.tabs.sendMessage(tabId, recordMessage(on), { frameId: f.frameId })));
  },
  badge: (tabId, on) => setRecordingBadge(tabId, on).catch(reported("recording: the toolbar badge")),
  acting: actingAt,
  loadRecordings: async () => (await chrome.storage.local.get(KEY_RECORDINGS))[KEY_RECORDINGS],
  storeRecordings: (list) => chrome.storage.local.set({ [KEY_RECORDINGS]: list }),
  now: () => new Date(),
});

/** The popup's Record on a shared tab. */
export async function startRecording(tabId: number): Promise<void> {
  const tab = await chrome.tabs.get(tabId);
  await recorder.start(tabId, tab.url ?? "");
}

/** A content script's step: its frame is the sender's document address ("" for the top frame). */
export async function recordStep(sender: { tabId?: number; frameId?: number; url?: string }, step: unknown, at: number): Promise<void> {
  if (sender.tabId === undefined) return;
  const frame = sender.frameId === 0 || sender.frameId === undefined ? "" : frameAddress(sender.url);
  await recorder.step(sender.tabId, frame, step, at);
}

/**
 * A document the recording tab committed (after the content script was
 * injected into it): it listens too, and an address the person typed is a step.
 */
export async function recordingCommitted(
  d: { tabId: number; frameId: number; url: string; timeStamp: number; transitionType?: string; documentId?: string },
  injected: Promise<unknown>,
): Promise<void> {
  if (!(await recorder.documentCommitted(d.tabId))) return;
  await recorder.committed(d);
  await injected;
  const opts = d.documentId !== undefined ? { documentId: d.documentId } : { frameId: d.frameId };
  await chrome.tabs.sendMessage(d.tabId, recordMessage(true), opts);
}
