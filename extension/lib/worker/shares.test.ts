// The shared tabs: changes in one chain (no lost update, no slot handed out
// twice), the ids in memory updated before the change is acted on.
import { describe, expect, it } from "vitest";
import { shareTab, unshareTab } from "../slots";
import type { Shares } from "../storage";
import { SharedTabs } from "./shares";

function fake(initial: Shares = {}) {
  let stored: Shares = { ...initial };
  const changes: Array<{ before: Shares; after: Shares; touchPages: boolean; knewAfter: boolean }> = [];
  const port = {
    // A read that takes a turn, as chrome.storage does: two unchained updates would both read the same shares.
    read: async () => {
      await Promise.resolve();
      return { ...stored };
    },
    write: async (s: Shares) => void (stored = { ...s }),
    changed: (before: Shares, after: Shares, touchPages: boolean) =>
      changes.push({ before, after, touchPages, knewAfter: Object.keys(after).every((k) => tabs.has(Number(k))) }),
  };
  const tabs: SharedTabs = new SharedTabs(port);
  return { tabs, changes, stored: () => stored };
}

describe("SharedTabs", () => {
  it("two quick shares get two slots, neither lost", async () => {
    const f = fake();
    const share = (id: number) => f.tabs.update((s) => {
      const r = shareTab(s, id);
      return { shares: r.shares, out: r.slot };
    });
    const [a, b] = await Promise.all([share(5), share(6)]);
    expect(new Set([a, b]).size).toBe(2);
    expect(Object.keys(f.stored()).sort()).toEqual(["5", "6"]);
  });

  it("knows the new ids before the change is acted on, and says nothing when nothing changed", async () => {
    const f = fake({ "5": 1 });
    expect(f.tabs.has(5)).toBe(false); // not loaded yet
    expect([...(await f.tabs.load())]).toEqual([5]);
    expect(f.tabs.has(5)).toBe(true);
    await f.tabs.update((s) => ({ shares: unshareTab(s, 5), out: undefined }), { touchPages: false });
    expect(f.tabs.has(5)).toBe(false);
    expect(f.changes).toEqual([{ before: { "5": 1 }, after: {}, touchPages: false, knewAfter: true }]);
    await f.tabs.update((s) => ({ shares: s, out: undefined }));
    expect(f.changes).toHaveLength(1);
  });

  it("a failed change does not stop the next", async () => {
    const f = fake();
    await expect(f.tabs.update(() => {
      throw new Error("boom");
    })).rejects.toThrow("boom");
    await f.tabs.update((s) => ({ shares: { ...s, "9": 1 }, out: undefined }));
    expect(f.stored()).toEqual({ "9": 1 });
  });
});
