// Caret and selection moves of the keyboard's default actions (keyactions.ts):
// in a text field by computing the new selection range (setSelectionRange),
// in a contenteditable through the Selection API (Selection.modify), as the
// browser's own editing does for real keys.

import type { CaretUnit } from "./keyactions";
import { windowOf } from "./dom";
import { report } from "../diag";

export interface FieldSelection {
  start: number;
  end: number;
  direction: "forward" | "backward" | "none";
}

const WORD = /[\p{L}\p{N}_]/u;

const isWordChar = (s: string, i: number) => i >= 0 && i < s.length && WORD.test(s[i]!);

/**
 * Where a word move from pos lands: backward to the start of the word
 * before pos, forward to the end of the word after pos (skipping the
 * spaces and punctuation in between), as Chromium's word moves on Linux
 * and macOS.
 */
export function wordBoundary(s: string, pos: number, dir: "backward" | "forward"): number {
  let i = pos;
  if (dir === "backward") {
    while (i > 0 && !isWordChar(s, i - 1)) i--;
    while (i > 0 && isWordChar(s, i - 1)) i--;
  } else {
    while (i < s.length && !isWordChar(s, i)) i++;
    while (i < s.length && isWordChar(s, i)) i++;
  }
  return i;
}

function lineStart(s: string, pos: number): number {
  return s.lastIndexOf("\n", pos - 1) + 1;
}
function lineEnd(s: string, pos: number): number {
  const n = s.indexOf("\n", pos);
  return n < 0 ? s.length : n;
}

/** One step of a character move, over a surrogate pair as one character. */
function charStep(s: string, pos: number, dir: "backward" | "forward"): number {
  if (dir === "backward") {
    if (pos <= 0) return 0;
    const c = s.charCodeAt(pos - 1);
    return c >= 0xdc00 && c <= 0xdfff && pos >= 2 ? pos - 2 : pos - 1;
  }
  if (pos >= s.length) return s.length;
  const c = s.charCodeAt(pos);
  return c >= 0xd800 && c <= 0xdbff && pos + 1 < s.length ? pos + 2 : pos + 1;
}

/** Moves pos by lines in multi-line text, keeping the column (logical lines). */
function lineStep(s: string, pos: number, dir: "backward" | "forward", lines: number): number {
  let p = pos;
  const col = pos - lineStart(s, pos);
  for (let i = 0; i < lines; i++) {
    if (dir === "backward") {
      const start = lineStart(s, p);
      if (start === 0) return 0;
      const prevStart = lineStart(s, start - 1);
      p = Math.min(prevStart + col, start - 1);
    } else {
      const end = lineEnd(s, p);
      if (end === s.length) return s.length;
      const nextEnd = lineEnd(s, end + 1);
      p = Math.min(end + 1 + col, nextEnd);
    }
  }
  return p;
}

/** Where a move by unit from pos lands in a field's value (multiLine: a textarea; page: its visible lines). */
export function fieldCaretTarget(s: string, pos: number, dir: "backward" | "forward", unit: CaretUnit, multiLine: boolean, page = 10): number {
  const back = dir === "backward";
  switch (unit) {
    case "character":
      return charStep(s, pos, dir);
    case "word":
      return wordBoundary(s, pos, dir);
    case "line":
      // A one-line field's Up and Down go to its start and end.
      return multiLine ? lineStep(s, pos, dir, 1) : back ? 0 : s.length;
    case "page":
      return multiLine ? lineStep(s, pos, dir, Math.max(1, page)) : back ? 0 : s.length;
    case "lineboundary":
    case "paragraphboundary":
      return back ? lineStart(s, pos) : lineEnd(s, pos);
    case "paragraph": {
      // To the start of this paragraph, or of the previous/next one.
      if (back) {
        const start = lineStart(s, pos);
        return start < pos ? start : start === 0 ? 0 : lineStart(s, start - 1);
      }
      const end = lineEnd(s, pos);
      return end < pos ? end : end === s.length ? s.length : lineEnd(s, end + 1);
    }
    case "documentboundary":
      return back ? 0 : s.length;
  }
}

/**
 * The selection after a caret key in a field: a move collapses (a character
 * move with a selection collapses to its start or end), an extension moves
 * the selection's focus and keeps its anchor.
 */
export function fieldSelectionAfter(s: string, sel: FieldSelection, dir: "backward" | "forward", unit: CaretUnit, extend: boolean, multiLine: boolean, page = 10): FieldSelection {
  const backward = sel.direction === "backward";
  const anchor = backward ? sel.end : sel.start;
  const focus = backward ? sel.start : sel.end;
  if (!extend) {
    if (sel.start !== sel.end && unit === "character") {
      const p = dir === "backward" ? sel.start : sel.end;
      return { start: p, end: p, direction: "none" };
    }
    const from = sel.start !== sel.end ? (dir === "backward" ? sel.start : sel.end) : focus;
    const p = fieldCaretTarget(s, from, dir, unit, multiLine, page);
    return { start: p, end: p, direction: "none" };
  }
  const f = fieldCaretTarget(s, focus, dir, unit, multiLine, page);
  if (f < anchor) return { start: f, end: anchor, direction: "backward" };
  if (f > anchor) return { start: anchor, end: f, direction: "forward" };
  return { start: f, end: f, direction: "none" };
}

/** The range a word or line deletion removes around a collapsed caret at pos. */
export function fieldDeleteRange(s: string, pos: number, unit: "character" | "word" | "lineboundary", forward: boolean): [number, number] {
  const dir = forward ? "forward" : "backward";
  const to = fieldCaretTarget(s, pos, dir, unit, true);
  return forward ? [pos, to] : [to, pos];
}

type ModifiableSelection = Selection & { modify?: (alter: string, direction: string, granularity: string) => void };

/** A page's worth of lines of el (at least 1), for PageUp/PageDown. */
export function linesPerPage(el: Element): number {
  const win = windowOf(el);
  const cs = win.getComputedStyle(el);
  const fontSize = parseFloat(cs.fontSize) || 16;
  const lh = parseFloat(cs.lineHeight) || fontSize * 1.2;
  const visible = Math.min(el.clientHeight || win.innerHeight, win.innerHeight);
  return Math.max(1, Math.floor(visible / lh) - 1);
}

/**
 * Moves (or extends) the document's selection in a contenteditable with
 * Selection.modify, as the browser's editing does; false when the page's
 * selection cannot be modified (no selection API).
 */
export function modifySelection(doc: Document, host: Element, extend: boolean, dir: "backward" | "forward", unit: CaretUnit): boolean {
  const sel = doc.getSelection() as ModifiableSelection | null;
  if (!sel || typeof sel.modify !== "function") return false;
  const alter = extend ? "extend" : "move";
  try {
    if (sel.rangeCount === 0) {
      // No caret yet: start where the host begins.
      const r = doc.createRange();
      r.setStart(host, 0);
      r.collapse(true);
      sel.addRange(r);
    }
    if (unit === "page") {
      const n = linesPerPage(host);
      for (let i = 0; i < n; i++) sel.modify(alter, dir, "line");
      return true;
    }
    if (!extend && !sel.isCollapsed && unit === "character") {
      // Left/Right with a selection collapse it to its start or end.
      if (dir === "backward") sel.collapseToStart();
      else sel.collapseToEnd();
      return true;
    }
    sel.modify(alter, dir, unit);
    return true;
  } catch (e) {
    report("page: moving the selection", e);
    return false;
  }
}
