// The site-rule gate with a fake Chrome (issue 44): what each rule lets
// through, the person's Allow/Deny under "ask before acting", a rule
// changed while an action waits, the organisation's policy over the
// person's rules, and a shared tab leaving the AI's reach on a never site.
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { KEY_APPROVALS, normalizeApprovals } from "../../lib/approvals";
import { KEY_SITE_RULES, type PersonRule } from "../../lib/siterules";
import { errorCode } from "../../lib/peer";
import { ERROR_CODES } from "../../lib/protocol.gen";
import { chainRule } from "../../lib/worker/frame-rules";

const local = new Map<string, unknown>();
const session = new Map<string, unknown>();
let managed: Record<string, unknown> = {};
const listeners: ((changes: Record<string, { oldValue?: unknown; newValue?: unknown }>, area: string) => void)[] = [];
const tabUrls = new Map<number, string>();
const ops: string[] = [];
const logged: string[] = [];

function area(m: Map<string, unknown>, name: string) {
  return {
    remove: async (k: string) => void m.delete(k),
    get: async (keys: string | string[]) => Object.fromEntries((Array.isArray(keys) ? keys : [keys]).filter((k) => m.has(k)).map((k) => [k, structuredClone(m.get(k))])),
    set: async (items: Record<string, unknown>) => {
      const changes: Record<string, { oldValue?: unknown; newValue?: unknown }> = {};
      for (const [k, v] of Object.entries(items)) {
        changes[k] = { oldValue: m.get(k), newValue: structuredClone(v) };
        m.set(k, structuredClone(v));
      }
      for (const l of listeners) l(changes, name);
    },
  };
}

vi.stubGlobal("chrome", {
  storage: {
    local: area(local, "local"),
    session: area(session, "session"),
    managed: { get: async () => structuredClone(managed) },
    onChanged: { addListener: (l: (typeof listeners)[number]) => listeners.push(l) },
  },
  tabs: { get: async (id: number) => ({ id, url: tabUrls.get(id) ?? "about:blank" }) },
});
vi.mock("./content-ops", () => ({
  contentOp: async (tabId: number, op: string, args: { refs?: string[] }) => {
    ops.push(`${op} ${tabId}`);
    if (op === "describe") return { targets: (args.refs ?? []).map(() => ({ role: "button", name: names.get(tabId) ?? "Next", secret: false })) };
    return {};
  },
}));
vi.mock("./steer", () => ({
  appendActivity: async (e: { app: string; verb: string }) => void logged.push(`${e.app}: ${e.verb}`),
  keepActivitySince: async () => undefined,
  setAskBadge: async (tabId: number, on: boolean) => void ops.push(`badge ${tabId} ${on}`),
}));

const names = new Map<number, string>();
let sr: typeof import("./siterules");
const left: { tabId: number; code?: string; text: string }[] = [];
/** The URL of each frame ref's frame (frames.ts answers the gate from the tab's frame tree). */
const frameUrls = new Map<string, string>();

beforeAll(async () => {
  sr = await import("./siterules");
  sr.installSiteRules({
    leave: (tabId, reason) => void left.push({ tabId, code: errorCode(reason), text: reason.message }),
    shares: async () => ({ "1": 1, "2": 2 }),
    changed: () => undefined,
    frameRule: async (tabId, ref) => {
      const url = frameUrls.get(ref);
      if (url === undefined) return null;
      const frames = [
        { frameId: 0, parentFrameId: -1, url: tabUrls.get(tabId) ?? "" },
        { frameId: 3, parentFrameId: 0, url },
      ];
      return chainRule(frames, 3, sr.ruleForUrl) ?? null;
    },
    // As frames.ts: a frame ref is described by its frame's content script, a top-frame ref by the top's.
    describe: async (tabId, refs) => refs.map((r) => (frameUrls.has(r) ? { role: "button", name: `Pay in frame ${r}` } : { role: "button", name: names.get(tabId) ?? "Next" })),
  });
  await sr.loadRules();
});

async function setRules(rules: PersonRule[]): Promise<void> {
  await chrome.storage.local.set({ [KEY_SITE_RULES]: rules });
}
async function setPolicy(p: Record<string, unknown>): Promise<void> {
  managed = p;
  for (const l of listeners) l({}, "managed");
  await until(() => JSON.stringify(sr.currentPolicy() ?? {}) !== "{}" || Object.keys(p).length === 0);
}
/** Waits for the fake's own state (no timer): microtask and macrotask turns until cond holds. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setImmediate(r));
  expect(cond()).toBe(true);
}
const resolveTab = async (t: number | undefined) => ({ id: t ?? 1 });
const slotOf = async (t: number) => t;
function gate(type: string, payload: Record<string, unknown>, tabId = 1, signal = new AbortController().signal) {
  return sr.siteGate(type, { app: "Claude Code", ...payload }, tabId, resolveTab, slotOf, signal);
}
function waitingIds(): string[] {
  return normalizeApprovals(session.get(KEY_APPROVALS)).map((a) => a.id);
}

beforeEach(async () => {
  managed = {};
  for (const l of listeners) l({}, "managed");
  await setRules([]);
  await until(() => sr.currentPolicy() === undefined);
  tabUrls.set(1, "https://shop.test/cart");
  tabUrls.set(2, "https://news.test/");
  ops.length = 0;
  logged.length = 0;
  left.length = 0;
  names.clear();
  session.clear();
  frameUrls.clear();
});

describe("the site rules' gate for a ref into a frame", () => {
  it("refuses an action by ref into a never frame or a read-only frame, naming the frame's rule", async () => {
    await setRules([
      { pattern: "pay.test", rule: "never" },
      { pattern: "coupons.test", rule: "read_only" },
    ]);
    frameUrls.set("f2e5", "https://pay.test/card");
    frameUrls.set("f3e1", "https://coupons.test/");
    const never = await gate("browser_click", { ref: "f2e5" }).catch((e: unknown) => e);
    expect(errorCode(never)).toBe(ERROR_CODES.site_rule);
    expect(String(never)).toMatch(/ref f2e5 is in a frame of the page on pay\.test, a site the person's site rules keep from the AI \(never: pay\.test\)/);
    const ro = await gate("browser_type", { ref: "f3e1", text: "SAVE10" }).catch((e: unknown) => e);
    expect(errorCode(ro)).toBe(ERROR_CODES.site_rule);
    expect(String(ro)).toMatch(/on coupons\.test, which the person's site rules make read only for the AI \(coupons\.test\): reading the frame works, but to type there is refused/);
    // A drag from the page into the never frame: the strictest of its refs.
    expect(errorCode(await gate("browser_drag", { startRef: "e1", endRef: "f2e5" }).catch((e: unknown) => e))).toBe(ERROR_CODES.site_rule);
    // Reads by ref pass the gate (frames.ts refuses those into a never frame), and top-frame refs act.
    await expect(gate("browser_snapshot", { ref: "f2e5" })).resolves.toBeUndefined();
    await expect(gate("browser_click", { ref: "e1" })).resolves.toBeUndefined();
    expect(ops.filter((o) => !o.startsWith("badge"))).toEqual([]);
  });

  it("ask for a frame's site asks the person, naming that site; Deny refuses", async () => {
    await setRules([{ pattern: "pay.test", rule: "ask" }]);
    frameUrls.set("f2e5", "https://pay.test/card");
    const p = gate("browser_click", { ref: "f2e5" }).catch((e: unknown) => e);
    await until(() => waitingIds().length === 1);
    expect(normalizeApprovals(session.get(KEY_APPROVALS))[0]).toMatchObject({ host: "pay.test", target: 'button "Pay in frame f2e5"' });
    await sr.answerApproval(waitingIds()[0]!, "deny");
    expect(String(await p)).toMatch(/pay\.test is "ask before acting" .* the person pressed Deny/);
  });

  it("the top frame's stricter rule is the one in force", async () => {
    await setRules([
      { pattern: "shop.test", rule: "read_only" },
      { pattern: "pay.test", rule: "ask" },
    ]);
    frameUrls.set("f2e5", "https://pay.test/card");
    const err = await gate("browser_click", { ref: "f2e5" }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/the person's site rules make shop\.test read only/);
    expect(waitingIds()).toEqual([]);
  });
});

describe("the site rules' gate", () => {
  it("acts by default", async () => {
    await expect(gate("browser_click", { ref: "e1" })).resolves.toBeUndefined();
  });

  it("read only: reads pass, every action is refused with code site_rule naming the rule", async () => {
    await setRules([{ pattern: "shop.test", rule: "read_only" }]);
    await expect(gate("browser_snapshot", {})).resolves.toBeUndefined();
    await expect(gate("browser_scroll", {})).resolves.toBeUndefined();
    for (const t of ["browser_click", "browser_type", "browser_evaluate", "browser_upload_file", "browser_press_key"]) {
      const err = await gate(t, { ref: "e1" }).catch((e: unknown) => e);
      expect(errorCode(err), t).toBe(ERROR_CODES.site_rule);
      expect(String(err), t).toMatch(/the person's site rules make shop\.test read only/);
    }
    // Another site is not touched.
    await expect(gate("browser_click", { ref: "e1" }, 2)).resolves.toBeUndefined();
  });

  it("never: navigating there is refused", async () => {
    await setRules([{ pattern: "*.bank.test", rule: "never" }]);
    const err = await gate("browser_navigate", { url: "https://www.bank.test/login" }).catch((e: unknown) => e);
    expect(errorCode(err)).toBe(ERROR_CODES.site_rule);
    expect(String(err)).toMatch(/keep the AI off \*\.bank\.test \(never\)/);
    await expect(gate("browser_navigate", { url: "https://bank.test.example/" })).resolves.toBeUndefined();
  });

  it("ask: the action waits for Allow, and Deny refuses it without touching the page", async () => {
    await setRules([{ pattern: "shop.test", rule: "ask" }]);
    const allowed = gate("browser_click", { ref: "e1" });
    await until(() => waitingIds().length === 1);
    expect(ops).toContain("ask_show 1");
    expect(ops).toContain("badge 1 true");
    await sr.answerApproval(waitingIds()[0]!, "allow");
    await expect(allowed).resolves.toBeUndefined();
    expect(waitingIds()).toEqual([]);

    const denied = gate("browser_click", { ref: "e1" }).catch((e: unknown) => e);
    await until(() => waitingIds().length === 1);
    await sr.answerApproval(waitingIds()[0]!, "deny");
    const err = await denied;
    expect(errorCode(err)).toBe(ERROR_CODES.site_rule);
    expect(String(err)).toMatch(/the person pressed Deny/);
    expect(ops).toContain("ask_hide 1");
    expect(logged.some((l) => l.startsWith("Claude Code: asked you to allow it to click"))).toBe(true);
    expect(logged.some((l) => l.startsWith("Claude Code: was not allowed to click (you pressed Deny)"))).toBe(true);
  });

  it("ask, allow for 10 minutes: the app's next actions on the site go without asking", async () => {
    await setRules([{ pattern: "shop.test", rule: "ask" }]);
    const first = gate("browser_click", { ref: "e1" });
    await until(() => waitingIds().length === 1);
    await sr.answerApproval(waitingIds()[0]!, "allow10");
    await first;
    await expect(gate("browser_type", { ref: "e2", text: "x" })).resolves.toBeUndefined();
    expect(waitingIds()).toEqual([]);
  });

  it("ask only about submissions, purchases and deletions: an ordinary click goes, Place order waits", async () => {
    await setRules([{ pattern: "shop.test", rule: "ask", scope: "risky" }]);
    names.set(1, "Next page");
    await expect(gate("browser_click", { ref: "e1" })).resolves.toBeUndefined();
    names.set(1, "Place order");
    const p = gate("browser_click", { ref: "e1" }).catch((e: unknown) => e);
    await until(() => waitingIds().length === 1);
    await sr.answerApproval(waitingIds()[0]!, "deny");
    expect(errorCode(await p)).toBe(ERROR_CODES.site_rule);
  });

  it("a rule changed while an action waits decides it: act lets it go, read only refuses it", async () => {
    await setRules([{ pattern: "shop.test", rule: "ask" }]);
    const p = gate("browser_click", { ref: "e1" });
    await until(() => waitingIds().length === 1);
    await setRules([{ pattern: "shop.test", rule: "act" }]);
    await expect(p).resolves.toBeUndefined();

    await setRules([{ pattern: "shop.test", rule: "ask" }]);
    const q = gate("browser_click", { ref: "e1" }).catch((e: unknown) => e);
    await until(() => waitingIds().length === 1);
    await setRules([{ pattern: "shop.test", rule: "read_only" }]);
    const err = await q;
    expect(errorCode(err)).toBe(ERROR_CODES.site_rule);
    expect(String(err)).toMatch(/read only/);
  });

  it("a stopped call stops waiting with its own reason", async () => {
    await setRules([{ pattern: "shop.test", rule: "ask" }]);
    const ctl = new AbortController();
    const p = gate("browser_click", { ref: "e1" }, 1, ctl.signal).catch((e: unknown) => e);
    await until(() => waitingIds().length === 1);
    ctl.abort(new Error("stopped by the test"));
    expect(String(await p)).toMatch(/stopped by the test/);
    expect(waitingIds()).toEqual([]);
  });

  it("a rule changed to never for a shared tab's site takes the tab out of reach", async () => {
    await setRules([{ pattern: "news.test", rule: "never" }]);
    await until(() => left.length === 1);
    expect(left[0]).toMatchObject({ tabId: 2, code: ERROR_CODES.unshared });
    expect(left[0]!.text).toMatch(/tab 2 went to news\.test.*never.*left your reach/);
    expect(sr.takeLeft()).toEqual([{ slot: 2, reason: left[0]!.text }]);
  });
});

describe("the organisation's policy in the gate", () => {
  it("wins over the person's rule and is named as the organisation's", async () => {
    await setRules([{ pattern: "shop.test", rule: "act" }]);
    await setPolicy({ readOnlySites: ["shop.test"] });
    const err = await gate("browser_click", { ref: "e1" }).catch((e: unknown) => e);
    expect(errorCode(err)).toBe(ERROR_CODES.site_rule);
    expect(String(err)).toMatch(/your organisation's policy makes shop\.test read only/);
  });

  it("refuses a forbidden capability and an AI app it does not list", async () => {
    await setPolicy({ capabilities: { evaluate: false, coordinates: false }, allowedApps: ["Claude Code"] });
    expect(String(await gate("browser_evaluate", { expression: "1" }).catch((e: unknown) => e))).toMatch(/does not allow running JavaScript/);
    expect(String(await gate("browser_click_xy", { x: 1, y: 1 }).catch((e: unknown) => e))).toMatch(/clicking and dragging at screen points/);
    await expect(gate("browser_click", { ref: "e1" })).resolves.toBeUndefined();
    const err = await sr.siteGate("browser_snapshot", { app: "Cursor" }, 1, resolveTab, slotOf, new AbortController().signal).catch((e: unknown) => e);
    expect(errorCode(err)).toBe(ERROR_CODES.site_rule);
    expect(String(err)).toMatch(/only these AI apps.*"Claude Code".*"Cursor"/);
  });

  it("a site it blocks leaves the AI's reach when a shared tab goes there", async () => {
    await setPolicy({ blockedSites: ["*.bank.test"] });
    expect(sr.leavesReach(1, "https://www.bank.test/", 1)).toBe(true);
    expect(left.at(-1)!.text).toMatch(/your organisation's policy keeps from the AI/);
    expect(sr.leavesReach(1, "https://shop.test/", 1)).toBe(false);
  });
});
