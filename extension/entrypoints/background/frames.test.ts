import { describe, expect, it } from "vitest";
import { clipTo, composeBoxes, decideLinks, mergeLogs, numberFor, prefixRefs, splitRef, stitch } from "./frames";

describe("frame refs", () => {
  it("split into frame number and the frame's own ref, as typed or pasted", () => {
    expect(splitRef("f2e15")).toEqual({ n: 2, local: "e15", full: "f2e15" });
    expect(splitRef("[ref=f2e15]")).toEqual({ n: 2, local: "e15", full: "f2e15" });
    expect(splitRef("e15")).toBeNull();
    expect(splitRef("f0e1")).toBeNull();
  });

  it("prefixes only line refs, never a [ref=…] inside a name or value", () => {
    const y = '- button "see [ref=e9]" [disabled] [ref=e1]\n- textbox "Card" [ref=e2]: [ref=e3]\n- text: [ref=e4]';
    expect(prefixRefs(y, 3)).toBe('- button "see [ref=e9]" [disabled] [ref=f3e1]\n- textbox "Card" [ref=f3e2]: [ref=e3]\n- text: [ref=e4]');
  });

  it("frame numbers are per document and never reused", () => {
    const t = { next: 1, byN: {} as Record<string, { documentId: string; frameId: number }> };
    expect(numberFor(t, "docA", 5)).toBe(1);
    expect(numberFor(t, "docA", 5)).toBe(1);
    delete t.byN["1"]; // docA is gone
    expect(numberFor(t, "docB", 5)).toBe(2);
  });
});

describe("stitch", () => {
  const parent = '- heading "Pay" [level=1] [ref=e1]\n- iframe "Secure card payment" [cross-origin] [ref=e2]\n- button "Back" [ref=e3]';
  it("puts the frame's lines under its iframe line, one level deeper, and drops the cross-origin mark", () => {
    const child = '- textbox "Card number" [ref=f1e1]\n- button "Pay" [ref=f1e2]';
    expect(stitch(parent, "e2", child)).toBe(
      '- heading "Pay" [level=1] [ref=e1]\n- iframe "Secure card payment" [ref=e2]:\n  - textbox "Card number" [ref=f1e1]\n  - button "Pay" [ref=f1e2]\n- button "Back" [ref=e3]',
    );
  });
  it("at any depth: an indented iframe line keeps its indentation", () => {
    const nested = '- main [ref=e1]:\n  - iframe "Outer" [cross-origin] [ref=f1e4]';
    expect(stitch(nested, "f1e4", "- button \"Inner\" [ref=f2e1]")).toBe('- main [ref=e1]:\n  - iframe "Outer" [ref=f1e4]:\n    - button "Inner" [ref=f2e1]');
  });
  it("changes nothing when the ref's line is not an iframe or is absent", () => {
    expect(stitch(parent, "e3", "- text: x")).toBe(parent);
    expect(stitch(parent, "e9", "- text: x")).toBe(parent);
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
  it("keeps the last 1,000", () => {
    const many = Array.from({ length: 1500 }, (_, i) => ({ level: "log", text: String(i), time: i }));
    const logs = mergeLogs([{ frameId: 0, url: "", logs: many }]);
    expect(logs.length).toBe(1000);
    expect(logs[0]!.text).toBe("500");
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
