import { describe, expect, it } from "vitest";
import { lowestFreeSlot, pruneShares, shareAll, shareTab, slotOf, tabOfSlot, unshareTab } from "./slots";

describe("slots", () => {
  it("gives the lowest free number and keeps it until unshared", () => {
    let s = {};
    let r = shareTab(s, 101);
    expect(r.slot).toBe(1);
    s = r.shares;
    r = shareTab(s, 102);
    expect(r.slot).toBe(2);
    s = r.shares;
    r = shareTab(s, 103);
    expect(r.slot).toBe(3);
    s = r.shares;
    s = unshareTab(s, 102);
    expect(slotOf(s, 103)).toBe(3); // others keep theirs
    r = shareTab(s, 104);
    expect(r.slot).toBe(2); // the gap is reused
    s = r.shares;
    expect(s).toEqual({ "101": 1, "103": 3, "104": 2 });
  });

  it("sharing twice keeps the slot and does not copy", () => {
    const s = { "5": 4 };
    const r = shareTab(s, 5);
    expect(r).toEqual({ shares: s, slot: 4 });
    expect(r.shares).toBe(s);
  });

  it("never mutates its input", () => {
    const s = Object.freeze({ "1": 1 });
    shareTab(s, 2);
    unshareTab(s, 1);
    pruneShares(s, []);
    expect(s).toEqual({ "1": 1 });
  });

  it("prunes closed tabs and frees their numbers", () => {
    const s = { "1": 1, "2": 2, "3": 3 };
    const p = pruneShares(s, [1, 3, 99]);
    expect(p).toEqual({ "1": 1, "3": 3 });
    expect(lowestFreeSlot(p)).toBe(2);
    expect(pruneShares(p, [1, 3])).toBe(p);
  });

  it("share all fills gaps in order, keeping existing numbers", () => {
    expect(shareAll({ "20": 2 }, [10, 20, 30, 40])).toEqual({ "20": 2, "10": 1, "30": 3, "40": 4 });
  });

  it("finds the tab of a slot", () => {
    expect(tabOfSlot({ "7": 1, "9": 2 }, 2)).toBe(9);
    expect(tabOfSlot({ "7": 1 }, 3)).toBeUndefined();
  });
});
