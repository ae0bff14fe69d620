// Stop and Resume with a fake Chrome: the server is sent the new pause
// before it is stored, because the popup renders from storage; a popup that
// showed "resumed" first would let the AI's next call meet a server that
// still refuses it (seen in CI: TestStopEndsQueuedCallsAndWaits).
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { KEY_PAUSE, normalizePause } from "../../lib/activity";
import { ERROR_CODES } from "../../lib/protocol.gen";

/** What happened, in order: "push <pause as the server was told>" or "store <pause as stored>". */
let events: string[];
const stored = new Map<string, unknown>();

vi.stubGlobal("chrome", {
  storage: {
    local: {
      get: async (keys: string | string[]) => Object.fromEntries((Array.isArray(keys) ? keys : [keys]).filter((k) => stored.has(k)).map((k) => [k, structuredClone(stored.get(k))])),
      set: async (items: Record<string, unknown>) => {
        for (const [k, v] of Object.entries(items)) {
          stored.set(k, structuredClone(v));
          if (k === KEY_PAUSE) events.push(`store ${JSON.stringify(normalizePause(v))}`);
        }
      },
    },
    onChanged: { addListener: () => undefined },
  },
  action: {
    getTitle: async () => "",
    setTitle: async () => undefined,
    getBadgeText: async () => "",
    setBadgeText: async () => undefined,
    setBadgeBackgroundColor: async () => undefined,
  },
});

let steer: typeof import("./steer");
beforeAll(async () => {
  steer = await import("./steer");
});

beforeEach(() => {
  events = [];
  // As index.ts: tabs_changed with the pause, through the offscreen document (a round trip).
  steer.onPauseChanged(async () => {
    const told = JSON.stringify({ paused: steer.isPaused(), tabs: steer.pausedTabs() });
    await new Promise((r) => setImmediate(r)); // a round trip: a later task, not a timer
    events.push(`push ${told}`);
  });
});

describe("the pause reaches the server before the popup can show it", () => {
  it("Stop and Resume of the profile", async () => {
    await steer.setPaused(true);
    expect(events.map((e) => e.split(" ")[0])).toEqual(["push", "store"]);
    expect(events[0]).toContain('"paused":true');
    events = [];
    await steer.setPaused(false);
    expect(events.map((e) => e.split(" ")[0])).toEqual(["push", "store"]);
    expect(events[0]).toContain('"paused":false');
  });

  it("a tab's own Pause and Resume", async () => {
    await steer.setTabPaused(7, true);
    expect(events).toEqual(['push {"paused":false,"tabs":[7]}', expect.stringMatching(/^store .*"tabs":\[7\]/)]);
    events = [];
    await steer.setTabPaused(7, false);
    expect(events).toEqual(['push {"paused":false,"tabs":[]}', expect.stringMatching(/^store /)]);
    expect(steer.pausedFor(7)).toBeUndefined();
  });
});

describe("the pause gate (issue 40, finding 9)", () => {
  const port = { resolveTab: async (t: number | undefined) => ({ id: t ?? 1 }), slotOf: async () => 1 };
  const paused = (f: () => void) => {
    try {
      f();
    } catch (e) {
      return (e as { code?: string }).code;
    }
    return "ran";
  };

  it("refuses a wire request while Stop is on, for the profile or the request's tab, and lets it run after Resume", async () => {
    await steer.setPaused(false);
    await steer.setTabPaused(7, false);
    expect(paused(() => steer.pauseGate("browser_click", { tabId: 7, ref: "e1" }, 7, port))).toBe("ran");
    await steer.setPaused(true);
    expect(paused(() => steer.pauseGate("browser_click", { tabId: 7, ref: "e1" }, 7, port))).toBe(ERROR_CODES.paused);
    expect(paused(() => steer.pauseGate("browser_snapshot", {}, undefined, port))).toBe(ERROR_CODES.paused);
    await steer.setPaused(false);
    await steer.setTabPaused(7, true);
    expect(paused(() => steer.pauseGate("browser_type", { tabId: 7, ref: "e2", text: "x" }, 7, port))).toBe(ERROR_CODES.paused);
    expect(paused(() => steer.pauseGate("browser_click", { tabId: 8, ref: "e1" }, 8, port))).toBe("ran");
    await steer.setTabPaused(7, false);
    expect(paused(() => steer.pauseGate("browser_type", { tabId: 7, ref: "e2", text: "x" }, 7, port))).toBe("ran");
  });
});

describe("the service worker runs every wire request through the pause gate", () => {
  it("index.ts exec: the gate before the targets are read, again after, and before the request runs", async () => {
    const { readFileSync } = await import("node:fs");
    const ts = (await import("typescript")).default;
    const file = new URL("./index.ts", import.meta.url);
    const src = ts.createSourceFile("index.ts", readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    let exec: import("typescript").Node | undefined;
    const find = (n: import("typescript").Node): void => {
      if (ts.isPropertyAssignment(n) && n.name.getText(src) === "exec") exec = n;
      else ts.forEachChild(n, find);
    };
    find(src);
    expect(exec, "index.ts has an exec handler").toBeDefined();
    // The calls of the handler itself, in source order (not those in nested functions).
    const calls: string[] = [];
    const walk = (n: import("typescript").Node): void => {
      if (ts.isCallExpression(n)) calls.push(n.expression.getText(src));
      if (!ts.isArrowFunction(n) || n.parent === exec) ts.forEachChild(n, walk);
    };
    ts.forEachChild(exec!, walk);
    const at = (name: string, from = 0) => calls.indexOf(name, from);
    const first = at("pauseGate");
    const watch = at("watchCall");
    const second = at("pauseGate", watch + 1);
    const run = at("executor.execute");
    expect(first, calls.join(", ")).toBeGreaterThanOrEqual(0);
    expect(watch).toBeGreaterThan(first);
    expect(second).toBeGreaterThan(watch);
    expect(run).toBeGreaterThan(second);
  });
});
