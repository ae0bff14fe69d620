import { describe, expect, it } from "vitest";
import { senderMayAsk } from "./messages";
import { refusalIn, textOf, verbOf } from "./activity";
import {
  argumentProblems,
  consentRule,
  frameOrigin,
  GrantList,
  hasGrant,
  maskedArgs,
  MAX_DESCRIPTION,
  normalizeTool,
  schemaOf,
  siteName,
  withGrant,
  withoutGrant,
} from "./sitetools";

const order = {
  type: "object",
  properties: {
    sku: { type: "string", minLength: 2 },
    qty: { type: "integer", minimum: 1, maximum: 10 },
    size: { enum: ["S", "M", "L"] },
    gift: { type: "object", properties: { wrap: { type: "boolean" } }, additionalProperties: false },
    tags: { type: "array", items: { type: "string" }, maxItems: 2 },
    note: { type: ["string", "null"] },
  },
  required: ["sku", "qty"],
  additionalProperties: false,
};

describe("argumentProblems", () => {
  it("accepts arguments that fit", () => {
    expect(argumentProblems(order, { sku: "tea", qty: 2, size: "M", gift: { wrap: true }, tags: ["a"], note: null })).toEqual([]);
  });
  it("accepts anything object-shaped without a schema, and never a non-object", () => {
    expect(argumentProblems(undefined, { any: 1 })).toEqual([]);
    expect(argumentProblems(undefined, "{}")).toEqual(["arguments must be an object (got string)"]);
    expect(argumentProblems(undefined, [1])).toEqual(["arguments must be an object (got array)"]);
  });
  it("names each wrong field and what it must be", () => {
    const p = argumentProblems(order, { sku: "t", qty: 2.5, size: "XL", gift: { wrap: "yes", ribbon: true }, tags: ["a", "b", "c"], extra: 1 });
    expect(p).toContain("arguments.sku must have at least 2 characters (got 1)");
    expect(p).toContain("arguments.qty must be integer (got number 2.5)");
    expect(p).toContain('arguments.size must be one of "S", "M", "L" (got "XL")');
    expect(p).toContain("arguments.gift.wrap must be boolean (got string \"yes\")");
    expect(p.length).toBe(5); // capped
  });
  it("reports missing required fields, unknown fields and ranges", () => {
    expect(argumentProblems(order, { qty: 0 })).toEqual(['arguments is missing its required field "sku"', "arguments.qty must be at least 1 (got 0)"]);
    expect(argumentProblems(order, { sku: "tea", qty: 1, colour: "red" })).toEqual(['arguments has no field "colour" (its fields are sku, qty, size, gift, tags, note)']);
    expect(argumentProblems(order, { sku: "tea", qty: 11 })).toEqual(["arguments.qty must be at most 10 (got 11)"]);
  });
  it("checks anyOf, const and additionalProperties schemas", () => {
    const s = { type: "object", properties: { id: { anyOf: [{ type: "integer" }, { type: "string", minLength: 3 }] }, v: { const: 1 } }, additionalProperties: { type: "number" } };
    expect(argumentProblems(s, { id: 5, v: 1, x: 2 })).toEqual([]);
    expect(argumentProblems(s, { id: "ab" })).toEqual(["arguments.id fits none of the forms its schema allows (anyOf)"]);
    expect(argumentProblems(s, { v: 2 })).toEqual(["arguments.v must be 1 (got 2)"]);
    expect(argumentProblems(s, { x: "2" })).toEqual(["arguments.x must be number (got string \"2\")"]);
  });
  it("survives a hostile schema: deep nesting and odd types", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 200; i++) deep = { type: "object", properties: { a: deep } };
    let arg: unknown = 1;
    for (let i = 0; i < 200; i++) arg = { a: arg };
    expect(() => argumentProblems(deep, arg)).not.toThrow();
    expect(argumentProblems({ type: 7, properties: "x", required: "sku" } as unknown as Record<string, unknown>, { a: 1 })).toEqual([]);
  });
});

describe("consentRule", () => {
  const plain = {};
  const ro = { readOnly: true };
  const cons = { consequential: true };
  it("read-only runs; a read-only claim never overrides consequential", () => {
    expect(consentRule(ro, false, false)).toBe("read-only");
    expect(consentRule({ readOnly: true, consequential: true }, false, false)).toBe("ask");
  });
  it("others ask before their first run, then run for the session", () => {
    expect(consentRule(plain, false, false)).toBe("ask");
    expect(consentRule(plain, false, true)).toBe("allowed");
    expect(consentRule(plain, true, false)).toBe("always");
  });
  it("consequential asks every time unless always", () => {
    expect(consentRule(cons, false, false)).toBe("ask");
    expect(consentRule(cons, false, true)).toBe("ask");
    expect(consentRule(cons, true, false)).toBe("always");
  });
});

describe("grants", () => {
  const g = { origin: "https://shop.example", app: "Claude Code", tool: "place_order", at: 1 };
  it("are per site, AI app and tool", () => {
    const all = withGrant([], g);
    expect(hasGrant(all, g)).toBe(true);
    expect(hasGrant(all, { ...g, app: "Cursor" })).toBe(false);
    expect(hasGrant(all, { ...g, origin: "https://evil.example" })).toBe(false);
    expect(hasGrant(all, { ...g, tool: "refund" })).toBe(false);
    expect(withGrant(all, { ...g, at: 2 })).toEqual([{ ...g, at: 2 }]);
    expect(withoutGrant(all, g)).toEqual([]);
  });
  it("keep concurrent changes (GrantList)", async () => {
    const store: Record<string, unknown> = {};
    const list = new GrantList({ get: async (k) => ({ [k]: store[k] }), set: async (items) => void Object.assign(store, items) }, "k");
    await Promise.all([list.update((a) => withGrant(a, g)), list.update((a) => withGrant(a, { ...g, tool: "refund" }))]);
    expect((await list.all()).map((x) => x.tool).sort()).toEqual(["place_order", "refund"]);
    expect(await list.has(g)).toBe(true);
  });
});

describe("maskedArgs", () => {
  it("masks secret-named fields and card-like numbers, at any depth", () => {
    const s = maskedArgs({ user: "ada", password: "hunter22", card: { cardNumber: "4242", cvc: "123" }, pay: "4242 4242 4242 4242", note: "hi" }, 300);
    expect(s).not.toContain("hunter22");
    expect(s).not.toContain("4242");
    expect(s).not.toContain("123");
    expect(s).toContain('"user":"ada"');
    expect(s).toContain('"note":"hi"');
  });
  it("keep the activity log free of secrets", () => {
    const t = textOf("browser_site_tool_call", { name: "login", arguments: { user: "ada", password: "hunter22" } }, []);
    expect(t).toContain("login");
    expect(t).toContain("ada");
    expect(t).not.toContain("hunter22");
    expect(verbOf("browser_site_tool_call")).toBe("used the page's tool");
  });
  it("log a denied or unanswered call as refused, never as done", () => {
    expect(refusalIn("browser_site_tool_call", { consent: "denied" })).toBe("you denied it: nothing ran");
    expect(refusalIn("browser_site_tool_call", { consent: "unanswered" })).toMatch(/nothing ran/);
    expect(refusalIn("browser_site_tool_call", { consent: "once" })).toBeUndefined();
    expect(refusalIn("browser_click", { consent: "denied" })).toBeUndefined();
  });
  it("cuts long arguments", () => {
    expect([...maskedArgs({ text: "x".repeat(500) }, 80)].length).toBe(80);
  });
});

describe("normalizeTool", () => {
  it("reads the current shape with the browser's origin, never the page's", () => {
    const t = normalizeTool(
      { name: "place_order", title: "Order", description: "Buy", inputSchema: { type: "object" }, annotations: { readOnlyHint: false, consequentialHint: true, untrustedContentHint: true }, origin: "https://bank.example" },
      12,
      "https://shop.example",
    );
    expect(t).toEqual({ name: "place_order", title: "Order", description: "Buy", inputSchema: { type: "object" }, consequential: true, untrustedContent: true, origin: "https://shop.example", frame: 12 });
  });
  it("reads earlier builds' JSON-string schema and renamed annotations", () => {
    expect(normalizeTool({ name: "a", inputSchema: '{"type":"object","properties":{"q":{"type":"string"}}}', readOnly: true }, 0, "o")).toMatchObject({
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      readOnly: true,
    });
    expect(normalizeTool({ name: "b", annotations: { destructiveHint: true } }, 0, "o")?.consequential).toBe(true);
    expect(schemaOf("not json")).toBeUndefined();
  });
  it("drops nameless tools and bounds the page's text", () => {
    expect(normalizeTool({ description: "x" }, 0, "o")).toBeUndefined();
    expect(normalizeTool({ name: "  " }, 0, "o")).toBeUndefined();
    expect(normalizeTool(null, 0, "o")).toBeUndefined();
    expect([...(normalizeTool({ name: "a", description: "d".repeat(10_000) }, 0, "o")?.description ?? "")].length).toBe(MAX_DESCRIPTION);
  });
});

describe("frameOrigin", () => {
  const frames = [
    { frameId: 0, parentFrameId: -1, url: "http://127.0.0.1:8000/shop.html" },
    { frameId: 3, parentFrameId: 0, url: "http://localhost:9000/pay.html?x=1" },
    { frameId: 4, parentFrameId: 3, url: "about:blank" },
  ];
  it("is the frame's own origin; about:blank takes its parent's", () => {
    expect(frameOrigin(frames, 0)).toBe("http://127.0.0.1:8000");
    expect(frameOrigin(frames, 3)).toBe("http://localhost:9000");
    expect(frameOrigin(frames, 4)).toBe("http://localhost:9000");
    expect(frameOrigin(frames, 99)).toBe("null");
  });
});

describe("the question", () => {
  it("names the site by its host, with a port other than the scheme's", () => {
    expect(siteName("https://shop.example")).toBe("shop.example");
    expect(siteName("http://127.0.0.1:8080")).toBe("127.0.0.1:8080");
    expect(siteName("null")).toBe("null");
  });
  it("is answered from extension pages only", () => {
    const self = { id: "ext", origin: "chrome-extension://ext/" };
    expect(senderMayAsk("site-tool-answer", { id: "ext", url: "chrome-extension://ext/popup.html" }, self)).toBe(true);
    expect(senderMayAsk("site-tool-answer", { id: "ext", url: "https://shop.example/" }, self)).toBe(false);
    expect(senderMayAsk("site-tool-revoke", { id: "ext", url: "https://shop.example/" }, self)).toBe(false);
  });
});
