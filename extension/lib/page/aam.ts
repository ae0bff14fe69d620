// Roles and names as Chromium computes them, where dom-accessibility-api
// 0.7 differs (issue 13). The library stays in charge of what it does
// right (ARIA roles, the accname algorithm); the rules it gets wrong for the
// pages AI apps meet are corrected here, one function per rule, each with
// its unit tests in aam.test.ts and its check against Chromium's own tree in
// the e2e fidelity corpus (e2e/fidelity_test.go).
//
//   tableCellRole   td/th in grid and treegrid → gridcell; th → rowheader or
//                   columnheader by scope, thead and its row (HTML-AAM, Chromium)
//   svgRole         elements inside <svg>: only an explicit role (or a link)
//                   makes a line; the rest are transparent wrappers
//   spacedName      a name from content keeps the spaces <br> and block
//                   boundaries put between words
//   treeitemName    a tree item's name from content leaves out its nested
//                   group of items (Chromium)
//   fallbackName    HTML-AAM's last resorts: placeholder, then title, for text
//                   fields; the value (or the default label) of input buttons
//   editableFrameBody  a same-origin iframe whose body is contenteditable (or
//                   whose document is in designMode: TinyMCE, CKEditor 4) is a
//                   textbox named by the iframe's title, as Chromium shows it

import { normalizeSpace, tagOf } from "./dom";

export const SVG_NS = "http://www.w3.org/2000/svg";

/** The table part an element's cell is in: the nearest table (or ARIA table/grid/treegrid). */
function tableOf(el: Element): Element | null {
  return el.closest("table, [role=table], [role=grid], [role=treegrid]");
}

/** The role of the table an element is in: "grid", "treegrid", "table" or null. */
function tableRole(table: Element | null): string | null {
  if (!table) return null;
  const r = (table.getAttribute("role") ?? "").trim().split(/\s+/)[0] ?? "";
  if (r === "grid" || r === "treegrid" || r === "table") return r;
  return tagOf(table) === "table" ? "table" : null;
}

/**
 * td and th without an explicit role, as Chromium maps them: in a grid or
 * treegrid a td is a gridcell; a th is a rowheader when its scope says row,
 * a columnheader when its scope says col or it sits in a thead, and
 * otherwise a rowheader when its row holds data cells (a th heading a row of
 * tds), else a columnheader. role is what the library said; other elements
 * keep it.
 */
export function tableCellRole(el: Element, role: string | null): string | null {
  const t = tagOf(el);
  if ((t !== "td" && t !== "th") || el.hasAttribute("role")) return role;
  const tr = tableRole(tableOf(el));
  if (tr === null) return role;
  if (t === "td") return tr === "grid" || tr === "treegrid" ? "gridcell" : "cell";
  const scope = (el.getAttribute("scope") ?? "").toLowerCase();
  if (scope === "row" || scope === "rowgroup") return "rowheader";
  if (scope === "col" || scope === "colgroup") return "columnheader";
  const row = el.parentElement;
  if (row && row.parentElement && tagOf(row.parentElement) === "thead") return "columnheader";
  if (row && Array.from(row.children).some((c) => tagOf(c) === "td")) return "rowheader";
  return "columnheader";
}

/**
 * The role of an element inside an <svg> (not the svg itself): its explicit
 * role when it has one, "link" for an <a> with an href, else null (a
 * transparent wrapper whose children are lifted).
 */
export function svgRole(el: Element, explicitRole: string | null): string | null {
  if (el.hasAttribute("role")) return explicitRole;
  if (tagOf(el) === "a" && (el.hasAttribute("href") || el.hasAttributeNS("http://www.w3.org/1999/xlink", "href"))) {
    return "link";
  }
  return null;
}

/** Whether an <svg> has descendants that get lines of their own (so it is walked, not a leaf). */
export function svgHasParts(svg: Element): boolean {
  if ((svg.getAttribute("role") ?? "").trim() === "img") return false;
  return svg.querySelector("[role], a[href]") !== null;
}

const NAME_FROM_CONTENT = new Set([
  "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
  "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
  "tooltip", "treeitem",
]);

const INLINE = /^(inline|contents)/;

/**
 * The text of el's content with a space wherever a <br> or a block
 * boundary separates words, as Chromium's name from content has it.
 * Hidden parts are left out; an element other than plain text (an image, a
 * control) makes it give up (null), since its contribution is the
 * library's to compute.
 */
function contentText(el: Element, style: (e: Element) => CSSStyleDeclaration, skipRoles?: Set<string>): string | null {
  let out = "";
  const walk = (node: Node): boolean => {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) {
        out += c.nodeValue ?? "";
        continue;
      }
      if (c.nodeType !== 1) continue;
      const e = c as Element;
      const t = tagOf(e);
      if (t === "br") {
        out += " ";
        continue;
      }
      if (t === "script" || t === "style" || t === "template") continue;
      if (e.getAttribute("aria-hidden") === "true") continue;
      if (skipRoles && skipRoles.has(firstRole(e))) continue;
      const s = style(e);
      if (s.display === "none") continue;
      if (
        e.hasAttribute("role") || e.hasAttribute("aria-label") || e.hasAttribute("aria-labelledby") ||
        ["img", "input", "select", "textarea", "svg", "iframe", "button", "slot"].includes(t) ||
        (e as HTMLElement).shadowRoot
      ) {
        return false;
      }
      const block = !INLINE.test(s.display || "inline");
      if (block) out += " ";
      if (!walk(e)) return false;
      if (block) out += " ";
    }
    return true;
  };
  return walk(el) ? out : null;
}

/**
 * A name computed from content, with the spaces <br> and block boundaries
 * put between words ("Space Enter", not "SpaceEnter"). The result differs
 * from name only in whitespace: when the content holds anything but text
 * and wrappers, or the words differ, name is returned as it is.
 */
export function spacedName(el: Element, role: string, name: string, style: (e: Element) => CSSStyleDeclaration): string {
  if (name === "" || !NAME_FROM_CONTENT.has(role)) return name;
  if (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby")) return name;
  // Cheap test first: most names need no fixing.
  const hasBreak = el.getElementsByTagName("br").length > 0;
  let hasBlock = false;
  if (!hasBreak) {
    for (const c of Array.from(el.getElementsByTagName("*"))) {
      if (!INLINE.test(style(c).display || "inline")) {
        hasBlock = true;
        break;
      }
    }
  }
  if (!hasBreak && !hasBlock) return name;
  const text = contentText(el, style);
  if (text === null) return name;
  const spaced = normalizeSpace(text);
  return spaced.replace(/\s+/g, "") === name.replace(/\s+/g, "") ? spaced : name;
}

function firstRole(e: Element): string {
  return (e.getAttribute("role") ?? "").trim().split(/\s+/)[0] ?? "";
}

const TREE_PARTS = new Set(["group", "tree", "treeitem"]);

/**
 * A tree item named by its content is named by its own text, not by the
 * items of its nested group: "Documents", not "Documents Report.pdf".
 */
export function treeitemName(el: Element, role: string, name: string, style: (e: Element) => CSSStyleDeclaration): string {
  if (role !== "treeitem" || name === "") return name;
  if (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby")) return name;
  if (el.querySelector("[role=group], [role=tree], [role=treeitem]") === null) return name;
  const text = contentText(el, style, TREE_PARTS);
  if (text === null) return name;
  const own = normalizeSpace(text);
  return own !== "" ? own : name;
}

const TEXT_FIELD_TYPES = new Set(["", "text", "search", "email", "url", "tel", "password", "number"]);

/**
 * HTML-AAM's last resorts when nothing named the element: a text field's
 * placeholder (or aria-placeholder), then its title; an input button's value,
 * or the label the browser shows (Submit, Reset) when it has none.
 */
export function fallbackName(el: Element, name: string): string {
  if (name !== "") return name;
  const t = tagOf(el);
  if (t === "input") {
    const input = el as HTMLInputElement;
    const type = (el.getAttribute("type") ?? "").toLowerCase();
    if (type === "submit" || type === "reset" || type === "button") {
      const v = el.getAttribute("value");
      if (v !== null && v.trim() !== "") return normalizeSpace(v);
      if (type === "submit") return "Submit";
      if (type === "reset") return "Reset";
      return normalizeSpace(el.getAttribute("title") ?? "");
    }
    if (TEXT_FIELD_TYPES.has(input.type ?? type)) return placeholderOrTitle(el);
    return normalizeSpace(el.getAttribute("title") ?? "");
  }
  if (t === "textarea") return placeholderOrTitle(el);
  if (el.hasAttribute("aria-placeholder")) return placeholderOrTitle(el);
  return name;
}

function placeholderOrTitle(el: Element): string {
  const p = el.getAttribute("placeholder") ?? el.getAttribute("aria-placeholder");
  if (p !== null && p.trim() !== "") return normalizeSpace(p);
  return normalizeSpace(el.getAttribute("title") ?? "");
}

/**
 * The editable body of a frame's document and its name (the iframe's title
 * or aria-label, else the document's title), or null when the document is
 * not a frame's or its body is not editable.
 */
export function editableFrameBody(doc: Document): { body: HTMLElement; name: string } | null {
  const body = doc.body;
  if (!body || (body.isContentEditable !== true && doc.designMode !== "on")) return null;
  let frame: Element | null = null;
  try {
    frame = doc.defaultView?.frameElement ?? null;
  } catch {
    frame = null;
  }
  if (!frame) return null;
  const name = normalizeSpace(frame.getAttribute("aria-label") ?? "") || normalizeSpace(frame.getAttribute("title") ?? "") || normalizeSpace(doc.title ?? "");
  return { body, name };
}
