// What a browser does for a key when the page did not cancel its keydown:
// the default action, as a table (key + modifiers → action) per kind of
// focused element. Untrusted key events trigger none of these on their own;
// keyboard.ts performs the action the table names (docs/DESIGN.md, "What
// synthetic input emulates"). The table follows Chromium's editing key
// bindings: Ctrl is the word and shortcut modifier on Windows and Linux,
// Alt (Option) the word modifier and Cmd the line, document and shortcut
// modifier on macOS.

import type { KeyPress } from "./keys";

/** Where the key lands: a one-line text field, a textarea, a contenteditable, anything else. */
export type KeyContext = "field" | "textarea" | "editable" | "other";

/** How far a caret or selection key moves (Selection.modify's granularities, and a page). */
export type CaretUnit = "character" | "word" | "line" | "paragraph" | "lineboundary" | "paragraphboundary" | "documentboundary" | "page";

export type KeyAction =
  /** Moves the caret (extend: the selection's focus) by unit. */
  | { kind: "caret"; extend: boolean; dir: "backward" | "forward"; unit: CaretUnit }
  /** An editing command, announced by beforeinput with this inputType (insertText carries the key's text). */
  | { kind: "edit"; inputType: EditType }
  | { kind: "selectAll" }
  | { kind: "focus"; backward: boolean }
  /** Enter in a one-line field: implicit form submission. */
  | { kind: "submit" }
  /** Enter or Space on a button, link or summary: its click. */
  | { kind: "activate" }
  | { kind: "cancelDialog" }
  /** Scrolls the page (or the scroller around the focus) by dy pixels plus pages viewport heights. */
  | { kind: "scroll"; dy: number; pages: number }
  /** Up/Down on a closed <select>: the previous or next option. */
  | { kind: "selectStep"; delta: number }
  | { kind: "none" };

export type EditType =
  | "insertText"
  | "insertParagraph"
  | "insertLineBreak"
  | "deleteContentBackward"
  | "deleteContentForward"
  | "deleteWordBackward"
  | "deleteWordForward"
  | "deleteSoftLineBackward"
  | "deleteSoftLineForward"
  | "formatBold"
  | "formatItalic"
  | "formatUnderline"
  | "historyUndo"
  | "historyRedo";

/** A key combination's canonical name: modifiers in the order Ctrl, Alt, Meta, Shift, then the key. */
export function comboName(kp: KeyPress): string {
  const m = kp.modifiers;
  let key = kp.key.length === 1 ? kp.key.toLowerCase() : kp.key;
  if (key === " ") key = "Space";
  return `${m.ctrl ? "Ctrl+" : ""}${m.alt ? "Alt+" : ""}${m.meta ? "Meta+" : ""}${m.shift ? "Shift+" : ""}${key}`;
}

const caret = (dir: "backward" | "forward", unit: CaretUnit, extend = false): KeyAction => ({ kind: "caret", extend, dir, unit });
const edit = (inputType: EditType): KeyAction => ({ kind: "edit", inputType });

/**
 * The caret keys of text editing: combination (without Shift) → direction
 * and unit. With Shift added, each extends the selection instead.
 */
function caretKeys(mac: boolean): Record<string, [("backward" | "forward"), CaretUnit]> {
  const common: Record<string, ["backward" | "forward", CaretUnit]> = {
    ArrowLeft: ["backward", "character"],
    ArrowRight: ["forward", "character"],
    ArrowUp: ["backward", "line"],
    ArrowDown: ["forward", "line"],
  };
  if (mac) {
    return {
      ...common,
      "Alt+ArrowLeft": ["backward", "word"],
      "Alt+ArrowRight": ["forward", "word"],
      "Alt+ArrowUp": ["backward", "paragraphboundary"],
      "Alt+ArrowDown": ["forward", "paragraphboundary"],
      "Meta+ArrowLeft": ["backward", "lineboundary"],
      "Meta+ArrowRight": ["forward", "lineboundary"],
      "Meta+ArrowUp": ["backward", "documentboundary"],
      "Meta+ArrowDown": ["forward", "documentboundary"],
      // Emacs keys of macOS text editing.
      "Ctrl+a": ["backward", "paragraphboundary"],
      "Ctrl+e": ["forward", "paragraphboundary"],
      "Alt+PageUp": ["backward", "page"],
      "Alt+PageDown": ["forward", "page"],
    };
  }
  return {
    ...common,
    "Ctrl+ArrowLeft": ["backward", "word"],
    "Ctrl+ArrowRight": ["forward", "word"],
    "Ctrl+ArrowUp": ["backward", "paragraph"],
    "Ctrl+ArrowDown": ["forward", "paragraph"],
    Home: ["backward", "lineboundary"],
    End: ["forward", "lineboundary"],
    "Ctrl+Home": ["backward", "documentboundary"],
    "Ctrl+End": ["forward", "documentboundary"],
    PageUp: ["backward", "page"],
    PageDown: ["forward", "page"],
  };
}

/** Editing keys of text fields and contenteditables: combination → command. */
function editKeys(mac: boolean): Record<string, KeyAction> {
  const primary = mac ? "Meta" : "Ctrl";
  const word = mac ? "Alt" : "Ctrl";
  const keys: Record<string, KeyAction> = {
    Backspace: edit("deleteContentBackward"),
    "Shift+Backspace": edit("deleteContentBackward"),
    Delete: edit("deleteContentForward"),
    [`${word}+Backspace`]: edit("deleteWordBackward"),
    [`${word}+Delete`]: edit("deleteWordForward"),
    Enter: edit("insertParagraph"),
    "Shift+Enter": edit("insertLineBreak"),
    [`${primary}+a`]: { kind: "selectAll" },
    [`${primary}+b`]: edit("formatBold"),
    [`${primary}+i`]: edit("formatItalic"),
    [`${primary}+u`]: edit("formatUnderline"),
    [`${primary}+z`]: edit("historyUndo"),
    [`${primary}+Shift+z`]: edit("historyRedo"),
  };
  if (mac) {
    keys["Meta+Backspace"] = edit("deleteSoftLineBackward");
    keys["Meta+Delete"] = edit("deleteSoftLineForward");
    keys["Ctrl+h"] = edit("deleteContentBackward");
    keys["Ctrl+d"] = edit("deleteContentForward");
    keys["Ctrl+k"] = edit("deleteSoftLineForward");
  } else {
    keys["Ctrl+y"] = edit("historyRedo");
  }
  return keys;
}

/** Keys outside text: the page's own default actions. */
function pageKeys(mac: boolean): Record<string, KeyAction> {
  const primary = mac ? "Meta" : "Ctrl";
  return {
    [`${primary}+a`]: { kind: "selectAll" },
    Space: { kind: "scroll", dy: 0, pages: 0.875 },
    "Shift+Space": { kind: "scroll", dy: 0, pages: -0.875 },
    PageDown: { kind: "scroll", dy: 0, pages: 0.875 },
    PageUp: { kind: "scroll", dy: 0, pages: -0.875 },
    Home: { kind: "scroll", dy: 0, pages: -Infinity },
    End: { kind: "scroll", dy: 0, pages: Infinity },
    [mac ? "Meta+ArrowUp" : "Ctrl+Home"]: { kind: "scroll", dy: 0, pages: -Infinity },
    [mac ? "Meta+ArrowDown" : "Ctrl+End"]: { kind: "scroll", dy: 0, pages: Infinity },
    ArrowDown: { kind: "scroll", dy: 40, pages: 0 },
    ArrowUp: { kind: "scroll", dy: -40, pages: 0 },
  };
}

const tables = new Map<string, Record<string, KeyAction>>();

/** The whole table for one kind of element on one platform (built once). */
export function keyTable(where: KeyContext, mac: boolean): Record<string, KeyAction> {
  const id = `${where}/${mac}`;
  const hit = tables.get(id);
  if (hit) return hit;
  const t: Record<string, KeyAction> = {};
  if (where === "other") {
    Object.assign(t, pageKeys(mac));
  } else {
    for (const [combo, [dir, unit]] of Object.entries(caretKeys(mac))) {
      t[combo] = caret(dir, unit);
      t[withShift(combo)] = caret(dir, unit, true);
    }
    Object.assign(t, editKeys(mac));
    if (where === "field") {
      // One line: Enter submits the form; there are no paragraphs to break.
      t.Enter = { kind: "submit" };
      t["Shift+Enter"] = { kind: "submit" };
    }
    if (where === "textarea") {
      t.Enter = edit("insertLineBreak");
      t["Shift+Enter"] = edit("insertLineBreak");
    }
    if (where !== "editable") {
      // Plain text has no formatting.
      for (const [k, a] of Object.entries(t)) if (a.kind === "edit" && a.inputType.startsWith("format")) delete t[k];
    }
  }
  t.Tab = { kind: "focus", backward: false };
  t["Shift+Tab"] = { kind: "focus", backward: true };
  t.Escape = { kind: "cancelDialog" };
  tables.set(id, t);
  return t;
}

/** combo with Shift added in its canonical place (after Ctrl, Alt, Meta). */
function withShift(combo: string): string {
  const parts = combo.split("+");
  const key = parts.pop()!;
  return [...parts, "Shift", key].join("+");
}

/**
 * The default action of kp on an element of kind where. A key with text and
 * no Ctrl, Alt or Meta inserts it in text; outside text, Enter and Space
 * activate what they activate (activatable), and Up/Down step a <select>.
 */
export function keyAction(kp: KeyPress, where: KeyContext, mac: boolean, target: { activatable?: boolean; select?: boolean } = {}): KeyAction {
  const name = comboName(kp);
  if (where === "other") {
    if (target.select && (name === "ArrowUp" || name === "ArrowDown")) return { kind: "selectStep", delta: name === "ArrowDown" ? 1 : -1 };
    if (target.activatable && (name === "Enter" || name === "Space")) return { kind: "activate" };
  }
  const row = keyTable(where, mac)[name];
  if (row) return row;
  const m = kp.modifiers;
  // AltGr characters arrive with Ctrl+Alt on Windows; on macOS Option types characters.
  const typing = !m.ctrl && !m.meta && (!m.alt || mac);
  if (where !== "other" && typing && kp.text !== "" && kp.text !== "\r") return edit("insertText");
  return { kind: "none" };
}

/** Whether the page's platform is macOS (whose editing keys differ). */
export function isMac(win: Window): boolean {
  const nav = win.navigator as Navigator & { userAgentData?: { platform?: string } };
  const p = nav?.userAgentData?.platform || nav?.platform || "";
  return /mac|iphone|ipad/i.test(p);
}
