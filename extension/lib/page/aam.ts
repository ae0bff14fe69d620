// Roles and names as Chromium computes them, where dom-accessibility-api
// 0.7 differs (issue 13). The library stays in charge of what it does
// right (ARIA roles, the accname algorithm); the rules it gets wrong for the
// pages AI apps meet are corrected here, one function per rule, each with
// its unit tests in aam.test.ts and its check against Chromium's own tree in
// the e2e fidelity corpus (e2e/fidelity_test.go).
//
//   tableCellRole   td/th in grid and treegrid → gridcell; th → rowheader or
//                   columnheader by scope, thead and its row (HTML-AAM, Chromium)
//   svgRole         elements inside <svg>: only an explicit role, a link, or
//                   a <g> Chromium keeps as a group (one with an ARIA
//                   attribute, a title or desc, a tabindex or an onclick)
//                   makes a line; the rest are transparent wrappers
//   spacedName      a name from content keeps the spaces <br> and block
//                   boundaries put between words
//   treeitemName    a tree item's name from content leaves out its nested
//                   group of items (Chromium), not items nested without one
//   contextRole     a tree item or option outside its required context (a
//                   tree or group; a listbox or group) is not one: an
//                   li role=treeitem in a plain list is a list item (Chromium)
//   quoted          a name from content has the quotes a <q> shows
//   fallbackName    HTML-AAM's last resorts: placeholder, then title, for text
//                   fields; the value (or the default label) of input buttons;
//                   an SVG element's <title> child (SVG-AAM)
//   editableFrameBody  a same-origin iframe whose body is contenteditable (or
//                   whose document is in designMode: TinyMCE, CKEditor 4) is a
//                   textbox named by the iframe's title, as Chromium shows it

import { normalizeSpace, parentOrHost, tagOf } from "./dom";

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
 * role when it has one, "link" for an <a> with an href, "group" for a <g>
 * Chromium keeps in its tree (svgGroup), else null (a transparent wrapper
 * whose children are lifted).
 */
export function svgRole(el: Element, explicitRole: string | null): string | null {
  if (el.hasAttribute("role")) return explicitRole;
  if (tagOf(el) === "a" && (el.hasAttribute("href") || el.hasAttributeNS("http://www.w3.org/1999/xlink", "href"))) {
    return "link";
  }
  if (svgGroup(el)) return "group";
  return null;
}

/**
 * Whether an SVG <g> without a role is a group in Chromium's tree, as
 * measured on Chromium: a plain <g> (or one with aria-hidden=true) is left
 * out, but one with any ARIA attribute (aria-label, aria-labelledby,
 * aria-describedby, aria-live, aria-hidden=false…), a <title> or <desc> child, a
 * tabindex or an onclick attribute is a group, named by its aria-label,
 * aria-labelledby or title (the APG feed's star ratings: <g aria-label="four
 * stars">).
 */
export function svgGroup(el: Element): boolean {
  if (tagOf(el) !== "g" || el.namespaceURI !== SVG_NS || el.hasAttribute("role")) return false;
  if ((el.getAttribute("aria-hidden") ?? "").trim() === "true") return false;
  for (const a of Array.from(el.attributes)) {
    if (a.name.startsWith("aria-")) return true;
  }
  if (el.hasAttribute("tabindex") || el.hasAttribute("onclick")) return true;
  for (const c of Array.from(el.children)) {
    const t = tagOf(c);
    if (t === "title" || t === "desc") return true;
  }
  return false;
}

/** Whether an <svg> has descendants that get lines of their own (so it is walked, not a leaf). */
export function svgHasParts(svg: Element): boolean {
  if ((svg.getAttribute("role") ?? "").trim() === "img") return false;
  if (svg.querySelector("[role], a[href]") !== null) return true;
  return Array.from(svg.getElementsByTagName("g")).some(svgGroup);
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
function contentText(el: Element, style: (e: Element) => CSSStyleDeclaration, skipRoles?: Set<string>, quotes?: { depth: number }): string | null {
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
      const q = quotes && t === "q" ? quoteMarks(s, quotes.depth++) : null;
      if (q) out += q[0];
      const ok = walk(e);
      if (quotes && t === "q") quotes.depth--;
      if (!ok) return false;
      if (q) out += q[1];
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
  if (el.getElementsByTagName("q").length > 0) return quotedName(el, name, style);
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

/**
 * The quote marks a <q> at nesting depth shows: its computed quotes, or for
 * "auto" the English pairs (“ ” outside, ‘ ’ inside), as Chromium shows
 * them for an English page (other languages' marks are not looked up).
 */
function quoteMarks(s: CSSStyleDeclaration, depth: number): [string, string] | null {
  const v = (s.quotes || "auto").trim();
  if (v === "none") return null;
  const marks = v === "auto" || v === "" ? ["\u201c", "\u201d", "\u2018", "\u2019"] : Array.from(v.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g), (m) => m[1] ?? m[2] ?? "");
  if (marks.length < 2) return null;
  const pair = Math.min(depth, Math.floor(marks.length / 2) - 1) * 2;
  return [marks[pair]!, marks[pair + 1]!];
}

/**
 * A name from content whose content holds a <q>: with the quote marks the
 * browser shows around it (“File or Folder Selected”), which Chromium's
 * name keeps and the library leaves out. As spacedName: when the content
 * holds anything but text and wrappers, or its words differ, name stays.
 */
function quotedName(el: Element, name: string, style: (e: Element) => CSSStyleDeclaration): string {
  const plain = contentText(el, style);
  const quoted = contentText(el, style, undefined, { depth: 0 });
  if (plain === null || quoted === null) return name;
  if (plain.replace(/\s+/g, "") !== name.replace(/\s+/g, "")) return name;
  return normalizeSpace(quoted);
}

function firstRole(e: Element): string {
  return (e.getAttribute("role") ?? "").trim().split(/\s+/)[0] ?? "";
}

const TREE_PARTS = new Set(["group", "tree"]);

/**
 * A tree item named by its content is named by its own text, not by the
 * items of its nested group: "Documents", not "Documents Report.pdf".
 * Items nested without a group (directly, or in a plain list, where they
 * are list items: contextRole) are part of the name, as in Chromium.
 */
export function treeitemName(el: Element, role: string, name: string, style: (e: Element) => CSSStyleDeclaration): string {
  if (role !== "treeitem" || name === "") return name;
  if (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby")) return name;
  if (el.querySelector("[role=group], [role=tree]") === null) return name;
  const text = contentText(el, style, TREE_PARTS);
  if (text === null) return name;
  const own = normalizeSpace(text);
  return own !== "" ? own : name;
}

/** The roles an explicit treeitem or option needs around it (ARIA's required context, as Chromium applies it). */
const REQUIRED_CONTEXT: Record<string, Set<string>> = {
  treeitem: new Set(["tree", "group", "treeitem"]),
  option: new Set(["listbox", "group"]),
};

/** Wrappers the context search looks through: div, span, slot, custom elements, and role none/presentation/generic. */
function transparentForContext(a: Element): boolean {
  const r = firstRole(a);
  if (r !== "") return r === "none" || r === "presentation" || r === "generic";
  const t = tagOf(a);
  return t === "div" || t === "span" || t === "slot" || t.includes("-");
}

/**
 * An element with role=treeitem or role=option outside its required context
 * is not one in Chromium's tree: the nearest ancestor that is not a plain
 * wrapper must be a tree, group or tree item (for an option, a listbox or
 * group). Otherwise it keeps its own element's role (an li is a list item, a
 * link a link; others none). The File Directory Treeview's items in a
 * nested <ul> without role=group are list items there.
 */
export function contextRole(el: Element, role: string | null): string | null {
  if (role === null) return role;
  const needs = REQUIRED_CONTEXT[role];
  if (needs === undefined || firstRole(el) !== role) return role;
  for (let a = parentOrHost(el); a; a = parentOrHost(a)) {
    if (transparentForContext(a)) continue;
    if (needs.has(firstRole(a))) return role;
    break;
  }
  const t = tagOf(el);
  if (t === "li") return "listitem";
  if ((t === "a" || t === "area") && el.hasAttribute("href")) return "link";
  if (t === "button") return "button";
  return null;
}

const TEXT_FIELD_TYPES = new Set(["", "text", "search", "email", "url", "tel", "password", "number"]);

/**
 * HTML-AAM's last resorts when nothing named the element: a text field's
 * placeholder (or aria-placeholder), then its title; an input button's value,
 * or the label the browser shows (Submit, Reset) when it has none. An
 * element inside an <svg> is named by its <title> child (SVG-AAM; the
 * library reads it for the <svg> itself only).
 */
export function fallbackName(el: Element, name: string): string {
  if (name !== "") return name;
  const t = tagOf(el);
  if (el.namespaceURI === SVG_NS && t !== "svg") {
    const title = Array.from(el.children).find((c) => tagOf(c) === "title");
    return title ? normalizeSpace(title.textContent ?? "") : name;
  }
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
