// Stop and Resume with a fake port: the server is sent the new pause
// before it is stored, because the popup renders from storage; a popup that
// showed "resumed" first would let the AI's next call meet a server that
// still refuses it (seen in CI: TestStopEndsQueuedCallsAndWaits).
import { beforeEach, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../protocol.gen";
import { normalizePause, type Pause } from "../activity";
import { PauseState } from "./pause";

/** What happened, in order: "push <pause as the server was told>", "store <pause as stored>", "show". */
let events: string[];
let stored: unknown;
let pause: PauseState;

beforeEach(() => {
  events = [];
  stored = undefined;
  pause = new PauseState(
    {
      load: async () => structuredClone(stored),
      save: async (p: Pause) => {
        stored = structuredClone(p);
        events.push(`store ${JSON.stringify(normalizePause(p))}`);
      },
      show: async () => void events.push("show"),
    },
    () => 1000,
  );
  // As index.ts: tabs_changed with the pause, through the offscreen document (a round trip).
  pause.onChanged(async () => {
    const told = JSON.stringify({ paused: pause.paused, tabs: pause.tabs() });
    await new Promise((r) => setImmediate(r)); // a round trip: a later task, not a timer
    events.push(`push ${told}`);
  });
});

describe("the pause reaches the server before the popup can show it", () => {
  it("Stop and Resume of the profile", async () => {
    await pause.setPaused(true);
    expect(events.map((e) => e.split(" ")[0])).toEqual(["push", "store", "show"]);
    expect(events[0]).toContain('"paused":true');
    expect(stored).toEqual({ paused: true, since: 1000 });
    events = [];
    await pause.setPaused(false);
    expect(events.map((e) => e.split(" ")[0])).toEqual(["push", "store", "show"]);
    expect(events[0]).toContain('"paused":false');
  });

  it("a tab's own Pause and Resume", async () => {
    await pause.setTabPaused(7, true);
    expect(events).toEqual(['push {"paused":false,"tabs":[7]}', expect.stringMatching(/^store .*"tabs":\[7\]/), "show"]);
    events = [];
    await pause.setTabPaused(7, false);
    expect(events).toEqual(['push {"paused":false,"tabs":[]}', expect.stringMatching(/^store /), "show"]);
    expect(pause.pausedFor(7)).toBeUndefined();
  });
});

describe("the pause as the gate reads it", () => {
  it("refuses the profile's calls while Stop is on, a tab's own pause its calls only, and nothing after Resume", async () => {
    expect(pause.pausedFor(7)).toBeUndefined();
    await pause.setPaused(true);
    expect(pause.pausedFor(7)?.code).toBe(ERROR_CODES.paused);
    expect(pause.pausedFor(undefined)?.code).toBe(ERROR_CODES.paused);
    await pause.setPaused(false);
    await pause.setTabPaused(7, true);
    expect(pause.pausedFor(7)?.code).toBe(ERROR_CODES.paused);
    expect(pause.pausedFor(7)?.message).not.toBe(pause.pausedFor(undefined)?.message);
    expect(pause.pausedFor(8)).toBeUndefined();
    expect(pause.pausedFor(undefined)).toBeUndefined();
    // The profile's Stop and Resume keep a tab's own pause.
    await pause.setPaused(true);
    await pause.setPaused(false);
    expect(pause.tabs()).toEqual([7]);
    await pause.forgetTab(7);
    expect(pause.pausedFor(7)).toBeUndefined();
    expect(pause.forgetTab(7)).toBeUndefined();
  });

  it("a restarted worker reads the stored pause and stays paused", async () => {
    stored = { paused: true, since: 5, tabs: [3] };
    await pause.load();
    expect(pause.paused).toBe(true);
    expect(pause.tabs()).toEqual([3]);
    expect(pause.pausedFor(9)?.code).toBe(ERROR_CODES.paused);
  });
});
