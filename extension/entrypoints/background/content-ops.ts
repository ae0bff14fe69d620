// contentOp: one request to the content script in a tab's top frame
// (lib/messages.ts's CsOps), injecting it once more when nothing answers;
// contentOpIn: the same to one frame's document (frames.ts routes frame refs).

import type { CsMessage, CsOp, CsOps, CsReply } from "../../lib/messages";
import { CodedError, errorText } from "../../lib/peer";
import { assertShared, executeInTab } from "./gate";
import { BlockedPage, CONTENT_SCRIPT_FILE, PAGE_HOOKS_FILE, unlessBlocked } from "./inject";

import type { FrameTarget } from "../../lib/worker/frames";

export type { FrameTarget };

const TOP: FrameTarget = { frameId: 0 };

async function sendToFrame(tabId: number, frame: FrameTarget, msg: CsMessage): Promise<CsReply | undefined> {
  // Each op of a call (a stitched screenshot's scroll_to after scroll_to) meets the share gate.
  await assertShared(tabId);
  // By document when known: a later document of the frame is never taken for this one.
  const opts = frame.documentId !== undefined ? { documentId: frame.documentId } : { frameId: frame.frameId };
  return chrome.tabs.sendMessage(tabId, msg, opts) as Promise<CsReply | undefined>;
}

function isNoReceiver(e: unknown): boolean {
  const m = errorText(e);
  return m.includes("Receiving end does not exist") || m.includes("Could not establish connection");
}

export function contentOp<K extends CsOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]> {
  return contentOpIn(tabId, TOP, op, args);
}

export async function contentOpIn<K extends CsOp>(tabId: number, frame: FrameTarget, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]> {
  const msg: CsMessage<K> = { cs: true, op, args };
  const target: chrome.scripting.InjectionTarget =
    frame.documentId !== undefined ? { tabId, documentIds: [frame.documentId] } : { tabId, frameIds: [frame.frameId] };
  let reply: CsReply | undefined;
  try {
    reply = await unlessBlocked(tabId, sendToFrame(tabId, frame, msg));
  } catch (e) {
    if (e instanceof BlockedPage || e instanceof CodedError) throw e;
    if (!isNoReceiver(e)) throw new Error(`the page did not answer (${errorText(e)})`);
    reply = undefined;
  }
  if (reply === undefined) {
    // Nothing answered: the injection at share or commit time lost a race
    // (a prerendered page, an extension reload). The executor only gets
    // here for a shared tab: inject and try once more.
    try {
      // The MAIN-world hooks first, so console output and dialogs are
      // captured from now on.
      // Hooks put to sleep by an unshare stay asleep (only a share wakes them).
      await unlessBlocked(
        tabId,
        executeInTab({ target: frame === TOP ? { tabId, allFrames: true } : target, world: "MAIN", files: [PAGE_HOOKS_FILE], injectImmediately: true }).catch((e: unknown) => {
          if (e instanceof CodedError) throw e;
        }),
      );
      await unlessBlocked(tabId, executeInTab({ target, files: [CONTENT_SCRIPT_FILE], injectImmediately: true }));
    } catch (e) {
      if (e instanceof BlockedPage || e instanceof CodedError) throw e;
      throw new Error(`cannot reach the page in tab ${tabId}: ${errorText(e)}`);
    }
    try {
      reply = await unlessBlocked(tabId, sendToFrame(tabId, frame, msg));
    } catch (e) {
      if (e instanceof BlockedPage || e instanceof CodedError) throw e;
      throw new Error(`the page in tab ${tabId} did not answer even after injecting the content script (${errorText(e)}); reload the tab and try again`);
    }
  }
  if (!reply || typeof reply !== "object" || typeof reply.ok !== "boolean") {
    throw new Error(`the page in tab ${tabId} gave no answer to "${op}"; reload the tab and try again`);
  }
  if (!reply.ok) throw new Error(reply.error);
  return reply.result as CsOps[K]["result"];
}
