// The debugger lets go (issue 21), with a fake chrome.debugger: attachments
// a restarted worker lost track of are detached, and the person's Cancel on
// Chrome's debugging bar switches the mode off (unless it follows our own
// detach or the tab closing).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

type Listener = (...a: unknown[]) => void;

interface Fake {
  local: Record<string, unknown>;
  session: Record<string, unknown>;
  /** Tabs Chrome holds a session of ours for. */
  ours: Set<number>;
  /** Attached tab targets of other clients (DevTools, a test's CDP). */
  others: Set<number>;
  detachCalls: number[];
  attachCalls: number[];
  /** Fires a chrome.debugger event of tabId's session. */
  fireEvent(tabId: number, method: string, params: unknown): void;
  fireDetach(tabId: number, reason: string): void;
}

function fakeChrome(consent: Record<string, unknown>): Fake {
  const changed: Listener[] = [];
  const onDetach: Listener[] = [];
  const onEvent: Listener[] = [];
  const f: Fake = {
    fireEvent: (tabId, method, params) => {
      for (const l of onEvent) l({ tabId }, method, params);
    },
    local: { consent },
    session: {},
    ours: new Set(),
    others: new Set(),
    detachCalls: [],
    attachCalls: [],
    fireDetach: (tabId, reason) => {
      f.ours.delete(tabId);
      for (const l of onDetach) l({ tabId }, reason);
    },
  };
  const area = (store: Record<string, unknown>, name: string) => ({
    get: async (keys: string | string[]) => {
      const out: Record<string, unknown> = {};
      for (const k of Array.isArray(keys) ? keys : [keys]) if (k in store) out[k] = structuredClone(store[k]);
      return out;
    },
    set: async (items: Record<string, unknown>) => {
      const changes: Record<string, { oldValue?: unknown; newValue?: unknown }> = {};
      for (const [k, v] of Object.entries(items)) {
        changes[k] = { oldValue: store[k], newValue: v };
        store[k] = structuredClone(v);
      }
      for (const l of changed) l(changes, name);
    },
    remove: async (k: string) => {
      delete store[k];
    },
  });
  vi.stubGlobal("chrome", {
    storage: {
      local: area(f.local, "local"),
      session: area(f.session, "session"),
      onChanged: { addListener: (l: Listener) => changed.push(l) },
    },
    scripting: { executeScript: async () => [] },
    debugger: {
      attach: async ({ tabId }: { tabId: number }) => {
        f.attachCalls.push(tabId);
        if (f.ours.has(tabId)) throw new Error(`Another debugger is already attached to the tab with id: ${tabId}.`);
        f.ours.add(tabId);
      },
      detach: async ({ tabId }: { tabId: number }) => {
        f.detachCalls.push(tabId);
        if (!f.ours.has(tabId)) throw new Error(`Debugger is not attached to the tab with id: ${tabId}.`);
        f.ours.delete(tabId);
      },
      getTargets: async () => {
        const all = new Set([...f.ours, ...f.others, 99]);
        return [...all].map((tabId) => ({ tabId, type: "page", id: `t${tabId}`, attached: f.ours.has(tabId) || f.others.has(tabId), title: "", url: "" }));
      },
      sendCommand: async (_t: unknown, method: string) => (method === "Network.getResponseBody" ? { body: "the page's answer", base64Encoded: false } : {}),
      onDetach: { addListener: (l: Listener) => onDetach.push(l) },
      onEvent: { addListener: (l: Listener) => onEvent.push(l) },
    },
  });
  return f;
}

async function load() {
  vi.resetModules();
  const gate = await import("./gate");
  gate.setShareState({ ready: async () => undefined, shared: () => true });
  return import("./debugger");
}

/** Lets every pending promise chain run (no real time passes). */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("lost attachments", () => {
  it("a starting worker detaches what an old worker left attached, and leaves other clients' sessions alone", async () => {
    const f = fakeChrome({ debugger: true });
    f.ours.add(5); // attached by the worker before its restart
    f.others.add(6); // a DevTools session
    const d = await load();
    d.installDebugger();
    await settle();
    expect(f.ours.has(5)).toBe(false);
    expect(f.detachCalls).toContain(5);
    expect(f.others.has(6)).toBe(true);
    expect(f.detachCalls).not.toContain(99); // not attached: not asked
  });

  it("switching the mode off and unsharing detach attachments the worker has no session for", async () => {
    const f = fakeChrome({ debugger: true });
    const d = await load();
    d.installDebugger();
    await settle();
    // Lost after the start (an attach whose session record was dropped).
    f.ours.add(7);
    f.ours.add(8);
    await d.detachUnshared(new Set([8]));
    expect(f.ours.has(7)).toBe(false);
    expect(f.ours.has(8)).toBe(true);
    // A session of ours plus the lost one: the mode off lets go of both.
    await d.withDebugger(9, async () => undefined);
    expect(f.ours.has(9)).toBe(true);
    await chrome.storage.local.set({ consent: { debugger: false } });
    await settle();
    expect([...f.ours]).toEqual([]);
  });
});

describe("canceled_by_user", () => {
  it("the person's Cancel switches the mode off for the profile, the AI is told once, and the next action does not attach", async () => {
    const f = fakeChrome({ debugger: true, evaluate: true });
    const d = await load();
    d.installDebugger();
    await d.withDebugger(3, async () => undefined);
    f.fireDetach(3, "canceled_by_user");
    await vi.advanceTimersByTimeAsync(d.CANCEL_GRACE_MS);
    const consent = f.local.consent as Record<string, unknown>;
    expect(consent.debugger).toBe(false);
    expect(consent.evaluate).toBe(true);
    expect(typeof consent.debuggerCancelled).toBe("number");
    await expect(d.takeCancelNotice()).resolves.toMatch(/The person cancelled Chrome's debugging/);
    await expect(d.takeCancelNotice()).resolves.toBeUndefined();
    expect(await d.debuggerEnabled()).toBe(false);
    const attaches = f.attachCalls.length;
    await expect(d.withDebugger(3, async () => undefined)).rejects.toThrow(/debugger mode is off/);
    expect(f.attachCalls.length).toBe(attaches);
  });

  it("is not the person's cancel right after our own detach or when the tab closes", async () => {
    const f = fakeChrome({ debugger: true });
    const d = await load();
    d.installDebugger();
    // Our own detach (the tab unshared), then Chrome reports canceled_by_user.
    await d.withDebugger(3, async () => undefined);
    await d.detachUnshared(new Set());
    f.fireDetach(3, "canceled_by_user");
    // The tab closes just after Chrome's report.
    await d.withDebugger(4, async () => undefined);
    f.fireDetach(4, "canceled_by_user");
    await vi.advanceTimersByTimeAsync(d.CANCEL_GRACE_MS / 2);
    d.forgetDebuggerTab(4, Date.now());
    await vi.advanceTimersByTimeAsync(d.CANCEL_GRACE_MS);
    expect((f.local.consent as Record<string, unknown>).debugger).toBe(true);
    await expect(d.takeCancelNotice()).resolves.toBeUndefined();
  });

  it("unsharing a tab drops the response bodies captured in it", async () => {
    const f = fakeChrome({ debugger: true });
    const d = await load();
    d.installDebugger();
    await settle();
    await d.withDebugger(9, async () => {
      f.fireEvent(9, "Network.responseReceived", { requestId: "r1", response: { url: "https://a.test/api/me" } });
      f.fireEvent(9, "Network.loadingFinished", { requestId: "r1" });
      await settle();
    });
    expect(d.bodiesOf(9).map((b) => b.body)).toEqual(["the page's answer"]);
    await d.detachUnshared(new Set([10]));
    expect(d.bodiesOf(9)).toEqual([]);
  });
});

describe("failures reported", () => {
  it("a refused Network.enable goes to the diagnostics log, and the session still attaches", async () => {
    const f = fakeChrome({ debugger: true });
    const dbg = chrome.debugger as unknown as { sendCommand: (t: unknown, method: string) => Promise<unknown> };
    dbg.sendCommand = async (_t, method) => {
      if (method === "Network.enable") throw new Error("Network domain is not available");
      return {};
    };
    const d = await load();
    const diag = await import("../../lib/diag");
    const got: { where: string; message: string }[] = [];
    diag.setDiagSink((e) => got.push(e));
    d.installDebugger();
    await settle();
    await d.withDebugger(9, async () => undefined);
    const reported = got.find((e) => e.where === "debugger: Network.enable");
    expect(reported?.message).toContain("Network domain is not available");
    expect(f.ours.has(9)).toBe(true);
  });
});
