// Debugger mode's logic on fake ports (issues 21, 44): the attach log in
// order and bounded, the person's Cancel told from our own detach and a tab
// closing, native dialogs answered by their defaults, response bodies kept
// per tab (truncated, dropped with the tab or its session).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BODIES_PER_TAB, BODY_MAX, CANCEL_GRACE_MS, createAttachLog, createCancelWatch, createDebuggerEvents, type LogEntry } from "./debugging";

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());
const settle = () => vi.advanceTimersByTimeAsync(0);

describe("the attach log", () => {
  it("keeps entries in order, the latest 200, and reports a failed write", async () => {
    let stored: unknown = undefined;
    const failures: string[] = [];
    let fail = false;
    const log = createAttachLog(
      {
        load: async () => stored,
        save: async (l) => {
          if (fail) throw new Error("quota");
          stored = l;
        },
        reported: (what) => (e) => void failures.push(`${what}: ${String(e)}`),
      },
      () => 7,
    );
    for (let i = 0; i < 205; i++) log({ tabId: i, event: "attach" });
    await settle();
    const list = stored as LogEntry[];
    expect(list.length).toBe(200);
    expect(list[0]).toEqual({ time: 7, tabId: 5, event: "attach" });
    expect(list.at(-1)!.tabId).toBe(204);
    fail = true;
    log({ tabId: 1, event: "detach", detail: "idle" });
    await settle();
    expect(failures).toEqual(["debugger: writing the debugger log: Error: quota"]);
    fail = false;
    log({ tabId: 2, event: "detach" });
    await settle();
    expect((stored as LogEntry[]).at(-1)!.tabId).toBe(2);
  });
});

describe("the person's Cancel", () => {
  it("canceled_by_user is the person's Cancel once the grace is over", async () => {
    const cancelled: number[] = [];
    const w = createCancelWatch((t) => void cancelled.push(t));
    w.detached(3, "target_closed");
    w.detached(4, "canceled_by_user");
    await vi.advanceTimersByTimeAsync(CANCEL_GRACE_MS - 1);
    expect(cancelled).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(cancelled).toEqual([4]);
  });

  it("is not after our own detach, nor when the tab closes before or within the grace after", async () => {
    const cancelled: number[] = [];
    const w = createCancelWatch((t) => void cancelled.push(t));
    w.ownDetach(3);
    w.detached(3, "canceled_by_user");
    w.closed(5);
    w.detached(5, "canceled_by_user");
    w.detached(6, "canceled_by_user");
    await vi.advanceTimersByTimeAsync(CANCEL_GRACE_MS / 2);
    w.closed(6);
    await vi.advanceTimersByTimeAsync(CANCEL_GRACE_MS);
    expect(cancelled).toEqual([]);
    // Long after our own detach it is the person's again.
    await vi.advanceTimersByTimeAsync(CANCEL_GRACE_MS);
    w.detached(3, "canceled_by_user");
    await vi.advanceTimersByTimeAsync(CANCEL_GRACE_MS);
    expect(cancelled).toEqual([3]);
  });
});

describe("the events of an attached tab", () => {
  function fake(body = "the page's answer") {
    const sent: string[] = [];
    const logged: string[] = [];
    const ev = createDebuggerEvents({
      send: async (tabId, method, params) => {
        sent.push(`${tabId} ${method} ${JSON.stringify(params)}`);
        return method === "Network.getResponseBody" ? { body, base64Encoded: false } : {};
      },
      log: (e) => void logged.push(`${e.tabId} ${e.event} ${e.detail ?? ""}`),
      reported: () => () => undefined,
    });
    return { ev, sent, logged };
  }

  it("answers a native dialog by its default and logs it", async () => {
    const { ev, sent, logged } = fake();
    const s = { responses: new Map() };
    ev.event(1, s, () => true, "Page.javascriptDialogOpening", { type: "confirm", message: "Delete?" });
    ev.event(1, s, () => true, "Page.javascriptDialogOpening", { type: "alert", message: "Hi" });
    expect(sent).toEqual(['1 Page.handleJavaScriptDialog {"accept":false}', '1 Page.handleJavaScriptDialog {"accept":true}']);
    expect(logged).toEqual(['1 dialog confirm "Delete?" → dismissed', '1 dialog alert "Hi" → accepted']);
  });

  it("keeps a finished response's body per tab, truncated, the latest kept, and drops them with the tab", async () => {
    const { ev } = fake("x".repeat(BODY_MAX + 5));
    const s = { responses: new Map() };
    ev.event(9, s, () => true, "Network.loadingFinished", { requestId: "unseen" });
    for (let i = 0; i <= BODIES_PER_TAB; i++) {
      ev.event(9, s, () => true, "Network.responseReceived", { requestId: `r${i}`, response: { url: `https://a.test/${i}` } });
      ev.event(9, s, () => true, "Network.loadingFinished", { requestId: `r${i}` });
    }
    await settle();
    const got = ev.bodiesOf(9);
    expect(got.length).toBe(BODIES_PER_TAB);
    expect(got[0]!.url).toBe("https://a.test/1");
    expect(got[0]!.body.length).toBe(BODY_MAX);
    expect(got[0]!.truncated).toBe(true);
    expect(s.responses.size).toBe(0);
    ev.keepShared(new Set([9]));
    expect(ev.bodiesOf(9).length).toBe(BODIES_PER_TAB);
    ev.keepShared(new Set());
    expect(ev.bodiesOf(9)).toEqual([]);
  });

  it("does not keep a body that arrives after the tab's session ended", async () => {
    const { ev } = fake();
    const s = { responses: new Map() };
    let current = true;
    ev.event(2, s, () => current, "Network.responseReceived", { requestId: "r", response: { url: "https://a.test/" } });
    ev.event(2, s, () => current, "Network.loadingFinished", { requestId: "r" });
    current = false;
    await settle();
    expect(ev.bodiesOf(2)).toEqual([]);
  });
});
