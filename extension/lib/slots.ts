// Share slots: the numbers a person sees in the popup and the AI uses as
// `tab`. A newly shared tab gets the lowest free number and keeps it until it
// is unshared or closed. Functions here never mutate their input.

import type { Shares } from "./storage";

export function lowestFreeSlot(shares: Shares): number {
  const used = new Set(Object.values(shares));
  let n = 1;
  while (used.has(n)) n++;
  return n;
}

/** Shares tabId (idempotent: an already shared tab keeps its slot). */
export function shareTab(shares: Shares, tabId: number): { shares: Shares; slot: number } {
  const key = String(tabId);
  const existing = shares[key];
  if (existing !== undefined) return { shares, slot: existing };
  const slot = lowestFreeSlot(shares);
  return { shares: { ...shares, [key]: slot }, slot };
}

/** Shares every tab in order (lowest free slots first); already shared tabs keep theirs. */
export function shareAll(shares: Shares, tabIds: readonly number[]): Shares {
  let s = shares;
  for (const id of tabIds) s = shareTab(s, id).shares;
  return s;
}

export function unshareTab(shares: Shares, tabId: number): Shares {
  const key = String(tabId);
  if (!(key in shares)) return shares;
  const next = { ...shares };
  delete next[key];
  return next;
}

/** Drops the shares of tabs that no longer exist. */
export function pruneShares(shares: Shares, openTabIds: Iterable<number>): Shares {
  const open = new Set<string>();
  for (const id of openTabIds) open.add(String(id));
  let changed = false;
  const next: Shares = {};
  for (const [k, v] of Object.entries(shares)) {
    if (open.has(k)) next[k] = v;
    else changed = true;
  }
  return changed ? next : shares;
}

export function slotOf(shares: Shares, tabId: number): number | undefined {
  return shares[String(tabId)];
}

/** Finds the tab id that holds a slot. */
export function tabOfSlot(shares: Shares, slot: number): number | undefined {
  for (const [k, v] of Object.entries(shares)) if (v === slot) return Number(k);
  return undefined;
}
