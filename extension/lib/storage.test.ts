import { describe, expect, it } from "vitest";
import { DEFAULT_EXTENSION_PORT } from "./protocol.gen";
import { normalizeConsent, normalizePaired, normalizeSettings, normalizeShares, normalizeStatus, parseLabel, parsePort, withSwitch } from "./storage";

describe("settings", () => {
  it("defaults to port 9222 and an empty label", () => {
    expect(normalizeSettings(undefined)).toEqual({ port: DEFAULT_EXTENSION_PORT, label: "" });
    expect(DEFAULT_EXTENSION_PORT).toBe(9222);
    expect(normalizeSettings({ port: 70000, label: 3 })).toEqual({ port: 9222, label: "" });
    expect(normalizeSettings({ port: 9300, label: " work " })).toEqual({ port: 9300, label: "work" });
  });

  it("validates a typed port (1–65535)", () => {
    expect(parsePort("9222")).toEqual({ port: 9222 });
    expect(parsePort(" 1 ")).toEqual({ port: 1 });
    expect(parsePort("65535")).toEqual({ port: 65535 });
    for (const bad of ["0", "65536", "-1", "12.5", "abc", "", "1e3"]) expect(parsePort(bad)).toHaveProperty("error");
  });

  it("validates a label", () => {
    expect(parseLabel("  Work ")).toEqual({ label: "Work" });
    expect(parseLabel("x".repeat(65))).toHaveProperty("error");
  });
});

describe("shares and status", () => {
  it("keeps only well-formed shares", () => {
    expect(normalizeShares({ "12": 1, abc: 2, "13": 0, "14": "3", "15": 2 })).toEqual({ "12": 1, "15": 2 });
    expect(normalizeShares(null)).toEqual({});
  });

  it("normalises a status", () => {
    expect(normalizeStatus({ state: "rejected", reason: "old", port: 9222, since: 5 })).toEqual({ state: "rejected", reason: "old", port: 9222, since: 5 });
    expect(normalizeStatus({ state: "??" }, 1234)).toEqual({ state: "disconnected", port: 1234, since: 0 });
  });
});

describe("consent", () => {
  it("is off unless explicitly switched on", () => {
    expect(normalizeConsent(undefined)).toEqual({ evaluate: false, debugger: false, secretsInShots: false });
    expect(normalizeConsent({ evaluate: "yes" })).toEqual({ evaluate: false, debugger: false, secretsInShots: false });
    expect(normalizeConsent({ evaluate: 1 })).toEqual({ evaluate: false, debugger: false, secretsInShots: false });
    expect(normalizeConsent({ evaluate: true })).toEqual({ evaluate: true, debugger: false, secretsInShots: false });
    expect(normalizeConsent({ debugger: true, evaluate: "x" })).toEqual({ evaluate: false, debugger: true, secretsInShots: false });
    // Secret fields are painted over in screenshots unless the person said otherwise (issue 40).
    expect(normalizeConsent({ secretsInShots: "yes" }).secretsInShots).toBe(false);
    expect(normalizeConsent({ secretsInShots: true }).secretsInShots).toBe(true);
  });
});

describe("withSwitch", () => {
  it("sets one switch and keeps every other stored key", () => {
    expect(withSwitch({ evaluate: true, future: 1 }, "debugger", true)).toEqual({ evaluate: true, debugger: true, future: 1 });
    expect(withSwitch({ evaluate: true, debugger: true }, "evaluate", false)).toEqual({ evaluate: false, debugger: true });
  });
  it("starts from nothing when the stored value is absent or malformed", () => {
    expect(withSwitch(undefined, "evaluate", true)).toEqual({ evaluate: true });
    expect(withSwitch("garbage", "debugger", false)).toEqual({ debugger: false });
  });
});

describe("normalizePaired", () => {
  it("keeps a non-empty secret per numeric port and drops anything else", () => {
    expect(normalizePaired({ "9222": "s1", "9333": "", abc: "s2", "70000000": "s3", "9444": 5 })).toEqual({ "9222": "s1" });
    expect(normalizePaired(undefined)).toEqual({});
    expect(normalizePaired(["s"])).toEqual({});
    expect(normalizePaired("s")).toEqual({});
  });
});
