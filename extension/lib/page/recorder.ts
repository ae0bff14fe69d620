// The page side of recording (issue 42): what the person's own trusted event
// in a document becomes as a step of protocol/steps.go. Only while the
// service worker has told this document that its tab is recording does the
// content script listen (entrypoints/content.ts); each step goes to the worker
// at once, which coalesces typing and keeps the recording (lib/recorder.ts).
//
// A target is described the way a person sees it: the role and accessible
// name the snapshot gives (lib/page/person.ts roleOf/nameOf), which of the
// elements with that role and name it is (nth), and nearby text when names
// repeat. A secret field (lib/page/secret.ts isSecretField) gives a step that
// says the person entered a secret there: its value is never read.

import type { Step, StepTarget } from "../protocol.gen";
import { editingHost, isContentEditable, isInput, isOption, isSelect, isTextArea, normalizeSpace, parentOrHost, tagOf, truncate } from "./dom";
import { eventElement, nameOf, roleOf } from "./person";
import { isSecretField } from "./secret";

/** The longest value a typed step keeps (lib/recordings.ts keeps as much). */
export const RECORD_VALUE_LIMIT = 2000;
/** How many elements are looked at to tell same-named ones apart. */
const NTH_SCAN_LIMIT = 5000;
/** The longest nearby text kept. */
const NEAR_LIMIT = 60;

/** Roles a click is a step for; a click elsewhere is reading, not doing. */
const CLICK_ROLES: ReadonlySet<string> = new Set([
  "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
  "option", "treeitem", "gridcell", "slider", "spinbutton", "combobox",
]);
/** Roles whose click only puts the caret in a field: the typing that follows is the step. */
const TEXT_ROLES: ReadonlySet<string> = new Set(["textbox", "searchbox"]);
/** Roles whose click sets a checked state: check or uncheck. */
const CHECK_ROLES: ReadonlySet<string> = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);
/** Inputs whose input events are not typing (their click or change says what happened). */
const NOT_TYPED: ReadonlySet<string> = new Set(["checkbox", "radio", "file", "button", "submit", "reset", "image", "range", "color"]);
/** Keys that are a step on their own; other keys are only with Control, Alt or Meta (a shortcut). */
const NAMED_KEYS: ReadonlySet<string> = new Set(["Enter", "Escape", "Tab"]);
const MODIFIER_KEYS: ReadonlySet<string> = new Set(["Control", "Shift", "Alt", "Meta", "AltGraph", "CapsLock", "Fn", "OS"]);

function visible(el: Element): boolean {
  const check = (el as Element & { checkVisibility?: () => boolean }).checkVisibility;
  if (typeof check !== "function") return true;
  try {
    return check.call(el);
  } catch {
    return true; // silent: no way to tell here; counted as visible, as the snapshot's reader sees it
  }
}

/** The elements of el's document in document order (the light tree), at most NTH_SCAN_LIMIT. */
function documentElements(el: Element): Element[] {
  const all = el.ownerDocument.getElementsByTagName("*");
  const out: Element[] = [];
  for (let i = 0; i < all.length && i < NTH_SCAN_LIMIT; i++) out.push(all[i] as Element);
  return out;
}

/** The text of an ancestor that tells el apart from the others named alike. */
function nearText(el: Element, name: string, same: Element[]): string | undefined {
  let cur = parentOrHost(el);
  for (let depth = 0; cur && depth < 8; cur = parentOrHost(cur), depth++) {
    if (cur === el.ownerDocument.body || cur === el.ownerDocument.documentElement) return undefined;
    const holder = cur;
    const inside = same.filter((o) => holder.contains(o)).length;
    if (inside > 1) return undefined; // this ancestor holds another of them: no text of its own tells them apart
    let text = normalizeSpace(holder.textContent ?? "");
    if (name) text = normalizeSpace(text.split(name).join(" "));
    if (text) return truncate(text, NEAR_LIMIT);
  }
  return undefined;
}

/**
 * el as a person sees it: role, name, which of the same role and name it is
 * in document order (0 = the first, left out), nearby text when names
 * repeat. The frame is the service worker's to set (it knows the sender).
 */
export function describeTarget(el: Element): StepTarget {
  const role = roleOf(el);
  const name = nameOf(el);
  const t: StepTarget = {};
  if (role) t.role = role;
  if (name) t.name = name;
  if (!role && !name) {
    const tag = tagOf(el);
    if (tag) t.name = truncate(normalizeSpace(el.textContent ?? ""), 80) || tag;
    return t;
  }
  const same: Element[] = [];
  for (const o of documentElements(el)) {
    if (o !== el && !visible(o)) continue;
    if (roleOf(o) !== role) continue;
    if (nameOf(o) !== name) continue;
    same.push(o);
  }
  const nth = same.indexOf(el);
  if (nth > 0) t.nth = nth;
  if (same.length > 1) {
    const near = nearText(el, name, same);
    if (near) t.near = near;
  }
  return t;
}

/** The interactive element a click was on: itself or its nearest ancestor with a click role. */
function clickTarget(el: Element): { el: Element; role: string } | null {
  for (let cur: Element | null = el, depth = 0; cur && depth < 12; cur = parentOrHost(cur), depth++) {
    const role = roleOf(cur);
    if (TEXT_ROLES.has(role)) return null;
    // A text input named combobox (react-select's) takes the caret: its typing is the step.
    if (role === "combobox" && (isInput(cur) || isTextArea(cur))) return null;
    if (CLICK_ROLES.has(role)) return { el: cur, role };
  }
  return null;
}

/** The combobox (or listbox) an option chooses for: the element whose aria-controls or aria-owns names the option's list. */
function optionOwner(option: Element): Element | null {
  let list: Element | null = null;
  for (let cur = parentOrHost(option), depth = 0; cur && depth < 8; cur = parentOrHost(cur), depth++) {
    if (roleOf(cur) === "listbox") {
      list = cur;
      break;
    }
  }
  const doc = option.ownerDocument;
  const id = list?.id;
  if (id) {
    for (const attr of ["aria-controls", "aria-owns"]) {
      for (const c of Array.from(doc.querySelectorAll(`[${attr}]`))) {
        if ((c.getAttribute(attr) ?? "").split(/\s+/).includes(id)) return c;
      }
    }
  }
  const active = doc.activeElement;
  if (active && roleOf(active) === "combobox") return active;
  return list;
}

function checkedAfterClick(el: Element): boolean {
  // A native box has toggled before its click is dispatched; an ARIA one
  // changes in the page's handler, after this capture-phase listener.
  // A radio is never unchecked by its click.
  if (isInput(el) && el.type === "radio") return true;
  if (isInput(el) && el.type === "checkbox") return el.checked;
  if (roleOf(el) === "radio" || roleOf(el) === "menuitemradio") return true;
  return el.getAttribute("aria-checked") !== "true";
}

/** The key as steps name it: Enter, Shift+Tab, Control+S; null for a key that is text or a lone modifier. */
export function keyName(ev: KeyboardEvent, secretField: boolean): string | null {
  const key = ev.key;
  if (!key || key === "Unidentified" || MODIFIER_KEYS.has(key) || ev.isComposing) return null;
  const shortcut = ev.ctrlKey || ev.altKey || ev.metaKey;
  // In a secret field a "shortcut" may be a character of the secret (Alt on a Mac layout).
  if (!shortcut || secretField) {
    if (!NAMED_KEYS.has(key)) return null;
    return ev.shiftKey && !secretField ? `Shift+${key}` : key;
  }
  const mods: string[] = [];
  if (ev.ctrlKey) mods.push("Control");
  if (ev.altKey) mods.push("Alt");
  if (ev.metaKey) mods.push("Meta");
  if (ev.shiftKey) mods.push("Shift");
  const k = key.length === 1 ? key.toUpperCase() : key;
  return [...mods, k].join("+");
}

function typedValue(el: Element): string {
  if (isInput(el) || isTextArea(el)) return el.value.slice(0, RECORD_VALUE_LIMIT);
  return ((el as HTMLElement).innerText ?? el.textContent ?? "").slice(0, RECORD_VALUE_LIMIT);
}

/**
 * The step the person's event makes, or null: untrusted events (the page's
 * own, monkbrowse's in the DOM mode) never; clicks on plain text, clicks
 * into text fields and plain text keys neither. A secret field's typing is
 * {action: "type", target, secret: true}: its value is not read.
 */
export function recordEvent(ev: Event, typing?: TypingCache): Step | null {
  if (!ev.isTrusted) return null;
  const at = eventElement(ev);
  if (!at) return null;
  switch (ev.type) {
    case "input": {
      const el = editingHost(at) ?? at;
      if (isInput(el) && NOT_TYPED.has(el.type)) return null;
      if (!isInput(el) && !isTextArea(el) && !isContentEditable(el)) return null;
      // Each key typed is an input event: the field is described once while the person types in it.
      let target = typing?.el === el ? typing.target : undefined;
      if (!target) {
        target = describeTarget(el);
        // An editable region without a role is a text field to a person (the snapshot says textbox).
        target.role ??= "textbox";
        if (typing) {
          typing.el = el;
          typing.target = target;
        }
      }
      target = { ...target };
      if (isSecretField(el)) return { action: "type", target, secret: true };
      return { action: "type", target, value: typedValue(el) };
    }
    case "change": {
      if (!isSelect(at)) return null; // boxes: their click says it; text: its input events
      const labels = Array.from(at.selectedOptions, (o) => normalizeSpace(o.label || o.text));
      return { action: "select", target: describeTarget(at), value: labels.join(", ").slice(0, RECORD_VALUE_LIMIT) };
    }
    case "click": {
      if ((ev as MouseEvent).button !== 0) return null;
      if (isOption(at) || (at.parentElement && isSelect(at.parentElement))) return null; // a <select>'s own list: its change says it
      const t = clickTarget(at);
      if (!t) return null;
      if (t.role === "option") {
        const owner = optionOwner(t.el);
        const value = nameOf(t.el);
        if (owner && value) return { action: "select", target: describeTarget(owner), value };
        return { action: "click", target: describeTarget(t.el) };
      }
      if (CHECK_ROLES.has(t.role)) return { action: checkedAfterClick(t.el) ? "check" : "uncheck", target: describeTarget(t.el) };
      return { action: "click", target: describeTarget(t.el) };
    }
    case "pointerup": {
      // Some listboxes choose on pointerup and are gone before the click
      // (Radix Select): an option's pointerup is the choice too; the worker
      // keeps one step when its click follows.
      if ((ev as PointerEvent).button !== 0 || isOption(at)) return null;
      const t = clickTarget(at);
      if (!t || t.role !== "option") return null;
      const owner = optionOwner(t.el);
      const value = nameOf(t.el);
      return owner && value ? { action: "select", target: describeTarget(owner), value } : null;
    }
    case "keydown": {
      const el = editingHost(at) ?? at;
      const secret = (isInput(el) || isTextArea(el)) && isSecretField(el);
      const key = keyName(ev as KeyboardEvent, secret);
      if (!key) return null;
      const step: Step = { action: "press", value: key };
      const doc = el.ownerDocument;
      if (el !== doc.body && el !== doc.documentElement && roleOf(el)) step.target = describeTarget(el);
      return step;
    }
    default:
      return null;
  }
}

/**
 * The field typed into last and its description: describing a field looks
 * at the whole document (nth), too much for every key. Any other step ends it.
 */
export interface TypingCache {
  el?: Element;
  target?: StepTarget;
}

/** The events a recording document listens to (capture phase, on the document). */
export const RECORDED_EVENTS = ["click", "pointerup", "input", "change", "keydown"] as const;

/**
 * Listens to doc's trusted events and hands each step to send until the
 * returned function is called. A step that cannot be described is reported
 * through fail, never thrown into the page's event dispatch.
 */
export function recordDocument(doc: Document, send: (step: Step) => void, fail: (e: unknown) => void): () => void {
  const typing: TypingCache = {};
  const on = (ev: Event) => {
    let step: Step | null;
    try {
      step = recordEvent(ev, typing);
      if (step && step.action !== "type") {
        typing.el = undefined;
        typing.target = undefined;
      }
    } catch (e) {
      fail(e);
      return;
    }
    if (step) send(step);
  };
  for (const type of RECORDED_EVENTS) doc.addEventListener(type, on, true);
  return () => {
    for (const type of RECORDED_EVENTS) doc.removeEventListener(type, on, true);
  };
}
