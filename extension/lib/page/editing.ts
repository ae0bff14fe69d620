// Text editing as the browser does it for typing: insertion and deletion in
// fields and contenteditables, with beforeinput first (cancellable, as
// editors expect) and input after.

import { editingHost, isTextArea, isTextField, supportsSelection, windowOf } from "./dom";
import { inputEvent } from "./events";
import { report } from "../diag";

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

export function deleteInField(el: HTMLInputElement | HTMLTextAreaElement, forward: boolean): void {
  const v = el.value;
  let start: number;
  let end: number;
  if (supportsSelection(el)) {
    start = el.selectionStart ?? v.length;
    end = el.selectionEnd ?? v.length;
    if (start === end) {
      if (forward) end = Math.min(v.length, end + 1);
      else start = Math.max(0, start - 1);
    }
  } else {
    if (forward) return;
    start = Math.max(0, v.length - 1);
    end = v.length;
  }
  if (start === end) return;
  const inputType = forward ? "deleteContentForward" : "deleteContentBackward";
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
export function insertIntoEditable(host: HTMLElement, text: string): void {
  const doc = host.ownerDocument;
  const inputType = text === "\n" ? "insertParagraph" : "insertText";
  if (!inputEvent(host, "beforeinput", inputType, inputType === "insertText" ? text : null)) return;
  if (inputType === "insertParagraph" ? execCommand(doc, "insertParagraph") : execCommand(doc, "insertText", text)) return;
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
export function deleteInEditable(host: HTMLElement, forward: boolean): void {
  const doc = host.ownerDocument;
  const inputType = forward ? "deleteContentForward" : "deleteContentBackward";
  if (!inputEvent(host, "beforeinput", inputType, null)) return;
  if (execCommand(doc, forward ? "forwardDelete" : "delete")) return;
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
 * such an editor takes text only from the browser's text input (its
 * textupdate events), never from synthetic events or execCommand.
 */
export function editContextHost(el: Element): Element | null {
  for (let e: Element | null = el; e; e = e.parentElement) {
    if ((e as Element & { editContext?: unknown }).editContext) return e;
  }
  return null;
}

/** The error for input an EditContext editor cannot take without the debugger mode. */
export function editContextError(what: string): string {
  return (
    `${what} is an EditContext editor: it takes text only from real keyboard input, which synthetic events cannot give, so nothing was typed. ` +
    `Ask the person to switch on "Use Chrome's debugger" in the monkbrowse options (For this Chrome profile); in the debugger mode typing into it works.`
  );
}
