import { describe, expect, it } from "vitest";
import { senderMayAsk } from "./messages";

const self = { id: "abc", origin: "chrome-extension://abc/" };

describe("senderMayAsk (the service worker's private channel)", () => {
  it("takes everything from the extension's own pages", () => {
    for (const url of ["chrome-extension://abc/offscreen.html", "chrome-extension://abc/popup.html"]) {
      expect(senderMayAsk("exec", { id: "abc", url }, self)).toBe(true);
      expect(senderMayAsk("share", { id: "abc", url }, self)).toBe(true);
      expect(senderMayAsk("ask-answer", { id: "abc", url }, self)).toBe(true);
    }
  });

  it("takes from a content script only what the page side needs", () => {
    const cs = { id: "abc", url: "https://example.com/page" };
    for (const kind of ["sleep", "dialog-used", "busy", "diag"]) expect(senderMayAsk(kind, cs, self)).toBe(true);
    // ask-answer: the hand-off is answered in the popup only (issue 40).
    for (const kind of ["exec", "share", "share-all", "connect-info", "accepted", "status", "cancel", "ask-answer"]) {
      expect(senderMayAsk(kind, cs, self), kind).toBe(false);
    }
    // A page URL that only looks like ours.
    expect(senderMayAsk("exec", { id: "abc", url: "https://chrome-extension.example/abc/" }, self)).toBe(false);
  });

  it("takes nothing from another extension, even from its own pages", () => {
    expect(senderMayAsk("sleep", { id: "other", url: "chrome-extension://other/x.html" }, self)).toBe(false);
    expect(senderMayAsk("exec", { id: "other", url: "chrome-extension://abc/popup.html" }, self)).toBe(false);
    expect(senderMayAsk("exec", {}, self)).toBe(false);
  });
});
