// The page snapshot: YAML lines in the style of accessibility snapshots
// (DESIGN §7), built in one pass over the flat tree.
//
//   - heading "Sign in" [level=1] [ref=e3]
//   - textbox "Email" [ref=e4]: ada@example.com
//   - checkbox "Remember me" [checked] [ref=e5]
//   - link "Forgot password?" [ref=e6]:
//     - /url: /reset
//   - button "Continue" [disabled] [ref=e7]
//
// Roles and names come from dom-accessibility-api, corrected where Chromium
// differs (aam.ts); a role is only ever one of the ARIA role set. Every emitted role line
// carries a ref; text lines ("- text: …", or inline after "role …:") do not.
// Elements without a role (div, span, label…) are collapsed: their children
// are lifted into the parent, and text on both sides of a block-level wrapper
// stays on separate lines.

import { computeAccessibleName } from "dom-accessibility-api";
import { canvasWithFallback, contextRole, editableFrameBody, editorWithBlocks, explicitRole, pageRole, roleView, unwrapView, useInternalsRoles, fallbackName, spacedName, SVG_NS, svgHasParts, svgRole, tableCellRole, treeitemName } from "./aam";
import {
  deepActiveElement,
  frameDocument,
  isContentEditable,
  isDisabledElement,
  isFileInput,
  isInput,
  isOption,
  isSelect,
  isTextArea,
  normalizeSpace,
  tagOf,
  truncate,
} from "./dom";
import type { RefRegistry } from "./refs";
import { CROSS_ORIGIN, emitChildren, type SNode } from "./snapshot-yaml";
import { isSecretField, maskSecret, SecretValues } from "./secret";
import { OWN_UI } from "./own-ui";
import type { InternalsInfo, InternalsReader } from "./internals";

export interface SnapshotOptions {
  /**
   * Returns the shadow root to traverse for a host. Defaults to
   * `el.shadowRoot` (open roots only); the content script passes
   * `chrome.dom.openOrClosedShadowRoot` so closed roots are seen too.
   */
  shadowRoot?: (el: Element) => ShadowRoot | null;
  /** Longest text, name or value kept on one line; 0 → 200. */
  maxText?: number;
  /** Longest /url kept; 0 → 500. */
  maxUrl?: number;
  /** Output cap in characters; 0 → 1,500,000. Past it, a last text line says the snapshot was cut. */
  maxChars?: number;
  /** Whether getComputedStyle supports ::before/::after (true in browsers). Default true. */
  pseudoElements?: boolean;
  /**
   * When given, receives the refs of the elements in or near the viewport
   * (within half a screen of it), in page order: the server shows them first
   * when the snapshot is over its token budget.
   */
  viewport?: string[];
  /**
   * A traversal limit: when given, the walk stops once the lines built so
   * far come to about limit.chars characters (counted from below: role,
   * name, ref and the visible text, each text capped at maxText), sets
   * limit.stopped, and the snapshot ends with a line saying so. A page
   * whose whole snapshot is shorter than limit.chars is built exactly as
   * without the limit.
   */
  limit?: TraversalLimit;
  /**
   * When given, receives the cross-origin iframe elements the snapshot met
   * (shadow roots included), in page order: the frame link posts into them
   * (framelink.ts).
   */
  crossOrigin?: Element[];
  /**
   * When given, receives where each printed ref is (snapshot-yaml.ts
   * Emitted.marks): the service worker names a frame's refs and stitches
   * frames in by these positions, never by reading the text back.
   */
  marks?: number[];
  /** Whether marks gets every printed ref (a frame's snapshot); else only the [cross-origin] iframe lines'. */
  allMarks?: boolean;
  /**
   * The roles and states components set through ElementInternals, read
   * from the MAIN-world hooks (internals.ts). When given and the hooks
   * came too late for a document that has components, the snapshot ends
   * with a line saying such roles may be missing.
   */
  internals?: InternalsReader;
}

/** See SnapshotOptions.limit. */
export interface TraversalLimit {
  chars: number;
  stopped: boolean;
}

/** The separator pushed around block-level collapsed wrappers so their text is not glued to neighbours. */
const BREAK = 0;
type Child = SNode | string | typeof BREAK;

/** Elements whose content is never rendered as page content. */
const SKIP = new Set([
  "script", "style", "noscript", "template", "head", "title", "meta", "link", "base",
  "param", "source", "track", "datalist", "desc",
]);

/**
 * Elements whose children are fallback content or not part of the page's
 * text. An <svg> is one unless it holds elements with roles (aam.ts).
 */
const LEAF = new Set(["svg", "math", "video", "audio", "canvas", "object", "embed", "img",
  "input", "textarea", "iframe", "frame", "progress", "meter"]);


/** Implicit roles dom-accessibility-api 0.7 does not map but the page's text needs. */
export const EXTRA_IMPLICIT: Record<string, string> = {
  p: "paragraph",
  blockquote: "blockquote",
  caption: "caption",
  search: "search",
  meter: "meter",
};

const TEXT_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "slider"]);
/**
 * Table parts whose accessible name comes from their content: when that
 * content holds elements (a link, a button), the child lines already say
 * it, so the name is left out (as in Playwright's snapshots) rather than
 * repeated on the row and cell lines. It is not computed either: naming a
 * row from content walks its whole subtree.
 */
const NAME_FROM_CONTENT_PARTS = new Set(["row", "cell", "gridcell"]);
/**
 * The elements that can host a shadow root (DOM's "valid shadow host
 * name"), besides custom elements: no other element can have one, so
 * the others are not asked (chrome.dom.openOrClosedShadowRoot is a
 * binding call per element).
 */
const SHADOW_HOSTS = new Set(["article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3",
  "h4", "h5", "h6", "header", "main", "nav", "p", "section", "span"]);
const CHECKABLE = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio", "treeitem", "option", "button"]);
const INLINE_DISPLAY = /^(inline|contents)/;
const LANDMARK_SCOPES = "article, aside, main, nav, section, [role=article], [role=complementary], [role=main], [role=navigation], [role=region]";

interface Ctx {
  refs: RefRegistry;
  shadowRoot: (el: Element) => ShadowRoot | null;
  maxText: number;
  maxUrl: number;
  pseudo: boolean;
  active: Element | null;
  styles: Map<Element, CSSStyleDeclaration>;
  style: (el: Element) => CSSStyleDeclaration;
  depth: number;
  viewport: string[] | undefined;
  limit: TraversalLimit | undefined;
  /** Characters counted against limit so far. */
  read: number;
  /** The page's typed secrets, masked in names that embed them (secret.ts); undefined when none. */
  secrets: SecretValues | undefined;
  crossOrigin: Element[] | undefined;
  internals: InternalsReader | undefined;
  /** Documents holding a defined custom element, met on the walk (for the ElementInternals note). */
  components: Set<Document>;
}

/** el's ElementInternals as the hooks reported them, or null. */
function internalsOf(el: Element, ctx: Ctx): InternalsInfo | null {
  return ctx.internals && el.localName.includes("-") ? ctx.internals.read(el) : null;
}

/** Counts n characters against the traversal limit; true once it is reached. */
function spend(ctx: Ctx, n: number): boolean {
  if (ctx.limit === undefined) return false;
  ctx.read += n;
  if (ctx.read >= ctx.limit.chars) ctx.limit.stopped = true;
  return ctx.limit.stopped;
}

/** Builds the snapshot of doc (the top document and its same-origin iframes). */
export function buildSnapshot(doc: Document, refs: RefRegistry, opts: SnapshotOptions = {}): string {
  const styles = new Map<Element, CSSStyleDeclaration>();
  const ctx: Ctx = {
    secrets: SecretValues.of(doc),
    refs,
    shadowRoot: opts.shadowRoot ?? ((el) => (el as HTMLElement).shadowRoot ?? null),
    maxText: opts.maxText || 200,
    maxUrl: opts.maxUrl || 500,
    pseudo: opts.pseudoElements ?? true,
    active: deepActiveElement(doc),
    styles,
    style: (el) => {
      let s = styles.get(el);
      if (s === undefined) {
        const win = el.ownerDocument.defaultView ?? doc.defaultView;
        s = win!.getComputedStyle(el);
        styles.set(el, s);
      }
      return s;
    },
    depth: 0,
    viewport: opts.viewport,
    limit: opts.limit,
    read: 0,
    crossOrigin: opts.crossOrigin,
    internals: opts.internals,
    components: new Set(),
  };
  if (ctx.limit) ctx.limit.stopped = false;
  const reader = opts.internals;
  useInternalsRoles(reader ? (el) => (el.localName.includes("-") ? reader.read(el)?.role ?? null : null) : null);
  let top: Array<SNode | string>;
  try {
    top = documentChildren(doc, ctx);
  } finally {
    useInternalsRoles(null);
  }
  const out = { lines: [] as string[], marks: opts.marks ?? [], allMarks: opts.allMarks === true };
  const lines = out.lines;
  const budget = { left: opts.maxChars || 1_500_000, cut: false };
  emitChildren(top, "", out, budget);
  if (ctx.limit?.stopped) {
    lines.push(`- text: "… the page goes on: monkbrowse read it only this far (far more than one part serves)"`);
  } else if (budget.cut) {
    lines.push(`- text: "… the snapshot was cut here (page too large); use browser_get_text, or scroll and snapshot again"`);
  }
  if (reader && [...ctx.components].some((d) => reader.late(d))) {
    lines.push(`- text: "… roles and states this page's components set through ElementInternals are not shown (they were set before monkbrowse reached the page, as when it loaded before it was shared: reloading it shows them)"`);
  }
  return lines.join("\n");
}

function documentChildren(doc: Document, ctx: Ctx): Array<SNode | string> {
  const editor = editableFrameBody(doc);
  if (editor) {
    // A rich-text editor's iframe: its body is the textbox (aam.ts).
    const node = makeNode(editor.body, "textbox", ctx, [], true);
    node.name = truncate(editor.name, ctx.maxText);
    if (editorWithBlocks(editor.body)) {
      // Its paragraphs and list items get refs, as in any editor.
      const kids: Child[] = [];
      visitChildren(editor.body, kids, ctx, true, "auto");
      node.children = normalizeChildren(kids, ctx);
    } else {
      node.value = fieldValue(editor.body, "textbox", ctx);
    }
    return [node];
  }
  const root = doc.body ?? doc.documentElement;
  const out: Child[] = [];
  if (root) visitChildren(root, out, ctx, true, "auto");
  return normalizeChildren(out, ctx);
}

/** Children of el in the flat tree (shadow root instead of light children; slots expanded). */
function flatChildren(el: Element, ctx: Ctx): ArrayLike<Node> {
  const t = tagOf(el);
  if (t === "slot") {
    const assigned = (el as HTMLSlotElement).assignedNodes?.() ?? [];
    return assigned.length > 0 ? assigned : el.childNodes;
  }
  const sr = SHADOW_HOSTS.has(t) || t.includes("-") ? ctx.shadowRoot(el) : null;
  if (sr) return sr.childNodes;
  if (t === "details" && !(el as HTMLDetailsElement).open) {
    // A closed <details> shows only its first <summary>.
    const summary = Array.from(el.children).find((c) => tagOf(c) === "summary");
    return summary ? [summary] : [];
  }
  return el.childNodes;
}

function visitChildren(el: Element, out: Child[], ctx: Ctx, visible: boolean, cursor: string): void {
  const kids = flatChildren(el, ctx);
  for (let i = 0; i < kids.length; i++) {
    if (ctx.limit?.stopped) return;
    const node = kids[i]!;
    if (node.nodeType === 3) {
      if (visible) {
        const text = node.nodeValue ?? "";
        out.push(text);
        if (ctx.limit) spend(ctx, Math.min(text.trim().length, ctx.maxText));
      }
    } else if (node.nodeType === 1) {
      visitElement(node as Element, out, ctx, cursor);
    }
  }
}

function visitElement(el: Element, out: Child[], ctx: Ctx, parentCursor: string): void {
  const t = tagOf(el);
  if (SKIP.has(t) || OWN_UI.has(el)) return;
  if (isInput(el) && el.type === "hidden") return;
  const style = ctx.style(el);
  const info = internalsOf(el, ctx);
  if (ctx.internals && t.includes("-") && !ctx.components.has(el.ownerDocument) && definedElement(el)) ctx.components.add(el.ownerDocument);
  if (info?.hidden === "true" && !el.hasAttribute("aria-hidden")) return;
  const hiddenAttr = el.hasAttribute("hidden") && el.getAttribute("hidden") !== "until-found";
  if (
    style.display === "none" || hiddenAttr ||
    el.getAttribute("aria-hidden") === "true" || el.hasAttribute("inert")
  ) {
    // A file input is often hidden behind a styled button; uploads still need it.
    if (isFileInput(el) && el.getAttribute("aria-hidden") !== "true") {
      out.push(makeNode(el, "button", ctx, ["type=file", "hidden"]));
    }
    return;
  }
  const visible = style.visibility !== "hidden" && style.visibility !== "collapse";
  const cursor = style.cursor || parentCursor;
  const role = visible ? roleOf(el, t, style, parentCursor, ctx) : null;

  if (role === null) {
    // Collapsed wrapper: lift its children; keep block boundaries.
    if (isLeaf(el, t)) return;
    const block = !INLINE_DISPLAY.test(style.display || "inline");
    if (block) out.push(BREAK);
    if (t === "label") {
      liftLabel(el as HTMLLabelElement, out, ctx, visible, cursor);
    } else {
      visitChildren(el, out, ctx, visible, cursor);
    }
    if (block) out.push(BREAK);
    return;
  }

  const extra: string[] = [];
  if (role === "generic" && style.cursor === "pointer") extra.push("cursor=pointer");
  if (isFileInput(el)) extra.push("type=file");
  const contentNamed = NAME_FROM_CONTENT_PARTS.has(role) && !hasExplicitName(el);
  const node = makeNode(el, role, ctx, extra, contentNamed);

  if (t === "iframe" || t === "frame") {
    frameChildren(el as HTMLIFrameElement, node, ctx);
  } else if (TEXT_ROLES.has(role) && !isSelect(el) && !editorWithBlocks(el)) {
    node.value = fieldValue(el, role, ctx);
  } else if (!isLeaf(el, t)) {
    const kids: Child[] = [];
    visitChildren(el, kids, ctx, true, cursor);
    node.children = normalizeChildren(kids, ctx);
    // The traversal limit stopped the walk before any of its content: its
    // line would differ from a whole read's (no content), so it is left
    // for the rest of the page rather than shown half-read.
    if (ctx.limit?.stopped && node.children.length === 0 && el.firstChild !== null) return;
    if (contentNamed && node.children.every((c) => typeof c === "string")) {
      // Text only: the name is the text, on one line as before.
      node.name = truncate(spacedName(el, role, accessibleName(el, ctx), ctx.style), ctx.maxText);
    } else if (contentNamed && role === "gridcell" && node.children.length === 1) {
      // A grid cell holding one element only (a link, a button) is named
      // by it, as in Chromium: the ref a data grid's cell is acted on by
      // says what it holds. A data table's cells keep the child line only.
      // The child's own name (an icon button's aria-label), as Chromium's
      // name from content takes it.
      node.name = (node.children[0] as SNode).name;
    }
    // The name already says what the text children say.
    if (
      node.name !== "" && node.children.length > 0 &&
      node.children.every((c) => typeof c === "string") &&
      sameWords(normalizeSpace(node.children.join(" ")), node.name)
    ) {
      node.children = [];
    }
  } else if (role === "progressbar" || role === "meter") {
    const v = (el as HTMLProgressElement).getAttribute("value");
    if (v !== null) node.value = v;
  }
  if ((role === "progressbar" || role === "meter") && node.value === undefined && node.children.length === 0) {
    // An ARIA progress bar's value (an upload's percent): a change of it is a change.
    const info = internalsOf(el, ctx);
    const v = el.getAttribute("aria-valuetext") ?? el.getAttribute("aria-valuenow") ?? info?.valueText ?? info?.valueNow ?? null;
    if (v !== null && v.trim() !== "") node.value = truncate(normalizeSpace(v), ctx.maxText);
  }
  if (t === "a" || t === "area") {
    const href = el.getAttribute("href");
    if (href !== null) node.props.push(["/url", truncate(href, ctx.maxUrl)]);
  }
  out.push(node);
}

/** Whether a custom element has been defined (upgraded): only those can have attached internals. */
function definedElement(el: Element): boolean {
  if (el.matches(":defined")) return true;
  // Where this world has a registry (not a content script's; a test DOM without :defined): it knows too.
  return el.ownerDocument.defaultView?.customElements?.get(el.localName) !== undefined;
}

/** Whether a name says what the text says, but for the quote marks a <q> adds to the name (aam.ts). */
function sameWords(text: string, name: string): boolean {
  return text === name || (name.length > text.length && name.replace(/[\u201c\u201d\u2018\u2019]/g, "") === text);
}

/**
 * A label's text already is its control's name: keep the label's text only
 * where it says something the control's name does not.
 */
function liftLabel(label: HTMLLabelElement, out: Child[], ctx: Ctx, visible: boolean, cursor: string): void {
  let control: Element | null = null;
  try {
    control = label.control;
  } catch {
    control = null;
  }
  if (!control) {
    visitChildren(label, out, ctx, visible, cursor);
    return;
  }
  const kids: Child[] = [];
  visitChildren(label, kids, ctx, visible, cursor);
  const name = accessibleName(control, ctx);
  for (const k of normalizeChildren(kids, ctx)) {
    if (typeof k === "string" && name.includes(k)) continue;
    out.push(BREAK, k, BREAK);
  }
}

/** LEAF, except an <svg> that holds elements with roles or links (focusable widgets on its shapes): those are listed (aam.ts). */
function isLeaf(el: Element, t: string): boolean {
  return LEAF.has(t) && !(t === "svg" && svgHasParts(el)) && !canvasWithFallback(el);
}

function roleOf(el: Element, t: string, style: CSSStyleDeclaration, parentCursor: string, ctx: Ctx): string | null {
  if (t === "iframe" || t === "frame") return "iframe";
  let role = pageRole(el);
  role = contextRole(el, tableCellRole(el, role), ctx.shadowRoot);
  if (t !== "svg" && el.namespaceURI === SVG_NS) {
    role = svgRole(el, role);
    return role === "presentation" || role === "none" || role === "generic" ? null : role;
  }
  if (role === null && explicitRole(el) === null) role = EXTRA_IMPLICIT[t] ?? null;
  if (role === "presentation" || role === "none" || role === "generic") role = null;

  if (role === null) {
    if (isInput(el)) {
      // Types dom-accessibility-api leaves without a role.
      switch (el.type) {
        case "password":
        case "date":
        case "datetime-local":
        case "month":
        case "week":
        case "time":
          return "textbox";
        case "file":
        case "color":
          return "button";
        default:
          return "textbox";
      }
    }
    if (isContentEditable(el) && !isContentEditable(el.parentElement ?? el.ownerDocument.documentElement)) {
      return "textbox";
    }
    if (t === "svg") return accessibleName(el, ctx) !== "" ? "img" : null;
    // A wrapper a person can evidently click or focus keeps a line, so it has a ref.
    const ti = el.getAttribute("tabindex");
    if (
      (ti !== null && Number(ti) >= 0) ||
      el.hasAttribute("onclick") ||
      (style.cursor === "pointer" && parentCursor !== "pointer" && t !== "label")
    ) {
      return "generic";
    }
    return null;
  }
  if (role === "region" && t === "section" && accessibleName(el, ctx) === "") return null;
  if ((role === "banner" || role === "contentinfo") && explicitRole(el) === null) {
    const scope = el.parentElement?.closest(LANDMARK_SCOPES);
    if (scope) return null;
  }
  return role;
}

function accessibleName(el: Element, ctx: Ctx): string {
  const name = computedName(el, ctx);
  return ctx.secrets ? ctx.secrets.maskName(el, name) : name;
}

function computedName(el: Element, ctx: Ctx): string {
  try {
    return normalizeSpace(
      computeAccessibleName(roleView(el), {
        computedStyleSupportsPseudoElements: ctx.pseudo,
        // e may be the roleView of el: the browser's getComputedStyle takes the element itself.
        getComputedStyle: (e: Element, pseudo?: string | null) =>
          pseudo ? e.ownerDocument.defaultView!.getComputedStyle(unwrapView(e), pseudo) : ctx.style(unwrapView(e)),
      }),
    );
  } catch {
    return "";
  }
}

/** Whether el is named by ARIA attributes rather than by its content (title comes after content in accname). */
function hasExplicitName(el: Element): boolean {
  return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby");
}

function makeNode(el: Element, role: string, ctx: Ctx, extra: string[], skipName = false): SNode {
  const info = internalsOf(el, ctx);
  let name = skipName
    ? ""
    : truncate(fallbackName(el, treeitemName(el, role, spacedName(el, role, accessibleName(el, ctx), ctx.style), ctx.style)), ctx.maxText);
  if (!skipName && info?.label && !hasExplicitName(el)) {
    // An aria-label of the component's internals (an attribute's would have
    // won), masked like any name that could embed a typed secret.
    const label = normalizeSpace(info.label);
    if (label !== "") name = truncate(ctx.secrets ? ctx.secrets.maskName(el, label) : label, ctx.maxText);
  }
  const ref = ctx.refs.refFor(el);
  if (ctx.viewport && nearViewport(el)) ctx.viewport.push(ref);
  // "- role "name" [ref=eN]": at least the role, the name and 8 more.
  if (ctx.limit) spend(ctx, role.length + name.length + 8 + ref.length);
  return {
    role,
    name,
    attrs: [...states(el, role, info), ...(el === ctx.active && tagOf(el) !== "body" ? ["active"] : []), ...extra],
    ref,
    props: [],
    children: [],
  };
}

/** Whether el's box is within half a screen of its window's visible area. */
function nearViewport(el: Element): boolean {
  const win = el.ownerDocument.defaultView;
  if (!win) return false;
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return false;
  const h = win.innerHeight, w = win.innerWidth;
  return r.bottom >= -h / 2 && r.top <= h * 1.5 && r.right >= -w / 2 && r.left <= w * 1.5;
}

/** State attributes in a fixed order: checked, disabled, expanded, level, pressed, selected, required, current, invalid, sort, busy (then active, markers, ref). */
function states(el: Element, role: string, info: InternalsInfo | null = null): string[] {
  const out: string[] = [];
  const t = tagOf(el);
  // An ARIA attribute, else the same property of the component's internals.
  const aria = (attr: string, key: keyof InternalsInfo): string | null => el.getAttribute(attr) ?? info?.[key] ?? null;
  // checked
  if (CHECKABLE.has(role)) {
    if (isInput(el) && (el.type === "checkbox" || el.type === "radio")) {
      if (el.indeterminate) out.push("checked=mixed");
      else if (el.checked) out.push("checked");
    } else {
      const ac = aria("aria-checked", "checked");
      if (ac === "true") out.push("checked");
      else if (ac === "mixed") out.push("checked=mixed");
    }
  }
  if (isDisabledElement(el) || (!el.hasAttribute("aria-disabled") && info?.disabled === "true")) out.push("disabled");
  // expanded
  const ae = aria("aria-expanded", "expanded");
  if (ae === "true") out.push("expanded");
  else if (ae === "false") out.push("expanded=false");
  else if (t === "summary" && el.parentElement && tagOf(el.parentElement) === "details") {
    out.push((el.parentElement as HTMLDetailsElement).open ? "expanded" : "expanded=false");
  }
  // level
  if (role === "heading") {
    const al = Number(aria("aria-level", "level"));
    const m = /^h([1-6])$/.exec(t);
    const level = Number.isInteger(al) && al > 0 ? al : m ? Number(m[1]) : 2;
    out.push(`level=${level}`);
  } else if (el.hasAttribute("aria-level")) {
    const al = Number(el.getAttribute("aria-level"));
    if (Number.isInteger(al) && al > 0) out.push(`level=${al}`);
  }
  // pressed
  const ap = aria("aria-pressed", "pressed");
  if (ap === "true") out.push("pressed");
  else if (ap === "mixed") out.push("pressed=mixed");
  // selected
  if (isOption(el)) {
    if (el.selected) out.push("selected");
  } else if (aria("aria-selected", "selected") === "true") {
    out.push("selected");
  }
  // required
  if (
    ((isInput(el) || isSelect(el) || isTextArea(el)) && el.required) ||
    aria("aria-required", "required") === "true"
  ) {
    out.push("required");
  }
  // current, invalid, sort, busy: fixed tokens only (a page's other words never reach the line)
  const cur = el.getAttribute("aria-current")?.trim().toLowerCase();
  if (cur !== undefined && cur !== "" && cur !== "false") out.push(CURRENT_TOKENS.has(cur) ? `current=${cur}` : "current");
  const inv = el.getAttribute("aria-invalid")?.trim().toLowerCase();
  if (inv !== undefined && inv !== "" && inv !== "false") out.push(inv === "grammar" || inv === "spelling" ? `invalid=${inv}` : "invalid");
  if (role === "columnheader" || role === "rowheader") {
    const sort = el.getAttribute("aria-sort")?.trim().toLowerCase();
    if (sort === "ascending" || sort === "descending" || sort === "other") out.push(`sort=${sort}`);
  }
  if (el.getAttribute("aria-busy")?.trim().toLowerCase() === "true") out.push("busy");
  return out;
}

/** aria-current's values other than true and false (ARIA 1.2); any other value means true. */
const CURRENT_TOKENS = new Set(["page", "step", "location", "date", "time"]);

function fieldValue(el: Element, role: string, ctx: Ctx): string | undefined {
  let v: string;
  if (isSecretField(el)) return (el as HTMLInputElement).value ? maskSecret((el as HTMLInputElement).value) : undefined;
  if (isInput(el)) {
    v = el.value;
  } else if (isTextArea(el)) {
    v = el.value;
  } else if (role === "slider" || role === "spinbutton") {
    const info = internalsOf(el, ctx);
    v = el.getAttribute("aria-valuetext") ?? el.getAttribute("aria-valuenow") ?? info?.valueText ?? info?.valueNow ?? "";
  } else {
    // contenteditable or an ARIA textbox: its text is its value
    v = normalizeSpace((el as HTMLElement).innerText ?? el.textContent ?? "");
  }
  if (v === "") return undefined;
  return truncate(v, ctx.maxText);
}

function frameChildren(frame: HTMLIFrameElement, node: SNode, ctx: Ctx): void {
  const doc = frameDocument(frame);
  if (doc === null) {
    node.attrs.push(CROSS_ORIGIN);
    ctx.crossOrigin?.push(frame);
    return;
  }
  if (ctx.depth >= 8) return;
  ctx.depth++;
  try {
    node.children = documentChildren(doc, ctx);
  } finally {
    ctx.depth--;
  }
}

/** Merges adjacent text pieces, splits at block boundaries, trims and drops empty text. */
function normalizeChildren(kids: Child[], ctx: Ctx): Array<SNode | string> {
  const out: Array<SNode | string> = [];
  let text = "";
  const flush = () => {
    const s = normalizeSpace(text);
    if (s !== "") out.push(truncate(s, ctx.maxText));
    text = "";
  };
  for (const k of kids) {
    if (typeof k === "string") text += k;
    else {
      flush();
      if (k !== BREAK) out.push(k);
    }
  }
  flush();
  return out;
}
