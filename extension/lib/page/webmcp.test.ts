import { afterEach, describe, expect, it, vi } from "vitest";
import { listSiteToolsInPage, runSiteToolInPage } from "./webmcp";

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
  it("cuts a huge result and says so", async () => {
    current([{ name: "big", execute: () => "x".repeat(500) }]);
    expect(await runSiteToolInPage("big", {}, 1000, 100)).toEqual({ ok: true, result: "x".repeat(100), cut: true });
  });
});
