// @vitest-environment happy-dom
// The default-action table of synthetic keys (keyactions.ts) and its
// performance (keyboard.ts, caret.ts): what a browser does for real keys.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { fieldSelectionAfter, wordBoundary } from "./caret";
import { keyAction, type KeyAction, type KeyContext } from "./keyactions";
import { parseKeyCombo } from "./keys";
import { FOCUS_SETTLE_MS, pressKey, pressKeyOn } from "./keyboard";
import { focusElement } from "./focus";

const act = (combo: string, where: KeyContext, mac = false, target = {}): KeyAction => keyAction(parseKeyCombo(combo), where, mac, target);
const caret = (dir: "backward" | "forward", unit: string, extend = false) => ({ kind: "caret", extend, dir, unit });
const edit = (inputType: string) => ({ kind: "edit", inputType });

describe("the default-action table", () => {
  it.each<[string, KeyContext, boolean, object]>([
    // Caret and selection keys in a contenteditable, Windows and Linux.
    ["ArrowLeft", "editable", false, caret("backward", "character")],
    ["Shift+ArrowRight", "editable", false, caret("forward", "character", true)],
    ["Ctrl+ArrowLeft", "editable", false, caret("backward", "word")],
    ["Shift+Ctrl+ArrowLeft", "editable", false, caret("backward", "word", true)],
    ["Ctrl+Shift+ArrowRight", "editable", false, caret("forward", "word", true)],
    ["ArrowDown", "editable", false, caret("forward", "line")],
    ["Shift+ArrowUp", "editable", false, caret("backward", "line", true)],
    ["Ctrl+ArrowDown", "editable", false, caret("forward", "paragraph")],
    ["Home", "editable", false, caret("backward", "lineboundary")],
    ["Shift+End", "editable", false, caret("forward", "lineboundary", true)],
    ["Ctrl+Home", "editable", false, caret("backward", "documentboundary")],
    ["Ctrl+Shift+End", "editable", false, caret("forward", "documentboundary", true)],
    ["PageDown", "editable", false, caret("forward", "page")],
    ["Shift+PageUp", "editable", false, caret("backward", "page", true)],
    // macOS: Option moves by words, Cmd to the line's and the document's ends.
    ["Alt+ArrowLeft", "editable", true, caret("backward", "word")],
    ["Alt+Shift+ArrowLeft", "editable", true, caret("backward", "word", true)],
    ["Cmd+ArrowRight", "editable", true, caret("forward", "lineboundary")],
    ["Cmd+ArrowUp", "editable", true, caret("backward", "documentboundary")],
    ["Cmd+Shift+ArrowDown", "editable", true, caret("forward", "documentboundary", true)],
    ["Alt+ArrowDown", "editable", true, caret("forward", "paragraphboundary")],
    ["Ctrl+ArrowLeft", "editable", true, { kind: "none" }],
    // The same keys in text fields.
    ["Ctrl+ArrowRight", "field", false, caret("forward", "word")],
    ["Shift+Home", "textarea", false, caret("backward", "lineboundary", true)],
    // Editing commands and their inputType.
    ["a", "editable", false, edit("insertText")],
    ["Shift+A", "field", false, edit("insertText")],
    ["Space", "editable", false, edit("insertText")],
    ["Enter", "editable", false, edit("insertParagraph")],
    ["Shift+Enter", "editable", false, edit("insertLineBreak")],
    ["Enter", "textarea", false, edit("insertLineBreak")],
    ["Enter", "field", false, { kind: "submit" }],
    ["Backspace", "editable", false, edit("deleteContentBackward")],
    ["Delete", "field", false, edit("deleteContentForward")],
    ["Ctrl+Backspace", "editable", false, edit("deleteWordBackward")],
    ["Ctrl+Delete", "textarea", false, edit("deleteWordForward")],
    ["Alt+Backspace", "editable", true, edit("deleteWordBackward")],
    ["Cmd+Backspace", "editable", true, edit("deleteSoftLineBackward")],
    ["Ctrl+B", "editable", false, edit("formatBold")],
    ["Cmd+I", "editable", true, edit("formatItalic")],
    ["Ctrl+B", "field", false, { kind: "none" }],
    ["Ctrl+Z", "editable", false, edit("historyUndo")],
    ["Ctrl+Shift+Z", "editable", false, edit("historyRedo")],
    ["Ctrl+Y", "field", false, edit("historyRedo")],
    ["Cmd+Shift+Z", "editable", true, edit("historyRedo")],
    // Selection of everything, focus moves, dialogs.
    ["Ctrl+A", "editable", false, { kind: "selectAll" }],
    ["Ctrl+A", "other", false, { kind: "selectAll" }],
    ["Cmd+A", "field", true, { kind: "selectAll" }],
    ["Ctrl+A", "field", true, caret("backward", "paragraphboundary")],
    ["Tab", "editable", false, { kind: "focus", backward: false }],
    ["Shift+Tab", "field", false, { kind: "focus", backward: true }],
    ["Escape", "other", false, { kind: "cancelDialog" }],
    // Outside text: the page scrolls.
    ["PageDown", "other", false, { kind: "scroll", dy: 0, pages: 0.875 }],
    ["Ctrl+End", "other", false, { kind: "scroll", dy: 0, pages: Infinity }],
    ["ArrowDown", "other", false, { kind: "scroll", dy: 40, pages: 0 }],
    ["Space", "other", false, { kind: "scroll", dy: 0, pages: 0.875 }],
    // Shortcuts do nothing by themselves.
    ["Ctrl+K", "editable", false, { kind: "none" }],
    ["Ctrl+Alt+ArrowLeft", "editable", false, { kind: "none" }],
    ["F5", "other", false, { kind: "none" }],
  ])("%s in %s (mac %s)", (combo, where, mac, want) => {
    expect(act(combo, where, mac)).toEqual(want);
  });

  it("Enter and Space activate buttons and links; Up and Down step a closed select", () => {
    expect(act("Enter", "other", false, { activatable: true })).toEqual({ kind: "activate" });
    expect(act("Space", "other", false, { activatable: true })).toEqual({ kind: "activate" });
    expect(act("ArrowDown", "other", false, { select: true })).toEqual({ kind: "selectStep", delta: 1 });
    expect(act("Enter", "other", false)).toEqual({ kind: "none" });
  });
});

describe("caret moves in text fields", () => {
  const s = "one two  three";
  it.each([
    [7, "backward", 4],
    [4, "backward", 0],
    [3, "forward", 7],
    [7, "forward", 14],
    [0, "backward", 0],
  ] as const)("a word move from %i %s lands on %i", (pos, dir, want) => {
    expect(wordBoundary(s, pos, dir)).toBe(want);
  });

  it("Shift extends from the anchor; a plain move collapses", () => {
    const at = (n: number) => ({ start: n, end: n, direction: "none" as const });
    expect(fieldSelectionAfter(s, at(7), "backward", "word", true, false)).toEqual({ start: 4, end: 7, direction: "backward" });
    const sel = fieldSelectionAfter(s, { start: 4, end: 7, direction: "backward" }, "backward", "word", true, false);
    expect(sel).toEqual({ start: 0, end: 7, direction: "backward" });
    expect(fieldSelectionAfter(s, sel, "forward", "character", false, false)).toEqual(at(7));
    expect(fieldSelectionAfter(s, at(5), "backward", "documentboundary", false, false)).toEqual(at(0));
    expect(fieldSelectionAfter(s, at(5), "forward", "line", false, false)).toEqual(at(14));
  });

  it("lines of a textarea keep the column", () => {
    const t = "abcdef\nxy\nlong line";
    const at = (n: number) => ({ start: n, end: n, direction: "none" as const });
    expect(fieldSelectionAfter(t, at(4), "forward", "line", false, true)).toEqual(at(9)); // end of "xy"
    expect(fieldSelectionAfter(t, at(8), "forward", "line", false, true)).toEqual(at(11));
    expect(fieldSelectionAfter(t, at(11), "backward", "lineboundary", false, true)).toEqual(at(10));
    expect(fieldSelectionAfter(t, at(11), "forward", "lineboundary", true, true)).toEqual({ start: 11, end: 19, direction: "forward" });
  });
});

describe("pressKeyOn", () => {
  beforeEach(() => {
    document.body.innerHTML = "";
  });

  it("sends the key's text to the element its keydown focused (a grid opening its cell editor)", () => {
    document.body.innerHTML = `<div role="grid"><div id="cell" role="gridcell" tabindex="0">100</div></div><input id="editor" hidden>`;
    const cell = document.getElementById("cell")!;
    const editor = document.getElementById("editor") as HTMLInputElement;
    const seen: string[] = [];
    cell.addEventListener("keydown", () => {
      editor.hidden = false;
      editor.value = "";
      editor.focus();
    });
    for (const t of ["keydown", "keypress", "beforeinput", "input", "keyup"]) document.addEventListener(t, (e) => seen.push(`${e.type}@${(e.target as Element).id}`), true);
    cell.focus();
    pressKeyOn(cell, parseKeyCombo("1"));
    expect(editor.value).toBe("1");
    expect(seen).toEqual(["keydown@cell", "keypress@editor", "beforeinput@editor", "input@editor", "keyup@editor"]);
    // The next keys go to the editor, which now has the focus.
    for (const k of ["2", "0", "0"]) pressKeyOn(editor, parseKeyCombo(k));
    expect(editor.value).toBe("1200");
  });

  it("a cancelled keydown has no default action", () => {
    document.body.innerHTML = `<input id="f" value="ab">`;
    const f = document.getElementById("f") as HTMLInputElement;
    f.focus();
    f.setSelectionRange(2, 2);
    f.addEventListener("keydown", (e) => e.preventDefault(), { once: true });
    pressKeyOn(f, parseKeyCombo("c"));
    expect(f.value).toBe("ab");
    pressKeyOn(f, parseKeyCombo("c"));
    expect(f.value).toBe("abc");
  });

  it("moves and extends a text field's selection, and deletes by words", () => {
    document.body.innerHTML = `<input id="f" value="hello big world">`;
    const f = document.getElementById("f") as HTMLInputElement;
    f.focus();
    f.setSelectionRange(15, 15);
    pressKeyOn(f, parseKeyCombo("Ctrl+Shift+ArrowLeft"));
    expect([f.selectionStart, f.selectionEnd]).toEqual([10, 15]);
    pressKeyOn(f, parseKeyCombo("Ctrl+Home"));
    expect([f.selectionStart, f.selectionEnd]).toEqual([0, 0]);
    pressKeyOn(f, parseKeyCombo("End"));
    const types: string[] = [];
    f.addEventListener("beforeinput", (e) => types.push((e as InputEvent).inputType));
    pressKeyOn(f, parseKeyCombo("Ctrl+Backspace"));
    expect(f.value).toBe("hello big ");
    expect(types).toEqual(["deleteWordBackward"]);
  });

  it("moves a contenteditable's selection with Selection.modify, by the table's unit", () => {
    document.body.innerHTML = `<div id="ed" contenteditable="true">one two</div>`;
    const ed = document.getElementById("ed")!;
    ed.focus();
    const sel = document.getSelection()!;
    sel.collapse(ed.firstChild, 7);
    const modify = vi.fn();
    (sel as Selection & { modify: unknown }).modify = modify;
    pressKeyOn(ed, parseKeyCombo("Shift+Ctrl+ArrowLeft"));
    pressKeyOn(ed, parseKeyCombo("Ctrl+Home"));
    pressKeyOn(ed, parseKeyCombo("ArrowDown"));
    expect(modify.mock.calls).toEqual([
      ["extend", "backward", "word"],
      ["move", "backward", "documentboundary"],
      ["move", "forward", "line"],
    ]);
  });

  it("Tab moves the focus to the next field", () => {
    document.body.innerHTML = `<input id="a"><input id="b">`;
    const a = document.getElementById("a")!;
    a.focus();
    pressKeyOn(a, parseKeyCombo("Tab"));
    expect(document.activeElement?.id).toBe("b");
  });
});

describe("browser_type on a grid cell", () => {
  it("types key by key into the editor the cell's first key opens; a button is refused", async () => {
    const { handleOp } = await import("./handler");
    const { RefRegistry } = await import("./refs");
    const { ConsoleBuffer } = await import("./console");
    const ctx = { doc: document, refs: new RefRegistry(), logs: new ConsoleBuffer() };
    document.body.innerHTML = `<div role="grid"><div id="cell" role="gridcell" tabindex="-1">Open</div></div><div id="b" role="button" tabindex="0">Go</div>`;
    const cell = document.getElementById("cell")!;
    let committed = "";
    cell.addEventListener("keydown", (e) => {
      if (e.target !== cell || e.key.length !== 1) return;
      const input = document.createElement("input");
      cell.textContent = "";
      cell.appendChild(input);
      input.focus();
      input.addEventListener("keydown", (k) => {
        if (k.key === "Enter") committed = input.value;
      });
    });
    await handleOp(ctx, "type", { ref: ctx.refs.refFor(cell), text: "Paid", submit: true });
    expect(committed).toBe("Paid");
    await expect(handleOp(ctx, "type", { ref: ctx.refs.refFor(document.getElementById("b")!), text: "x" })).rejects.toThrow(/does not take text/);
  });
});

describe("pressKey after a focus move", () => {
  it("holds a caret key until the focus settled (ProseMirror's guard), not a typed character", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "performance"] });
    try {
      document.body.innerHTML = `<div id="ed" contenteditable="true">one two</div>`;
      const ed = document.getElementById("ed")!;
      focusElement(ed);
      const sel = document.getSelection()!;
      sel.collapse(ed.firstChild, 7);
      const modify = vi.fn();
      (sel as Selection & { modify: unknown }).modify = modify;
      const keys: string[] = [];
      ed.addEventListener("keydown", (e) => keys.push(e.key));
      const p = pressKey(document, "Ctrl+Home");
      await vi.advanceTimersByTimeAsync(FOCUS_SETTLE_MS - 50);
      expect(keys).toEqual([]);
      await vi.advanceTimersByTimeAsync(60);
      await p;
      expect(keys).toEqual(["Control", "Home"]);
      expect(modify).toHaveBeenCalledWith("move", "backward", "documentboundary");
      // Long after the focus: at once.
      keys.length = 0;
      await pressKey(document, "ArrowLeft");
      expect(keys).toEqual(["ArrowLeft"]);
    } finally {
      vi.useRealTimers();
    }
  });
});
