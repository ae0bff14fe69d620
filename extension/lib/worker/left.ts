// Shared tabs that left the AI's reach (issue 44: the top frame went to a
// "never" site): by Chrome tab id until shared again (a call naming it hears
// why), by number for list_tabs answers (the latest LEFT_KEPT), and the ones
// since the last tabs_changed (sent once). No chrome.* here.

import type { LeftTab } from "../protocol.gen";

/** How many numbers that left are remembered for list_tabs answers. */
export const LEFT_KEPT = 50;

export function createLeftTabs() {
  const left: LeftTab[] = [];
  const byTab = new Map<number, string>();
  const bySlot = new Map<number, string>();
  return {
    /** The tab (number slot, when it had one) left the AI's reach; reason is the AI's sentence. */
    note(tabId: number, slot: number | undefined, reason: string): void {
      if (slot !== undefined) {
        left.push({ slot, reason });
        bySlot.delete(slot);
        bySlot.set(slot, reason);
        if (bySlot.size > LEFT_KEPT) bySlot.delete(bySlot.keys().next().value!);
      }
      byTab.set(tabId, reason);
    },
    /** Why the tab left the AI's reach, or undefined. */
    why(tabId: number | undefined): string | undefined {
      return tabId === undefined ? undefined : byTab.get(tabId);
    },
    /** Shared again: an ordinary tab. */
    sharedAgain(tabId: number): void {
      byTab.delete(tabId);
    },
    /** The tabs that left whose numbers are not shared again (list_tabs answers carry them). */
    now(sharedSlots: Set<number>): LeftTab[] {
      return [...bySlot].filter(([slot]) => !sharedSlots.has(slot)).map(([slot, reason]) => ({ slot, reason }));
    },
    /** The tabs that left since the last call (tabs_changed sends them once). */
    take(): LeftTab[] {
      return left.splice(0, left.length);
    },
  };
}
