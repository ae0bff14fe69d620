import { afterEach, describe, expect, it, vi } from "vitest";

// The worker's modules touch chrome when loaded (listeners, storage): any
// path of this stand-in is a function answering undefined; the tests put
// what they use in place.
vi.hoisted(() => {
  const anything = (): unknown =>
    new Proxy(() => undefined, {
      get: (target, key) => ((target as unknown as Record<PropertyKey, unknown>)[key] ??= anything()),
      set: (target, key, v) => (((target as unknown as Record<PropertyKey, unknown>)[key] = v), true),
    });
  (globalThis as Record<string, unknown>).chrome = anything();
});
import { setShareState } from "./gate";
import { callSiteTool, countSiteTools } from "./sitetools";
import { abortSiteToolInPage, listSiteToolsInPage, runSiteToolInPage } from "../../lib/page/webmcp";
import { MAX_TOOLS_PER_FRAME } from "../../lib/sitetools";

// These tests are about shared tabs; gate.test.ts is about the gate.
setShareState({ ready: async () => undefined, shared: () => true });

afterEach(() => {
  vi.useRealTimers();
});

/** What the tests read of an injection. */
type Injection = { target: chrome.scripting.InjectionTarget; world?: string; func?: unknown; args?: unknown[] };

/** A chrome with scripting answering per page function, empty storage and one frame. */
function stubChrome(answer: (inj: Injection) => Promise<unknown>) {
  const executeScript = vi.fn(answer);
  const getAllFrames = vi.fn(async () => [{ frameId: 0, url: "https://shop.example/", documentId: "doc-0" }]);
  const store = () => ({ get: async () => ({}), set: async () => undefined });
  Object.assign(chrome, { scripting: { executeScript }, webNavigation: { getAllFrames }, storage: { local: store(), session: store() } });
  return { executeScript, getAllFrames };
}

describe("countSiteTools", () => {
  it("adds up every frame's count in one injection asking only for counts, no frame list", async () => {
    const { executeScript, getAllFrames } = stubChrome(async () => [
      { frameId: 0, result: { api: "modelContext", tools: [], count: 3 } },
      { frameId: 4, result: { api: "modelContext", tools: [], count: 2 } },
      { frameId: 5, result: { api: "modelContext", tools: [], count: 1e9 } }, // a page's word: bounded
      { frameId: 6, result: { api: "none", tools: [] } },
      { frameId: 7, result: "nonsense" },
    ]);
    expect(await countSiteTools(1)).toBe(5 + MAX_TOOLS_PER_FRAME);
    expect(executeScript).toHaveBeenCalledTimes(1);
    expect(executeScript.mock.calls[0]![0]).toMatchObject({ target: { tabId: 1, allFrames: true }, world: "MAIN", func: listSiteToolsInPage, args: [MAX_TOOLS_PER_FRAME, true] });
    expect(getAllFrames).not.toHaveBeenCalled();
  });
});

describe("callSiteTool's stop", () => {
  it("answers at once and tells the page's run, in the same document, by its run id", async () => {
    let runArgs: unknown[] | undefined;
    const { executeScript } = stubChrome(async (inj) => {
      if (inj.func === listSiteToolsInPage) return [{ frameId: 0, documentId: "doc-0", result: { api: "modelContext", tools: [{ name: "wait", annotations: { readOnlyHint: true } }], secure: true } }];
      if (inj.func === runSiteToolInPage) {
        runArgs = inj.args;
        return new Promise(() => undefined); // the page's tool never answers
      }
      if (inj.func === abortSiteToolInPage) return [{ frameId: 0, result: true }];
      throw new Error("unexpected injection");
    });
    const ctl = new AbortController();
    const call = callSiteTool(1, { name: "wait", args: {} }, "Claude Code", ctl.signal);
    await vi.waitFor(() => expect(runArgs).toBeDefined());
    ctl.abort(new Error("the AI app cancelled the call"));
    await expect(call).rejects.toThrow("the AI app cancelled the call");
    const abort = executeScript.mock.calls.map((c) => c[0]).find((inj) => inj.func === abortSiteToolInPage);
    expect(abort).toMatchObject({ target: { tabId: 1, documentIds: ["doc-0"] }, world: "MAIN", args: [runArgs![4]] });
    expect(typeof runArgs![4]).toBe("string");
  });
});
