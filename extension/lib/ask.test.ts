import { describe, expect, it } from "vitest";
import { AskBook, KEY_ASKS, newAskId, pendingAsks, resultOf } from "./ask";
import { ASK_MAX_WAIT_MS } from "./protocol.gen";

function store() {
  const data: Record<string, unknown> = {};
  return {
    data,
    kv: {
      get: async (k: string) => (k in data ? { [k]: structuredClone(data[k]) } : {}),
      set: async (items: Record<string, unknown>) => void Object.assign(data, structuredClone(items)),
    },
  };
}

describe("the AI's requests to the person", () => {
  it("keeps a request in the store, answers it once, and forgets it when reported", async () => {
    const s = store();
    let now = 1_000;
    const book = new AskBook(s.kv, () => now);
    const { ask } = await book.start({ askId: "a1", tabId: 7, message: "Sign in", app: "Claude Code" });
    expect(ask).toMatchObject({ state: "pending", created: 1_000 });
    // A second book over the same store (the worker restarted) sees it.
    const again = new AskBook(s.kv, () => now);
    expect(pendingAsks(await again.all()).map((a) => a.askId)).toEqual(["a1"]);
    // From another tab's page: not counted.
    expect(await again.answer("a1", "done", "page", 8)).toBeUndefined();
    const answered = await again.answer("a1", "done", "page", 7);
    expect(answered).toMatchObject({ state: "done", answeredIn: "page" });
    expect(await again.answer("a1", "declined", "popup")).toBeUndefined(); // answered already
    expect(resultOf((await again.get("a1")).ask!)).toEqual({ tabId: 7, askId: "a1", state: "done", answeredIn: "page", created: 1_000 });
    await again.take("a1");
    expect((await again.get("a1")).ask).toBeUndefined();
    now += 1;
  });

  it("one pending request per tab; the tab's end and Stop end them without an answer", async () => {
    const s = store();
    const book = new AskBook(s.kv, () => 5);
    await book.start({ askId: "a1", tabId: 7, message: "one", app: "A" });
    const { replaced } = await book.start({ askId: "a2", tabId: 7, message: "two", app: "A" });
    expect(replaced.map((a) => [a.askId, a.state])).toEqual([["a1", "gone"]]);
    await book.start({ askId: "b1", tabId: 9, message: "other tab", app: "B" });
    const closed = await book.end((a) => a.tabId === 7, "the tab was closed");
    expect(closed.map((a) => [a.askId, a.why])).toEqual([["a2", "the tab was closed"]]);
    const stopped = await book.end(() => true, "Stop");
    expect(stopped.map((a) => a.askId)).toEqual(["b1"]);
    expect(pendingAsks(await book.all())).toEqual([]);
    expect(Object.keys(s.data[KEY_ASKS] as object).sort()).toEqual(["a1", "a2", "b1"]);
  });

  it("expires a request ASK_MAX_WAIT_MS after it began", async () => {
    const s = store();
    let now = 0;
    const book = new AskBook(s.kv, () => now);
    await book.start({ askId: "a1", tabId: 7, message: "x".repeat(900), app: "A" });
    expect((await book.get("a1")).ask?.message.length).toBe(500);
    now = ASK_MAX_WAIT_MS - 1;
    expect((await book.get("a1")).ask?.state).toBe("pending");
    now = ASK_MAX_WAIT_MS;
    const { ask, expired } = await book.get("a1");
    expect(ask?.state).toBe("expired");
    expect(expired.map((a) => a.askId)).toEqual(["a1"]);
    expect(await book.answer("a1", "done", "popup")).toBeUndefined();
  });

  it("makes ids a page cannot guess", () => {
    expect(newAskId("0b7f9a0c-1d2e-4a51-9d0e-6f1c2b1e8d7a")).toBe("0b7f9a0c1d2e");
  });
});
