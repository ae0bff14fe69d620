// The share gate (issue 21, DESIGN §5.5): the live share state is checked at
// the point of action. Every chrome.scripting.executeScript and every
// chrome.debugger.attach of the service worker goes through this file, which
// reads the in-memory share state synchronously immediately before the call,
// so a call still running when the person unshares its tab can never inject
// into that tab or attach the debugger to it. gate.test.ts fails when either
// API is called anywhere else.

import { CodedError } from "../../lib/peer";
import { ERROR_CODES } from "../../lib/protocol.gen";

interface ShareState {
  /** Resolves once the share state is in memory (the worker just started). */
  ready(): Promise<void>;
  /** Whether the tab is shared now (synchronous: read right before the action). */
  shared(tabId: number): boolean;
}

let state: ShareState = { ready: async () => undefined, shared: () => false };

/** shares.ts gives the gate its in-memory share state. */
export function setShareState(s: ShareState): void {
  state = s;
}

/** The answer of a call stopped because the person unshared its tab. */
export function unsharedError(tabId: number): CodedError {
  return new CodedError(
    ERROR_CODES.unshared,
    `the person stopped sharing tab ${tabId}: monkbrowse stopped its work there and will do nothing more in it. ` +
      "Ask the person to share the tab again (monkbrowse popup) if the work should go on.",
  );
}

/** Throws the unshared error when the tab is not shared now (a message to our content script). */
export async function assertShared(tabId: number): Promise<void> {
  await state.ready();
  if (!state.shared(tabId)) throw unsharedError(tabId);
}

/**
 * chrome.scripting.executeScript into a shared tab; refused (code unshared)
 * when the tab is not shared at that moment. evenUnshared names the one
 * purpose that may run in an unshared tab: putting our own hooks to sleep
 * and disposing our content script (inject.ts makeDormant).
 */
export async function executeInTab<Args extends unknown[], Result>(
  injection: chrome.scripting.ScriptInjection<Args, Result>,
  opts: { evenUnshared?: "to make it dormant" } = {},
): Promise<chrome.scripting.InjectionResult<Awaited<Result>>[]> {
  const tabId = injection.target.tabId;
  if (opts.evenUnshared === undefined) {
    await state.ready();
    // Synchronous from the check to the call: nothing can unshare in between.
    if (!state.shared(tabId)) throw unsharedError(tabId);
  }
  return chrome.scripting.executeScript(injection);
}

/** chrome.debugger.attach to a shared tab; refused (code unshared) when it is not shared at that moment. */
export async function attachDebugger(tabId: number, version: string): Promise<void> {
  await state.ready();
  // Synchronous from the check to the call: nothing can unshare in between.
  if (!state.shared(tabId)) throw unsharedError(tabId);
  await chrome.debugger.attach({ tabId }, version);
}
