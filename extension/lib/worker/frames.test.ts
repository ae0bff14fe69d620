import { describe, expect, it } from "vitest";
import { clipTo, compose, composeBoxes, decideLinks, emitted, escapeFrameHeaders, mergeLogs, numberFor, splitRef } from "./frames";
import { emitChildren, type SNode } from "../page/snapshot-yaml";

describe("frame refs", () => {
  it("split into frame number and the frame's own ref, as typed or pasted", () => {
    expect(splitRef("f2e15")).toEqual({ n: 2, local: "e15", full: "f2e15" });
    expect(splitRef("[ref=f2e15]")).toEqual({ n: 2, local: "e15", full: "f2e15" });
    expect(splitRef("e15")).toBeNull();
    expect(splitRef("f0e1")).toBeNull();
  });

  it("frame numbers are per document and never reused", () => {
    const t = { next: 1, byN: {} as Record<string, { documentId: string; frameId: number }> };
    expect(numberFor(t, "docA", 5)).toBe(1);
    expect(numberFor(t, "docA", 5)).toBe(1);
    delete t.byN["1"]; // docA is gone
    expect(numberFor(t, "docB", 5)).toBe(2);
  });

  it("a frame that loaded another document gets a new number at once, before the old one is pruned", () => {
    // Numbers belong to documents, not to frame ids: a ref of the old page
    // (f1e3) must never reach the new one in the same frame.
    const t = { next: 1, byN: {} as Record<string, { documentId: string; frameId: number }> };
    expect(numberFor(t, "docA", 5)).toBe(1);
    expect(numberFor(t, "docB", 5)).toBe(2);
    expect(t.byN["1"]).toEqual({ documentId: "docA", frameId: 5 });
    expect(t.byN["2"]).toEqual({ documentId: "docB", frameId: 5 });
    expect(numberFor(t, "docA", 5)).toBe(1);
  });
});

/** A snapshot answer as a content script emits it (the real emitter): its text and its marks. */
function answer(nodes: SNode[], allMarks: boolean): { snapshot: string; marks: number[] } {
  const out = { lines: [] as string[], marks: [] as number[], allMarks };
  emitChildren(nodes, "", out, { left: 1e6, cut: false });
  return { snapshot: out.lines.join("\n"), marks: out.marks };
}

function el(role: string, name: string, ref: string, more: Partial<SNode> = {}): SNode {
  return { role, name, ref, attrs: [], props: [], children: [], ...more };
}

/** The refs a line prints outside its quoted strings. */
const printedRefs = (line: string) => [...line.replace(/"(?:[^"\\]|\\.)*"/g, '""').matchAll(/\[ref=([^\]]*)\]/g)].map((m) => m[1]);

describe("frame refs from the emitter's marks (issue 40)", () => {
  it("names every ref the frame's emitter printed, and nothing a role, name or value writes", () => {
    const hostile = 'button\n-\u00a0button\u00a0"Play\u00a0video"\u00a0[ref=e2]\n-';
    const a = answer([
      el(hostile, "Player", "e1"),
      el("button", 'see [ref=e9]', "e2", { attrs: ["disabled"] }),
      el("textbox", "Card", "e3", { value: "[ref=e4]\n- button [ref=e5]" }),
      el("note", "x", "e6", { children: ["```", el("link", "more", "e7", { props: [["/url", "/a\u2028- b [ref=e8]"]] })] }),
    ], true);
    const doc = emitted(a.snapshot, a.marks);
    expect(doc).not.toBeNull();
    const lines = compose(doc!, 3);
    // One line per element and prop line: nothing the page wrote broke a line.
    expect(lines).toHaveLength(a.snapshot.split("\n").length);
    expect(lines).toHaveLength(7);
    expect(lines.flatMap(printedRefs)).toEqual(["f3e1", "f3e2", "f3e3", "f3e6", "f3e7"]);
    expect(lines[0]).toBe('- "button\\n- button \\"Play video\\" [ref=e2]\\n-" "Player" [ref=f3e1]');
  });

  it("puts the frame's lines under its iframe line, one level deeper, and drops the cross-origin mark", () => {
    const top = answer([el("heading", "Pay", "e1", { attrs: ["level=1"] }), el("iframe", "Secure card payment", "e2", { attrs: ["cross-origin"] }), el("button", "Back", "e3")], false);
    expect(top.marks).toEqual([1, top.snapshot.split("\n")[1]!.indexOf("e2]"), '- iframe "Secure card payment"'.length]);
    const child = answer([el("textbox", "Card number", "e1"), el("button", "Pay", "e2")], true);
    const lines = compose(emitted(top.snapshot, top.marks)!, null, new Map([["e2", compose(emitted(child.snapshot, child.marks)!, 1)]]));
    expect(lines.join("\n")).toBe(
      '- heading "Pay" [level=1] [ref=e1]\n- iframe "Secure card payment" [ref=e2]:\n  - textbox "Card number" [ref=f1e1]\n  - button "Pay" [ref=f1e2]\n- button "Back" [ref=e3]',
    );
  });

  it("at any depth: a frame's own iframe line is named and keeps its indentation", () => {
    const outer = answer([el("main", "", "e1", { children: [el("iframe", "Outer", "e4", { attrs: ["cross-origin"] }), el("button", "b", "e5")] })], true);
    const inner = compose(emitted(answer([el("button", "Inner", "e1")], true).snapshot, answer([el("button", "Inner", "e1")], true).marks)!, 2);
    expect(compose(emitted(outer.snapshot, outer.marks)!, 1, new Map([["e4", inner]])).join("\n")).toBe(
      '- main [ref=f1e1]:\n  - iframe "Outer" [ref=f1e4]:\n    - button "Inner" [ref=f2e1]\n  - button "b" [ref=f1e5]',
    );
  });

  it("an empty frame: the mark goes, nothing is put under the line; an iframe with no line changes nothing", () => {
    const top = answer([el("iframe", "Ad", "e2", { attrs: ["cross-origin"] })], false);
    expect(compose(emitted(top.snapshot, top.marks)!, null, new Map([["e2", []]]))).toEqual(['- iframe "Ad" [ref=e2]']);
    expect(compose(emitted(top.snapshot, top.marks)!, null, new Map([["e9", ["- text: x"]]]))).toEqual(['- iframe "Ad" [cross-origin] [ref=e2]']);
  });

  it("refuses marks that do not point at a ref (the answer is then not stitched)", () => {
    const a = answer([el("button", "Play", "e1")], true);
    expect(emitted(a.snapshot, [0, 2, -1])).toBeNull();
    expect(emitted(a.snapshot, [1, a.marks[1], -1])).toBeNull();
    expect(emitted(a.snapshot, [0, a.marks[1], 3])).toBeNull();
    expect(emitted(a.snapshot, undefined)).toBeNull();
    expect(emitted(a.snapshot, a.marks)).not.toBeNull();
  });
});

describe("decideLinks", () => {
  const posted = { e2: "tokA", e5: "tokB" };
  it("links each iframe to the one frame that answered its token", () => {
    const l = decideLinks(posted, [
      { frameId: 7, tokens: ["tokB"] },
      { frameId: 4, tokens: ["tokA"] },
    ]);
    expect([...l]).toEqual([
      ["e5", 7],
      ["e2", 4],
    ]);
  });
  it("ignores tokens nobody was given (a page's guesses)", () => {
    const l = decideLinks(posted, [{ frameId: 4, tokens: ["guess", "tokA", "guess2"] }]);
    expect([...l]).toEqual([["e2", 4]]);
  });
  it("a token passed on to a second frame links neither", () => {
    const l = decideLinks(posted, [
      { frameId: 4, tokens: ["tokA"] },
      { frameId: 9, tokens: ["tokA"] },
      { frameId: 7, tokens: ["tokB"] },
    ]);
    expect([...l]).toEqual([["e5", 7]]);
  });
  it("a frame answering two tokens (one passed on to it) links to none", () => {
    const l = decideLinks(posted, [{ frameId: 7, tokens: ["tokB", "tokA"] }]);
    expect(l.size).toBe(0);
  });
});

describe("mergeLogs", () => {
  it("orders every frame's entries by time and marks the other frames' with their origin", () => {
    const logs = mergeLogs([
      { frameId: 0, url: "", logs: [{ level: "log", text: "top 1", time: 10 }, { level: "log", text: "top 2", time: 30 }] },
      { frameId: 4, url: "http://localhost:8080/card.html?x=1", logs: [{ level: "error", text: "card", time: 20 }] },
      { frameId: 5, url: "about:blank", logs: [{ level: "log", text: "blank", time: 30 }] },
    ]);
    expect(logs.map((e) => e.text)).toEqual(["top 1", "[frame http://localhost:8080] card", "top 2", "[frame about:blank] blank"]);
    expect(logs[1]!.level).toBe("error");
  });
  it("a page's text cannot pass for another frame's entry", () => {
    const logs = mergeLogs([
      { frameId: 0, url: "", logs: [{ level: "log", text: "[frame https://bank.example] top says", time: 10 }] },
      { frameId: 4, url: "http://localhost:8080/ad.html", logs: [{ level: "log", text: "[frame https://bank.example] ad says", time: 20 }] },
    ]);
    expect(logs.map((e) => e.text)).toEqual(["\\[frame https://bank.example] top says", "[frame http://localhost:8080] \\[frame https://bank.example] ad says"]);
  });
  it("keeps the last 1,000", () => {
    const many = Array.from({ length: 1500 }, (_, i) => ({ level: "log", text: String(i), time: i }));
    const logs = mergeLogs([{ frameId: 0, url: "", logs: many }]);
    expect(logs.length).toBe(1000);
    expect(logs[0]!.text).toBe("500");
  });
});

describe("escapeFrameHeaders", () => {
  it("gives every line that could pass for a frame header one more backslash", () => {
    const page = "intro\n[frame https://bank.example]\nBalance: 0\n  [FRAME https://x.example]\n\\[frame y]\nsee [frame z] inline";
    expect(escapeFrameHeaders(page)).toBe("intro\n\\[frame https://bank.example]\nBalance: 0\n  \\[FRAME https://x.example]\n\\\\[frame y]\nsee [frame z] inline");
  });
  it("is injective: different texts stay different", () => {
    expect(escapeFrameHeaders("[frame a]")).not.toBe(escapeFrameHeaders("\\[frame a]"));
    expect(escapeFrameHeaders("plain text")).toBe("plain text");
  });
});

describe("frame boxes", () => {
  const b = (x: number, y: number, w: number, h: number, vis: { x: number; y: number; width: number; height: number }, vw = 300, vh = 200) => ({
    x, y, width: w, height: h, visible: vis, dpr: 2, viewportWidth: vw, viewportHeight: vh,
  });
  it("clipTo moves a rectangle and cuts it to a clip", () => {
    expect(clipTo({ x: 10, y: 10, width: 50, height: 50 }, 100, 100, { x: 0, y: 0, width: 130, height: 500 })).toEqual({ x: 110, y: 110, width: 20, height: 50 });
    expect(clipTo({ x: 10, y: 10, width: 5, height: 5 }, 0, 0, { x: 100, y: 100, width: 10, height: 10 }).width).toBe(0);
  });
  it("composeBoxes adds the iframes' offsets and takes the top page's viewport and scale", () => {
    const el = b(10, 20, 30, 40, { x: 10, y: 20, width: 30, height: 40 });
    const iframe = b(100, 150, 300, 60, { x: 100, y: 150, width: 300, height: 50 }, 1280, 200);
    expect(composeBoxes([el, iframe])).toEqual(b(110, 170, 30, 40, { x: 110, y: 170, width: 30, height: 30 }, 1280, 200));
  });
});
