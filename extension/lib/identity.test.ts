import { describe, expect, it } from "vitest";
import { ensureIdentity, withAssigned } from "./identity";

const ID = "6f1c2b1e-8d7a-4a51-9d0e-0b7f9a0c1d2e";

describe("identity", () => {
  it("creates a profileId once and keeps it", () => {
    const first = ensureIdentity(undefined, () => ID);
    expect(first).toEqual({ identity: { profileId: ID }, changed: true });
    const again = ensureIdentity(first.identity, () => "other");
    expect(again).toEqual({ identity: { profileId: ID }, changed: false });
  });

  it("keeps the assigned label and slug", () => {
    const r = ensureIdentity({ profileId: ID, assignedLabel: "Work", assignedSlug: "work" }, () => "x");
    expect(r.identity).toEqual({ profileId: ID, assignedLabel: "Work", assignedSlug: "work" });
  });

  it("replaces a broken stored identity", () => {
    for (const bad of [null, 3, "x", { profileId: "" }, { profileId: "not-a-uuid" }, { profileId: 7 }]) {
      expect(ensureIdentity(bad, () => ID)).toEqual({ identity: { profileId: ID }, changed: true });
    }
  });

  it("records what the server assigned", () => {
    expect(withAssigned({ profileId: ID, assignedSlug: "old" }, "Home", "home")).toEqual({
      profileId: ID,
      assignedLabel: "Home",
      assignedSlug: "home",
    });
  });
});
