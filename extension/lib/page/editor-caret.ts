// The caret in a block of a rich-text editor, and a click on a cell that
// holds a control (issue 41). The caret: the snapshot gives
// an editor's paragraphs, list items, headings and table cells refs of their
// own (aam.ts editorWithBlocks); a click on one puts the caret there (a
// synthetic click has no default action, so no browser places it), and
// browser_type on one types at that caret instead of replacing the editor's
// whole text.

import { editingHost } from "./dom";
import { focusElement } from "./focus";

/** The editing host of el when el is inside an editor but not the host itself, else null. */
export function editorBlockHost(el: Element): HTMLElement | null {
  const host = editingHost(el);
  return host !== null && host !== el ? host : null;
}

/**
 * Focuses block's editor and, unless the selection already is in block (the
 * editor placed it itself on the click), collapses it at the end of block's
 * content: "after the second item" is the end of the second item.
 */
export function caretInto(block: Element): void {
  const host = editorBlockHost(block);
  if (host === null) return;
  const doc = block.ownerDocument;
  if (!host.contains(doc.activeElement) && doc.activeElement !== host) focusElement(host);
  const sel = doc.getSelection();
  if (!sel) return;
  if (sel.rangeCount > 0 && sel.anchorNode !== null && block.contains(sel.anchorNode)) return;
  const r = doc.createRange();
  r.selectNodeContents(lastTextContainer(block));
  r.collapse(false);
  sel.removeAllRanges();
  sel.addRange(r);
}

/**
 * Where the caret at the end of block goes: the end of its own text, not
 * inside a nested list or table that ends it (a list item holding a
 * sub-list types after its own words).
 */
function lastTextContainer(block: Element): Node {
  let last: Node = block;
  const walker = block.ownerDocument.createTreeWalker(block, 4 /* NodeFilter.SHOW_TEXT */);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if ((n.nodeValue ?? "").trim() === "") continue;
    const nested = n.parentElement?.closest("ul, ol, table");
    if (nested && nested !== block && block.contains(nested)) continue;
    last = n;
  }
  return last;
}

const INTERACTIVE = "a[href], button, input, select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=switch], [role=menuitem], [role=tab]";

/**
 * What a person's click at pt on a table cell lands on: the control the
 * cell holds there (a day's button in a date grid, a file's link), else
 * null. A cell holding one control is named by it (Chromium's name), so
 * an AI may pick the cell's ref: the click must reach the control, as a
 * real click at the cell's center does.
 */
export function cellControlAt(cell: Element, pt: { x: number; y: number }): Element | null {
  const t = cell.localName;
  const role = cell.getAttribute("role");
  if (t !== "td" && t !== "th" && role !== "gridcell" && role !== "cell") return null;
  const hit = cell.ownerDocument.elementFromPoint?.(pt.x, pt.y) ?? null;
  if (hit === null || hit === cell || !cell.contains(hit)) return null;
  const control = hit.closest(INTERACTIVE);
  return control !== null && control !== cell && cell.contains(control) ? control : null;
}
