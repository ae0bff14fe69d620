// Stop and Resume with a fake Chrome: the server is sent the new pause
// before it is stored, because the popup renders from storage; a popup that
// showed "resumed" first would let the AI's next call meet a server that
// still refuses it (seen in CI: TestStopEndsQueuedCallsAndWaits).
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { KEY_PAUSE, normalizePause } from "../../lib/activity";

/** What happened, in order: "push <pause as the server was told>" or "store <pause as stored>". */
let events: string[];
const stored = new Map<string, unknown>();

vi.stubGlobal("chrome", {
  storage: {
    local: {
      get: async (keys: string | string[]) => Object.fromEntries((Array.isArray(keys) ? keys : [keys]).filter((k) => stored.has(k)).map((k) => [k, structuredClone(stored.get(k))])),
      set: async (items: Record<string, unknown>) => {
        for (const [k, v] of Object.entries(items)) {
          stored.set(k, structuredClone(v));
          if (k === KEY_PAUSE) events.push(`store ${JSON.stringify(normalizePause(v))}`);
        }
      },
    },
    onChanged: { addListener: () => undefined },
  },
  action: {
    getTitle: async () => "",
    setTitle: async () => undefined,
    getBadgeText: async () => "",
    setBadgeText: async () => undefined,
    setBadgeBackgroundColor: async () => undefined,
  },
});

let steer: typeof import("./steer");
beforeAll(async () => {
  steer = await import("./steer");
});

beforeEach(() => {
  events = [];
  // As index.ts: tabs_changed with the pause, through the offscreen document (a round trip).
  steer.onPauseChanged(async () => {
    const told = JSON.stringify({ paused: steer.isPaused(), tabs: steer.pausedTabs() });
    await new Promise((r) => setImmediate(r)); // a round trip: a later task, not a timer
    events.push(`push ${told}`);
  });
});

describe("the pause reaches the server before the popup can show it", () => {
  it("Stop and Resume of the profile", async () => {
    await steer.setPaused(true);
    expect(events.map((e) => e.split(" ")[0])).toEqual(["push", "store"]);
    expect(events[0]).toContain('"paused":true');
    events = [];
    await steer.setPaused(false);
    expect(events.map((e) => e.split(" ")[0])).toEqual(["push", "store"]);
    expect(events[0]).toContain('"paused":false');
  });

  it("a tab's own Pause and Resume", async () => {
    await steer.setTabPaused(7, true);
    expect(events).toEqual(['push {"paused":false,"tabs":[7]}', expect.stringMatching(/^store .*"tabs":\[7\]/)]);
    events = [];
    await steer.setTabPaused(7, false);
    expect(events).toEqual(['push {"paused":false,"tabs":[]}', expect.stringMatching(/^store /)]);
    expect(steer.pausedFor(7)).toBeUndefined();
  });
});
