// The in-page half of the site tools (WebMCP, issue 43). Its functions run
// in a frame's MAIN world through chrome.scripting.executeScript (each frame
// registers its own tools and is asked in its own main world), so they
// are serialised: self-contained, no imports, no closures over module
// variables. The page can replace anything they call; what they answer is
// the page's word and is checked by the service worker (lib/sitetools.ts).
//
// What they keep between calls lives on the document's modelContext object
// (one per document), under Symbol.for(PAGE_STATE) (see PageState): a new
// document has a new one, so a navigation forgets it. The page can reach it
// (it is the page's world), which lets it lie about its own tools, as it
// always could.

/** The key (Symbol.for) of the per-document state; written out in each function, which cannot share a constant. */
export const PAGE_STATE = "monkbrowse.siteTools";

/**
 * What one document keeps between our calls: its tool count (the
 * snapshot's line), valid until the document's modelContext fires
 * toolchange, and the controllers of the site tool runs still going, so a
 * cancel can tell the page's tool.
 */
export interface PageState {
  /** Whether our toolchange listener is on this document's modelContext (no event: nothing is kept). */
  listening: boolean;
  /** Counts the toolchange events: a count read across one is not kept. */
  changes: number;
  /** The count of tools with a usable name; undefined when a toolchange made it old. */
  count?: { n: number };
  runs: Map<string, AbortController>;
}

/** One frame's tools, as plain data (the page's objects hold a window). */
export interface PageTools {
  /** Which API answered: the current one, the earlier testing one, or none. */
  api: "modelContext" | "modelContextTesting" | "none";
  tools: unknown[];
  /** With countOnly: how many tools with a usable name the frame offers (tools is then empty). */
  count?: number;
  /** Whether the frame is a secure context: browsers offer WebMCP only there. */
  secure?: boolean;
  error?: string;
}

/**
 * One frame's tools. countOnly (the snapshot's line) answers only how many,
 * from the document's kept count when no toolchange came since it was read;
 * a full listing always asks the page afresh (and renews the kept count).
 */
export async function listSiteToolsInPage(max: number, countOnly = false): Promise<PageTools> {
  const secure = (globalThis as { isSecureContext?: boolean }).isSecureContext === true;
  const plain = (t: unknown): unknown => {
    if (!t || typeof t !== "object") return undefined;
    const o = t as Record<string, unknown>;
    // A getter that throws leaves its field out.
    const read = (k: string): unknown => {
      try {
        return o[k];
      } catch {
        return undefined;
      }
    };
    const out: Record<string, unknown> = {};
    for (const k of ["name", "title", "description", "origin"]) {
      const v = read(k);
      if (typeof v === "string") out[k] = v;
    }
    const s = read("inputSchema");
    try {
      out.inputSchema = typeof s === "string" ? s : s && typeof s === "object" ? JSON.parse(JSON.stringify(s)) : undefined;
    } catch {
      out.inputSchema = undefined; // cycles: no schema
    }
    const a = read("annotations");
    if (a && typeof a === "object") {
      const ann: Record<string, boolean> = {};
      try {
        for (const [k, v] of Object.entries(a as Record<string, unknown>)) if (typeof v === "boolean") ann[k] = v;
      } catch {
        ann.unreadable = true; // annotations that cannot be read count as none
      }
      out.annotations = ann;
    }
    for (const k of ["readOnlyHint", "readOnly", "consequentialHint", "consequential", "destructiveHint", "untrustedContentHint", "untrustedContent"]) {
      const v = read(k);
      if (typeof v === "boolean") out[k] = v;
    }
    return out;
  };
  try {
    // The draft's place (document.modelContext), an earlier one (navigator.modelContext); getTools, or listTools of other builds.
    type Lister = { getTools?: () => Promise<unknown[]>; listTools?: () => Promise<unknown[]> };
    const mc = (document as unknown as { modelContext?: Lister }).modelContext ?? (navigator as unknown as { modelContext?: Lister }).modelContext;
    const get = mc && (typeof mc.getTools === "function" ? mc.getTools : typeof mc.listTools === "function" ? mc.listTools : undefined);
    if (mc && get) {
      // The document's state, made on the first call (an object the page planted there is used only if it has the shape).
      let state: PageState | undefined;
      try {
        const key = Symbol.for("monkbrowse.siteTools");
        const holder = mc as unknown as Record<symbol, unknown>;
        if (!Object.hasOwn(holder, key)) {
          Object.defineProperty(holder, key, { value: { listening: false, changes: 0, runs: new Map() } satisfies PageState });
        }
        const got = holder[key] as PageState | undefined;
        if (got && typeof got === "object" && typeof got.listening === "boolean" && typeof got.changes === "number" && got.runs instanceof Map) state = got;
      } catch {
        state = undefined; // a getter the page put there: nothing is kept
      }
      if (countOnly && state?.listening && state.count && typeof state.count.n === "number") {
        return { api: "modelContext", tools: [], count: Math.min(Math.max(0, state.count.n), max), secure };
      }
      const target = mc as Lister & { addEventListener?: (type: string, fn: () => void) => void };
      if (state && !state.listening && typeof target.addEventListener === "function") {
        const st = state;
        target.addEventListener.call(mc, "toolchange", () => {
          st.changes++;
          st.count = undefined;
        });
        st.listening = true;
      }
      const before = state?.changes;
      const list = await get.call(mc);
      const all = Array.isArray(list) ? list.slice(0, max) : [];
      // The count of tools the worker would keep: a name that is a non-empty string of at most 200 characters, once.
      const names = new Set<string>();
      for (const t of all) {
        let name: unknown;
        try {
          name = t && typeof t === "object" ? (t as { name?: unknown }).name : undefined;
        } catch {
          name = undefined;
        }
        if (typeof name === "string" && name.trim() !== "" && [...name].length <= 200) names.add(name);
      }
      if (state?.listening && state.changes === before) state.count = { n: names.size };
      if (countOnly) return { api: "modelContext", tools: [], count: names.size, secure };
      return { api: "modelContext", tools: all.map(plain), secure };
    }
    const testing = (navigator as unknown as { modelContextTesting?: { listTools?: () => unknown[] | Promise<unknown[]> } }).modelContextTesting;
    if (testing && typeof testing.listTools === "function") {
      // An earlier build: no toolchange event, so nothing is kept.
      const list = await testing.listTools();
      const tools = Array.isArray(list) ? list.slice(0, max).map(plain) : [];
      if (countOnly) return { api: "modelContextTesting", tools: [], count: tools.filter((t) => !!t && typeof (t as { name?: unknown }).name === "string").length, secure };
      return { api: "modelContextTesting", tools, secure };
    }
    return { api: "none", tools: [], secure };
  } catch (e) {
    return { api: "none", tools: [], secure, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

/** What running a tool in the page gave. */
export type PageRun =
  | { ok: true; result: string; cut?: boolean }
  | { ok: false; error: string; missing?: boolean; unsupported?: boolean; timeout?: boolean };

/**
 * Runs the tool by name. runId names the run in the document's state until
 * it ends, so abortSiteToolInPage can abort the signal the page's tool was
 * given (the agent cancelled, the person pressed Stop).
 */
export async function runSiteToolInPage(name: string, args: Record<string, unknown>, timeoutMs: number, maxChars: number, runId?: string): Promise<PageRun> {
  const text = (r: unknown): { result: string; cut?: boolean } => {
    let s: string;
    if (typeof r === "string") s = r;
    else if (r === undefined || r === null) s = "";
    else {
      try {
        s = JSON.stringify(r) ?? String(r);
      } catch {
        s = String(r);
      }
    }
    return s.length > maxChars ? { result: s.slice(0, maxChars), cut: true } : { result: s };
  };
  const why = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  let ctl = new AbortController();
  let runs: Map<string, AbortController> | undefined;
  const holder = ((document as unknown as { modelContext?: object }).modelContext ?? (navigator as unknown as { modelContext?: object }).modelContext) as
    | Record<symbol, unknown>
    | undefined;
  if (runId !== undefined && holder && typeof holder === "object") {
    try {
      const key = Symbol.for("monkbrowse.siteTools");
      if (!Object.hasOwn(holder, key)) {
        Object.defineProperty(holder, key, { value: { listening: false, changes: 0, runs: new Map() } satisfies PageState });
      }
      const got = holder[key] as PageState | undefined;
      if (got && typeof got === "object" && got.runs instanceof Map) runs = got.runs;
      // A stop that came first left its controller, aborted: the tool does not start.
      const early = runs?.get(runId);
      if (early instanceof AbortController) ctl = early;
      else runs?.set(runId, ctl);
    } catch {
      runs = undefined; // a getter the page put there: the run cannot be aborted from outside, the timeout still ends it
    }
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Markers no tool result can equal (a tool may well answer the string "late").
  const LATE = Symbol("late");
  const STOPPED = Symbol("stopped");
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => {
      resolve(LATE); // first: the abort below must not read as a stop
      ctl.abort();
    }, timeoutMs);
  });
  // A stop ends the wait even when the browser's executeTool keeps waiting for a tool that ignores its signal.
  const signal = ctl.signal;
  const stopped = new Promise<typeof STOPPED>((resolve) => {
    if (signal.aborted) resolve(STOPPED);
    else signal.addEventListener("abort", () => resolve(STOPPED), { once: true });
  });
  const within = async (p: Promise<unknown>): Promise<PageRun> => {
    const r = await Promise.race([p, late, stopped]);
    if (r === LATE) return { ok: false, timeout: true, error: `the tool did not answer within ${Math.round(timeoutMs / 1000)} s` };
    if (r === STOPPED) return { ok: false, error: "the call was stopped" };
    return { ok: true, ...text(r) };
  };
  try {
    type Runner = { getTools?: () => Promise<unknown[]>; listTools?: () => Promise<unknown[]>; executeTool?: (t: unknown, a: unknown, o?: unknown) => Promise<unknown> };
    const mc = (document as unknown as { modelContext?: Runner }).modelContext ?? (navigator as unknown as { modelContext?: Runner }).modelContext;
    const get = mc && (typeof mc.getTools === "function" ? mc.getTools : typeof mc.listTools === "function" ? mc.listTools : undefined);
    if (mc && get && typeof mc.executeTool === "function") {
      const list = await get.call(mc);
      const tool = Array.isArray(list) ? list.find((t) => !!t && (t as { name?: unknown }).name === name) : undefined;
      if (!tool) return { ok: false, missing: true, error: "the page no longer offers this tool" };
      if (ctl.signal.aborted) return { ok: false, error: "the call was stopped before the tool started" };
      try {
        return await within(mc.executeTool(tool, args, { signal: ctl.signal }));
      } catch (e) {
        // Earlier builds took the arguments as a JSON string.
        if (!(e instanceof TypeError) || !/string|object/i.test(e.message)) throw e;
        return await within(mc.executeTool(tool, JSON.stringify(args), { signal: ctl.signal }));
      }
    }
    const testing = (navigator as unknown as { modelContextTesting?: { executeTool?: (n: string, a: string) => Promise<unknown> } }).modelContextTesting;
    if (testing && typeof testing.executeTool === "function") return await within(testing.executeTool(name, JSON.stringify(args)));
    return { ok: false, unsupported: true, error: "this frame has no WebMCP API" };
  } catch (e) {
    return { ok: false, error: why(e) };
  } finally {
    clearTimeout(timer);
    try {
      if (runId !== undefined) runs?.delete(runId);
    } catch {
      runs = undefined; // the page replaced the map's methods: the entry stays in the page's own state
    }
  }
}

/**
 * Aborts the run runId of this document (the signal its tool was given
 * fires; the page's tool decides what stopping means). False when no such
 * run is going (not started yet, ended, or the frame navigated).
 */
export function abortSiteToolInPage(runId: string): boolean {
  try {
    const key = Symbol.for("monkbrowse.siteTools");
    const holder = ((document as unknown as { modelContext?: object }).modelContext ?? (navigator as unknown as { modelContext?: object }).modelContext) as
      | Record<symbol, unknown>
      | undefined;
    if (!holder || typeof holder !== "object") return false;
    if (!Object.hasOwn(holder, key)) {
      Object.defineProperty(holder, key, { value: { listening: false, changes: 0, runs: new Map() } satisfies PageState });
    }
    const got = holder[key] as PageState | undefined;
    if (!got || typeof got !== "object" || !(got.runs instanceof Map)) return false;
    const ctl = got.runs.get(runId);
    if (ctl instanceof AbortController) {
      ctl.abort();
      return true;
    }
    // The run has not started here yet (two injections into one frame need
    // not arrive in order): it finds its controller aborted and never starts.
    const early = new AbortController();
    early.abort();
    got.runs.set(runId, early);
    return false;
  } catch {
    return false;
  }
}
