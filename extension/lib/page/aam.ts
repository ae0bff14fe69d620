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
//                   textbox named by the body's aria-label (as Chromium names
//                   it), else the iframe's label or title
//   explicitRole    a role attribute counts only through its first token in
//                   the ARIA role set (issue 40), else an ElementInternals
//                   role (internals.ts); pageRole/roleView hand the library
//                   that role, never the page's raw string
//   flatParent      an option's required context is looked for in the flat
//                   tree: through the slot it is assigned to
//   editorWithBlocks  an editor of several blocks shows its paragraphs, list
//                   items, headings and cells as lines with refs
//   canvasWithFallback  a canvas's fallback content is walked

import { getRole } from "dom-accessibility-api";
import { normalizeSpace, parentOrHost, tagOf } from "./dom";

/**
 * The ARIA role set (WAI-ARIA 1.2/1.3, Graphics-ARIA, DPUB-ARIA) without
 * the abstract roles: the only roles a page's role attribute (or its
 * ElementInternals) can give an element. Anything else is ignored, as
 * Chromium ignores it, so no string of the page's reaches a snapshot line
 * as a role (issue 40).
 */
export const ARIA_ROLES: ReadonlySet<string> = new Set([
  "alert", "alertdialog", "application", "article", "banner", "blockquote", "button", "caption", "cell",
  "checkbox", "code", "columnheader", "combobox", "comment", "complementary", "contentinfo", "definition",
  "deletion", "dialog", "directory", "document", "emphasis", "feed", "figure", "form", "generic", "grid",
  "gridcell", "group", "heading", "img", "insertion", "link", "list", "listbox", "listitem", "log", "main",
  "mark", "marquee", "math", "menu", "menubar", "menuitem", "menuitemcheckbox", "menuitemradio", "meter",
  "navigation", "none", "note", "option", "paragraph", "presentation", "progressbar", "radio", "radiogroup",
  "region", "row", "rowgroup", "rowheader", "scrollbar", "search", "searchbox", "sectionfooter",
  "sectionheader", "separator", "slider", "spinbutton", "status", "strong", "subscript", "suggestion",
  "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term", "textbox", "time", "timer",
  "toolbar", "tooltip", "tree", "treegrid", "treeitem",
  "graphics-document", "graphics-object", "graphics-symbol",
  "doc-abstract", "doc-acknowledgments", "doc-afterword", "doc-appendix", "doc-backlink", "doc-biblioentry",
  "doc-bibliography", "doc-biblioref", "doc-chapter", "doc-colophon", "doc-conclusion", "doc-cover",
  "doc-credit", "doc-credits", "doc-dedication", "doc-endnote", "doc-endnotes", "doc-epigraph",
  "doc-epilogue", "doc-errata", "doc-example", "doc-footnote", "doc-foreword", "doc-glossary",
  "doc-glossref", "doc-index", "doc-introduction", "doc-noteref", "doc-notice", "doc-pagebreak",
  "doc-pagefooter", "doc-pageheader", "doc-pagelist", "doc-part", "doc-preface", "doc-prologue",
  "doc-pullquote", "doc-qna", "doc-subtitle", "doc-tip", "doc-toc",
]);

/** ASCII whitespace, the separator of a role attribute's tokens (anything else is part of a token). */
const ROLE_SEPARATOR = /[\t\n\f\r ]+/;

/**
 * The first token of a role string that is a known, non-abstract ARIA role
 * (lower-cased, as Chromium matches them), or null: ARIA's fallback roles
 * ("switch checkbox") pick the first one the user agent knows.
 */
export function validRole(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  if (ARIA_ROLES.has(raw)) return raw; // the common case: one known role
  for (const tok of raw.split(ROLE_SEPARATOR)) {
    if (tok === "") continue;
    const t = tok.toLowerCase();
    if (ARIA_ROLES.has(t)) return t;
    if (t === "image") return "img"; // ARIA 1.3's synonym, which Chromium knows
  }
  return null;
}

/**
 * Where an element's explicit role comes from besides its role attribute:
 * the role its ElementInternals set (captured by the MAIN-world hooks,
 * lib/page/internals.ts), or null. Set by the snapshot for its walk.
 */
let internalsRoleOf: ((el: Element) => string | null) | null = null;

/** Installs (or removes, with null) the source of ElementInternals roles that explicitRole consults. */
export function useInternalsRoles(f: ((el: Element) => string | null) | null): void {
  internalsRoleOf = f;
}

/**
 * An element's explicit role: the first valid token of its role attribute,
 * else the role its ElementInternals give it (an author's attribute wins
 * over the component's default, as in ARIA), else null.
 */
export function explicitRole(el: Element): string | null {
  const r = validRole(el.getAttribute("role"));
  if (r !== null) return r;
  return internalsRoleOf ? validRole(internalsRoleOf(el)) : null;
}

/**
 * An element seen by dom-accessibility-api with its role attribute as
 * explicitRole has it: the library takes the raw first token of the
 * attribute, whatever it holds. Only methods and properties are
 * forwarded, each on the element itself.
 */
const viewTargets = new WeakMap<object, Element>();

/** The element behind a roleView (itself for an element): for the DOM calls that take an element argument. */
export function unwrapView(e: Element): Element {
  return viewTargets.get(e) ?? e;
}

function withRole(el: Element, role: string | null): Element {
  const view = new Proxy(el, {
    get(target, prop) {
      if (prop === "getAttribute") {
        return (name: string) => (String(name).toLowerCase() === "role" ? role : target.getAttribute(name));
      }
      if (prop === "hasAttribute") {
        return (name: string) => (String(name).toLowerCase() === "role" ? role !== null : target.hasAttribute(name));
      }
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  viewTargets.set(view, el);
  return view;
}

/**
 * The element's role as dom-accessibility-api computes it, but from the
 * valid role only: a role attribute with no valid token gives the implicit
 * role (issue 40), and an ElementInternals role counts where no attribute
 * gives one. Null when the library throws.
 */
export function pageRole(el: Element): string | null {
  try {
    return getRole(roleView(el));
  } catch {
    return null;
  }
}

/**
 * el itself when its role attribute says what explicitRole says (the
 * common case), else el as the library should see it (withRole): for
 * dom-accessibility-api's role and name computations.
 */
export function roleView(el: Element): Element {
  const raw = el.getAttribute("role");
  const role = explicitRole(el);
  return raw === role ? el : withRole(el, role);
}

export const SVG_NS = "http://www.w3.org/2000/svg";

/** The table part an element's cell is in: the nearest table (or ARIA table/grid/treegrid). */
function tableOf(el: Element): Element | null {
  return el.closest("table, [role=table], [role=grid], [role=treegrid]");
}

/** The role of the table an element is in: "grid", "treegrid", "table" or null. */
function tableRole(table: Element | null): string | null {
  if (!table) return null;
  const r = explicitRole(table) ?? "";
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
  if ((t !== "td" && t !== "th") || explicitRole(el) !== null) return role;
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
export function svgRole(el: Element, role: string | null): string | null {
  if (explicitRole(el) !== null) return role;
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
  if (tagOf(el) !== "g" || el.namespaceURI !== SVG_NS || explicitRole(el) !== null) return false;
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
  if (explicitRole(svg) === "img") return false;
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
  return explicitRole(e) ?? "";
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

/**
 * The parent in the flat tree, as Chromium builds its tree: the slot a
 * slotted element is assigned to (so an <sl-option> slotted into a
 * select's listbox is in the listbox), else the parent element or the
 * shadow host.
 */
export function flatParent(el: Element, shadowRoot: (e: Element) => ShadowRoot | null = (e) => e.shadowRoot): Element | null {
  const slot = (el as Element & { assignedSlot?: HTMLSlotElement | null }).assignedSlot;
  if (slot) return slot;
  // A closed shadow root hides assignedSlot (the content script sees closed
  // roots through shadowRoot): look for the slot in the parent's root.
  const parent = el.parentElement;
  const root = parent && parent.tagName.includes("-") ? shadowRoot(parent) : null;
  if (root) {
    for (const s of Array.from(root.querySelectorAll("slot"))) {
      const assigned = (s as HTMLSlotElement).assignedNodes?.() ?? [];
      if (assigned.includes(el)) return s;
    }
  }
  return parentOrHost(el);
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
export function contextRole(el: Element, role: string | null, shadowRoot?: (e: Element) => ShadowRoot | null): string | null {
  if (role === null) return role;
  const needs = REQUIRED_CONTEXT[role];
  if (needs === undefined || firstRole(el) !== role) return role;
  for (let a = flatParent(el, shadowRoot); a; a = flatParent(a, shadowRoot)) {
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
  // The body's own label first (Chromium names the editable body by it:
  // TinyMCE's and CKEditor's "Rich Text Area"), then the frame's.
  const name =
    normalizeSpace(body.getAttribute("aria-label") ?? "") || labelledBy(body) ||
    normalizeSpace(frame.getAttribute("aria-label") ?? "") || normalizeSpace(frame.getAttribute("title") ?? "") || normalizeSpace(doc.title ?? "");
  return { body, name };
}

/** The text of the elements an element's aria-labelledby names, in its document ("" for none). */
function labelledBy(el: Element): string {
  const ids = (el.getAttribute("aria-labelledby") ?? "").split(/\s+/).filter((x) => x !== "");
  const parts: string[] = [];
  for (const id of ids) {
    const e = el.ownerDocument.getElementById(id);
    if (e) parts.push(e.textContent ?? "");
  }
  return normalizeSpace(parts.join(" "));
}

/** Blocks an editor's text is made of, each a line with a ref inside it (issue 41). */
const EDITOR_BLOCKS = "p, li, h1, h2, h3, h4, h5, h6, td, th, blockquote, pre";

/**
 * Whether a contenteditable editing host (not a text field) holds blocks —
 * paragraphs, list items, headings, table cells — that should be lines of
 * their own with refs, as Chromium's tree has them, rather than one value
 * (an editor of one paragraph keeps its text as its value):
 * a click on one puts the caret in it, browser_type on one types there.
 */
export function editorWithBlocks(el: Element): boolean {
  const t = tagOf(el);
  if (t === "input" || t === "textarea") return false;
  if ((el as HTMLElement).isContentEditable !== true) return false;
  // One paragraph is the editor's value, as a text field's is.
  return el.querySelectorAll(EDITOR_BLOCKS).length > 1;
}

/**
 * A <canvas> with element children keeps them as fallback content, which
 * Chromium's tree exposes (a canvas data grid's cells, a chart's table):
 * walked like any content. An empty canvas stays a leaf.
 */
export function canvasWithFallback(el: Element): boolean {
  return tagOf(el) === "canvas" && el.firstElementChild !== null;
}
