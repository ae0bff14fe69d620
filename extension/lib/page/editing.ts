// Text editing as the browser does it for typing: insertion and deletion in
// fields and contenteditables, with beforeinput first (cancellable, as
// editors expect) and input after.

import { editingHost, isTextArea, isTextField, supportsSelection, windowOf } from "./dom";
import { inputEvent } from "./events";
import { report } from "../diag";
import { fieldDeleteRange, modifySelection } from "./caret";

export function setNativeValue(el: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  const win = windowOf(el);
  const proto = isTextArea(el) ? win.HTMLTextAreaElement?.prototype : win.HTMLInputElement?.prototype;
  const setter = proto ? Object.getOwnPropertyDescriptor(proto, "value")?.set : undefined;
  if (setter) setter.call(el, value);
  else el.value = value;
}

/** Inserts text at the caret (replacing the selection) as typing would; false when refused. */
export function insertIntoField(el: HTMLInputElement | HTMLTextAreaElement, text: string): boolean {
  const v = el.value;
  let start = v.length;
  let end = v.length;
  const sel = supportsSelection(el);
  if (sel) {
    start = el.selectionStart ?? v.length;
    end = el.selectionEnd ?? v.length;
  }
  let insert = isTextArea(el) ? text.replace(/\r\n?/g, "\n") : text.replace(/[\r\n]/g, "");
  if (insert === "" && start === end) return false;
  const max = el.maxLength;
  if (max >= 0 && v.length - (end - start) + insert.length > max) {
    insert = insert.slice(0, Math.max(0, max - (v.length - (end - start))));
    if (insert === "" && start === end) return false;
  }
  const inputType = insert === "\n" ? "insertLineBreak" : "insertText";
  if (!inputEvent(el, "beforeinput", inputType, insert)) return false;
  setNativeValue(el, v.slice(0, start) + insert + v.slice(end));
  if (sel) {
    const caret = start + insert.length;
    try {
      el.setSelectionRange(caret, caret);
    } catch (e) {
      report("page: placing the caret after an insert", e);
    }
  }
  inputEvent(el, "input", inputType, insert);
  return true;
}

/** What a deletion removes when nothing is selected: a character, a word, or up to the line's edge. */
export type DeleteUnit = "character" | "word" | "lineboundary";

const DELETE_TYPES: Record<DeleteUnit, [string, string]> = {
  character: ["deleteContentBackward", "deleteContentForward"],
  word: ["deleteWordBackward", "deleteWordForward"],
  lineboundary: ["deleteSoftLineBackward", "deleteSoftLineForward"],
};

export function deleteInField(el: HTMLInputElement | HTMLTextAreaElement, forward: boolean, unit: DeleteUnit = "character"): void {
  const v = el.value;
  let start: number;
  let end: number;
  if (supportsSelection(el)) {
    start = el.selectionStart ?? v.length;
    end = el.selectionEnd ?? v.length;
    if (start === end) [start, end] = fieldDeleteRange(v, start, unit, forward);
  } else {
    if (forward) return;
    start = Math.max(0, v.length - 1);
    end = v.length;
  }
  if (start === end) return;
  const inputType = DELETE_TYPES[unit][forward ? 1 : 0];
  if (!inputEvent(el, "beforeinput", inputType, null)) return;
  setNativeValue(el, v.slice(0, start) + v.slice(end));
  if (supportsSelection(el)) {
    try {
      el.setSelectionRange(start, start);
    } catch (e) {
      report("page: placing the caret after a delete", e);
    }
  }
  inputEvent(el, "input", inputType, null);
}

export function execCommand(doc: Document, cmd: string, value?: string): boolean {
  try {
    return typeof doc.execCommand === "function" && doc.execCommand(cmd, false, value);
  } catch {
    return false;
  }
}

/**
 * Inserts text into a contenteditable at the selection the way typing does:
 * a cancelable beforeinput first (editors such as Lexical handle it and
 * cancel it), then, when nobody handled it, the browser's own editing
 * (execCommand, which fires the input event), else a DOM edit.
 */
export function insertIntoEditable(host: HTMLElement, text: string, lineBreak = false): void {
  const doc = host.ownerDocument;
  const inputType = text === "\n" ? (lineBreak ? "insertLineBreak" : "insertParagraph") : "insertText";
  if (!inputEvent(host, "beforeinput", inputType, inputType === "insertText" ? text : null)) return;
  if (inputType === "insertText" ? execCommand(doc, "insertText", text) : execCommand(doc, inputType)) return;
  // Fallback (no execCommand): edit the DOM at the selection and tell the page.
  const sel = doc.getSelection();
  const node = doc.createTextNode(text);
  if (sel && sel.rangeCount > 0 && host.contains(sel.getRangeAt(0).commonAncestorContainer)) {
    const range = sel.getRangeAt(0);
    range.deleteContents();
    range.insertNode(node);
    range.setStartAfter(node);
    range.collapse(true);
    sel.removeAllRanges();
    sel.addRange(range);
  } else {
    host.appendChild(node);
  }
  inputEvent(host, "input", "insertText", text);
}

/** Deletes in a contenteditable as Backspace/Delete would: beforeinput first, then the browser's editing. */
export function deleteInEditable(host: HTMLElement, forward: boolean, unit: DeleteUnit = "character"): void {
  const doc = host.ownerDocument;
  const inputType = DELETE_TYPES[unit][forward ? 1 : 0];
  if (!inputEvent(host, "beforeinput", inputType, null)) return;
  if (unit !== "character") {
    // A word or line deletion: the browser selects what goes, then deletes it.
    const sel = doc.getSelection();
    if (sel?.isCollapsed) modifySelection(doc, host, true, forward ? "forward" : "backward", unit);
  }
  if (execCommand(doc, forward && unit === "character" ? "forwardDelete" : "delete")) return;
  const sel = doc.getSelection();
  if (sel && sel.rangeCount > 0 && !sel.isCollapsed && host.contains(sel.getRangeAt(0).commonAncestorContainer)) {
    sel.getRangeAt(0).deleteContents();
    inputEvent(host, "input", inputType, null);
  }
}


export function selectAllIn(el: Element): void {
  const doc = el.ownerDocument;
  if (isTextField(el)) {
    try {
      el.select();
    } catch (e) {
      report("page: selecting a text field's content", e);
    }
    return;
  }
  const sel = doc.getSelection();
  if (!sel) return;
  if (!execCommand(doc, "selectAll")) {
    const host = editingHost(el) ?? doc.body;
    if (host) sel.selectAllChildren(host);
  }
}

/**
 * The element with an EditContext (the EditContext API) at or around el:
 * such an editor draws its own text and takes input only through its
 * EditContext's textupdate events, never from DOM editing or execCommand.
 */
export function editContextHost(el: Element): HTMLElement | null {
  for (let e: Element | null = el; e; e = e.parentElement) {
    if (editContextOf(e)) return e as HTMLElement;
  }
  return null;
}

/** The parts of an EditContext (Chromium 121+) that text input uses. */
interface EditContextLike extends EventTarget {
  readonly text: string;
  readonly selectionStart: number;
  readonly selectionEnd: number;
  updateText(start: number, end: number, text: string): void;
  updateSelection(start: number, end: number): void;
}

function editContextOf(el: Element): EditContextLike | null {
  const ec = (el as Element & { editContext?: unknown }).editContext;
  return ec && typeof (ec as EditContextLike).updateText === "function" ? (ec as EditContextLike) : null;
}

/**
 * Text input into an EditContext editor as the browser gives it for a key:
 * a cancelable beforeinput on the element, then the EditContext's own text
 * and selection updated (updateText, updateSelection) and a textupdate
 * event with the replaced range and the new caret, which is what the
 * editor's model listens to. text "" with forward/backward deletes: the
 * selection, else the character (or word) beside the caret. select: the
 * range to replace instead of the current selection (browser_type replaces
 * everything). False when the editor refused it (a cancelled beforeinput)
 * or there was nothing to delete.
 */
export function editContextInput(host: Element, text: string, opts: { deleteDir?: "backward" | "forward"; unit?: DeleteUnit; select?: [number, number] } = {}): boolean {
  const ec = editContextOf(host);
  if (!ec) return false;
  const win = windowOf(host);
  const len = ec.text.length;
  let start = Math.max(0, Math.min(len, opts.select ? opts.select[0] : Math.min(ec.selectionStart, ec.selectionEnd)));
  let end = Math.max(start, Math.min(len, opts.select ? opts.select[1] : Math.max(ec.selectionStart, ec.selectionEnd)));
  let inputType = "insertText";
  if (opts.deleteDir) {
    const unit = opts.unit ?? "character";
    inputType = DELETE_TYPES[unit][opts.deleteDir === "forward" ? 1 : 0];
    if (start === end) [start, end] = fieldDeleteRange(ec.text, start, unit, opts.deleteDir === "forward");
    if (start === end) return false;
  }
  if (!inputEvent(host, "beforeinput", inputType, opts.deleteDir ? null : text)) return false;
  const caret = start + text.length;
  try {
    ec.updateText(start, end, text);
    ec.updateSelection(caret, caret);
  } catch (e) {
    report("page: updating an EditContext", e);
  }
  const Ctor = (win as unknown as { TextUpdateEvent?: new (type: string, init: object) => Event }).TextUpdateEvent;
  const init = { text, updateRangeStart: start, updateRangeEnd: end, selectionStart: caret, selectionEnd: caret };
  let ev: Event;
  if (typeof Ctor === "function") ev = new Ctor("textupdate", init);
  else {
    ev = new win.Event("textupdate");
    for (const [k, v] of Object.entries(init)) Object.defineProperty(ev, k, { value: v });
  }
  ec.dispatchEvent(ev);
  return true;
}

/** The EditContext's whole text range, for a replacement of everything. */
export function editContextAll(host: Element): [number, number] {
  const ec = editContextOf(host);
  return [0, ec ? ec.text.length : 0];
}
