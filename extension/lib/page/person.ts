// The page side of the person's own edits and pointing (issue 29): which
// element a trusted input event was about, as the page names it (role and
// accessible name, never a value; a secret field by its name only), and what
// the person pointed at with "Show this to the AI". Pure DOM logic; the
// content script listens and sends (entrypoints/content.ts).

import { computeAccessibleName } from "dom-accessibility-api";
import { pageRole } from "./aam";
import { editingHost, isSelect, normalizeSpace, parentOrHost, tagOf, truncate } from "./dom";
import type { RefRegistry } from "./refs";
import { isSecretField, SecretValues } from "./secret";
import { EXTRA_IMPLICIT } from "./snapshot";
import type { NewEdit } from "../person";

/** Roles a person's click is reported for (a click elsewhere is reading, not editing). */
const CLICK_ROLES: ReadonlySet<string> = new Set([
  "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
  "option", "treeitem", "gridcell", "slider", "spinbutton",
]);
/** Roles whose click only puts the caret in: the typing that follows is reported. */
const TEXT_ROLES: ReadonlySet<string> = new Set(["textbox", "searchbox", "combobox"]);

export function roleOf(el: Element): string {
  let role = "";
  try {
    role = pageRole(el) ?? "";
  } catch {
    role = "";
  }
  // A password input has no ARIA role; people know it as a text field.
  if (!role && tagOf(el) === "input") role = "textbox";
  // The roles the snapshot gives that the library does not (a paragraph).
  if (!role) role = EXTRA_IMPLICIT[tagOf(el)] ?? "";
  return role;
}

export function nameOf(el: Element): string {
  let name = "";
  try {
    name = normalizeSpace(computeAccessibleName(el));
  } catch {
    name = "";
  }
  // A label that embeds a secret field takes its value (accname): masked.
  // Not for the secret field itself: its own name never holds its value, and
  // masking its value (one typed letter) in its label would garble the name.
  if (!isSecretField(el)) name = SecretValues.of(el.ownerDocument)?.maskName(el, name) ?? name;
  return truncate(name, 80);
}

/** The element an event happened on (inside open shadow roots too). */
export function eventElement(ev: Event): Element | null {
  const first = ev.composedPath()[0] ?? ev.target;
  if (first instanceof Element) return first;
  if (first instanceof Node) return first.parentElement;
  return null;
}

/** The interactive element a click was on: itself or its nearest ancestor with a click role. */
function clickTarget(el: Element): { el: Element; role: string } | null {
  for (let cur: Element | null = el, depth = 0; cur && depth < 12; cur = parentOrHost(cur), depth++) {
    const role = roleOf(cur);
    if (TEXT_ROLES.has(role)) return null;
    if (CLICK_ROLES.has(role)) return { el: cur, role };
  }
  return null;
}

/**
 * What a trusted event says the person did, or null for events that are not
 * edits (a click on plain text, a focus click into a field). refs gives the
 * element its snapshot ref (null in a frame whose refs its parent gives).
 */
export function personEdit(ev: Event, refs: RefRegistry | null): NewEdit | null {
  if (!ev.isTrusted) return null;
  const at = eventElement(ev);
  if (!at) return null;
  let el: Element;
  let kind: NewEdit["kind"];
  let role: string;
  if (ev.type === "input") {
    el = editingHost(at) ?? at;
    kind = "typed";
    role = roleOf(el) || "textbox";
  } else if (ev.type === "change") {
    if (!isSelect(at)) return null; // checkboxes and radios: their click says it
    el = at;
    kind = "chose";
    role = roleOf(el) || "combobox";
  } else if (ev.type === "click") {
    if ((ev as MouseEvent).button !== 0) return null;
    const t = clickTarget(at);
    if (!t) return null;
    ({ el, role } = t);
    kind = "clicked";
  } else {
    return null;
  }
  const out: NewEdit = { kind, role, name: nameOf(el) };
  if (refs) out.ref = refs.refFor(el);
  return out;
}

/** What pointing answers: the element's ref and its ancestors', its role and name, the selected text. */
export interface Pointed {
  refs: string[];
  role: string;
  name: string;
  text: string;
}

/** The longest selected text kept. */
export const POINTED_TEXT_LIMIT = 4000;
/** How many ancestors' refs pointing gives (the server shows the first the snapshot has). */
const POINTED_CHAIN = 30;

/**
 * What the person points at: the element holding their selection, else the
 * element they last right-clicked (lastContext); null when neither. The text
 * is the selection's, never a secret field's.
 */
export function pointedAt(doc: Document, lastContext: Element | null, refs: RefRegistry | null): Pointed | null {
  const sel = doc.getSelection();
  let el: Element | null = null;
  let text = "";
  if (sel && !sel.isCollapsed && sel.rangeCount > 0) {
    const c = sel.getRangeAt(0).commonAncestorContainer;
    el = c instanceof Element ? c : c.parentElement;
    text = sel.toString();
  }
  if (!el && lastContext && lastContext.isConnected) el = lastContext;
  if (!el) return null;
  // A selection inside a field: the field is what was pointed at.
  const active = doc.activeElement;
  if (active && (tagOf(active) === "input" || tagOf(active) === "textarea") && lastContext === active) el = active;
  const secret = isSecretField(el) || (el.closest("input, textarea") !== null && isSecretField(el.closest("input, textarea") as Element));
  if (secret) text = "";
  const chain: string[] = [];
  if (refs) {
    for (let cur: Element | null = el; cur && chain.length < POINTED_CHAIN; cur = parentOrHost(cur)) {
      if (cur === doc.documentElement || cur === doc.body) break;
      chain.push(refs.refFor(cur));
    }
  }
  return { refs: chain, role: roleOf(el) || tagOf(el), name: nameOf(el), text: truncate(text.trim(), POINTED_TEXT_LIMIT) };
}
