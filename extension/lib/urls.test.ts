import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { navigableReason, normalizeUrl, restrictedReason } from "./urls";

describe("restrictedReason", () => {
  it.each([
    "chrome://settings",
    "chrome://newtab/",
    "devtools://devtools/bundled/inspector.html",
    "chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html",
    "chrome-extension://emkgfnickjohaibbledibfemnfkoamdj/popup.html",
    "https://chrome.google.com/webstore/detail/x",
    "https://chromewebstore.google.com/",
    "about:settings",
    "view-source:https://example.com",
  ])("refuses %s", (u) => {
    expect(restrictedReason(u, "emkgfnickjohaibbledibfemnfkoamdj")).toMatch(/does not let extensions automate/);
  });

  it.each(["https://example.com/", "http://127.0.0.1:8080/x", "about:blank", "file:///tmp/a.html", "", "https://chrome.google.com/search"])(
    "allows %s",
    (u) => {
      expect(restrictedReason(u, "emkgfnickjohaibbledibfemnfkoamdj")).toBeUndefined();
    },
  );
});

describe("normalizeUrl / navigableReason", () => {
  it("completes addresses as the server does (protocol/testdata/urls.json)", () => {
    const cases = JSON.parse(readFileSync(new URL("../../protocol/testdata/urls.json", import.meta.url), "utf8")) as [string, string][];
    expect(cases.length).toBeGreaterThan(10);
    for (const [typed, want] of cases) expect(normalizeUrl(typed), typed).toBe(want);
  });

  it("refuses what cannot be opened for the AI", () => {
    expect(navigableReason("javascript:alert(1)")).toMatch(/only http/);
    expect(navigableReason("chrome://settings")).toMatch(/only http/);
    expect(navigableReason("https://chromewebstore.google.com/detail/x")).toMatch(/Web Store/);
    expect(navigableReason("https://exa mple")).toMatch(/not a valid URL/);
    expect(navigableReason("https://example.com")).toBeUndefined();
    expect(navigableReason("about:blank")).toBeUndefined();
  });
});
