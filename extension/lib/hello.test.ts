import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeFrame, type ResponseFrame } from "./frame";
import { SERVER_TOO_OLD_REASON, buildProfile, interpretAck } from "./hello";
import { PROTOCOL_VERSION } from "./protocol.gen";

const ID = "6f1c2b1e-8d7a-4a51-9d0e-0b7f9a0c1d2e";
const tab = { tabId: 1843, slot: 1, url: "https://example.com/login", title: "Sign in", active: true, windowId: 7 };

describe("buildProfile", () => {
  it("carries profileId, label and tabs (the auth's, never the hello's)", () => {
    const h = buildProfile({ settings: { port: 9222, label: "" }, identity: { profileId: ID }, tabs: [tab], extVersion: "0.3.0" });
    expect(h).toEqual({ profileId: ID, label: "", tabs: [tab] });
    expect("slug" in h).toBe(false);
  });

  it("re-announces the stored slug while the label is unchanged", () => {
    const identity = { profileId: ID, assignedLabel: "Work", assignedSlug: "work" };
    expect(buildProfile({ settings: { port: 1, label: "Work" }, identity, tabs: [], extVersion: "1" }).slug).toBe("work");
    // a default name (no label set) is kept too
    const dflt = { profileId: ID, assignedLabel: "chrome-2", assignedSlug: "chrome-2" };
    expect(buildProfile({ settings: { port: 1, label: "" }, identity: dflt, tabs: [], extVersion: "1" }).slug).toBe("chrome-2");
    // renamed: let the server derive a new slug
    expect(buildProfile({ settings: { port: 1, label: "Home" }, identity, tabs: [], extVersion: "1" }).slug).toBeUndefined();
  });

  it("matches the golden auth request's payload (but the proof)", () => {
    // A missing vector fails here (readFileSync throws), never skips.
    const f = join(__dirname, "..", "..", "protocol", "testdata", "frames", "auth.req.json");
    const frame = decodeFrame(readFileSync(f, "utf8"));
    const golden = (frame as { payload: { tabs: typeof tab[]; profileId: string } }).payload;
    const h = buildProfile({
      settings: { port: 9222, label: "Work" },
      identity: { profileId: golden.profileId, assignedLabel: "Work", assignedSlug: "work" },
      tabs: golden.tabs,
      extVersion: "0.3.0",
    });
    const { proof: _proof, ...rest } = golden as unknown as Record<string, unknown>;
    expect(JSON.stringify(h)).toBe(JSON.stringify(rest));
  });
});

/** A golden response's result (protocol/testdata/frames); a missing file fails the test. */
function goldenResult(name: string): unknown {
  const f = join(__dirname, "..", "..", "protocol", "testdata", "frames", name);
  return (decodeFrame(readFileSync(f, "utf8")) as ResponseFrame).result;
}

describe("interpretAck", () => {
  it("accepts and returns the assigned label and slug", () => {
    expect(interpretAck({ ok: true, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", assignedLabel: "Work", assignedSlug: "work" })).toEqual({
      accepted: true,
      assignedLabel: "Work",
      assignedSlug: "work",
      serverVersion: "0.3.0",
      auth: "",
      nonce: "",
      proof: "",
    });
    const g = goldenResult("auth.res.accepted.json");
    expect(interpretAck(g)).toMatchObject({ accepted: true, assignedSlug: "work" });
    const h = goldenResult("hello.res.accepted.json");
    expect(interpretAck(h)).toMatchObject({ accepted: true, auth: "hmac-sha256-v1", nonce: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it("surfaces the reason of a rejection", () => {
    const r = interpretAck({ ok: false, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", reason: "profile cap of 20 reached" });
    // said: the peer's own words, which a caller without its proof must not show as ours (refusal.ts).
    expect(r).toEqual({ accepted: false, reason: "profile cap of 20 reached", serverVersion: "0.3.0", said: "profile cap of 20 reached", protocol: PROTOCOL_VERSION });
    const g = goldenResult("hello.res.rejected.json");
    expect(interpretAck(g)).toMatchObject({ accepted: false, reason: expect.stringContaining("protocol mismatch") });
    expect(interpretAck({ ok: false, protocol: 1, serverVersion: "x" })).toMatchObject({ accepted: false, reason: expect.stringMatching(/refused/) });
  });

  it("says to update the server when a 0.2 server answers (assignedPort, no protocol)", () => {
    const r = interpretAck({ ok: true, assignedPort: 9223, serverVersion: "0.2.4" });
    expect(r).toEqual({ accepted: false, reason: SERVER_TOO_OLD_REASON, serverVersion: "0.2.4" });
    expect(SERVER_TOO_OLD_REASON).toContain("scripts/build");
    expect(interpretAck({ ok: false, assignedPort: 0, serverVersion: "0.2.0", reason: "x" })).toMatchObject({ reason: SERVER_TOO_OLD_REASON });
  });

  it("refuses an accepted ack of another protocol, naming both numbers", () => {
    const r = interpretAck({ ok: true, protocol: 4, serverVersion: "0.9.0", assignedLabel: "a", assignedSlug: "a" });
    expect(r.accepted).toBe(false);
    if (!r.accepted) {
      expect(r.reason).toContain("protocol 3");
      expect(r.reason).toContain("protocol 4");
      expect(r.reason).toContain("update the monkbrowse extension");
    }
  });

  it("refuses garbage", () => {
    for (const bad of [null, "yes", [1], { protocol: "1", ok: true }]) expect(interpretAck(bad).accepted).toBe(false);
  });
});
