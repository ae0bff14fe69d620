// The activity log's watch over calls, with a fake port and fake timers:
// the target as the page named it before the action, typed text kept only
// for a field that was never secret, a page that does not describe in time,
// the action's own follow-up snapshot, refusals by the pause.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CodedError } from "../peer";
import { ERROR_CODES } from "../protocol.gen";
import type { ActivityEntry } from "../activity";
import { createCallLog, type CallLogPort } from "./watch";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

type Target = { role: string; name: string; secret: boolean } | null;

function fake(answers: Array<Target[] | "never">) {
  const entries: ActivityEntry[] = [];
  const acted: string[] = [];
  const asked: string[][] = [];
  const port: CallLogPort = {
    ready: async () => undefined,
    resolveTab: async (t) => ({ id: t ?? 5 }),
    slotOf: async () => 2,
    describe: (_tab, refs) => {
      asked.push(refs);
      const a = answers.shift() ?? refs.map(() => null);
      return a === "never" ? new Promise(() => undefined) : Promise.resolve({ targets: a });
    },
    tab: async () => ({ url: "https://shop.example/cart" }),
    append: async (e) => void entries.push(e),
    acted: (tab, app, opened) => void acted.push(`${tab} ${app} ${opened}`),
    pausedFor: () => new CodedError(ERROR_CODES.paused, "paused"),
  };
  return { log: createCallLog(port), entries, acted, asked };
}

/** Lets the log's own promises run (no time passes). */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe("the call watch", () => {
  it("logs a click with the target the page named before the action, the tab's URL and slot", async () => {
    const f = fake([[{ role: "button", name: "Pay", secret: false }]]);
    const w = await f.log.watch("browser_click", { tabId: 5, ref: "e3", app: "Claude" });
    expect(f.asked).toEqual([["e3"]]);
    w.done({});
    await settle();
    expect(f.entries).toEqual([expect.objectContaining({ app: "Claude", tool: "browser_click", outcome: "done", tabId: 5, slot: 2, url: "https://shop.example/cart", target: { role: "button", name: "Pay" } })]);
    expect(f.acted).toEqual(["5 Claude false"]);
  });

  it("keeps typed text only when the field was not secret before nor after the action", async () => {
    const f = fake([[{ role: "textbox", name: "Name", secret: false }], [{ role: "textbox", name: "Name", secret: false }]]);
    (await f.log.watch("browser_type", { tabId: 5, ref: "e1", text: "Ada" })).done({});
    await settle();
    expect(f.entries[0]!.text).toContain("Ada");
    const g = fake([[{ role: "textbox", name: "Code", secret: false }], [{ role: "textbox", name: "Code", secret: true }]]);
    (await g.log.watch("browser_type", { tabId: 5, ref: "e1", text: "4242" })).done({});
    await settle();
    expect(g.entries[0]!.text ?? "").not.toContain("4242");
  });

  it("a page that does not describe in time: the entry has no target and typed text counts as secret", async () => {
    const f = fake(["never"]);
    (await f.log.watch("browser_type", { tabId: 5, ref: "e1", text: "hunter2" })).done({});
    await settle();
    expect(f.entries).toEqual([]); // still waiting for the page
    await vi.advanceTimersByTimeAsync(1500);
    expect(f.entries).toHaveLength(1);
    expect(f.entries[0]!.target).toBeUndefined();
    expect(f.entries[0]!.text ?? "").not.toContain("hunter2");
  });

  it("the action's own follow-up snapshot is not logged again; another app's is", async () => {
    const f = fake([[{ role: "link", name: "Next", secret: false }]]);
    (await f.log.watch("browser_click", { tabId: 5, ref: "e1", app: "Claude" })).done({});
    (await f.log.watch("browser_snapshot", { tabId: 5, app: "Claude" })).done({ tabId: 5 });
    (await f.log.watch("browser_snapshot", { tabId: 5, app: "Cursor" })).done({ tabId: 5 });
    await settle();
    expect(f.entries.map((e) => `${e.app} ${e.tool}`)).toEqual(["Claude browser_click", "Cursor browser_snapshot"]);
  });

  it("a failed call is logged with its outcome and detail, and does not count as the tab's app", async () => {
    const f = fake([[null]]);
    (await f.log.watch("browser_click", { tabId: 5, ref: "e9" })).failed(new CodedError(ERROR_CODES.cancelled, "cancelled by the client"));
    await settle();
    expect(f.entries[0]).toEqual(expect.objectContaining({ outcome: "cancelled", detail: "cancelled by the client" }));
    expect(f.acted).toEqual([]);
  });
});

describe("site tools (issue 43)", () => {
  it("a call the person denied is logged as refused, its arguments masked; an allowed one as done", async () => {
    const f = fake([]);
    (await f.log.watch("browser_site_tool_call", { tabId: 5, name: "place_order", arguments: { card: "4242 4242 4242 4242", password: "hunter22", qty: 1 }, app: "Claude" })).done({
      tabId: 5,
      consent: "denied",
    });
    (await f.log.watch("browser_site_tool_call", { tabId: 5, name: "search", arguments: { q: "tea" }, app: "Claude" })).done({ tabId: 5, consent: "read-only" });
    await settle();
    expect(f.entries[0]).toEqual(expect.objectContaining({ tool: "browser_site_tool_call", outcome: "refused", detail: "you denied it: nothing ran" }));
    expect(f.entries[0]!.text).toContain("place_order");
    expect(f.entries[0]!.text).not.toContain("4242");
    expect(f.entries[0]!.text).not.toContain("hunter22");
    expect(f.entries[1]).toEqual(expect.objectContaining({ outcome: "done", text: 'search {"q":"tea"}' }));
  });
});

describe("refusals by the pause", () => {
  it("logPaused and logRefused write the refusal without asking the page", async () => {
    const f = fake([]);
    const err = f.log.logPaused("browser_type", { tabId: 5, ref: "e1", text: "secret" });
    expect(err.code).toBe(ERROR_CODES.paused);
    f.log.logRefused("browser_click", 6, "Claude");
    await settle();
    expect(f.asked).toEqual([]);
    expect(f.entries.map((e) => `${e.app} ${e.tool} ${e.outcome} ${e.tabId}`)).toEqual(["AI app browser_type paused 5", "Claude browser_click paused 6"]);
    expect(f.entries[0]!.text ?? "").not.toContain("secret");
  });
});
