// browser_press_key: key events on the focused element, and the default
// actions untrusted key events do not trigger on their own (text insertion,
// form submission on Enter, focus moves on Tab, scrolling…).

import { deepActiveElement, editingHost, isContentEditable, isDisabledElement, isInput, isSelect, isTextArea, isTextField, safeMatches, supportsSelection, tagOf, windowOf } from "./dom";
import { deleteInEditable, deleteInField, editContextHost, editContextInput, execCommand, insertIntoEditable, insertIntoField, selectAllIn, type DeleteUnit } from "./editing";
import { centerOf, fire, inputEvent, mouse, pageTurn } from "./events";
import { FocusWatch, moveFocus, sinceFocus } from "./focus";
import { fieldSelectionAfter, modifySelection, type FieldSelection } from "./caret";
import { isMac, keyAction, type CaretUnit, type EditType, type KeyContext } from "./keyactions";
import { parseKeyCombo, type KeyPress } from "./keys";
import { PageError } from "./refs";
import { scrollPage } from "./scroll";
import { report } from "../diag";

// ---------- keyboard ----------

export function key(el: Element, type: "keydown" | "keypress" | "keyup", kp: KeyPress): boolean {
  const win = windowOf(el);
  const m = kp.modifiers;
  const ev = new win.KeyboardEvent(type, {
    key: kp.key,
    code: kp.code,
    keyCode: type === "keypress" ? kp.text.charCodeAt(0) || kp.keyCode : kp.keyCode,
    which: type === "keypress" ? kp.text.charCodeAt(0) || kp.keyCode : kp.keyCode,
    charCode: type === "keypress" ? kp.text.charCodeAt(0) || 0 : 0,
    ctrlKey: m.ctrl,
    shiftKey: m.shift,
    altKey: m.alt,
    metaKey: m.meta,
    bubbles: true,
    cancelable: true,
    composed: true,
    view: win,
  } as KeyboardEventInit);
  return el.dispatchEvent(ev);
}

const MODIFIER_ORDER: Array<[keyof KeyPress["modifiers"], string, string, number]> = [
  ["ctrl", "Control", "ControlLeft", 17],
  ["alt", "Alt", "AltLeft", 18],
  ["meta", "Meta", "MetaLeft", 91],
  ["shift", "Shift", "ShiftLeft", 16],
];

export async function pressKey(doc: Document, combo: string): Promise<void> {
  const kp = parseKeyCombo(combo);
  const target = deepActiveElement(doc) ?? doc.body ?? doc.documentElement;
  if (!target) throw new PageError("the page has no document body to send keys to");
  // A caret key right after a focus move waits until FOCUS_SETTLE_MS have
  // passed since it, as a person's next key would: editors ignore selection
  // moves just after focus (ProseMirror undoes a move to the document's start
  // within 200 ms of a focus event, taking it for the browser's reset).
  const wait = FOCUS_SETTLE_MS - sinceFocus(doc);
  if (wait > 0 && defaultActionKind(target, kp) === "caret") await new Promise<void>((r) => setTimeout(r, Math.ceil(wait)));
  const watch = new FocusWatch(doc);
  try {
    pressKeyOn(target, kp, () => watch.sync());
    watch.sync();
    await pageTurn();
  } finally {
    watch.stop();
  }
}

/**
 * One key as a browser delivers it (UI Events): the held modifiers' keydowns,
 * keydown, then unless a listener cancelled it keypress (for a key with
 * text) and the key's default action (keyactions.ts), then keyup and the
 * modifiers' keyups. Each event goes to the element focused when it is
 * fired, as in a browser: a grid whose keydown handler opens an in-cell
 * editor and focuses it gets the key's text in that editor. synced runs
 * after keydown (the caller's FocusWatch fires the focus events a focused
 * window would have).
 */
export function pressKeyOn(target: Element, kp: KeyPress, synced?: () => void): void {
  const doc = target.ownerDocument;
  const focused = (fallback: Element): Element => {
    const a = deepActiveElement(doc);
    return a && a.isConnected && a !== doc.documentElement ? a : fallback.isConnected ? fallback : target;
  };
  const held = MODIFIER_ORDER.filter(([m, k]) => kp.modifiers[m] && kp.key !== k);
  const mods = { ctrl: false, shift: false, alt: false, meta: false };
  for (const [m, k, code, kc] of held) {
    mods[m] = true;
    key(target, "keydown", { key: k, code, keyCode: kc, modifiers: { ...mods }, text: "" });
  }
  let ok = key(target, "keydown", kp);
  synced?.();
  // After the keydown listeners ran: they may have moved the focus.
  let now = focused(target);
  if (ok && kp.text !== "" && !kp.modifiers.ctrl && !kp.modifiers.meta) {
    ok = key(now, "keypress", kp);
    now = focused(now);
  }
  if (ok) defaultKeyAction(now, kp);
  // Keyup goes to whatever has focus now (Tab moved it, for example).
  const upTarget = focused(now);
  key(upTarget, "keyup", kp);
  for (const [m, k, code, kc] of held.reverse()) {
    mods[m] = false;
    key(upTarget, "keyup", { key: k, code, keyCode: kc, modifiers: { ...mods }, text: "" });
  }
}

const ACTIVATE_ON_ENTER = (el: Element): boolean => {
  const t = tagOf(el);
  if (t === "button" || t === "summary") return true;
  if ((t === "a" || t === "area") && el.hasAttribute("href")) return true;
  return isInput(el) && ["submit", "button", "reset", "image"].includes(el.type);
};

/** The kind of element a key lands on, for the default-action table. */
export function keyContext(target: Element): KeyContext {
  if (isTextField(target) && !(target as HTMLInputElement).readOnly && !isDisabledElement(target)) return isTextArea(target) ? "textarea" : "field";
  if (editContextHost(target) || isContentEditable(target)) return "editable";
  return "other";
}

/** How long after a focus move a caret key waits (pressKey). */
export const FOCUS_SETTLE_MS = 250;

/** The kind of default action kp has on target (keyactions.ts's table). */
function defaultActionKind(target: Element, kp: KeyPress): string {
  return keyAction(kp, keyContext(target), isMac(windowOf(target))).kind;
}

/** The browser's default action of kp on target (keyactions.ts's table), performed. */
function defaultKeyAction(target: Element, kp: KeyPress): void {
  const doc = target.ownerDocument;
  const where = keyContext(target);
  const isSpace = kp.key === " ";
  const act = keyAction(kp, where, isMac(windowOf(target)), {
    activatable: ACTIVATE_ON_ENTER(target) || (isSpace && isInput(target) && ["checkbox", "radio"].includes(target.type)),
    select: isSelect(target) && !target.multiple,
  });
  const field = where === "field" || where === "textarea" ? (target as HTMLInputElement | HTMLTextAreaElement) : null;
  const ecHost = where === "editable" ? editContextHost(target) : null;
  const editable = where === "editable" && !ecHost ? editingHost(target) : null;
  switch (act.kind) {
    case "none":
      return;
    case "selectAll":
      selectAllIn(target);
      return;
    case "focus":
      moveFocus(target, act.backward);
      return;
    case "submit":
      if (isInput(target)) implicitSubmit(target);
      return;
    case "activate":
      activate(target);
      return;
    case "cancelDialog": {
      const dialog = target.closest("dialog");
      if (dialog && (dialog as HTMLDialogElement).open && safeMatches(dialog, ":modal")) {
        const win = windowOf(dialog);
        if (dialog.dispatchEvent(new win.Event("cancel", { cancelable: true }))) (dialog as HTMLDialogElement).close();
      }
      return;
    }
    case "scroll":
      scrollPage(target, act.dy, act.pages);
      return;
    case "selectStep": {
      const sel = target as HTMLSelectElement;
      const o = sel.options[sel.selectedIndex + act.delta];
      if (o && !o.disabled) {
        o.selected = true;
        fire(sel, "input");
        fire(sel, "change");
      }
      return;
    }
    case "caret":
      // An EditContext editor moves its own caret on keydown.
      if (field && supportsSelection(field)) moveFieldCaret(field, act.dir, act.unit, act.extend);
      else if (editable) modifySelection(doc, editable, act.extend, act.dir, act.unit);
      return;
    case "edit":
      edit(target, field, editable, ecHost, act.inputType, kp.text);
      return;
  }
}

/** Ctrl/Cmd formatting and history in a contenteditable: [inputType → execCommand]. */
const EDIT_COMMANDS: Record<string, string> = {
  formatBold: "bold",
  formatItalic: "italic",
  formatUnderline: "underline",
  historyUndo: "undo",
  historyRedo: "redo",
};

const DELETES: Record<string, [boolean, DeleteUnit]> = {
  deleteContentBackward: [false, "character"],
  deleteContentForward: [true, "character"],
  deleteWordBackward: [false, "word"],
  deleteWordForward: [true, "word"],
  deleteSoftLineBackward: [false, "lineboundary"],
  deleteSoftLineForward: [true, "lineboundary"],
};

/** An editing command in a field, a contenteditable or an EditContext editor. */
function edit(target: Element, field: HTMLInputElement | HTMLTextAreaElement | null, editable: HTMLElement | null, ecHost: HTMLElement | null, inputType: EditType, text: string): void {
  const del = DELETES[inputType];
  if (ecHost) {
    // The browser gives an EditContext text and deletions; paragraphs, formatting and history are the editor's (on keydown or beforeinput).
    if (inputType === "insertText") editContextInput(ecHost, text);
    else if (del) editContextInput(ecHost, "", { deleteDir: del[0] ? "forward" : "backward", unit: del[1] });
    else inputEvent(ecHost, "beforeinput", inputType, null);
    return;
  }
  if (field) {
    if (inputType === "insertText") insertIntoField(field, text);
    else if (inputType === "insertLineBreak" || inputType === "insertParagraph") insertIntoField(field, "\n");
    else if (del) deleteInField(field, del[0], del[1]);
    else if (inputType === "historyUndo" || inputType === "historyRedo") {
      if (inputEvent(field, "beforeinput", inputType, null)) execCommand(field.ownerDocument, EDIT_COMMANDS[inputType]!);
    }
    return;
  }
  if (!editable) return;
  if (inputType === "insertText") insertIntoEditable(editable, text);
  else if (inputType === "insertParagraph" || inputType === "insertLineBreak") insertIntoEditable(editable, "\n", inputType === "insertLineBreak");
  else if (del) deleteInEditable(editable, del[0], del[1]);
  else {
    const cmd = EDIT_COMMANDS[inputType];
    if (cmd && inputEvent(editable, "beforeinput", inputType, null)) execCommand(target.ownerDocument, cmd);
  }
}

/** A caret or selection key in a text field: the new selection range, set as the browser would. */
function moveFieldCaret(el: HTMLInputElement | HTMLTextAreaElement, dir: "backward" | "forward", unit: CaretUnit, extend: boolean): void {
  const len = el.value.length;
  const sel: FieldSelection = { start: el.selectionStart ?? len, end: el.selectionEnd ?? len, direction: (el.selectionDirection as FieldSelection["direction"]) ?? "none" };
  const rows = isTextArea(el) ? Math.max(1, el.rows || 2) : 1;
  const next = fieldSelectionAfter(el.value, sel, dir, unit, extend, isTextArea(el), rows);
  try {
    el.setSelectionRange(next.start, next.end, next.direction);
  } catch (e) {
    report("page: moving the caret in a text field", e);
  }
}

function activate(el: Element): void {
  mouse(el, "click", centerOf(el), { detail: 0 });
}

/** Enter in a form field: click the default button, or submit a form with one field (HTML implicit submission). */
function implicitSubmit(input: HTMLInputElement): void {
  const form = input.form;
  if (!form) return;
  const elements = Array.from(form.elements);
  const submitter = elements.find((e) => {
    const t = tagOf(e);
    if (t === "button") return ((e as HTMLButtonElement).type || "submit") === "submit";
    return t === "input" && ["submit", "image"].includes((e as HTMLInputElement).type);
  }) as HTMLElement | undefined;
  if (submitter) {
    if (!isDisabledElement(submitter)) activate(submitter);
    return;
  }
  const blocking = elements.filter((e) => isInput(e) && isTextField(e));
  if (blocking.length <= 1) {
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.submit();
  }
}

/** Tab order: positive tabindex first (ascending, stable), then document order. */
