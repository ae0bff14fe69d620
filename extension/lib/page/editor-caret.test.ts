// @vitest-environment happy-dom
// A block of an editor (a paragraph's, a list item's ref from the snapshot):
// a click puts the caret in it, and browser_type on it types there, leaving
// the rest of the editor as it was (issue 41).
import { beforeEach, describe, expect, it } from "vitest";
import { ConsoleBuffer } from "./console";
import type { CsOps } from "../messages";
import { handleOp, type PageContext, type PageOp } from "./handler";
import { RefRegistry } from "./refs";
import { caretInto, editorBlockHost } from "./editor-caret";

let ctx: PageContext;
const refOf = (sel: string) => ctx.refs.refFor(document.querySelector(sel)!);
const op = <K extends PageOp>(name: K, args: CsOps[K]["args"]) => handleOp(ctx, name, args);

beforeEach(() => {
  document.body.innerHTML = `<div id="ed" contenteditable="true"><p id="p1">First</p><ul><li id="l1">Milk</li><li id="l2">Eggs<ul><li id="n">Brown</li></ul></li></ul></div>`;
  ctx = { doc: document, refs: new RefRegistry(), logs: new ConsoleBuffer() };
});

describe("editor blocks", () => {
  it("knows a block from its editor", () => {
    expect(editorBlockHost(document.getElementById("l1")!)).toBe(document.getElementById("ed"));
    expect(editorBlockHost(document.getElementById("ed")!)).toBe(null);
  });
  it("puts the caret at the end of the block's own text, not in its nested list", () => {
    caretInto(document.getElementById("l2")!);
    const sel = document.getSelection()!;
    expect(sel.isCollapsed).toBe(true);
    expect(sel.anchorNode?.nodeValue).toBe("Eggs");
    expect(sel.anchorOffset).toBe(4);
  });
  it("a click on a list item puts the caret there", async () => {
    await op("click", { ref: refOf("#l1") });
    const sel = document.getSelection()!;
    expect(document.getElementById("l1")!.contains(sel.anchorNode)).toBe(true);
    expect(sel.anchorOffset).toBe(4);
  });
  it("browser_type on a paragraph's ref types at the caret there, the rest of the editor untouched", async () => {
    await op("type", { ref: refOf("#l1"), text: " and butter" });
    expect(document.getElementById("l1")!.textContent).toBe("Milk and butter");
    expect(document.getElementById("p1")!.textContent).toBe("First");
    expect(document.getElementById("l2")!.textContent).toBe("EggsBrown");
  });
});
