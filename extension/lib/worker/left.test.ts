// Tabs that left the AI's reach (issue 44): named by tab until shared again,
// by number for list_tabs (the latest LEFT_KEPT, not the shared-again ones),
// and sent once with tabs_changed.
import { describe, expect, it } from "vitest";
import { createLeftTabs, LEFT_KEPT } from "./left";

describe("tabs that left the AI's reach", () => {
  it("are named by tab until shared again, by number while not shared again, and taken once", () => {
    const l = createLeftTabs();
    l.note(7, 2, "tab 2 went to bank.test");
    l.note(8, undefined, "a tab went to bank.test");
    expect(l.why(7)).toBe("tab 2 went to bank.test");
    expect(l.why(8)).toBe("a tab went to bank.test");
    expect(l.why(undefined)).toBeUndefined();
    expect(l.now(new Set())).toEqual([{ slot: 2, reason: "tab 2 went to bank.test" }]);
    expect(l.now(new Set([2]))).toEqual([]);
    expect(l.take()).toEqual([{ slot: 2, reason: "tab 2 went to bank.test" }]);
    expect(l.take()).toEqual([]);
    l.sharedAgain(7);
    expect(l.why(7)).toBeUndefined();
  });

  it("keeps the latest LEFT_KEPT numbers, a number noted again counting as new", () => {
    const l = createLeftTabs();
    for (let slot = 1; slot <= LEFT_KEPT; slot++) l.note(100 + slot, slot, `tab ${slot}`);
    l.note(101, 1, "tab 1 again");
    l.note(999, LEFT_KEPT + 1, "the newest");
    const slots = l.now(new Set()).map((t) => t.slot);
    expect(slots.length).toBe(LEFT_KEPT);
    expect(slots).not.toContain(2);
    expect(slots).toContain(1);
    expect(slots.at(-1)).toBe(LEFT_KEPT + 1);
  });
});
