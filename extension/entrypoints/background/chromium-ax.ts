// The debugger mode's snapshot reads Chromium's tree where ours cannot
// (lib/axtree.ts): the content script stashes the elements it could not
// read, and Chromium's role, name and states for each go with the snapshot
// request. With the mode off nothing here runs: the request is unchanged.

import type { CsOps } from "../../lib/messages";
import { ourContext, readAx, type ExecutionContext, type Send } from "../../lib/axtree";
import { reported } from "../../lib/diag";
import { CodedError } from "../../lib/peer";
import { contentOp } from "./content-ops";
import { debuggerEnabled, withDebugger } from "./debugger";

type SnapshotArgs = CsOps["snapshot"]["args"];

/**
 * chrome.storage.local key that switches the reading of Chromium's tree off
 * while the debugger mode is on: only for measuring its cost
 * (e2e TestChromiumTreeCost); nothing in the product sets it.
 */
export const KEY_AX_OFF = "debuggerAxOff";

/** Our content script's context in the tab's top frame: Runtime.enable reports every context, then is switched off again. */
async function contentContext(tabId: number, send: Send): Promise<number | null> {
  const contexts: ExecutionContext[] = [];
  const on = (src: chrome.debugger.Debuggee, method: string, params?: object) => {
    if (src.tabId !== tabId || method !== "Runtime.executionContextCreated") return;
    const c = (params as { context?: ExecutionContext } | undefined)?.context;
    if (c) contexts.push(c);
  };
  chrome.debugger.onEvent.addListener(on);
  let top: string;
  try {
    top = (await send<{ frameTree: { frame: { id: string } } }>("Page.getFrameTree")).frameTree.frame.id;
    await send("Runtime.enable");
    await send("Runtime.disable");
  } finally {
    chrome.debugger.onEvent.removeListener(on);
  }
  return ourContext(contexts, top, new URL(chrome.runtime.getURL("/")).origin);
}

/**
 * The snapshot request with Chromium's additions when the debugger mode is
 * on and the page has elements the snapshot cannot read; else args as they
 * were. A failure costs the additions only (reported), never the snapshot.
 */
export async function withChromiumTree(tabId: number, args: SnapshotArgs): Promise<SnapshotArgs> {
  if (!(await debuggerEnabled())) return args;
  if ((await chrome.storage.local.get(KEY_AX_OFF))[KEY_AX_OFF] === true) return args;
  const c = await contentOp(tabId, "ax_candidates", {}).catch((e: unknown) => {
    // A refusal (the tab is not shared, a blocked page) is the snapshot's own answer.
    if (e instanceof CodedError) throw e;
    return reported("chromium-ax: the page's candidates")(e);
  });
  if (!c || c.count === 0) return args;
  const hints = await withDebugger(tabId, async (send) => {
    const ctx = await contentContext(tabId, send);
    return ctx === null ? null : readAx(send, ctx, c.stamp, c.count);
  }).catch(reported("chromium-ax: reading Chromium's tree"));
  return hints ? { ...args, ax: { stamp: c.stamp, hints } } : args;
}
