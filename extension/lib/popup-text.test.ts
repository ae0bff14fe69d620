import { describe, expect, it } from "vitest";
import { describeIdentity, describeStatus } from "./popup-text";

describe("popup text", () => {
  it("describes each connection state, with the rejection reason", () => {
    expect(describeStatus(undefined, 9222)).toMatchObject({ state: "connecting", headline: expect.stringContaining("127.0.0.1:9222") });
    expect(describeStatus({ state: "connected", port: 9300, since: 1 }, 9222).headline).toContain("Connected");
    expect(describeStatus({ state: "rejected", reason: "update the server", port: 9222, since: 1 }, 9222)).toEqual({
      state: "rejected",
      headline: "The monkbrowse server refused this browser",
      reason: "update the server",
    });
    expect(describeStatus({ state: "disconnected", port: 9222, since: 1 }, 9222).headline).toContain("Not connected");
    // A refused hello: nothing says the program on the port is monkbrowse.
    expect(describeStatus({ state: "rejected", reason: "r", unproven: true, port: 9300, since: 1 }, 9222).headline).toBe(
      "The program on 127.0.0.1:9300 refused this browser (it has not proven it is monkbrowse)",
    );
  });

  it("shows label and slug", () => {
    expect(describeIdentity({ profileId: "x", assignedLabel: "Work stuff", assignedSlug: "work-stuff" }, { port: 1, label: "Work stuff" })).toBe(
      "Profile: Work stuff · AI name: work-stuff",
    );
    expect(describeIdentity({ profileId: "x", assignedLabel: "chrome-1", assignedSlug: "chrome-1" }, { port: 1, label: "" })).toBe("Profile: chrome-1");
    expect(describeIdentity({ profileId: "x" }, { port: 1, label: "" })).toMatch(/not named yet/);
  });
});
