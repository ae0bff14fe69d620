// The site rule in force in a frame (issue 44: the rules hold everywhere):
// the strictest of its site's and every frame's above it, the top frame's
// never winning over everything, and what each rule lets reach a frame.
import { describe, expect, it } from "vitest";
import { ruleFor, type PersonRule } from "../siterules";
import type { FrameInfo } from "./frames";
import { blockedFrames, blockedMark, chainRule, frameRefusal, rank, ruleUrl, strictestRef, type FrameRule } from "./frame-rules";

const person: PersonRule[] = [
  { pattern: "never.test", rule: "never" },
  { pattern: "ro.test", rule: "read_only" },
  { pattern: "ask.test", rule: "ask", scope: "each" },
  { pattern: "risky.test", rule: "ask", scope: "risky" },
];
const ruleOf = (url: string) => ruleFor(url, person, { blockedSites: ["org-blocked.test"] });

function tree(...urls: Array<[number, number, string]>): FrameInfo[] {
  return urls.map(([frameId, parentFrameId, url]) => ({ frameId, parentFrameId, documentId: `D${frameId}`, url }));
}

describe("chainRule", () => {
  it("takes a frame's own site's rule when it is stricter than the top frame's", () => {
    const t = tree([0, -1, "https://shop.test/"], [3, 0, "https://never.test/widget"], [4, 0, "https://ro.test/"], [5, 0, "https://ask.test/"]);
    expect(chainRule(t, 3, ruleOf)).toMatchObject({ fromTop: false, rule: { rule: "never", host: "never.test", source: "person" } });
    expect(chainRule(t, 4, ruleOf)).toMatchObject({ fromTop: false, rule: { rule: "read_only" } });
    expect(chainRule(t, 5, ruleOf)).toMatchObject({ fromTop: false, rule: { rule: "ask", scope: "each" } });
    expect(chainRule(t, 0, ruleOf)).toMatchObject({ fromTop: true, rule: { rule: "act" } });
  });

  it("the top frame's never wins over everything, and its rule over a looser or equal frame's", () => {
    const t = tree([0, -1, "https://never.test/"], [1, 0, "https://ro.test/"], [2, 1, "https://org-blocked.test/"]);
    expect(chainRule(t, 1, ruleOf)).toMatchObject({ fromTop: true, rule: { rule: "never", host: "never.test" } });
    // Equal strictness (never in the frame too): the top's is kept, the gate decided it.
    expect(chainRule(t, 2, ruleOf)).toMatchObject({ fromTop: true, rule: { host: "never.test" } });
    const ro = tree([0, -1, "https://ro.test/"], [1, 0, "https://shop.test/"], [2, 0, "https://ro.test/x"]);
    expect(chainRule(ro, 1, ruleOf)).toMatchObject({ fromTop: true, rule: { rule: "read_only" } });
    expect(chainRule(ro, 2, ruleOf)?.fromTop).toBe(true);
  });

  it("a frame inside a never frame is kept off too, whatever its own site (about:blank, srcdoc, another site)", () => {
    const t = tree(
      [0, -1, "https://shop.test/"],
      [1, 0, "https://never.test/"],
      [2, 1, "about:blank"],
      [3, 1, "https://shop.test/inner"],
      [4, 3, "about:srcdoc"],
    );
    for (const id of [2, 3, 4]) expect(chainRule(t, id, ruleOf)).toMatchObject({ fromTop: false, rule: { rule: "never", host: "never.test" } });
    expect([...blockedFrames(t, ruleOf).keys()].sort()).toEqual([1, 2, 3, 4]);
    expect(blockedFrames(t, undefined).size).toBe(0);
  });

  it("a blob: frame takes the rule of the site that made it; the organisation's never is named as theirs", () => {
    const t = tree([0, -1, "https://shop.test/"], [1, 0, "blob:https://never.test/5d1c"], [2, 0, "https://a.org-blocked.test/"], [3, 0, "https://org-blocked.test/"]);
    expect(ruleUrl("blob:https://never.test/5d1c")).toBe("https://never.test/5d1c");
    expect(chainRule(t, 1, ruleOf)?.rule.rule).toBe("never");
    expect(chainRule(t, 2, ruleOf)?.rule.rule).toBe("act"); // a plain pattern is that host only
    expect(chainRule(t, 3, ruleOf)).toMatchObject({ fromTop: false, rule: { rule: "never", source: "policy" } });
  });

  it("an unknown frame, or one whose chain does not reach a top frame, has no rule (the caller says it is gone)", () => {
    const t = tree([0, -1, "https://shop.test/"], [1, 0, "https://ro.test/"], [5, 9, "https://shop.test/"]);
    expect(chainRule(t, 7, ruleOf)).toBeUndefined();
    expect(chainRule(t, 5, ruleOf)).toBeUndefined();
    const loop = tree([0, -1, "https://shop.test/"], [1, 2, "https://shop.test/"], [2, 1, "https://shop.test/"]);
    expect(chainRule(loop, 1, ruleOf)).toBeUndefined();
  });

  it("ranks ask each action above ask only risky ones", () => {
    expect(rank(ruleOf("https://ask.test/"))).toBeGreaterThan(rank(ruleOf("https://risky.test/")));
    const t = tree([0, -1, "https://risky.test/"], [1, 0, "https://ask.test/"]);
    expect(chainRule(t, 1, ruleOf)).toMatchObject({ fromTop: false, rule: { rule: "ask", scope: "each" } });
  });
});

describe("frameRefusal", () => {
  const t = tree([0, -1, "https://shop.test/"], [1, 0, "https://never.test/"], [2, 0, "https://ro.test/"], [3, 0, "https://ask.test/"], [4, 0, "https://org-blocked.test/"]);
  const fr = (id: number) => chainRule(t, id, ruleOf)!;

  it("never refuses every op, naming the rule and whose it is", () => {
    for (const op of ["snapshot", "get_text", "rect", "click", "click_xy", "press_key", "scroll"]) {
      const why = frameRefusal(fr(1), op, "ref f2e5");
      expect(why).toMatch(/^Not done: ref f2e5 is in a frame of the page on never\.test, a site the person's site rules keep from the AI \(never: never\.test\)/);
    }
    expect(frameRefusal(fr(4), "get_text", "ref f3e1")).toContain("your organisation's policy keeps from the AI (never: org-blocked.test)");
  });

  it("read only lets reads and scrolling through and refuses actions by ref and at points", () => {
    for (const op of ["snapshot", "get_text", "rect", "scroll", "describe"]) expect(frameRefusal(fr(2), op, "ref f2e5")).toBeUndefined();
    expect(frameRefusal(fr(2), "type", "ref f2e5")).toMatch(/read only for the AI \(ro\.test\): reading the frame works, but to type there is refused/);
    for (const op of ["click", "hover", "select", "drag", "upload", "fill_form", "click_check", "click_xy", "drag_xy", "press_key"]) {
      expect(frameRefusal(fr(2), op, "x"), op).toBeDefined();
    }
  });

  it("ask lets an action by ref through (the gate asked) and refuses one at a point or the focus", () => {
    expect(frameRefusal(fr(3), "click", "ref f2e5")).toBeUndefined();
    expect(frameRefusal(fr(3), "click_xy", "the point")).toMatch(/ask before acting.*act on the element by its ref/);
    expect(frameRefusal(fr(3), "press_key", "the focused element")).toBeDefined();
  });

  it("the top frame's rule is the gate's: nothing more here", () => {
    expect(frameRefusal(fr(0), "click", "ref e5")).toBeUndefined();
    const ro = tree([0, -1, "https://ro.test/"], [1, 0, "https://shop.test/"]);
    expect(frameRefusal(chainRule(ro, 1, ruleOf)!, "click", "ref f1e1")).toBeUndefined();
  });

  it("a blocked frame's iframe line names the rule and whose it is", () => {
    expect(blockedMark(fr(1).rule)).toBe(" [blocked by your site rules: never on never.test]");
    expect(blockedMark(fr(4).rule)).toBe(" [blocked by your organisation: never on org-blocked.test]");
  });
});

describe("strictestRef", () => {
  it("takes the strictest frame of a request's frame refs and skips the top frame's", async () => {
    const rules: Record<string, FrameRule | null> = {
      e4: null,
      f1e2: { fromTop: false, rule: ruleOf("https://ask.test/") },
      f2e3: { fromTop: false, rule: ruleOf("https://ro.test/") },
      f3e1: { fromTop: true, rule: ruleOf("https://never.test/") },
    };
    const asked: string[] = [];
    const of = async (ref: string) => (asked.push(ref), rules[ref] ?? null);
    expect(await strictestRef({ ref: "e4" }, of)).toBeUndefined();
    expect(asked).toEqual([]);
    expect(await strictestRef({ startRef: "f1e2", endRef: "[ref=f2e3]" }, of)).toMatchObject({ ref: "f2e3", fr: { rule: { rule: "read_only" } } });
    expect(await strictestRef({ fields: [{ ref: "f1e2" }, { ref: "e4" }, { ref: "f3e1" }] }, of)).toMatchObject({ ref: "f1e2" });
  });
});
