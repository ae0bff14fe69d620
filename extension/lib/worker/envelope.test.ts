// The runtime message envelope: the handler gets the message as sent and the
// sender as Chrome tells it; a content script's message cannot name another
// tab, nor pass for the popup; kinds a content script may not send, and
// messages of another extension, are refused before any handler runs.
import { describe, expect, it } from "vitest";
import { CodedError } from "../peer";
import { dispatch, type Handlers, type Sender } from "./envelope";

const self = { id: "ext", origin: "chrome-extension://ext/" };
const page = { id: "ext", url: "https://shop.example/", tab: { id: 7 } as chrome.tabs.Tab, frameId: 3 };
const popup = { id: "ext", url: "chrome-extension://ext/popup.html" };

function recording() {
  const seen: Array<{ kind: string; message: unknown; sender: Sender }> = [];
  const h = (kind: string) => async (message: unknown, sender: Sender) => {
    seen.push({ kind, message: structuredClone(message), sender });
    if (kind === "cancel") throw new CodedError("paused", "no");
    return null;
  };
  const handlers = new Proxy({}, { get: (_t, k) => h(String(k)) }) as Handlers;
  return { seen, handlers };
}

describe("dispatch", () => {
  it("gives the handler the sender's tab and frame, never the message's, and leaves the message as sent", async () => {
    const { seen, handlers } = recording();
    const msg = { to: "bg", kind: "busy", senderTabId: 99, tabId: 99 };
    expect(await dispatch(msg, page, self, handlers)).toEqual({ ok: true, result: null });
    expect(seen[0]!.sender).toEqual({ tabId: 7, frameId: 3, url: "https://shop.example/", fromPage: true });
    expect(msg).toEqual({ to: "bg", kind: "busy", senderTabId: 99, tabId: 99 });
  });

  it("a page never passes for the popup: ask-answer is refused from a content script, taken from the popup", async () => {
    const { seen, handlers } = recording();
    const answer = { to: "bg", kind: "ask-answer", askId: "a1", answer: "done", fromPage: false };
    expect(await dispatch(answer, page, self, handlers)).toEqual({ ok: false, error: 'internal message "ask-answer" is not accepted from this sender' });
    expect(seen).toEqual([]);
    await dispatch(answer, popup, self, handlers);
    expect(seen[0]!.sender).toEqual({ fromPage: false });
  });

  it("refuses wire requests from a content script and every message of another extension", async () => {
    const { seen, handlers } = recording();
    expect((await dispatch({ to: "bg", kind: "exec", type: "browser_click", payload: {} }, page, self, handlers))?.ok).toBe(false);
    expect((await dispatch({ to: "bg", kind: "sleep", ms: 1 }, { ...page, id: "other" }, self, handlers))?.ok).toBe(false);
    expect(seen).toEqual([]);
  });

  it("answers a handler's error with its text and code, and leaves other listeners' messages alone", async () => {
    const { handlers } = recording();
    expect(await dispatch({ to: "bg", kind: "cancel", callId: "c" }, popup, self, handlers)).toEqual({ ok: false, error: "no", code: "paused" });
    expect(dispatch({ to: "off", kind: "reconnect" }, popup, self, handlers)).toBeUndefined();
    expect(dispatch("hello", popup, self, handlers)).toBeUndefined();
  });

  it("a kind no handler takes is refused", async () => {
    expect(await dispatch({ to: "bg", kind: "nope" }, popup, self, {} as Handlers)).toEqual({ ok: false, error: 'unknown internal message "nope"' });
  });
});
