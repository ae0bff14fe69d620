// The toolbar badges with a fake chrome.action and fake timers: precedence
// (a rejected connection's "!" hides every tab's badge; a tab's own pause
// beats the AI acting), the acting badge held at least ACTING_MIN_MS, a
// restarted worker clearing the "AI" the last one left.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ACTING_MIN_MS, createBadges, type ActionApi } from "./badge";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function fake() {
  const text = new Map<string, string | null>();
  const state = { paused: false, tabs: [] as number[] };
  const key = (tabId?: number) => (tabId === undefined ? "global" : String(tabId));
  const action: ActionApi = {
    getTitle: async () => "monkbrowse",
    setTitle: async () => undefined,
    getBadgeText: async (d) => text.get(key(d.tabId)) ?? "",
    setBadgeText: async (d) => void text.set(key(d.tabId), d.text),
    setBadgeBackgroundColor: async () => undefined,
  };
  const badges = createBadges({ action, paused: () => state.paused, pausedTabs: () => state.tabs });
  return { badges, text, state };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

describe("the toolbar badges", () => {
  it("the AI acting shows for the call, and at least ACTING_MIN_MS", async () => {
    const f = fake();
    const end = f.badges.actingIn(4, "Claude");
    await settle();
    expect(f.text.get("4")).toBe("AI");
    end();
    await settle();
    expect(f.text.get("4")).toBe("AI");
    await vi.advanceTimersByTimeAsync(ACTING_MIN_MS);
    expect(f.text.get("4")).toBeNull();
  });

  it("a tab's own pause beats acting; a rejected connection's global '!' hides the tab's badge", async () => {
    const f = fake();
    f.badges.actingIn(4, "Claude");
    f.state.tabs = [4];
    await f.badges.showPauseBadge();
    expect(f.text.get("4")).toBe("II");
    f.badges.noteConnection(true, "monkbrowse: rejected");
    await f.badges.showPauseBadge();
    expect(f.text.get("4")).toBeNull();
  });

  it("a tab the person records shows REC above both pauses, and the tab's own badge again when it stops", async () => {
    const f = fake();
    await f.badges.setRecordingBadge(4, true);
    expect(f.text.get("4")).toBe("REC");
    f.state.paused = true;
    f.state.tabs = [4];
    await f.badges.showPauseBadge();
    expect(f.text.get("4")).toBe("REC");
    await f.badges.setRecordingBadge(4, false);
    expect(f.text.get("4")).toBe("II");
  });

  it("the profile's Stop shows on the global badge", async () => {
    const f = fake();
    f.state.paused = true;
    await f.badges.showPauseBadge();
    expect(f.text.get("global")).toBe("II");
    f.state.paused = false;
    await f.badges.showPauseBadge();
    expect(f.text.get("global")).toBe("");
  });

  it("a restarted worker clears the 'AI' the last worker left", async () => {
    const f = fake();
    f.text.set("9", "AI");
    await f.badges.sweepActingBadges([9]);
    expect(f.text.get("9")).toBeNull();
  });
});
