// Every frame of a shared tab (issue 26, docs/DESIGN.md "Frames"): the
// logic is lib/worker/framed.ts (linking, stitching, routing) and
// lib/worker/frames.ts (its pure parts); this file gives it Chrome: the
// frame tree (webNavigation), one frame document's content script
// (content-ops.ts), the frame tables in chrome.storage.session and the
// dialog answer browser_handle_dialog armed (shares.ts).

import { createFrames } from "../../lib/worker/framed";
import type { FrameInfo, FrameTable } from "../../lib/worker/frames";
import type { DialogArm } from "../../lib/page/console";
import { contentOpIn } from "./content-ops";
import { armDocument, armTab } from "./inject";
import { ruleForUrl } from "./siterules";

export { splitRef } from "../../lib/worker/frames";

const tableKey = (tabId: number) => `frames:${tabId}`;

/** The answer browser_handle_dialog armed for a tab's next dialog, if any (shares.ts). */
let armOf: (tabId: number) => DialogArm | null = () => null;

export function setArmSource(fn: (tabId: number) => DialogArm | null): void {
  armOf = fn;
}

const frames = createFrames({
  allFrames: async (tabId) => ((await chrome.webNavigation.getAllFrames({ tabId })) ?? []) as FrameInfo[],
  op: contentOpIn,
  loadTable: async (tabId) => (await chrome.storage.session.get(tableKey(tabId)))[tableKey(tabId)],
  saveTable: (tabId: number, t: FrameTable) => chrome.storage.session.set({ [tableKey(tabId)]: t }),
  removeTable: (tabId) => chrome.storage.session.remove(tableKey(tabId)),
  armOf: (tabId) => armOf(tabId),
  armTab,
  armDocument,
  // Site rules hold in every frame (issue 44; lib/worker/frame-rules.ts).
  ruleOf: (url) => ruleForUrl(url),
});

/** BrowserPort.content with frames (lib/worker/framed.ts). */
export const framedContent = frames.content;
export const refBox = frames.refBox;
export const refFrame = frames.refFrame;
export const frameSecretBoxes = frames.secretBoxes;
export const frameBlockedBoxes = frames.blockedBoxes;
/** Real input (debugger mode) refused at a ref, the focus or a point in a frame the site rules keep it from. */
export const guardInput = frames.guardInput;
export const forgetFrames = frames.forget;
/** The site rule in force in a frame ref's frame (the gate: siterules.ts). */
export const frameRuleOfRef = frames.refRule;
