// Whether monkbrowse itself is sending debugger-mode input into a tab
// right now. Input sent through chrome.debugger is trusted (isTrusted) like
// the person's own. The hand-off banner's Done used to count only while
// this said no; since issue 40 nothing in the page answers the hand-off
// (the popup does), so no reader is left: monkbrowseInput is kept for the
// next page-side check that must tell the AI's trusted input from the
// person's.

/** How long after the last input event a page's answer is still taken for its effect. */
export const INPUT_GRACE_MS = 1000;

const active = new Map<number, number>();
const lastEnd = new Map<number, number>();

/** Runs fn while the tab counts as receiving monkbrowse's input (and INPUT_GRACE_MS after). */
export async function sendingInput<T>(tabId: number, fn: () => Promise<T>): Promise<T> {
  active.set(tabId, (active.get(tabId) ?? 0) + 1);
  try {
    return await fn();
  } finally {
    const n = (active.get(tabId) ?? 1) - 1;
    if (n <= 0) active.delete(tabId);
    else active.set(tabId, n);
    lastEnd.set(tabId, Date.now());
  }
}

/** Whether monkbrowse is sending input into the tab now, or did within INPUT_GRACE_MS. */
export function monkbrowseInput(tabId: number, now = Date.now()): boolean {
  if ((active.get(tabId) ?? 0) > 0) return true;
  const end = lastEnd.get(tabId);
  return end !== undefined && now - end < INPUT_GRACE_MS;
}
