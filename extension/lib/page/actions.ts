// DOM actions by ref, done the way a person's action looks to the page as far
// as a content script can: the pointer, mouse, focus, keyboard and input
// events a page listens for, in the order a browser fires them, plus the
// default actions that untrusted events do not trigger on their own (text
// insertion, form submission on Enter, focus moves on Tab…).
//
// Everything here is realm-safe: elements may live in a same-origin iframe,
// so constructors come from the element's own window (see dom.ts).

import {
  deepActiveElement,
  editingHost,
  isContentEditable,
  isDisabledElement,
  isFileInput,
  isInput,
  isOption,
  isSelect,
  isTextArea,
  isTextField,
  normalizeSpace,
  parentOrHost,
  safeMatches,
  supportsSelection,
  tagOf,
  truncate,
  windowOf,
} from "./dom";
import { charKey, parseKeyCombo, type KeyPress } from "./keys";
import { PageError, type RefRegistry } from "./refs";
import { nextFrame } from "./settle";
import { describeElement } from "./snapshot";
import { isSecretField, maskSecret } from "./secret";

type Win = Window & typeof globalThis;
interface Point {
  x: number;
  y: number;
}

// ---------- yielding to the page ----------
//
// A person's input arrives as separate tasks: the page's microtasks, its
// framework's scheduled renders and the browser's own follow-up events
// (selectionchange, focus) run between a pointerdown and the pointerup,
// between focus and the first key. Actions therefore await the page between
// their phases: a task turn (a MessageChannel message, not throttled in
// hidden tabs) everywhere, an animation frame only between drag phases and
// only in a visible document (hidden tabs run no frames).

/** Lets the page run its pending microtasks and the tasks queued before now. */
export function pageTurn(): Promise<void> {
  return new Promise((resolve) => {
    let ch: MessageChannel;
    try {
      ch = new MessageChannel();
    } catch {
      setTimeout(resolve, 0);
      return;
    }
    ch.port1.onmessage = () => {
      ch.port1.close();
      resolve();
    };
    ch.port2.postMessage(null);
  });
}

/** The longest one drag phase waits for a frame. */
export const DRAG_FRAME_MAX_MS = 50;

/** Between drag phases: a task turn, then a frame where the page renders frames. */
async function dragPause(win: Window): Promise<void> {
  await pageTurn();
  if (win.document?.visibilityState !== "hidden") await nextFrame(win, DRAG_FRAME_MAX_MS);
  await pageTurn();
}

// ---------- focus without a focused window ----------
//
// When the document does not have focus (Chrome in the background, headless),
// el.focus() moves the active element but fires no focus/blur events. These
// helpers call the real methods and dispatch the events the browser would
// have fired in a focused window, only when it fired none itself.

function focusEvent(el: Element, type: "focus" | "blur" | "focusin" | "focusout", related: Element | null): void {
  const win = windowOf(el);
  const Ctor = typeof win.FocusEvent === "function" ? win.FocusEvent : win.Event;
  el.dispatchEvent(
    new Ctor(type, { bubbles: type === "focusin" || type === "focusout", composed: true, relatedTarget: related, view: win } as FocusEventInit),
  );
}

/** Runs fn and reports whether el received type meanwhile. */
function sawEvent(el: Element, type: string, fn: () => void): boolean {
  let seen = false;
  const on = (ev: Event) => {
    if (ev.target === el || ev.composedPath?.()[0] === el) seen = true;
  };
  el.addEventListener(type, on, true);
  try {
    fn();
  } finally {
    el.removeEventListener(type, on, true);
  }
  return seen;
}

/** The focused element of el's own document (or shadow root), deeply. */
function activeIn(el: Element): Element | null {
  return deepActiveElement(el.ownerDocument);
}

/** Focuses el like a click or Tab in a focused window would, events included. */
export function focusElement(el: HTMLElement, opts: FocusOptions = { preventScroll: true }): void {
  const prev = activeIn(el);
  if (prev === el) return;
  const prevReal = prev && prev !== el.ownerDocument.body && prev !== el.ownerDocument.documentElement ? prev : null;
  let blurred = false;
  const focused = sawEvent(el, "focus", () => {
    if (prevReal) blurred = sawEvent(prevReal, "blur", () => el.focus(opts));
    else el.focus(opts);
  });
  if (focused || activeIn(el) !== el) return; // the browser fired them, or el took no focus
  if (prevReal && !blurred && prevReal.isConnected) {
    focusEvent(prevReal, "blur", el);
    focusEvent(prevReal, "focusout", el);
  }
  focusEvent(el, "focus", prevReal);
  focusEvent(el, "focusin", prevReal);
}

const isRealFocus = (e: Element | null): e is Element =>
  !!e && e !== e.ownerDocument.body && e !== e.ownerDocument.documentElement;

/**
 * Notices focus moves the page makes itself during an action (react-select
 * calls input.focus() in its mousedown handler; a dialog focuses its first
 * field) and, in a document without focus, dispatches the blur/focus events a
 * focused window would have fired. sync() after each phase; stop() at the end.
 */
class FocusWatch {
  private last: Element | null;
  private readonly focused = new Set<EventTarget>();
  private readonly blurred = new Set<EventTarget>();
  private readonly onFocus = (e: Event) => this.focused.add(e.composedPath?.()[0] ?? e.target!);
  private readonly onBlur = (e: Event) => this.blurred.add(e.composedPath?.()[0] ?? e.target!);

  constructor(private readonly doc: Document) {
    this.last = deepActiveElement(doc);
    doc.addEventListener("focus", this.onFocus, true);
    doc.addEventListener("blur", this.onBlur, true);
  }

  sync(): void {
    const now = deepActiveElement(this.doc);
    if (now === this.last) return;
    const prev = this.last;
    this.last = now;
    const prevReal = isRealFocus(prev) && prev.isConnected ? prev : null;
    if (prevReal && !this.blurred.has(prevReal)) {
      focusEvent(prevReal, "blur", isRealFocus(now) ? now : null);
      focusEvent(prevReal, "focusout", isRealFocus(now) ? now : null);
    }
    if (isRealFocus(now) && !this.focused.has(now)) {
      focusEvent(now, "focus", prevReal);
      focusEvent(now, "focusin", prevReal);
    }
    this.focused.clear();
    this.blurred.clear();
  }

  stop(): void {
    this.sync();
    this.doc.removeEventListener("focus", this.onFocus, true);
    this.doc.removeEventListener("blur", this.onBlur, true);
  }
}

/** Blurs el (the focused element) like a click elsewhere would, events included. */
export function blurElement(el: HTMLElement): void {
  if (activeIn(el) !== el) return;
  const blurred = sawEvent(el, "blur", () => el.blur?.());
  if (blurred || activeIn(el) === el) return;
  focusEvent(el, "blur", null);
  focusEvent(el, "focusout", null);
}

/** Longest text get_text returns. */
export const MAX_TEXT = 100_000;

// ---------- pointer ----------

export function scrollIntoViewCentered(el: Element): void {
  try {
    el.scrollIntoView?.({ block: "center", inline: "center", behavior: "instant" as ScrollBehavior });
  } catch {
    // detached or unsupported: act where it is
  }
}

function centerOf(el: Element): Point {
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

const NON_BUBBLING = new Set(["pointerenter", "pointerleave", "mouseenter", "mouseleave"]);

/** Dispatches a pointer/mouse event at pt; returns false when a listener cancelled it. */
export function mouse(el: Element, type: string, pt: Point, init: MouseEventInit & { buttons?: number } = {}): boolean {
  const win = windowOf(el);
  const pointer = type.startsWith("pointer");
  const Ctor: typeof MouseEvent = pointer && typeof win.PointerEvent === "function" ? win.PointerEvent : win.MouseEvent;
  const bubbles = !NON_BUBBLING.has(type);
  const ev = new Ctor(type, {
    bubbles,
    cancelable: bubbles && type !== "pointermove" ? true : type === "mousemove",
    composed: true,
    view: win,
    clientX: pt.x,
    clientY: pt.y,
    screenX: pt.x + (win.screenX || 0),
    screenY: pt.y + (win.screenY || 0),
    button: 0,
    buttons: 0,
    ...(pointer ? { pointerId: 1, pointerType: "mouse", isPrimary: true, width: 1, height: 1, pressure: init.buttons ? 0.5 : 0 } : {}),
    ...init,
  } as PointerEventInit);
  return el.dispatchEvent(ev);
}

// The element the pointer was last moved onto, to send it the leave events.
let hovered: WeakRef<Element> | null = null;

export function moveOnto(el: Element, pt: Point): void {
  const prev = hovered?.deref();
  if (prev && prev !== el && prev.isConnected && !prev.contains(el)) {
    const ppt = centerOf(prev);
    mouse(prev, "pointerout", ppt, { relatedTarget: el });
    mouse(prev, "pointerleave", ppt, { relatedTarget: el });
    mouse(prev, "mouseout", ppt, { relatedTarget: el });
    mouse(prev, "mouseleave", ppt, { relatedTarget: el });
  }
  const related = prev && prev.isConnected ? prev : null;
  mouse(el, "pointerover", pt, { relatedTarget: related });
  mouse(el, "pointerenter", pt, { relatedTarget: related });
  mouse(el, "mouseover", pt, { relatedTarget: related });
  mouse(el, "mouseenter", pt, { relatedTarget: related });
  mouse(el, "pointermove", pt);
  mouse(el, "mousemove", pt);
  hovered = new WeakRef(el);
}

const FOCUSABLE_TAGS = new Set(["button", "select", "textarea", "iframe", "summary"]);

function isFocusable(el: Element): boolean {
  if (isDisabledElement(el) && !el.hasAttribute("aria-disabled")) return false;
  const t = tagOf(el);
  if (FOCUSABLE_TAGS.has(t)) return true;
  if (t === "input") return (el as HTMLInputElement).type !== "hidden";
  if ((t === "a" || t === "area") && el.hasAttribute("href")) return true;
  if (el.hasAttribute("tabindex")) return true;
  return isContentEditable(el) && editingHost(el) === el;
}

export function focusTarget(el: Element): HTMLElement | null {
  for (let e: Element | null = el; e; e = parentOrHost(e)) {
    if (isFocusable(e)) return e as HTMLElement;
  }
  return null;
}

function ensureEnabled(el: Element, ref: string, what: string): void {
  if (isDisabledElement(el)) {
    throw new PageError(
      `ref ${ref} (${describeElement(el)}) is disabled, so it cannot be ${what}; wait for the page to enable it or take a new browser_snapshot`,
    );
  }
}

export async function click(refs: RefRegistry, ref: string): Promise<void> {
  const el = refs.resolve(ref);
  ensureEnabled(el, ref, "clicked");
  // An <option> inside a <select> is chosen, not clicked: the list is native UI.
  if (isOption(el)) {
    const select = el.closest("select");
    if (select) {
      chooseOptions(select, [el]);
      return;
    }
  }
  scrollIntoViewCentered(el);
  const pt = centerOf(el);
  moveOnto(el, pt);
  const doc = el.ownerDocument;
  const watch = new FocusWatch(doc);
  try {
    await pressAndRelease(el, pt, watch);
  } finally {
    watch.stop();
  }
}

async function pressAndRelease(el: Element, pt: Point, watch: FocusWatch): Promise<void> {
  const doc = el.ownerDocument;
  const pointerOk = mouse(el, "pointerdown", pt, { buttons: 1, detail: 1 });
  // A cancelled pointerdown suppresses the compatibility mouse events (not the click).
  const downOk = pointerOk ? mouse(el, "mousedown", pt, { buttons: 1, detail: 1 }) : false;
  if (downOk) {
    const target = focusTarget(el);
    if (target) {
      focusElement(target);
    } else {
      const active = activeIn(el) as HTMLElement | null;
      if (active && active !== doc.body && !active.contains(el)) blurElement(active);
    }
  }
  watch.sync();
  // The press and the release are separate tasks for the page (menus that
  // open on pointerdown render before the pointerup arrives).
  await pageTurn();
  watch.sync();
  const up = el.isConnected ? el : (doc.elementFromPoint?.(pt.x, pt.y) ?? el);
  mouse(up, "pointerup", pt, { detail: 1 });
  if (pointerOk) mouse(up, "mouseup", pt, { detail: 1 });
  // A click event runs the element's activation behaviour even when untrusted:
  // checkboxes toggle, links navigate, submit buttons submit, labels forward.
  if (up === el) mouse(el, "click", pt, { detail: 1 });
  watch.sync();
  await pageTurn();
}

export function hover(refs: RefRegistry, ref: string): void {
  const el = refs.resolve(ref);
  try {
    (el as HTMLElement).scrollIntoView?.({ block: "nearest", inline: "nearest", behavior: "instant" as ScrollBehavior });
  } catch {
    // ignore
  }
  moveOnto(el, centerOf(el));
}

// ---------- text ----------

function setNativeValue(el: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  const win = windowOf(el);
  const proto = isTextArea(el) ? win.HTMLTextAreaElement?.prototype : win.HTMLInputElement?.prototype;
  const setter = proto ? Object.getOwnPropertyDescriptor(proto, "value")?.set : undefined;
  if (setter) setter.call(el, value);
  else el.value = value;
}

function inputEvent(el: Element, type: "beforeinput" | "input", inputType: string, data: string | null): boolean {
  const win = windowOf(el);
  const Ctor = typeof win.InputEvent === "function" ? win.InputEvent : win.Event;
  const ev = new Ctor(type, { bubbles: true, cancelable: type === "beforeinput", composed: true, inputType, data } as InputEventInit);
  return el.dispatchEvent(ev);
}

function fire(el: Element, type: string): void {
  el.dispatchEvent(new (windowOf(el).Event)(type, { bubbles: true }));
}

/** Inserts text at the caret (replacing the selection) as typing would; false when refused. */
function insertIntoField(el: HTMLInputElement | HTMLTextAreaElement, text: string): boolean {
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
    } catch {
      // ignore
    }
  }
  inputEvent(el, "input", inputType, insert);
  return true;
}

function deleteInField(el: HTMLInputElement | HTMLTextAreaElement, forward: boolean): void {
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
    } catch {
      // ignore
    }
  }
  inputEvent(el, "input", inputType, null);
}

function execCommand(doc: Document, cmd: string, value?: string): boolean {
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
function insertIntoEditable(host: HTMLElement, text: string): void {
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
function deleteInEditable(host: HTMLElement, forward: boolean): void {
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

/** Waits (bounded) for the selectionchange the browser fires after a selection move, so editors see it. */
function selectionSettled(doc: Document): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      doc.removeEventListener("selectionchange", finish);
      resolve();
    };
    doc.addEventListener("selectionchange", finish);
    // A selection that did not change fires nothing: two task turns then.
    void pageTurn().then(pageTurn).then(finish);
  });
}

function selectAllIn(el: Element): void {
  const doc = el.ownerDocument;
  if (isTextField(el)) {
    try {
      el.select();
    } catch {
      // ignore
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

/** A label's control, or the one text field inside a wrapper, for a ref that points next to the field. */
function textTarget(el: Element): Element {
  if (isTextField(el) || isContentEditable(el) || isSelect(el)) return el;
  if (tagOf(el) === "label") {
    const c = (el as HTMLLabelElement).control;
    if (c) return c;
  }
  const inner = el.querySelectorAll("input, textarea, [contenteditable='true'], [contenteditable='']");
  const fields = Array.from(inner).filter((e) => isTextField(e) || isContentEditable(e));
  if (fields.length === 1) return fields[0]!;
  return el;
}

export async function typeText(refs: RefRegistry, args: { ref: string; text: string; submit?: boolean }): Promise<void> {
  const watch = new FocusWatch(refs.resolve(args.ref).ownerDocument);
  try {
    await typeInto(refs, args, watch);
  } finally {
    watch.stop();
  }
}

async function typeInto(refs: RefRegistry, args: { ref: string; text: string; submit?: boolean }, watch: FocusWatch): Promise<void> {
  const found = refs.resolve(args.ref);
  const text = String(args.text ?? "");
  const el = textTarget(found);
  if (isSelect(el)) {
    throw new PageError(`ref ${args.ref} (${describeElement(el)}) is a drop-down; use browser_select_option to choose from it`);
  }
  if (isTextField(el)) {
    ensureEnabled(el, args.ref, "typed into");
    if (el.readOnly) {
      throw new PageError(`ref ${args.ref} (${describeElement(el)}) is read-only; it cannot be typed into`);
    }
    focusElement(el, { preventScroll: false });
    await pageTurn();
    watch.sync();
    await fillField(el, text);
  } else if (isContentEditable(el)) {
    const host = editingHost(el) ?? (el as HTMLElement);
    const doc = host.ownerDocument;
    focusElement(host, { preventScroll: false });
    await selectionSettled(doc);
    selectAllIn(host);
    await selectionSettled(doc);
    const current = host.textContent ?? "";
    if (text === "") {
      if (current !== "") {
        deleteInEditable(host, false);
        if ((host.textContent ?? "") === current && !isEditorManaged(host)) {
          host.textContent = "";
          inputEvent(host, "input", "deleteContentBackward", null);
        }
      }
    } else {
      insertIntoEditable(host, text);
    }
  } else {
    throw new PageError(
      `ref ${args.ref} (${describeElement(found)}) does not take text; type into a textbox, searchbox or combobox ref, or click it first and use browser_press_key`,
    );
  }
  if (args.submit) {
    // The Enter is a separate task after the last input, as a person's is:
    // frameworks that render in a microtask or task (Preact, Vue) see the text.
    watch.sync();
    await pageTurn();
    pressKeyOn(el, parseKeyCombo("Enter"));
  }
}

/** Editors that own their DOM (Lexical, ProseMirror) mark their root; never rewrite it behind them. */
function isEditorManaged(host: Element): boolean {
  return host.hasAttribute("data-lexical-editor") || host.classList.contains("ProseMirror");
}

/** Replaces the field's value with text, key by key where the field allows it. */
async function fillField(el: HTMLInputElement | HTMLTextAreaElement, text: string): Promise<void> {
  const perChar = supportsSelection(el);
  const before = el.value;
  if (before !== "") {
    try {
      el.select();
    } catch {
      // ignore
    }
    if (perChar) deleteInField(el, false);
    else {
      setNativeValue(el, "");
      inputEvent(el, "input", "deleteContentBackward", null);
    }
  }
  if (perChar) {
    for (const ch of text) {
      // The page's microtasks (a framework's re-render of a controlled input) run between keys.
      await Promise.resolve();
      const kp = charKey(ch);
      if (kp.key === "Enter" && !isTextArea(el)) continue;
      if (!key(el, "keydown", kp)) {
        key(el, "keyup", kp);
        continue;
      }
      if (kp.text !== "" && !key(el, "keypress", kp)) {
        key(el, "keyup", kp);
        continue;
      }
      insertIntoField(el, ch === "\r" ? "\n" : ch);
      key(el, "keyup", kp);
    }
  } else {
    // number, email, date…: the browser sanitises partial values, so set the whole value once.
    setNativeValue(el, text);
    inputEvent(el, "input", "insertText", text);
    if (text !== "" && el.value === "") {
      const hint = isInput(el) ? INPUT_FORMATS[el.type] : undefined;
      throw new PageError(
        `the field rejected ${JSON.stringify(truncate(text, 60))}${hint ? `; an <input type=${(el as HTMLInputElement).type}> expects ${hint}` : ""}`,
      );
    }
  }
  if (el.value !== before) fire(el, "change");
}

const INPUT_FORMATS: Record<string, string> = {
  number: "a number like 42 or 3.5",
  date: "yyyy-mm-dd, e.g. 2024-01-31",
  "datetime-local": "yyyy-mm-ddThh:mm, e.g. 2024-01-31T09:30",
  month: "yyyy-mm, e.g. 2024-01",
  week: "yyyy-Www, e.g. 2024-W05",
  time: "hh:mm (24-hour), e.g. 09:30",
  email: "an e-mail address",
};

// ---------- select ----------

function optionLabel(o: HTMLOptionElement): string {
  return normalizeSpace(o.label || o.text || "");
}

function chooseOptions(select: HTMLSelectElement, chosen: HTMLOptionElement[]): void {
  focusElement(select);
  const opts = Array.from(select.options);
  if (select.multiple) {
    for (const o of opts) o.selected = chosen.includes(o);
  } else if (chosen[0]) {
    select.selectedIndex = opts.indexOf(chosen[0]);
    chosen[0].selected = true;
  }
  fire(select, "input");
  fire(select, "change");
}

export function selectOption(refs: RefRegistry, args: { ref: string; values: string[] }): { selected: string[] } {
  const found = refs.resolve(args.ref);
  let el: Element = found;
  if (!isSelect(el)) {
    const inner = tagOf(el) === "label" ? (el as HTMLLabelElement).control : el.querySelector("select");
    if (inner && isSelect(inner)) el = inner;
  }
  if (!isSelect(el)) {
    throw new PageError(
      `ref ${args.ref} (${describeElement(found)}) is not a native drop-down (<select>); for a custom list, click it and then click the option's ref`,
    );
  }
  const select = el;
  ensureEnabled(select, args.ref, "changed");
  const values = Array.isArray(args.values) ? args.values.map(String) : [];
  if (values.length === 0) throw new PageError("values is empty; pass the value or label of at least one option");
  if (!select.multiple && values.length > 1) {
    throw new PageError(`ref ${args.ref} (${describeElement(select)}) allows one choice; pass one value, not ${values.length}`);
  }
  const opts = Array.from(select.options);
  const chosen: HTMLOptionElement[] = [];
  const missing: string[] = [];
  for (const v of values) {
    const o =
      opts.find((x) => x.value === v) ??
      opts.find((x) => optionLabel(x) === normalizeSpace(v)) ??
      opts.find((x) => optionLabel(x).toLowerCase() === normalizeSpace(v).toLowerCase());
    if (o) chosen.push(o);
    else missing.push(v);
  }
  if (missing.length > 0) {
    const list = opts
      .slice(0, 40)
      .map((o) => (optionLabel(o) === o.value ? JSON.stringify(o.value) : `${JSON.stringify(o.value)} (${optionLabel(o)})`))
      .join(", ");
    throw new PageError(
      `no option matches ${missing.map((m) => JSON.stringify(m)).join(", ")}; the options are: ${list}${opts.length > 40 ? `, … (${opts.length} in all)` : ""}`,
    );
  }
  const disabled = chosen.find((o) => o.disabled);
  if (disabled) throw new PageError(`option ${JSON.stringify(optionLabel(disabled))} is disabled and cannot be chosen`);
  chooseOptions(select, chosen);
  return { selected: opts.filter((o) => o.selected).map((o) => o.value) };
}

// ---------- keyboard ----------

function key(el: Element, type: "keydown" | "keypress" | "keyup", kp: KeyPress): boolean {
  const win = windowOf(el);
  const m = kp.modifiers;
  const ev = new win.KeyboardEvent(type, {
    key: kp.key,
    code: kp.code,
    keyCode: type === "keypress" ? kp.text.charCodeAt(0) || kp.keyCode : kp.keyCode,
    which: type === "keypress" ? kp.text.charCodeAt(0) || kp.keyCode : kp.keyCode,
    charCode: type === "keypress" ? kp.text.charCodeAt(0) || 0 : 0,
    ctrlKey: m.ctrl,
    shiftKey: m.shift,
    altKey: m.alt,
    metaKey: m.meta,
    bubbles: true,
    cancelable: true,
    composed: true,
    view: win,
  } as KeyboardEventInit);
  return el.dispatchEvent(ev);
}

const MODIFIER_ORDER: Array<[keyof KeyPress["modifiers"], string, string, number]> = [
  ["ctrl", "Control", "ControlLeft", 17],
  ["alt", "Alt", "AltLeft", 18],
  ["meta", "Meta", "MetaLeft", 91],
  ["shift", "Shift", "ShiftLeft", 16],
];

export async function pressKey(doc: Document, combo: string): Promise<void> {
  const kp = parseKeyCombo(combo);
  const target = deepActiveElement(doc) ?? doc.body ?? doc.documentElement;
  if (!target) throw new PageError("the page has no document body to send keys to");
  const watch = new FocusWatch(doc);
  try {
    pressKeyOn(target, kp);
    watch.sync();
    await pageTurn();
  } finally {
    watch.stop();
  }
}

function pressKeyOn(target: Element, kp: KeyPress): void {
  const held = MODIFIER_ORDER.filter(([m, k]) => kp.modifiers[m] && kp.key !== k);
  const mods = { ctrl: false, shift: false, alt: false, meta: false };
  for (const [m, k, code, kc] of held) {
    mods[m] = true;
    key(target, "keydown", { key: k, code, keyCode: kc, modifiers: { ...mods }, text: "" });
  }
  let ok = key(target, "keydown", kp);
  if (ok && kp.text !== "") ok = key(target, "keypress", kp);
  if (ok) defaultKeyAction(target, kp);
  // Keyup goes to whatever has focus now (Tab moved it, for example).
  const upTarget = deepActiveElement(target.ownerDocument) ?? target;
  key(upTarget.isConnected ? upTarget : target, "keyup", kp);
  for (const [m, k, code, kc] of held.reverse()) {
    mods[m] = false;
    key(upTarget.isConnected ? upTarget : target, "keyup", { key: k, code, keyCode: kc, modifiers: { ...mods }, text: "" });
  }
}

const ACTIVATE_ON_ENTER = (el: Element): boolean => {
  const t = tagOf(el);
  if (t === "button" || t === "summary") return true;
  if ((t === "a" || t === "area") && el.hasAttribute("href")) return true;
  return isInput(el) && ["submit", "button", "reset", "image"].includes(el.type);
};

function defaultKeyAction(target: Element, kp: KeyPress): void {
  const m = kp.modifiers;
  const shortcut = m.ctrl || m.meta || m.alt;
  const doc = target.ownerDocument;
  const field = isTextField(target) && !(target as HTMLInputElement).readOnly && !isDisabledElement(target) ? target : null;
  const editable = !field && isContentEditable(target) ? editingHost(target) : null;

  if ((m.ctrl || m.meta) && !m.alt && kp.key.toLowerCase() === "a") {
    selectAllIn(target);
    return;
  }
  if (kp.key === "Tab" && !m.ctrl && !m.meta && !m.alt) {
    moveFocus(target, m.shift);
    return;
  }
  // Editing shortcuts a browser performs in a contenteditable the editor did not handle.
  if (editable && (m.ctrl || m.meta) && !m.alt) {
    const k = kp.key.toLowerCase();
    const cmd = EDIT_SHORTCUTS[m.shift && k === "z" ? "Z" : k];
    if (cmd && inputEvent(editable, "beforeinput", cmd[1], null)) execCommand(doc, cmd[0]);
    return;
  }
  if (shortcut) return;
  if (editable && (kp.key.startsWith("Arrow") || kp.key === "Home" || kp.key === "End")) {
    moveSelection(doc, kp.key, m.shift);
    return;
  }

  switch (kp.key) {
    case "Enter":
      if (field && isTextArea(field)) insertIntoField(field, "\n");
      else if (field) implicitSubmit(field as HTMLInputElement);
      else if (editable) insertIntoEditable(editable, "\n");
      else if (ACTIVATE_ON_ENTER(target)) activate(target);
      return;
    case " ":
      if (field) insertIntoField(field, " ");
      else if (editable) insertIntoEditable(editable, " ");
      else if (ACTIVATE_ON_ENTER(target) || (isInput(target) && ["checkbox", "radio"].includes(target.type))) activate(target);
      else scrollPage(target, 0, m.shift ? -0.875 : 0.875);
      return;
    case "Backspace":
    case "Delete":
      if (field) deleteInField(field, kp.key === "Delete");
      else if (editable) deleteInEditable(editable, kp.key === "Delete");
      return;
    case "Escape": {
      const dialog = target.closest("dialog");
      if (dialog && (dialog as HTMLDialogElement).open && safeMatches(dialog, ":modal")) {
        const win = windowOf(dialog);
        if (dialog.dispatchEvent(new win.Event("cancel", { cancelable: true }))) (dialog as HTMLDialogElement).close();
      }
      return;
    }
    case "ArrowLeft":
    case "ArrowRight":
    case "Home":
    case "End":
      if (field && supportsSelection(field)) {
        moveCaret(field, kp.key);
        return;
      }
      if (!editable && (kp.key === "Home" || kp.key === "End")) scrollPage(target, 0, kp.key === "Home" ? -Infinity : Infinity);
      return;
    case "ArrowUp":
    case "ArrowDown":
      if (isSelect(target) && !target.multiple) {
        const i = target.selectedIndex + (kp.key === "ArrowDown" ? 1 : -1);
        const o = target.options[i];
        if (o && !o.disabled) {
          o.selected = true;
          fire(target, "input");
          fire(target, "change");
        }
        return;
      }
      if (!field && !editable) scrollPage(target, 40 * (kp.key === "ArrowDown" ? 1 : -1), 0);
      return;
    case "PageUp":
    case "PageDown":
      if (!field && !editable) scrollPage(target, 0, kp.key === "PageDown" ? 0.875 : -0.875);
      return;
  }
  if (kp.text !== "" && kp.text !== "\r") {
    if (field) insertIntoField(field, kp.text);
    else if (editable) insertIntoEditable(editable, kp.text);
  }
}

/** Ctrl/Cmd+key in a contenteditable: [execCommand, beforeinput inputType]. */
const EDIT_SHORTCUTS: Record<string, [string, string]> = {
  b: ["bold", "formatBold"],
  i: ["italic", "formatItalic"],
  u: ["underline", "formatUnderline"],
  z: ["undo", "historyUndo"],
  Z: ["redo", "historyRedo"],
  y: ["redo", "historyRedo"],
};

/** Arrow keys, Home and End in a contenteditable: move (or with Shift extend) the selection. */
function moveSelection(doc: Document, k: string, extend: boolean): void {
  const sel = doc.getSelection() as (Selection & { modify?: (a: string, d: string, g: string) => void }) | null;
  if (!sel?.modify) return;
  const dir = k === "ArrowLeft" || k === "ArrowUp" || k === "Home" ? "backward" : "forward";
  const gran = k === "Home" || k === "End" ? "lineboundary" : k === "ArrowUp" || k === "ArrowDown" ? "line" : "character";
  try {
    sel.modify(extend ? "extend" : "move", dir, gran);
  } catch {
    // ignore
  }
}

function activate(el: Element): void {
  mouse(el, "click", centerOf(el), { detail: 0 });
}

function moveCaret(el: HTMLInputElement | HTMLTextAreaElement, k: string): void {
  const len = el.value.length;
  const s = el.selectionStart ?? len;
  const e = el.selectionEnd ?? len;
  let pos: number;
  if (k === "Home") pos = 0;
  else if (k === "End") pos = len;
  else if (s !== e) pos = k === "ArrowLeft" ? s : e;
  else pos = Math.max(0, Math.min(len, s + (k === "ArrowLeft" ? -1 : 1)));
  try {
    el.setSelectionRange(pos, pos);
  } catch {
    // ignore
  }
}

/** Enter in a form field: click the default button, or submit a form with one field (HTML implicit submission). */
function implicitSubmit(input: HTMLInputElement): void {
  const form = input.form;
  if (!form) return;
  const elements = Array.from(form.elements);
  const submitter = elements.find((e) => {
    const t = tagOf(e);
    if (t === "button") return ((e as HTMLButtonElement).type || "submit") === "submit";
    return t === "input" && ["submit", "image"].includes((e as HTMLInputElement).type);
  }) as HTMLElement | undefined;
  if (submitter) {
    if (!isDisabledElement(submitter)) activate(submitter);
    return;
  }
  const blocking = elements.filter((e) => isInput(e) && isTextField(e));
  if (blocking.length <= 1) {
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.submit();
  }
}

/** Tab order: positive tabindex first (ascending, stable), then document order. */
export function tabbables(doc: Document): HTMLElement[] {
  const pos: HTMLElement[] = [];
  const zero: HTMLElement[] = [];
  const win = doc.defaultView;
  const walk = (root: Element | ShadowRoot) => {
    for (let c = root.firstElementChild; c; c = c.nextElementSibling) {
      const style = win?.getComputedStyle(c);
      if (style?.display === "none" || c.hasAttribute("inert") || c.hasAttribute("hidden")) continue;
      const el = c as HTMLElement;
      if (isFocusable(el) && style?.visibility !== "hidden" && !isDisabledElement(el)) {
        const ti = el.tabIndex;
        if (ti > 0) pos.push(el);
        else if (ti === 0 || (ti === -1 && !el.hasAttribute("tabindex") && isFocusableByDefault(el))) zero.push(el);
      }
      if (el.shadowRoot) walk(el.shadowRoot);
      walk(el);
    }
  };
  if (doc.body) walk(doc.body);
  pos.sort((a, b) => a.tabIndex - b.tabIndex);
  return [...pos, ...zero];
}

function isFocusableByDefault(el: Element): boolean {
  const t = tagOf(el);
  return FOCUSABLE_TAGS.has(t) || t === "input" || ((t === "a" || t === "area") && el.hasAttribute("href"));
}

function moveFocus(from: Element, back: boolean): void {
  const doc = from.ownerDocument;
  const list = tabbables(doc);
  if (list.length === 0) return;
  const i = list.indexOf(from as HTMLElement);
  let next: HTMLElement;
  if (i < 0) next = back ? list[list.length - 1]! : list[0]!;
  else next = list[(i + (back ? list.length - 1 : 1)) % list.length]!;
  focusElement(next, { preventScroll: false });
  if (isTextField(next) && supportsSelection(next)) {
    try {
      next.select();
    } catch {
      // ignore
    }
  }
}

// ---------- scroll ----------

type Axis = "x" | "y";

function canScroll(el: Element, axis: Axis, style: CSSStyleDeclaration): boolean {
  const overflow = (axis === "y" ? style.overflowY : style.overflowX) || style.overflow;
  if (!/(auto|scroll|overlay)/.test(overflow)) return false;
  return axis === "y" ? el.scrollHeight > el.clientHeight : el.scrollWidth > el.clientWidth;
}

function hasRoom(el: Element, axis: Axis, sign: number): boolean {
  if (axis === "y") return sign < 0 ? el.scrollTop > 0 : el.scrollTop + el.clientHeight < el.scrollHeight - 1;
  return sign < 0 ? el.scrollLeft > 0 : el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
}

/** The scroll container a wheel over el would move: the nearest scrollable ancestor with room, else the page. */
function scrollContainer(el: Element | null, axis: Axis, sign: number): Element | null {
  let fallback: Element | null = null;
  for (let e = el; e; e = parentOrHost(e)) {
    const doc = e.ownerDocument;
    if (e === doc.documentElement || e === doc.body) break;
    const style = windowOf(e).getComputedStyle(e);
    if (canScroll(e, axis, style)) {
      if (hasRoom(e, axis, sign)) return e;
      fallback ??= e;
    }
  }
  return fallback;
}

function scrollPage(from: Element, dy: number, pages: number): void {
  const win = windowOf(from);
  const sc = scrollContainer(from, "y", dy + pages);
  const height = sc ? sc.clientHeight : win.innerHeight;
  let top = dy + pages * height;
  if (!Number.isFinite(top)) top = top > 0 ? 1e9 : -1e9;
  if (sc) sc.scrollBy?.({ top, behavior: "instant" as ScrollBehavior });
  else win.scrollBy?.({ top, behavior: "instant" as ScrollBehavior });
}

export async function scroll(
  refs: RefRegistry,
  doc: Document,
  args: { direction?: string; amount?: number; ref?: string },
): Promise<void> {
  const dir = args.direction === undefined || args.direction === "" ? undefined : String(args.direction).toLowerCase();
  if (dir !== undefined && !["up", "down", "left", "right"].includes(dir)) {
    throw new PageError(`direction ${JSON.stringify(args.direction)} is not one of up, down, left, right`);
  }
  if (args.amount !== undefined && args.amount !== null && !(typeof args.amount === "number" && args.amount > 0 && Number.isFinite(args.amount))) {
    throw new PageError(`amount ${JSON.stringify(args.amount)} must be a positive number of pixels`);
  }
  const el = args.ref ? refs.resolve(args.ref) : null;
  const win = el ? windowOf(el) : windowOf(doc);
  if (el && dir === undefined) {
    scrollIntoViewCentered(el);
    await nextFrame(win);
    return;
  }
  const d = dir ?? "down";
  const axis: Axis = d === "up" || d === "down" ? "y" : "x";
  const sign = d === "up" || d === "left" ? -1 : 1;
  let start: Element | null = el;
  if (!start) {
    try {
      start = doc.elementFromPoint?.(win.innerWidth / 2, win.innerHeight / 2) ?? null;
    } catch {
      start = null;
    }
  }
  const sc = scrollContainer(start, axis, sign);
  const viewport = sc ? (axis === "y" ? sc.clientHeight : sc.clientWidth) : axis === "y" ? win.innerHeight : win.innerWidth;
  const amount = (args.amount ?? Math.round(viewport * 0.8)) * sign;
  const opts: ScrollToOptions = axis === "y" ? { top: amount } : { left: amount };
  opts.behavior = "instant" as ScrollBehavior;
  if (sc) sc.scrollBy?.(opts);
  else windowOf(el ?? doc).scrollBy?.(opts);
  await nextFrame(win);
}

// ---------- drag ----------

function dragEvent(el: Element, type: string, pt: Point, dt: DataTransfer | null): boolean {
  const win = windowOf(el);
  const init = {
    bubbles: type !== "dragenter" ? true : true,
    cancelable: type !== "dragend" && type !== "dragleave",
    composed: true,
    view: win,
    clientX: pt.x,
    clientY: pt.y,
    screenX: pt.x,
    screenY: pt.y,
    dataTransfer: dt,
  };
  let ev: Event;
  if (typeof win.DragEvent === "function") {
    ev = new win.DragEvent(type, init);
    if ((ev as DragEvent).dataTransfer !== dt) Object.defineProperty(ev, "dataTransfer", { value: dt });
  } else {
    ev = new win.MouseEvent(type, init);
    Object.defineProperty(ev, "dataTransfer", { value: dt });
  }
  return el.dispatchEvent(ev);
}

/** The element a drag at pt is over: what is under the pointer, else the drag's target. */
function underPoint(doc: Document, pt: Point, fallback: Element): Element {
  const win = doc.defaultView;
  if (win && (pt.x < 0 || pt.y < 0 || pt.x >= win.innerWidth || pt.y >= win.innerHeight)) return fallback;
  let el: Element | null = null;
  try {
    el = doc.elementFromPoint?.(pt.x, pt.y) ?? null;
  } catch {
    el = null;
  }
  // Descend into open shadow roots, as the browser's hit test does.
  for (let i = 0; el?.shadowRoot && i < 16; i++) {
    const inner: Element | null = el.shadowRoot.elementFromPoint?.(pt.x, pt.y) ?? null;
    if (!inner || inner === el) break;
    el = inner;
  }
  return el ?? fallback;
}

/** The element a browser would start an HTML5 drag from, if any. */
function html5DragSource(el: Element): Element | null {
  for (let e: Element | null = el; e; e = parentOrHost(e)) {
    const d = e.getAttribute("draggable");
    if (d === "true") return e;
    if (d === "false") return null;
    const t = tagOf(e);
    if ((t === "a" && e.hasAttribute("href")) || t === "img") return e;
  }
  return null;
}

/**
 * Drags start onto end the way a mouse does. Both kinds of drag library are
 * served: HTML5 drag and drop (dragstart … drop, when the source is
 * draggable) and pointer-event libraries (pointerdown, moves past an
 * activation distance, pointerup). The page runs between the phases, with a
 * frame in visible tabs, because drag libraries start on the next tick and
 * find drop targets only after they re-render.
 */
export async function drag(refs: RefRegistry, args: { startRef: string; endRef: string }): Promise<void> {
  const start = refs.resolve(args.startRef);
  const end = refs.resolve(args.endRef);
  ensureEnabled(start, args.startRef, "dragged");
  if (start === end) throw new PageError("startRef and endRef are the same element; drag needs two different elements");
  const doc = start.ownerDocument;
  const win = windowOf(start);
  scrollIntoViewCentered(start);
  const a = centerOf(start);
  moveOnto(start, a);
  await pageTurn();
  mouse(start, "pointerdown", a, { buttons: 1, detail: 1 });
  mouse(start, "mousedown", a, { buttons: 1, detail: 1 });
  await dragPause(win);

  // Where to: bring the target into view if it is off-screen.
  let b = centerOf(end);
  if (b.y < 0 || b.y > win.innerHeight || b.x < 0 || b.x > win.innerWidth) {
    scrollIntoViewCentered(end);
    b = centerOf(end);
  }
  // First move: past any activation distance (dnd-kit, SortableJS fallback), toward the target.
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len = Math.hypot(dx, dy);
  const nudge = len >= 1 ? { x: a.x + (dx / len) * 12, y: a.y + (dy / len) * 12 } : { x: a.x, y: a.y + 12 };
  let over = underPoint(doc, nudge, start);
  mouse(over, "pointermove", nudge, { buttons: 1 });
  mouse(over, "mousemove", nudge, { buttons: 1 });

  const dt = typeof win.DataTransfer === "function" ? new win.DataTransfer() : null;
  const source = start.isConnected ? html5DragSource(start) : null;
  const html5 = source !== null && dragEvent(source, "dragstart", nudge, dt);
  if (html5) {
    // The browser now runs the drag: no more pointer events, a pointercancel.
    mouse(start, "pointercancel", nudge, {});
    // In a hidden tab the page's timers run once a second (SortableJS starts
    // on a timer and ignores dragover for 30 ms after each move): there the
    // drag waits for one timer turn per phase and goes straight to the target.
    const hidden = doc.visibilityState === "hidden";
    const timerTurn = () => (hidden ? new Promise<void>((r) => setTimeout(r, 0)) : Promise.resolve());
    await dragPause(win);
    await timerTurn();
    let prevOver: Element | null = null;
    let accepted = false;
    const steps = hidden ? 1 : 4;
    for (let i = 1; i <= steps + 1; i++) {
      const k = Math.min(i, steps);
      const p = { x: nudge.x + ((b.x - nudge.x) * k) / steps, y: nudge.y + ((b.y - nudge.y) * k) / steps };
      dragEvent(source, "drag", p, dt);
      over = i >= steps ? underPoint(doc, p, end) : underPoint(doc, p, source);
      if (over !== prevOver) {
        dragEvent(over, "dragenter", p, dt);
        if (prevOver && prevOver.isConnected) dragEvent(prevOver, "dragleave", p, dt);
        prevOver = over;
      }
      // The drop happens only if the target accepted it (cancelled dragover), as in a browser.
      accepted = !dragEvent(over, "dragover", p, dt);
      await dragPause(win);
      if (i < steps) await timerTurn();
    }
    if (accepted) {
      if (dt) {
        try {
          dt.dropEffect = dt.effectAllowed === "copy" ? "copy" : "move";
        } catch {
          // ignore
        }
      }
      dragEvent(over.isConnected ? over : end, "drop", b, dt);
    } else {
      dragEvent(over, "dragleave", b, dt);
    }
    await pageTurn();
    dragEvent(source.isConnected ? source : start, "dragend", b, dt);
    await pageTurn();
    mouse(end, "pointerup", b, { detail: 1 });
    mouse(end, "mouseup", b, { detail: 1 });
  } else {
    await dragPause(win);
    // Pointer-event libraries follow moves and find drop targets after re-rendering: go in steps.
    const steps = 4;
    for (let i = 1; i <= steps + 1; i++) {
      const k = Math.min(i, steps);
      const p = { x: nudge.x + ((b.x - nudge.x) * k) / steps, y: nudge.y + ((b.y - nudge.y) * k) / steps };
      over = underPoint(doc, p, i >= steps ? end : start);
      mouse(over, "pointermove", p, { buttons: 1 });
      mouse(over, "mousemove", p, { buttons: 1 });
      await dragPause(win);
    }
    over = underPoint(doc, b, end);
    mouse(over, "pointerup", b, { detail: 1 });
    mouse(over, "mouseup", b, { detail: 1 });
  }
  await pageTurn();
  hovered = new WeakRef(end);
}

// ---------- upload ----------

const MIME: Record<string, string> = {
  txt: "text/plain", csv: "text/csv", html: "text/html", htm: "text/html", json: "application/json",
  xml: "application/xml", pdf: "application/pdf", zip: "application/zip", gz: "application/gzip",
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp",
  svg: "image/svg+xml", bmp: "image/bmp", ico: "image/x-icon", avif: "image/avif", heic: "image/heic",
  mp3: "audio/mpeg", wav: "audio/wav", ogg: "audio/ogg", mp4: "video/mp4", webm: "video/webm", mov: "video/quicktime",
  md: "text/markdown", js: "text/javascript", css: "text/css", ts: "text/plain",
  doc: "application/msword", docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel", xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint", pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

export function guessMimeType(name: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (ext && MIME[ext]) || "application/octet-stream";
}

function findFileInput(el: Element): HTMLInputElement | null {
  if (isFileInput(el)) return el;
  if (tagOf(el) === "label") {
    const c = (el as HTMLLabelElement).control;
    if (c && isFileInput(c)) return c;
  }
  // Look around: a styled button and its hidden input usually share a small wrapper.
  let scope: Element | null = el;
  for (let i = 0; scope && i < 4; i++, scope = parentOrHost(scope)) {
    const t = tagOf(scope);
    if (t === "body" || t === "html") break;
    const found = scope.querySelectorAll("input[type=file]");
    if (found.length === 1) return found[0] as HTMLInputElement;
    if (found.length > 1) return null;
  }
  return null;
}

function decodeBase64(data: string, win: Win): Uint8Array {
  let bin: string;
  try {
    bin = win.atob(data.replace(/^data:[^,]*,/, "").replace(/\s+/g, ""));
  } catch {
    throw new PageError("the file data is not valid base64");
  }
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

export function upload(refs: RefRegistry, args: { ref: string; name: string; data: string; mimeType?: string }): void {
  const found = refs.resolve(args.ref);
  const input = findFileInput(found);
  if (!input) {
    throw new PageError(
      `ref ${args.ref} (${describeElement(found)}) is not a file input and none was found next to it; take a new browser_snapshot and use the ref of the file input (shown as "button … [type=file]")`,
    );
  }
  ensureEnabled(input, args.ref, "given a file");
  const win = windowOf(input);
  const name = String(args.name || "file");
  const bytes = decodeBase64(String(args.data ?? ""), win);
  const file = new win.File([bytes as BlobPart], name, { type: args.mimeType || guessMimeType(name), lastModified: Date.now() });
  if (typeof win.DataTransfer === "function") {
    const dt = new win.DataTransfer();
    dt.items.add(file);
    input.files = dt.files;
  } else {
    // No DataTransfer (old test DOMs): expose a FileList-like on the element.
    const list = Object.assign([file], { item: (i: number) => (i === 0 ? file : null) });
    Object.defineProperty(input, "files", { value: list, configurable: true });
  }
  input.dispatchEvent(new win.Event("input", { bubbles: true, composed: true }));
  input.dispatchEvent(new win.Event("change", { bubbles: true }));
}

// ---------- text ----------

export function getText(refs: RefRegistry, doc: Document, args: { ref?: string }): { text: string } {
  let text: string;
  if (args.ref) {
    const el = refs.resolve(args.ref);
    if (isTextField(el) || isSelect(el)) {
      text = isSelect(el) ? Array.from(el.options).filter((o) => o.selected).map(optionLabel).join(", ") : isSecretField(el) ? maskSecret(el.value) : el.value;
    } else {
      text = visibleText(el);
    }
  } else {
    text = doc.body ? visibleText(doc.body) : (doc.documentElement?.textContent ?? "");
  }
  if (text.length > MAX_TEXT) {
    text = `${text.slice(0, MAX_TEXT)}\n… [truncated: showed ${MAX_TEXT} of ${text.length} characters; pass a ref to read one part]`;
  }
  return { text };
}

function visibleText(el: Element): string {
  const inner = (el as HTMLElement).innerText;
  const raw = typeof inner === "string" ? inner : (el.textContent ?? "");
  return raw.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}
