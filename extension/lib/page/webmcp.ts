// The in-page half of the site tools (WebMCP, issue 43). Both functions run
// in a frame's MAIN world through chrome.scripting.executeScript (each frame
// registers its own tools; an isolated world does not see them), so they
// are serialised: self-contained, no imports, no closures over module
// variables. The page can replace anything they call; what they answer is
// the page's word and is checked by the service worker (lib/sitetools.ts).

/** One frame's tools, as plain data (the page's objects hold a window). */
export interface PageTools {
  /** Which API answered: the current one, the earlier testing one, or none. */
  api: "modelContext" | "modelContextTesting" | "none";
  tools: unknown[];
  /** Whether the frame is a secure context: browsers offer WebMCP only there. */
  secure?: boolean;
  error?: string;
}

export async function listSiteToolsInPage(max: number): Promise<PageTools> {
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
      const list = await get.call(mc);
      return { api: "modelContext", tools: Array.isArray(list) ? list.slice(0, max).map(plain) : [], secure };
    }
    const testing = (navigator as unknown as { modelContextTesting?: { listTools?: () => unknown[] | Promise<unknown[]> } }).modelContextTesting;
    if (testing && typeof testing.listTools === "function") {
      const list = await testing.listTools();
      return { api: "modelContextTesting", tools: Array.isArray(list) ? list.slice(0, max).map(plain) : [], secure };
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

export async function runSiteToolInPage(name: string, args: Record<string, unknown>, timeoutMs: number, maxChars: number): Promise<PageRun> {
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
  const ctl = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => {
      ctl.abort();
      resolve("late");
    }, timeoutMs);
  });
  const within = async (p: Promise<unknown>): Promise<PageRun> => {
    const r = await Promise.race([p, late]);
    if (r === "late") return { ok: false, timeout: true, error: `the tool did not answer within ${Math.round(timeoutMs / 1000)} s` };
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
  }
}
