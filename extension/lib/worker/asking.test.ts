// "Ask before acting" on a fake port (issue 44): Allow, Deny, allow for 10
// minutes, the call's time running out, a stopped call, a rule change while
// an action waits, and the targets' describe running late.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAsking, DESCRIBE_MS, type AskingPort, type Target } from "./asking";
import { errorCode, CodedError } from "../peer";
import { ERROR_CODES, TIMEOUTS_MS } from "../protocol.gen";
import type { RuleInForce } from "../siterules";
import type { Approval } from "../approvals";

function fake() {
  const state = {
    grants: undefined as unknown,
    stored: {} as Record<string, Approval>,
    ops: [] as string[],
    logged: [] as string[],
    describe: async (_tabId: number, refs: string[]): Promise<Target[]> => refs.map(() => ({ role: "button", name: "Next" })),
  };
  const port: AskingPort = {
    describe: (tabId, refs) => state.describe(tabId, refs),
    grants: async () => state.grants,
    saveGrants: async (g) => void (state.grants = g),
    store: async (a) => void (state.stored = a),
    notice: async (tabId, op, id) => void state.ops.push(`${op} ${tabId} ${id}`),
    badge: async (tabId, on) => void state.ops.push(`badge ${tabId} ${on}`),
    log: (e) => void state.logged.push(`${e.app}: ${e.verb} [${e.outcome}]`),
    reported: () => () => undefined,
  };
  let n = 0;
  const asking = createAsking(port, () => Date.now(), () => `q${++n}`);
  return { state, asking };
}

const ask = (rule: Partial<RuleInForce> = {}): RuleInForce => ({ rule: "ask", host: "shop.test", pattern: "shop.test", scope: "each", source: "person", ...rule });
const slotOf = async () => 3;
/** Lets the fake port's promises settle (no timer runs). */
const turns = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("ask before acting", () => {
  it("waits for Allow; Deny refuses with site_rule and takes the notice down", async () => {
    const { state, asking } = fake();
    const allowed = asking.ask(1, ask(), "browser_click", { ref: "e1" }, "Claude Code", new AbortController().signal, slotOf);
    await turns();
    expect(Object.keys(state.stored)).toEqual(["q1"]);
    expect(state.stored.q1).toMatchObject({ tabId: 1, app: "Claude Code", tool: "browser_click", target: 'button "Next"', host: "shop.test" });
    expect(state.ops).toEqual(["badge 1 true", "ask_show 1 q1"]);
    expect(asking.waitingIn(1)).toBe(true);
    await asking.answer("q1", "allow");
    await expect(allowed).resolves.toBeUndefined();
    expect(asking.waitingIn(1)).toBe(false);

    const denied = asking.ask(1, ask(), "browser_click", { ref: "e1" }, "Claude Code", new AbortController().signal, slotOf).catch((e: unknown) => e);
    await turns();
    await asking.answer("q2", "deny");
    const err = await denied;
    expect(errorCode(err)).toBe(ERROR_CODES.site_rule);
    expect(String(err)).toMatch(/the person pressed Deny/);
    await turns();
    expect(state.stored).toEqual({});
    expect(state.ops).toContain("ask_hide 1 q2");
    expect(state.ops.at(-1)).toBe("badge 1 false");
    expect(state.logged).toContain("Claude Code: was not allowed to click (you pressed Deny) [refused]");
  });

  it("allow for 10 minutes lets the same app's other waiting actions on the site go, and the next one goes without asking", async () => {
    const { state, asking } = fake();
    const s = new AbortController().signal;
    const one = asking.ask(1, ask(), "browser_click", { ref: "e1" }, "Claude Code", s, slotOf);
    const two = asking.ask(2, ask(), "browser_click", { ref: "e2" }, "Claude Code", s, slotOf);
    const other = asking.ask(1, ask(), "browser_click", { ref: "e1" }, "Cursor", s, slotOf).catch((e: unknown) => e);
    await turns();
    await asking.answer("q1", "allow10");
    await expect(one).resolves.toBeUndefined();
    await expect(two).resolves.toBeUndefined();
    expect(Object.keys(state.stored)).toEqual(["q3"]);
    await expect(asking.ask(1, ask(), "browser_type", { ref: "e1" }, "Claude Code", s, slotOf)).resolves.toBeUndefined();
    // Ten minutes later the grant is gone: it asks again.
    await vi.advanceTimersByTimeAsync(10 * 60 * 1000 + 1);
    const later = asking.ask(1, ask(), "browser_click", { ref: "e1" }, "Claude Code", s, slotOf).catch((e: unknown) => e);
    await turns();
    expect(Object.keys(state.stored)).toContain("q4");
    asking.end(() => true, new CodedError(ERROR_CODES.paused, "stopped"));
    expect(errorCode(await later)).toBe(ERROR_CODES.paused);
    // Another app's question was not answered in its call's time.
    expect(errorCode(await other)).toBe(ERROR_CODES.site_rule);
  });

  it("an unanswered question is refused when the call's time is nearly up; a stopped call stops waiting with its reason", async () => {
    const { asking } = fake();
    const late = asking.ask(1, ask(), "browser_click", { ref: "e1" }, "", new AbortController().signal, slotOf).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(TIMEOUTS_MS.browser_click - 3_000 - 1);
    expect(asking.waitingIn(1)).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(errorCode(await late)).toBe(ERROR_CODES.site_rule);

    const ac = new AbortController();
    const stopped = asking.ask(1, ask(), "browser_click", { ref: "e1" }, "", ac.signal, slotOf).catch((e: unknown) => e);
    await turns();
    ac.abort(new Error("cancelled by the server"));
    expect(String(await stopped)).toMatch(/cancelled by the server/);
    expect(asking.waitingIn(1)).toBe(false);
  });

  it("a rule change decides a waiting action: act lets it go, read only refuses it, ask keeps it waiting", async () => {
    const { asking } = fake();
    const s = new AbortController().signal;
    const a = asking.ask(1, ask(), "browser_click", { ref: "e1" }, "", s, slotOf);
    const b = asking.ask(2, ask({ host: "news.test" }), "browser_click", { ref: "e1" }, "", s, slotOf).catch((e: unknown) => e);
    const c = asking.ask(3, ask({ host: "mail.test" }), "browser_click", { ref: "e1" }, "", s, slotOf).catch((e: unknown) => e);
    await turns();
    const rules: Record<number, Partial<RuleInForce>> = { 1: { rule: "act" }, 2: { rule: "read_only", host: "news.test" }, 3: { host: "mail.test" } };
    await asking.recheck(async (tabId) => ask(rules[tabId]));
    await expect(a).resolves.toBeUndefined();
    const err = await b;
    expect(errorCode(err)).toBe(ERROR_CODES.site_rule);
    expect(String(err)).toMatch(/read only/);
    expect(asking.waitingIn(3)).toBe(true);
    asking.end((t) => t === 3, new CodedError(ERROR_CODES.unshared, "unshared"));
    expect(errorCode(await c)).toBe(ERROR_CODES.unshared);
  });

  it("asks only about risky actions under that scope, and asks without names when describe runs late", async () => {
    const { state, asking } = fake();
    const s = new AbortController().signal;
    await expect(asking.ask(1, ask({ scope: "risky" }), "browser_click", { ref: "e1" }, "", s, slotOf)).resolves.toBeUndefined();
    expect(state.stored).toEqual({});
    state.describe = () => new Promise(() => undefined);
    const waits = asking.ask(1, ask(), "browser_click", { ref: "e1" }, "", s, slotOf).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(DESCRIBE_MS);
    expect(state.stored.q1).toBeDefined();
    expect(state.stored.q1!.target).toBeUndefined();
    asking.end(() => true, new CodedError(ERROR_CODES.paused, "stopped"));
    await waits;
  });
});
