import { describe, expect, it } from "vitest";
import { deleteRecording, normalizeRecordings, putRecording, renameRecording } from "./recordings";

const rec = (name: string) => ({
  name,
  site: "https://shop.test",
  created: "2026-12-04T22:00:00Z",
  params: [{ name: "email", example: "a@b.c" }, { name: "password", secret: true, example: "leak" }],
  steps: [
    { action: "type", target: { role: "textbox", name: "Email" }, param: "email", value: "a@b.c" },
    { action: "type", target: { role: "textbox", name: "Password" }, secret: true, value: "hunter2" },
    { action: "click", target: { role: "button", name: "Sign in", nth: 0 } },
  ],
});

describe("recordings", () => {
  it("keeps valid recordings and drops what is not one", () => {
    const got = normalizeRecordings([rec("a"), { name: "" }, "x", rec("a"), { name: "b", steps: [{ action: "fly" }] }]);
    expect(got.map((r) => r.name)).toEqual(["a"]);
    expect(got[0]?.steps).toHaveLength(3);
    expect(normalizeRecordings({})).toEqual([]);
  });

  it("never keeps a secret step's value nor a secret parameter's example", () => {
    const r = normalizeRecordings([rec("a")])[0];
    if (!r) throw new Error("no recording");
    expect(JSON.stringify(r)).not.toContain("hunter2");
    expect(JSON.stringify(r)).not.toContain("leak");
    expect(r.steps[1]).toEqual({ action: "type", target: { role: "textbox", name: "Password" }, secret: true });
  });

  it("puts, renames and deletes by name", () => {
    let list = normalizeRecordings([rec("a"), rec("b")]);
    const first = list[0];
    if (!first) throw new Error("no recording");
    list = putRecording(list, { ...first, description: "new" });
    expect(list.filter((r) => r.name === "a")).toHaveLength(1);
    expect(renameRecording(list, "a", "b")).toBe('A recording named "b" already exists.');
    expect(renameRecording(list, "zz", "c")).toBe('There is no recording named "zz".');
    const renamed = renameRecording(list, "a", " c ");
    expect(Array.isArray(renamed) && renamed.map((r) => r.name).sort()).toEqual(["b", "c"]);
    expect(deleteRecording(list, "b").map((r) => r.name)).toEqual(["a"]);
  });
});
