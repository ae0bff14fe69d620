// browser_type: replaces a field's or a contenteditable's text key by key,
// optionally pressing Enter after it.

import { deepActiveElement, editingHost, isContentEditable, isInput, isSelect, isTextArea, isTextField, supportsSelection, tagOf, truncate, windowOf } from "./dom";
import { deleteInEditable, deleteInField, editContextAll, editContextHost, editContextInput, insertIntoEditable, insertIntoField, selectAllIn, setNativeValue } from "./editing";
import { ensureEnabled, fire, inputEvent, pageTurn } from "./events";
import { focusElement, focusTarget, FocusWatch } from "./focus";
import { key, pressKeyOn } from "./keyboard";
import { charKey, parseKeyCombo } from "./keys";
import { PageError, type RefRegistry } from "./refs";
import { describeElement } from "./describe";
import { report } from "../diag";
import { isSecretField, maskSecret } from "./secret";
import { invisibleReason } from "./effect";
import { caretInto, editorBlockHost } from "./editor-caret";

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


/** A label's control, or the one text field inside a wrapper, for a ref that points next to the field. */
function textTarget(el: Element): Element {
  if (isTextField(el) || isContentEditable(el) || isSelect(el)) return el;
  if (tagOf(el) === "label") {
    const c = (el as HTMLLabelElement).control;
    if (c) return c;
  }
  const fields = fieldsIn(el);
  if (fields.length === 1) return fields[0]!;
  // A code editor's visible text (CodeMirror 5, Ace): its input is a hidden
  // textarea beside it, in the editor's wrapper.
  if (fields.length === 0) {
    let a: Element | null = el.parentElement;
    for (let i = 0; a && i < EDITOR_WRAPPER_DEPTH; i++, a = a.parentElement) {
      const around = fieldsIn(a);
      if (around.length > 1) break;
      if (around.length === 1) {
        if (isTextArea(around[0]!) && invisibleReason(around[0]!) !== null) return around[0]!;
        break;
      }
    }
  }
  return el;
}

/** How far up from a ref textTarget looks for an editor's hidden textarea. */
const EDITOR_WRAPPER_DEPTH = 8;

function fieldsIn(el: Element): Element[] {
  const inner = el.querySelectorAll("input, textarea, [contenteditable='true'], [contenteditable='']");
  return Array.from(inner).filter((e) => isTextField(e) || isContentEditable(e));
}

/**
 * Selects everything in the editor behind a hidden field the way a person
 * does, with the editor's own Select-all key: the field itself holds only
 * what the editor put there (CodeMirror 5 keeps it empty, then fills it with
 * the selection), so selecting the field's value would select nothing.
 */
async function selectAllInEditor(el: Element): Promise<void> {
  const mac = /Mac|iPhone|iPad/.test(windowOf(el).navigator?.platform ?? "");
  pressKeyOn(el, parseKeyCombo(mac ? "Meta+A" : "Control+A"));
  await pageTurn();
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
  const ecHost = editContextHost(el);
  if (ecHost) {
    await typeIntoEditContext(ecHost, text, watch);
  } else if (isSelect(el)) {
    throw new PageError(`ref ${args.ref} (${describeElement(el)}) is a drop-down; use browser_select_option to choose from it`);
  } else if (isTextField(el)) {
    ensureEnabled(el, args.ref, "typed into");
    if (el.readOnly) {
      throw new PageError(`ref ${args.ref} (${describeElement(el)}) is read-only; it cannot be typed into`);
    }
    focusElement(el, { preventScroll: false });
    await pageTurn();
    watch.sync();
    // An empty hidden textarea is a code editor's input (CodeMirror 5, Ace, Monaco).
    if (isTextArea(el) && el.value === "" && invisibleReason(el) !== null) await selectAllInEditor(el);
    await fillField(el, text);
  } else if (isContentEditable(el) && editorBlockHost(el) !== null) {
    // A block inside an editor (a paragraph's ref): type at the caret in it.
    const host = editorBlockHost(el)!;
    focusElement(host, { preventScroll: false });
    await selectionSettled(host.ownerDocument);
    caretInto(el);
    await selectionSettled(host.ownerDocument);
    if (text !== "") insertIntoEditable(host, text);
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
  } else if (takesKeys(el)) {
    await typeAsKeys(el, text, watch);
  } else {
    throw new PageError(
      `ref ${args.ref} (${describeElement(found)}) does not take text; type into a textbox, searchbox or combobox ref, or click it first and use browser_press_key`,
    );
  }
  if (args.submit) {
    // The Enter is a separate task after the last input, as a person's is:
    // frameworks that render in a microtask or task (Preact, Vue) see the text.
    // It goes to what has the focus now (a grid's cell editor).
    watch.sync();
    await pageTurn();
    const now = deepActiveElement(el.ownerDocument);
    pressKeyOn(now && now.isConnected && now !== el.ownerDocument.body ? now : el, parseKeyCombo("Enter"), () => watch.sync());
  }
}

/**
 * A grid cell (role gridcell or cell, or a <td> of a role=grid table):
 * spreadsheets and data grids open an in-cell editor on the first key, and
 * the text is typed there. Other elements that are not text fields are
 * refused (a key typed on a button could press it).
 */
function takesKeys(el: Element): boolean {
  const role = (el.getAttribute("role") ?? "").trim().split(/\s+/)[0] ?? "";
  if (role === "gridcell" || role === "cell") return true;
  return role === "" && (tagOf(el) === "td" || tagOf(el) === "th") && el.closest("[role=grid], [role=treegrid]") !== null;
}

/**
 * Types text into a focusable element that is not a text field (a grid
 * cell) key by key: each key goes where a browser sends it, to the element
 * focused when it arrives, so the editor the first key opened gets it and
 * the rest.
 */
async function typeAsKeys(el: Element, text: string, watch: FocusWatch): Promise<void> {
  const target = focusTarget(el) ?? el;
  focusElement(target as HTMLElement, { preventScroll: false });
  await pageTurn();
  watch.sync();
  for (const ch of text) {
    const now = deepActiveElement(el.ownerDocument);
    pressKeyOn(now && now.isConnected && now !== el.ownerDocument.body ? now : target, charKey(ch), () => watch.sync());
    watch.sync();
    // Each key is its own task: an editor opened by the first renders before the second.
    await pageTurn();
  }
}

/**
 * browser_type into an EditContext editor: its text replaced through the
 * EditContext, one key at a time (keydown, beforeinput, textupdate, keyup),
 * as the browser does for typed text.
 */
async function typeIntoEditContext(host: HTMLElement, text: string, watch: FocusWatch): Promise<void> {
  focusElement(host, { preventScroll: false });
  await pageTurn();
  watch.sync();
  let replace: [number, number] | undefined = editContextAll(host);
  if (replace[1] === 0) replace = undefined;
  if (text === "") {
    if (replace) editContextInput(host, "", { deleteDir: "backward", select: replace });
    return;
  }
  for (const ch of text) {
    const kp = charKey(ch);
    if (key(host, "keydown", kp) && (kp.text === "" || key(host, "keypress", kp))) {
      if (kp.key === "Enter") inputEvent(host, "beforeinput", "insertParagraph", null);
      else editContextInput(host, ch, replace ? { select: replace } : {});
      replace = undefined;
    }
    key(host, "keyup", kp);
    await Promise.resolve();
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
    } catch (e) {
      report("page: selecting a field's text before typing", e);
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
        `the field rejected ${isSecretField(el) ? maskSecret(text) : JSON.stringify(truncate(text, 60))}${hint ? `; an <input type=${(el as HTMLInputElement).type}> expects ${hint}` : ""}`,
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
