// The debugger mode's real input at a person's pace (issue 41): a key sent
// through chrome.debugger right after a real mouse press would reach the page
// sooner than any person's. Editors read that as the browser's own doing:
// prosemirror-view puts the caret back when it moves to the document start
// within 200 ms of the editor gaining focus (it takes it for Chrome resetting
// the selection after focus), so a real Ctrl+Home ~150 ms after the real click
// that focused the editor did nothing. A key waits until KEY_AFTER_PRESS_MS
// have passed since the tab's last real mouse press; later keys, and keys
// with no press before them, never wait.

/** How long after a real mouse press in a tab its next real key waits (ProseMirror's rule is 200 ms; the synthetic keys' FOCUS_SETTLE_MS, lib/page/keyboard.ts, is the same). */
export const KEY_AFTER_PRESS_MS = 250;

export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: PaceClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface InputPace {
  /** A real mouse press was sent to the tab (it may have moved the focus). */
  pressed(tabId: number): void;
  /** Before a real key in the tab: waits out the rest of KEY_AFTER_PRESS_MS since its last press; answers the ms waited. */
  beforeKey(tabId: number): Promise<number>;
}

export function createInputPace(clock: PaceClock = realClock): InputPace {
  /** The time of each tab's last real mouse press, while it is recent (so a closed tab's goes by itself). */
  const lastPress = new Map<number, number>();
  const prune = (now: number) => {
    for (const [id, at] of lastPress) if (now - at >= KEY_AFTER_PRESS_MS) lastPress.delete(id);
  };
  return {
    pressed(tabId) {
      const now = clock.now();
      prune(now);
      lastPress.set(tabId, now);
    },
    async beforeKey(tabId) {
      const now = clock.now();
      prune(now);
      const at = lastPress.get(tabId);
      if (at === undefined) return 0;
      const wait = at + KEY_AFTER_PRESS_MS - now;
      await clock.sleep(wait);
      return wait;
    },
  };
}
