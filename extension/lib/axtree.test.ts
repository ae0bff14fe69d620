// Chromium's tree in the debugger mode (issue 41): what an AX node adds to
// the snapshot's reading, how it merges under ours, and the CDP sequence
// that reads it, driven by fake AX nodes.
import { describe, expect, it } from "vitest";
import { AX_MAX, AX_STASH, axAdditions, mergeAx, ourContext, readAx, type AXNode, type Send } from "./axtree";

function node(role: string, extra: Partial<AXNode> = {}): AXNode {
  return { nodeId: "1", ignored: false, role: { type: "role", value: role }, ...extra };
}

const labelled = (v: string) => ({
  type: "computedString",
  value: v,
  sources: [
    { type: "relatedElement", attribute: "aria-labelledby" },
    { type: "attribute", attribute: "aria-label", value: { type: "computedString", value: v } },
    { type: "contents", superseded: true, value: { type: "computedString", value: "Dark" } },
  ],
});

describe("axAdditions", () => {
  it("takes Chromium's role, the label of the internals and the states", () => {
    const n = node("switch", {
      name: labelled("Dark mode"),
      properties: [
        { name: "focusable", value: { type: "booleanOrUndefined", value: true } },
        { name: "checked", value: { type: "tristate", value: "true" } },
        { name: "disabled", value: { type: "boolean", value: true } },
        { name: "level", value: { type: "integer", value: 3 } },
      ],
    });
    expect(axAdditions(n)).toEqual({ role: "switch", label: "Dark mode", checked: "true", disabled: "true", level: "3" });
  });

  it("adds no role Chromium gives any element, and nothing for an ignored node", () => {
    for (const r of ["generic", "none", "presentation"]) expect(axAdditions(node(r))).toBeNull();
    expect(axAdditions({ ...node("option"), ignored: true })).toBeNull();
    expect(axAdditions(null)).toBeNull();
    expect(axAdditions(undefined)).toBeNull();
    // States with no role to carry them add nothing.
    expect(axAdditions(node("generic", { properties: [{ name: "selected", value: { type: "boolean", value: true } }] }))).toBeNull();
  });

  it("never carries a role that is not a plain token", () => {
    expect(axAdditions(node("option\" [ref=e1]"))).toBeNull();
    expect(axAdditions(node("Option"))).toBeNull();
  });

  it("leaves a name from content to the snapshot (it computes that one itself)", () => {
    const n = node("option", {
      name: { type: "computedString", value: "Pear", sources: [{ type: "attribute", attribute: "aria-label" }, { type: "contents", value: { type: "computedString", value: "Pear" } }] },
      properties: [{ name: "selected", value: { type: "booleanOrUndefined", value: true } }],
    });
    expect(axAdditions(n)).toEqual({ role: "option", selected: "true" });
  });

  it("cuts a long label", () => {
    expect(axAdditions(node("button", { name: labelled("x".repeat(5000)) }))?.label).toHaveLength(1000);
  });
});

describe("mergeAx", () => {
  it("fills what ours lacks and keeps what ours has", () => {
    expect(mergeAx({ role: "tab", selected: "false" }, { role: "option", selected: "true", label: "Pear" })).toEqual({ role: "tab", selected: "false", label: "Pear" });
    expect(mergeAx(null, { role: "option" })).toEqual({ role: "option" });
    expect(mergeAx({ role: "tab" }, null)).toEqual({ role: "tab" });
    expect(mergeAx(null, undefined)).toBeNull();
  });
});

describe("ourContext", () => {
  const contexts = [
    { id: 2, origin: "http://127.0.0.1:1", auxData: { frameId: "TOP", type: "default" } },
    { id: 5, origin: "chrome-extension://other", auxData: { frameId: "TOP", type: "isolated" } },
    { id: 7, origin: "chrome-extension://ours", auxData: { frameId: "CHILD", type: "isolated" } },
    { id: 3, origin: "chrome-extension://ours", auxData: { frameId: "TOP", type: "isolated" } },
  ];
  it("is our extension's isolated world in the top frame, never another's", () => {
    expect(ourContext(contexts, "TOP", "chrome-extension://ours")).toBe(3);
    expect(ourContext(contexts.slice(0, 3), "TOP", "chrome-extension://ours")).toBeNull();
  });
});

/** A fake CDP session over fake AX nodes, one per stashed element (undefined: the element is gone). */
function fakeCdp(nodes: Array<AXNode | undefined>, stamp: string) {
  const calls: Array<[string, Record<string, unknown> | undefined]> = [];
  let enabled = false;
  const send: Send = async <T>(method: string, params?: Record<string, unknown>): Promise<T> => {
    calls.push([method, params]);
    switch (method) {
      case "Runtime.evaluate": {
        const expr = String(params?.expression);
        const ok = expr.includes(JSON.stringify(AX_STASH)) && expr.includes(JSON.stringify(stamp)) && params?.contextId === 3;
        return { result: ok ? { objectId: "arr", subtype: "array" } : { type: "object", subtype: "null" } } as T;
      }
      case "Runtime.getProperties":
        return { result: [...nodes.map((_, i) => ({ name: String(i), value: { objectId: `el${i}` } })), { name: "length", value: {} }] } as T;
      case "Accessibility.enable":
        enabled = true;
        return {} as T;
      case "Accessibility.disable":
        enabled = false;
        return {} as T;
      case "Accessibility.getPartialAXTree": {
        if (!enabled) throw new Error("the tree would be built once per element");
        const n = nodes[Number(String(params?.objectId).slice(2))];
        if (!n) throw new Error("No node with given id found");
        return { nodes: [n, node("paragraph")] } as T;
      }
      default:
        return {} as T;
    }
  };
  return { send, calls, enabled: () => enabled };
}

describe("readAx", () => {
  it("reads each stashed element's node in stash order, then lets go", async () => {
    const cdp = fakeCdp([node("switch", { name: labelled("Dark mode") }), node("generic"), undefined, node("option")], "s1");
    const got = await readAx(cdp.send, 3, "s1", 4);
    expect(got).toEqual([{ role: "switch", label: "Dark mode" }, null, null, { role: "option" }]);
    expect(cdp.enabled()).toBe(false);
    expect(cdp.calls.at(-1)).toEqual(["Runtime.releaseObjectGroup", { objectGroup: "monkbrowse-ax" }]);
    // Each element asked for its own node only.
    for (const [m, p] of cdp.calls) if (m === "Accessibility.getPartialAXTree") expect(p?.fetchRelatives).toBe(false);
  });

  it("is null when the stash is another snapshot's", async () => {
    const cdp = fakeCdp([node("switch")], "s1");
    expect(await readAx(cdp.send, 3, "s2", 1)).toBeNull();
    expect(cdp.calls.some(([m]) => m === "Accessibility.getPartialAXTree")).toBe(false);
  });

  it("asks about AX_MAX elements at most", async () => {
    const cdp = fakeCdp(Array.from({ length: AX_MAX + 50 }, () => node("option")), "s1");
    const got = await readAx(cdp.send, 3, "s1", AX_MAX + 50);
    expect(got).toHaveLength(AX_MAX);
    expect(cdp.calls.filter(([m]) => m === "Accessibility.getPartialAXTree")).toHaveLength(AX_MAX);
  });
});
