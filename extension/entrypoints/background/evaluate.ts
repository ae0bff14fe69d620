// browser_evaluate: evaluate runs evalInPage in the tab's top frame and reads
// its outcome. evalInPage, the in-page half, is serialised by
// chrome.scripting.executeScript and runs in the page's main world, so it
// must be self-contained: no imports, no closures over module variables.

import { CodedError, errorText } from "../../lib/peer";
import { executeInTab } from "./gate";
import { BlockedPage, unlessBlocked } from "./inject";

export const EVAL_CSP_ERROR =
  "this page's Content Security Policy blocks evaluating scripts (no 'unsafe-eval'); use browser_snapshot / browser_get_text instead";

export interface EvalOutcome {
  ok: boolean;
  value?: unknown;
  error?: string;
  csp?: boolean;
}

export async function evalInPage(expression: string): Promise<EvalOutcome> {
  const isCsp = (e: unknown): boolean => {
    const m = e instanceof Error ? e.message : String(e);
    return (
      (e instanceof EvalError && /unsafe-eval|Content Security Policy|Refused to evaluate/i.test(m)) ||
      /Refused to evaluate a string as JavaScript/i.test(m) ||
      /TrustedScript/i.test(m)
    );
  };
  // Turns any value into something JSON can carry: cycles, functions,
  // DOM nodes, bigints, NaN and the like become short descriptions.
  const toJSONable = (v: unknown): unknown => {
    const seen = new WeakSet<object>();
    const walk = (x: unknown, depth: number): unknown => {
      if (x === null) return null;
      switch (typeof x) {
        case "undefined":
          return null;
        case "string":
        case "boolean":
          return x;
        case "number":
          return Number.isFinite(x) ? x : String(x);
        case "bigint":
          return x.toString();
        case "symbol":
          return x.toString();
        case "function":
          return `[function ${(x as { name?: string }).name || "anonymous"}]`;
      }
      const o = x as object;
      if (typeof Node !== "undefined" && o instanceof Node) {
        const el = o as Element;
        return el.outerHTML !== undefined ? el.outerHTML.slice(0, 500) : `[${o.nodeName}]`;
      }
      if (o instanceof Date) return Number.isNaN(o.getTime()) ? "Invalid Date" : o.toISOString();
      if (o instanceof Error) return `${o.name}: ${o.message}`;
      if (o instanceof RegExp) return String(o);
      if (seen.has(o)) return "[circular]";
      if (depth > 20) return "[too deep]";
      seen.add(o);
      let out: unknown;
      if (Array.isArray(o)) out = o.map((y) => walk(y, depth + 1));
      else if (o instanceof Map) out = Object.fromEntries([...o.entries()].map(([k, y]) => [String(k), walk(y, depth + 1)]));
      else if (o instanceof Set) out = [...o].map((y) => walk(y, depth + 1));
      else {
        const r: Record<string, unknown> = {};
        for (const k of Object.keys(o)) {
          try {
            r[k] = walk((o as Record<string, unknown>)[k], depth + 1);
          } catch (e) {
            r[k] = `[unreadable: ${e instanceof Error ? e.message : String(e)}]`;
          }
        }
        out = r;
      }
      seen.delete(o);
      return out;
    };
    return walk(v, 0);
  };

  const indirectEval = eval;
  let value: unknown;
  try {
    try {
      value = indirectEval(expression);
    } catch (e) {
      // `await` at the top level is a syntax error for eval: run it as the
      // body of an async function, as an expression first, then as statements.
      if (!(e instanceof SyntaxError) || !/\bawait\b/.test(expression)) throw e;
      try {
        value = indirectEval(`(async () => (${expression}\n))()`);
      } catch (e2) {
        if (!(e2 instanceof SyntaxError)) throw e2;
        value = indirectEval(`(async () => {${expression}\n})()`);
      }
    }
    value = await value;
  } catch (e) {
    if (isCsp(e)) return { ok: false, csp: true };
    const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return { ok: false, error: `the expression threw ${msg}` };
  }
  try {
    return { ok: true, value: toJSONable(value) };
  } catch (e) {
    return { ok: false, error: `the result could not be returned: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export async function evaluate(tabId: number, expression: string): Promise<unknown> {
  let results: chrome.scripting.InjectionResult<unknown>[];
  try {
    results = await unlessBlocked(
      tabId,
      executeInTab({
        target: { tabId, frameIds: [0] },
        world: "MAIN",
        func: evalInPage,
        args: [expression],
      }),
    );
  } catch (e) {
    if (e instanceof BlockedPage || e instanceof CodedError) throw e;
    throw new Error(`cannot evaluate in tab ${tabId}: ${errorText(e)}`);
  }
  const r = results[0]?.result as { ok: boolean; value?: unknown; error?: string; csp?: boolean } | undefined;
  if (!r) throw new Error(`evaluating in tab ${tabId} returned nothing (the page may have navigated away)`);
  if (r.csp) throw new Error(EVAL_CSP_ERROR);
  if (!r.ok) throw new Error(r.error ?? "the expression threw an error");
  return r.value === undefined ? null : r.value;
}
