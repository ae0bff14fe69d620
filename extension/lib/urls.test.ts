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
  it("adds a scheme like the address bar", () => {
    expect(normalizeUrl("example.com/a")).toBe("https://example.com/a");
    expect(normalizeUrl("localhost:3000")).toBe("http://localhost:3000");
    expect(normalizeUrl("127.0.0.1:8080/x")).toBe("http://127.0.0.1:8080/x");
    expect(normalizeUrl("https://x.org")).toBe("https://x.org");
    expect(normalizeUrl("about:blank")).toBe("about:blank");
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
