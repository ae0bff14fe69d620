// Chromium's accessibility tree in the debugger mode (issue 41): where the
// DOM-side reading cannot see a component's role, name or states — set
// through ElementInternals in a document whose scripts ran before the
// MAIN-world hooks (a tab shared after it loaded) — the snapshot takes
// Chromium's own, read through chrome.debugger's Accessibility domain.
//
// The content script names the elements it could not read (ax_candidates:
// defined custom elements the hooks never saw, at most AX_MAX, in page
// order) and keeps them in its isolated world; the service worker, attached,
// finds that world's execution context (Runtime.enable's
// executionContextCreated: our extension's origin, in the top frame), takes
// the elements' handles from it (Runtime.evaluate, Runtime.getProperties)
// and asks Chromium for each one's node (Accessibility.getPartialAXTree,
// fetchRelatives false, under Accessibility.enable so the tree is built
// once). axAdditions turns each node into what the snapshot lacks; the
// snapshot merges it under its own reading (mergeAx: ours wins, an author's
// attribute wins over both), exactly as a component's internals captured by
// the hooks. Cost: a page without such elements costs one walk of its
// custom elements and no debugger call.
//
// Pure: AX nodes in, additions out; the CDP calls go through an injected
// send, so the unit tests drive it with fake AX nodes.

import { reported } from "./diag";
import type { InternalsInfo } from "./page/internals";

/** At most this many elements are asked about per snapshot (the budget). */
export const AX_MAX = 300;
/** The isolated world's global holding the candidates of the current snapshot. */
export const AX_STASH = "__monkbrowseAxCandidates";
/** Handles taken from the content script's world, released after each read. */
const GROUP = "monkbrowse-ax";

/** A CDP Accessibility.AXValue (the parts we read). */
export interface AXValue {
  type: string;
  value?: unknown;
}

/** A CDP Accessibility.AXValueSource (the parts we read). */
export interface AXNameSource {
  type: string;
  attribute?: string;
  superseded?: boolean;
  value?: AXValue;
}

/** A CDP Accessibility.AXNode (the parts we read). */
export interface AXNode {
  nodeId: string;
  ignored: boolean;
  role?: AXValue;
  name?: AXValue & { sources?: AXNameSource[] };
  properties?: Array<{ name: string; value: AXValue }>;
  backendDOMNodeId?: number;
}

/**
 * Roles Chromium computes for an element no author gave one: they are no
 * addition (the snapshot's own reading of an unknown element stands), and
 * an element ours collapses must not turn into a generic line.
 */
const NO_ROLE = new Set(["generic", "none", "presentation"]);

/** Longest string carried from Chromium's tree (a name); longer ones are cut. */
const MAX_VALUE = 1000;

/** AX properties and the InternalsInfo states they give. */
const STATES: ReadonlyArray<[string, keyof InternalsInfo]> = [
  ["checked", "checked"], ["selected", "selected"], ["expanded", "expanded"], ["disabled", "disabled"],
  ["pressed", "pressed"], ["level", "level"], ["required", "required"], ["valuenow", "valueNow"], ["valuetext", "valueText"],
];

function text(v: unknown): string | null {
  if (typeof v === "string") return v.slice(0, MAX_VALUE);
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  return null;
}

/**
 * The name Chromium gives from the sources the DOM-side reading cannot see
 * on a custom element (an aria-label or aria-labelledby of its internals):
 * the winning source, when it is one of those. A name from content, title or
 * placeholder the snapshot computes itself.
 */
function axLabel(node: AXNode): string | null {
  const sources = node.name?.sources ?? [];
  const winner = sources.find((s) => !s.superseded && s.value !== undefined && text(s.value.value) !== null && text(s.value.value) !== "");
  if (!winner) return null;
  const labelled = (winner.type === "attribute" && winner.attribute === "aria-label") || (winner.type === "relatedElement" && winner.attribute === "aria-labelledby");
  return labelled ? text(winner.value!.value) : null;
}

/**
 * What Chromium's node for an element adds to the snapshot's reading: its
 * role (not when it is the one Chromium gives any element), the name from
 * its labels, and its states. Null when Chromium ignores the element or says
 * nothing the snapshot could use.
 */
export function axAdditions(node: AXNode | null | undefined): InternalsInfo | null {
  if (!node || node.ignored) return null;
  const out: InternalsInfo = {};
  const role = node.role?.type === "role" || node.role?.type === "internalRole" ? text(node.role.value) : null;
  if (role !== null && /^[a-z]{2,40}$/.test(role) && !NO_ROLE.has(role)) out.role = role;
  const label = axLabel(node);
  if (label !== null) out.label = label;
  for (const p of node.properties ?? []) {
    const st = STATES.find(([name]) => name === p.name);
    if (!st) continue;
    const v = text(p.value?.value);
    if (v !== null) out[st[1]] = v;
  }
  // A node with states but no role of its own gives the snapshot nothing to put them on.
  if (out.role === undefined && out.label === undefined) return null;
  return out;
}

/** The snapshot's own reading of an element with Chromium's added where ours has nothing: ours wins key by key. */
export function mergeAx(own: InternalsInfo | null, ax: InternalsInfo | null | undefined): InternalsInfo | null {
  if (!ax) return own;
  if (!own) return { ...ax };
  const out: InternalsInfo = { ...ax };
  for (const k of Object.keys(own) as Array<keyof InternalsInfo>) {
    if (own[k] !== undefined) out[k] = own[k];
  }
  return out;
}

/** chrome.debugger's sendCommand for one tab. */
export type Send = <T = unknown>(method: string, params?: Record<string, unknown>) => Promise<T>;

/** A CDP Runtime.ExecutionContextDescription (the parts we read). */
export interface ExecutionContext {
  id: number;
  origin: string;
  auxData?: { frameId?: string; type?: string };
}

/**
 * Our content script's execution context in the tab's top frame: the
 * isolated world of extensionOrigin there. contexts are the
 * executionContextCreated events Runtime.enable reported.
 */
export function ourContext(contexts: ExecutionContext[], topFrameId: string, extensionOrigin: string): number | null {
  const c = contexts.find((x) => x.origin === extensionOrigin && x.auxData?.frameId === topFrameId && x.auxData?.type === "isolated");
  return c ? c.id : null;
}

/**
 * Chromium's additions for the stashed candidates (stamp names the stash of
 * this snapshot), in the stash's order, read in the content script's
 * context contextId. Null when the stash is gone (another snapshot began).
 */
export async function readAx(send: Send, contextId: number, stamp: string, count: number): Promise<Array<InternalsInfo | null> | null> {
  const expr = `(() => { const s = globalThis[${JSON.stringify(AX_STASH)}]; return s && s.stamp === ${JSON.stringify(stamp)} ? s.elements : null; })()`;
  const ev = await send<{ result: { objectId?: string; subtype?: string } }>("Runtime.evaluate", { expression: expr, contextId, objectGroup: GROUP, returnByValue: false });
  const arr = ev.result.objectId;
  if (!arr) return null;
  try {
    const props = await send<{ result: Array<{ name: string; value?: { objectId?: string } }> }>("Runtime.getProperties", { objectId: arr, ownProperties: true });
    const ids: Array<string | undefined> = new Array(Math.min(count, AX_MAX)).fill(undefined);
    for (const p of props.result) {
      const i = /^\d+$/.test(p.name) ? Number(p.name) : -1;
      if (i >= 0 && i < ids.length) ids[i] = p.value?.objectId;
    }
    await send("Accessibility.enable");
    try {
      return await Promise.all(
        ids.map(async (objectId) => {
          if (!objectId) return null;
          // An element removed since the stash has no node: nothing added for it, the others stand.
          const r = await send<{ nodes: AXNode[] }>("Accessibility.getPartialAXTree", { objectId, fetchRelatives: false }).catch(reported("axtree: an element's node"));
          return axAdditions(r?.nodes[0]);
        }),
      );
    } finally {
      await send("Accessibility.disable").catch(reported("axtree: Accessibility.disable"));
    }
  } finally {
    await send("Runtime.releaseObjectGroup", { objectGroup: GROUP }).catch(reported("axtree: releasing the handles"));
  }
}
