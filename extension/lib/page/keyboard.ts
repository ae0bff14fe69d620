// browser_press_key: key events on the focused element, and the default
// actions untrusted key events do not trigger on their own (text insertion,
// form submission on Enter, focus moves on Tab, scrolling…).

import { deepActiveElement, editingHost, isContentEditable, isDisabledElement, isInput, isSelect, isTextArea, isTextField, safeMatches, supportsSelection, tagOf, windowOf } from "./dom";
import { deleteInEditable, deleteInField, editContextError, editContextHost, execCommand, insertIntoEditable, insertIntoField, selectAllIn } from "./editing";
import { centerOf, fire, inputEvent, mouse, pageTurn } from "./events";
import { FocusWatch, moveFocus } from "./focus";
import { parseKeyCombo, type KeyPress } from "./keys";
import { describeElement } from "./describe";
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
  const editsText = kp.text !== "" || kp.key === "Backspace" || kp.key === "Delete";
  if (editsText && !kp.modifiers.ctrl && !kp.modifiers.meta && editContextHost(target)) {
    throw new PageError(editContextError(`the focused element (${describeElement(target)})`));
  }
  const watch = new FocusWatch(doc);
  try {
    pressKeyOn(target, kp);
    watch.sync();
    await pageTurn();
  } finally {
    watch.stop();
  }
}

export function pressKeyOn(target: Element, kp: KeyPress): void {
  const held = MODIFIER_ORDER.filter(([m, k]) => kp.modifiers[m] && kp.key !== k);
  const mods = { ctrl: false, shift: false, alt: false, meta: false };
  for (const [m, k, code, kc] of held) {
    mods[m] = true;
    key(target, "keydown", { key: k, code, keyCode: kc, modifiers: { ...mods }, text: "" });
  }
  let ok = key(target, "keydown", kp);
  if (ok && kp.text !== "") ok = key(target, "keypress", kp);
  if (ok) defaultKeyAction(target, kp);
  // Keyup goes to whatever has focus now (Tab moved it, for example).
  const upTarget = deepActiveElement(target.ownerDocument) ?? target;
  key(upTarget.isConnected ? upTarget : target, "keyup", kp);
  for (const [m, k, code, kc] of held.reverse()) {
    mods[m] = false;
    key(upTarget.isConnected ? upTarget : target, "keyup", { key: k, code, keyCode: kc, modifiers: { ...mods }, text: "" });
  }
}

const ACTIVATE_ON_ENTER = (el: Element): boolean => {
  const t = tagOf(el);
  if (t === "button" || t === "summary") return true;
  if ((t === "a" || t === "area") && el.hasAttribute("href")) return true;
  return isInput(el) && ["submit", "button", "reset", "image"].includes(el.type);
};

function defaultKeyAction(target: Element, kp: KeyPress): void {
  const m = kp.modifiers;
  const shortcut = m.ctrl || m.meta || m.alt;
  const doc = target.ownerDocument;
  const field = isTextField(target) && !(target as HTMLInputElement).readOnly && !isDisabledElement(target) ? target : null;
  const editable = !field && isContentEditable(target) ? editingHost(target) : null;

  if ((m.ctrl || m.meta) && !m.alt && kp.key.toLowerCase() === "a") {
    selectAllIn(target);
    return;
  }
  if (kp.key === "Tab" && !m.ctrl && !m.meta && !m.alt) {
    moveFocus(target, m.shift);
    return;
  }
  // Editing shortcuts a browser performs in a contenteditable the editor did not handle.
  if (editable && (m.ctrl || m.meta) && !m.alt) {
    const k = kp.key.toLowerCase();
    const cmd = EDIT_SHORTCUTS[m.shift && k === "z" ? "Z" : k];
    if (cmd && inputEvent(editable, "beforeinput", cmd[1], null)) execCommand(doc, cmd[0]);
    return;
  }
  if (shortcut) return;
  if (editable && (kp.key.startsWith("Arrow") || kp.key === "Home" || kp.key === "End")) {
    moveSelection(doc, kp.key, m.shift);
    return;
  }

  switch (kp.key) {
    case "Enter":
      if (field && isTextArea(field)) insertIntoField(field, "\n");
      else if (field) implicitSubmit(field as HTMLInputElement);
      else if (editable) insertIntoEditable(editable, "\n");
      else if (ACTIVATE_ON_ENTER(target)) activate(target);
      return;
    case " ":
      if (field) insertIntoField(field, " ");
      else if (editable) insertIntoEditable(editable, " ");
      else if (ACTIVATE_ON_ENTER(target) || (isInput(target) && ["checkbox", "radio"].includes(target.type))) activate(target);
      else scrollPage(target, 0, m.shift ? -0.875 : 0.875);
      return;
    case "Backspace":
    case "Delete":
      if (field) deleteInField(field, kp.key === "Delete");
      else if (editable) deleteInEditable(editable, kp.key === "Delete");
      return;
    case "Escape": {
      const dialog = target.closest("dialog");
      if (dialog && (dialog as HTMLDialogElement).open && safeMatches(dialog, ":modal")) {
        const win = windowOf(dialog);
        if (dialog.dispatchEvent(new win.Event("cancel", { cancelable: true }))) (dialog as HTMLDialogElement).close();
      }
      return;
    }
    case "ArrowLeft":
    case "ArrowRight":
    case "Home":
    case "End":
      if (field && supportsSelection(field)) {
        moveCaret(field, kp.key);
        return;
      }
      if (!editable && (kp.key === "Home" || kp.key === "End")) scrollPage(target, 0, kp.key === "Home" ? -Infinity : Infinity);
      return;
    case "ArrowUp":
    case "ArrowDown":
      if (isSelect(target) && !target.multiple) {
        const i = target.selectedIndex + (kp.key === "ArrowDown" ? 1 : -1);
        const o = target.options[i];
        if (o && !o.disabled) {
          o.selected = true;
          fire(target, "input");
          fire(target, "change");
        }
        return;
      }
      if (!field && !editable) scrollPage(target, 40 * (kp.key === "ArrowDown" ? 1 : -1), 0);
      return;
    case "PageUp":
    case "PageDown":
      if (!field && !editable) scrollPage(target, 0, kp.key === "PageDown" ? 0.875 : -0.875);
      return;
  }
  if (kp.text !== "" && kp.text !== "\r") {
    if (field) insertIntoField(field, kp.text);
    else if (editable) insertIntoEditable(editable, kp.text);
  }
}

/** Ctrl/Cmd+key in a contenteditable: [execCommand, beforeinput inputType]. */
const EDIT_SHORTCUTS: Record<string, [string, string]> = {
  b: ["bold", "formatBold"],
  i: ["italic", "formatItalic"],
  u: ["underline", "formatUnderline"],
  z: ["undo", "historyUndo"],
  Z: ["redo", "historyRedo"],
  y: ["redo", "historyRedo"],
};

/** Arrow keys, Home and End in a contenteditable: move (or with Shift extend) the selection. */
function moveSelection(doc: Document, k: string, extend: boolean): void {
  const sel = doc.getSelection() as (Selection & { modify?: (a: string, d: string, g: string) => void }) | null;
  if (!sel?.modify) return;
  const dir = k === "ArrowLeft" || k === "ArrowUp" || k === "Home" ? "backward" : "forward";
  const gran = k === "Home" || k === "End" ? "lineboundary" : k === "ArrowUp" || k === "ArrowDown" ? "line" : "character";
  try {
    sel.modify(extend ? "extend" : "move", dir, gran);
  } catch (e) {
    report("page: moving the selection", e);
  }
}

function activate(el: Element): void {
  mouse(el, "click", centerOf(el), { detail: 0 });
}

function moveCaret(el: HTMLInputElement | HTMLTextAreaElement, k: string): void {
  const len = el.value.length;
  const s = el.selectionStart ?? len;
  const e = el.selectionEnd ?? len;
  let pos: number;
  if (k === "Home") pos = 0;
  else if (k === "End") pos = len;
  else if (s !== e) pos = k === "ArrowLeft" ? s : e;
  else pos = Math.max(0, Math.min(len, s + (k === "ArrowLeft" ? -1 : 1)));
  try {
    el.setSelectionRange(pos, pos);
  } catch (e) {
    report("page: moving the caret in a text field", e);
  }
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
