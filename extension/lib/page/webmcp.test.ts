import { afterEach, describe, expect, it, vi } from "vitest";
import { abortSiteToolInPage, listSiteToolsInPage, PAGE_STATE, runSiteToolInPage } from "./webmcp";

type Tool = Record<string, unknown> & { execute?: (a: unknown, o?: unknown) => unknown };

/** Installs a fake WebMCP API on the document (or navigator) the way a browser build would. */
function install(where: "document" | "navigator", api: Record<string, unknown>): void {
  Object.defineProperty(where === "document" ? document : navigator, "modelContext", { value: api, configurable: true });
}

function current(tools: Tool[], opts: { stringArgsOnly?: boolean } = {}) {
  const seen: unknown[] = [];
  install("document", {
    getTools: async () => tools.map((t) => ({ ...t, window })),
    executeTool: async (t: { name: string }, args: unknown, o?: { signal?: AbortSignal }) => {
      if (opts.stringArgsOnly && typeof args !== "string") throw new TypeError("Failed to execute 'executeTool': parameter 2 is not of type 'DOMString'.");
      seen.push(args);
      const tool = tools.find((x) => x.name === t.name);
      return tool?.execute?.(args, o);
    },
  });
  return seen;
}

/**
 * A modelContext the way Chromium 156 has it: an EventTarget whose
 * registerTool and unregistering fire toolchange (checked in Debian's
 * Chromium 156 with --enable-features=WebMCP); counts its getTools calls.
 */
class LiveContext extends EventTarget {
  reads = 0;
  /** Set to hold getTools until released (a toolchange can come meanwhile). */
  hold?: Promise<void>;
  constructor(public tools: Tool[]) {
    super();
  }
  async getTools() {
    this.reads++;
    const list = this.tools.map((t) => ({ ...t }));
    if (this.hold) await this.hold;
    return list;
  }
  async executeTool(t: { name: string }, args: unknown, o?: { signal?: AbortSignal }) {
    return this.tools.find((x) => x.name === t.name)?.execute?.(args, o);
  }
  register(t: Tool) {
    this.tools.push(t);
    this.dispatchEvent(new Event("toolchange"));
  }
}

function live(tools: Tool[]): LiveContext {
  const mc = new LiveContext(tools);
  install("document", mc as unknown as Record<string, unknown>);
  return mc;
}

afterEach(() => {
  delete (document as unknown as Record<string, unknown>).modelContext;
  delete (navigator as unknown as Record<string, unknown>).modelContext;
  vi.useRealTimers();
});

describe("listSiteToolsInPage", () => {
  it("hands over plain data: no window, annotations as booleans, schema cloned", async () => {
    current([{ name: "search", description: "Find.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, debugging: false, odd: "x" } }]);
    const got = await listSiteToolsInPage(10);
    expect(got.api).toBe("modelContext");
    expect(got.tools).toEqual([{ name: "search", description: "Find.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, debugging: false } }]);
    expect(() => structuredClone(got)).not.toThrow();
  });
  it("survives hostile tool objects: throwing getters, cyclic schemas", async () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.self = cyclic;
    const evil = {
      get name() {
        return "evil";
      },
      get description(): string {
        throw new Error("no");
      },
      inputSchema: cyclic,
    };
    install("document", { getTools: async () => [evil] });
    expect((await listSiteToolsInPage(10)).tools).toEqual([{ name: "evil", inputSchema: undefined }]);
  });
  it("bounds how many tools one frame hands over", async () => {
    current(Array.from({ length: 50 }, (_, i) => ({ name: `t${i}` })));
    expect((await listSiteToolsInPage(5)).tools.length).toBe(5);
  });
  it("reads earlier builds: navigator.modelContextTesting.listTools and navigator.modelContext.listTools", async () => {
    Object.defineProperty(navigator, "modelContextTesting", { value: { listTools: () => [{ name: "old", inputSchema: '{"type":"object"}' }] }, configurable: true });
    expect(await listSiteToolsInPage(10)).toMatchObject({ api: "modelContextTesting", tools: [{ name: "old", inputSchema: '{"type":"object"}' }] });
    delete (navigator as unknown as Record<string, unknown>).modelContextTesting;
    install("navigator", { listTools: async () => [{ name: "nav" }] });
    expect(await listSiteToolsInPage(10)).toMatchObject({ api: "modelContext", tools: [{ name: "nav" }] });
  });
  it("says when there is no API, and whether the frame is a secure context (where browsers offer it)", async () => {
    expect(await listSiteToolsInPage(10)).toEqual({ api: "none", tools: [], secure: false });
    Object.defineProperty(globalThis, "isSecureContext", { value: true, configurable: true });
    try {
      expect(await listSiteToolsInPage(10)).toEqual({ api: "none", tools: [], secure: true });
    } finally {
      delete (globalThis as Record<string, unknown>).isSecureContext;
    }
  });
});

describe("listSiteToolsInPage's kept count", () => {
  it("answers a count from what it kept until toolchange, then reads again", async () => {
    const mc = live([{ name: "a" }, { name: "b" }]);
    expect(await listSiteToolsInPage(10, true)).toEqual({ api: "modelContext", tools: [], count: 2, secure: false });
    expect(mc.reads).toBe(1);
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 2 });
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 2 });
    expect(mc.reads).toBe(1); // kept: the page was not asked again
    mc.register({ name: "late" });
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 3 });
    expect(mc.reads).toBe(2);
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 3 });
    expect(mc.reads).toBe(2);
  });
  it("a full listing always asks the page, so it is never old, and renews the count", async () => {
    const mc = live([{ name: "a" }]);
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 1 });
    // A change the page made without its event (the list must still show it).
    mc.tools.push({ name: "quiet" });
    expect((await listSiteToolsInPage(10)).tools).toEqual([{ name: "a" }, { name: "quiet" }]);
    expect(mc.reads).toBe(2);
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 2 });
    expect(mc.reads).toBe(2);
  });
  it("does not keep a count read across a toolchange", async () => {
    const mc = live([{ name: "a" }]);
    await listSiteToolsInPage(10, true); // listening from now on
    mc.register({ name: "b" });
    let release!: () => void;
    mc.hold = new Promise((r) => (release = r));
    const reading = listSiteToolsInPage(10, true);
    await Promise.resolve();
    mc.register({ name: "c" }); // while getTools is out: its answer may be old
    mc.hold = undefined;
    release();
    expect(await reading).toMatchObject({ count: 2 });
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 3 });
    expect(mc.reads).toBe(3);
  });
  it("counts the tools the worker keeps: usable names, once, at most max", async () => {
    live([{ name: "a" }, { name: "a" }, { name: "" }, { name: "   " }, { name: "x".repeat(201) }, { name: 7 }, { name: "b" }]);
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 2 });
    live(Array.from({ length: 50 }, (_, i) => ({ name: `t${i}` })));
    expect(await listSiteToolsInPage(5, true)).toMatchObject({ count: 5 });
  });
  it("keeps nothing without a toolchange event (earlier builds), or when the page took the state's place", async () => {
    let reads = 0;
    install("document", { getTools: async () => (reads++, [{ name: "a" }]) });
    await listSiteToolsInPage(10, true);
    await listSiteToolsInPage(10, true);
    expect(reads).toBe(2);
    const mc = new LiveContext([{ name: "a" }]);
    Object.defineProperty(mc, Symbol.for(PAGE_STATE), {
      get() {
        throw new Error("planted");
      },
    });
    install("document", mc as unknown as Record<string, unknown>);
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 1 });
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 1 });
    expect(mc.reads).toBe(2);
  });
  it("a new document (a new modelContext) starts with nothing kept", async () => {
    live([{ name: "a" }]);
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 1 });
    const next = live([{ name: "x" }, { name: "y" }]);
    expect(await listSiteToolsInPage(10, true)).toMatchObject({ count: 2 });
    expect(next.reads).toBe(1);
  });
});

describe("runSiteToolInPage", () => {
  it("runs the tool by name with object arguments; objects come back as JSON", async () => {
    const seen = current([{ name: "add", execute: (a) => ({ sum: (a as { x: number }).x + 1 }) }]);
    expect(await runSiteToolInPage("add", { x: 1 }, 1000, 100)).toEqual({ ok: true, result: '{"sum":2}' });
    expect(seen).toEqual([{ x: 1 }]);
  });
  it("falls back to the JSON-string arguments of earlier builds", async () => {
    const seen = current([{ name: "echo", execute: (a) => `got ${String(a)}` }], { stringArgsOnly: true });
    expect(await runSiteToolInPage("echo", { q: "tea" }, 1000, 100)).toEqual({ ok: true, result: 'got {"q":"tea"}' });
    expect(seen).toEqual(['{"q":"tea"}']);
  });
  it("says a tool is gone, a tool failed, no API", async () => {
    current([{ name: "boom", execute: () => Promise.reject(new Error("stock service down")) }]);
    expect(await runSiteToolInPage("gone", {}, 1000, 100)).toMatchObject({ ok: false, missing: true });
    expect(await runSiteToolInPage("boom", {}, 1000, 100)).toEqual({ ok: false, error: "Error: stock service down" });
    delete (document as unknown as Record<string, unknown>).modelContext;
    expect(await runSiteToolInPage("boom", {}, 1000, 100)).toMatchObject({ ok: false, unsupported: true });
  });
  it("stops waiting at its timeout and aborts the tool's signal", async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    current([{ name: "slow", execute: (_a, o) => ((signal = (o as { signal: AbortSignal }).signal), new Promise(() => undefined)) }]);
    const p = runSiteToolInPage("slow", {}, 15_000, 100);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(await p).toMatchObject({ ok: false, timeout: true, error: "the tool did not answer within 15 s" });
    expect(signal?.aborted).toBe(true);
  });
  it("a tool answering the words its timeout and stop are told by still answers", async () => {
    live([{ name: "w", execute: (a) => (a as { say: string }).say }]);
    expect(await runSiteToolInPage("w", { say: "late" }, 1000, 100)).toEqual({ ok: true, result: "late" });
    expect(await runSiteToolInPage("w", { say: "stopped" }, 1000, 100)).toEqual({ ok: true, result: "stopped" });
  });
  it("cuts a huge result and says so", async () => {
    current([{ name: "big", execute: () => "x".repeat(500) }]);
    expect(await runSiteToolInPage("big", {}, 1000, 100)).toEqual({ ok: true, result: "x".repeat(100), cut: true });
  });
  it("abortSiteToolInPage aborts the run's signal: the tool is told, the run ends before its timeout", async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    live([{ name: "hang", execute: (_a, o) => ((signal = (o as { signal: AbortSignal }).signal), new Promise(() => undefined)) }]);
    const p = runSiteToolInPage("hang", {}, 15_000, 100, "run-1");
    await vi.advanceTimersByTimeAsync(0);
    expect(signal?.aborted).toBe(false);
    expect(abortSiteToolInPage("other")).toBe(false);
    expect(signal?.aborted).toBe(false);
    expect(abortSiteToolInPage("run-1")).toBe(true);
    expect(signal?.aborted).toBe(true);
    // Ended though the tool never settles and the timeout is far (fake timers: it never fires here).
    expect(await p).toEqual({ ok: false, error: "the call was stopped" });
    expect(abortSiteToolInPage("run-1")).toBe(false); // ended: forgotten
  });
  it("a stop that arrives before its run means the tool never starts", async () => {
    let started = 0;
    live([{ name: "t", execute: () => ((started += 1), "ran") }]);
    expect(abortSiteToolInPage("run-2")).toBe(false);
    expect(await runSiteToolInPage("t", {}, 1000, 100, "run-2")).toEqual({ ok: false, error: "the call was stopped before the tool started" });
    expect(started).toBe(0);
    expect(await runSiteToolInPage("t", {}, 1000, 100, "run-3")).toEqual({ ok: true, result: "ran" });
  });
});
