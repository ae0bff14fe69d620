// Small DOM helpers that work across realms.
//
// The content script reaches into same-origin iframes, whose elements belong
// to another realm: `instanceof HTMLInputElement` is false for them, so every
// check here goes by localName and duck typing, and every constructor is taken
// from the element's own window.

export function tagOf(el: Element): string {
  return el.localName ?? el.tagName.toLowerCase();
}

export function windowOf(node: Node): Window & typeof globalThis {
  const doc = node.nodeType === 9 ? (node as Document) : node.ownerDocument;
  const win = doc?.defaultView;
  if (!win) throw new Error("the element's document has no window (it was unloaded)");
  return win as Window & typeof globalThis;
}

export function isInput(el: Element): el is HTMLInputElement {
  return tagOf(el) === "input";
}
export function isTextArea(el: Element): el is HTMLTextAreaElement {
  return tagOf(el) === "textarea";
}
export function isSelect(el: Element): el is HTMLSelectElement {
  return tagOf(el) === "select";
}
export function isOption(el: Element): el is HTMLOptionElement {
  return tagOf(el) === "option";
}
export function isFileInput(el: Element): el is HTMLInputElement {
  return isInput(el) && el.type === "file";
}

/** Input types whose value is free text a person types. */
const TEXT_INPUT_TYPES = new Set([
  "text", "search", "email", "url", "tel", "password", "number",
  "date", "datetime-local", "month", "week", "time", "",
]);

/** An <input> a person can type into, or a <textarea>. */
export function isTextField(el: Element): el is HTMLInputElement | HTMLTextAreaElement {
  if (isTextArea(el)) return true;
  return isInput(el) && TEXT_INPUT_TYPES.has(el.type);
}

/** Input types that support selectionStart/setRangeText. */
const SELECTION_INPUT_TYPES = new Set(["text", "search", "url", "tel", "password", ""]);

export function supportsSelection(el: HTMLInputElement | HTMLTextAreaElement): boolean {
  return isTextArea(el) || SELECTION_INPUT_TYPES.has(el.type);
}

export function isContentEditable(el: Element): el is HTMLElement {
  return (el as HTMLElement).isContentEditable === true;
}

/** The outermost contenteditable element holding el (the editing host). */
export function editingHost(el: Element): HTMLElement | null {
  if (!isContentEditable(el)) return null;
  let host: HTMLElement = el;
  for (let p = el.parentElement; p && isContentEditable(p); p = p.parentElement) host = p;
  return host;
}

/** Element is disabled natively (incl. a disabled fieldset) or with aria-disabled. */
export function isDisabledElement(el: Element): boolean {
  const t = tagOf(el);
  if (
    (t === "button" || t === "input" || t === "select" || t === "textarea" ||
      t === "option" || t === "optgroup" || t === "fieldset") &&
    safeMatches(el, ":disabled")
  ) {
    return true;
  }
  return el.closest('[aria-disabled="true"]') !== null;
}

export function safeMatches(el: Element, selector: string): boolean {
  try {
    return el.matches(selector);
  } catch {
    return false;
  }
}

/** A frame's document, or null when it is cross-origin (or not loaded). */
export function frameDocument(frame: Element): Document | null {
  try {
    return (frame as HTMLIFrameElement).contentDocument ?? null;
  } catch {
    return null;
  }
}

/** The focused element, looking into open shadow roots and same-origin iframes. */
export function deepActiveElement(doc: Document): Element | null {
  let el: Element | null = doc.activeElement;
  for (let i = 0; el && i < 32; i++) {
    const sr = (el as HTMLElement).shadowRoot;
    if (sr && sr.activeElement) {
      el = sr.activeElement;
      continue;
    }
    const t = tagOf(el);
    if (t === "iframe" || t === "frame") {
      const inner = frameDocument(el);
      // A frame's body counts when it is an editor's (a contenteditable body).
      if (inner && inner.activeElement && (inner.activeElement !== inner.body || inner.body.isContentEditable)) {
        el = inner.activeElement;
        continue;
      }
    }
    break;
  }
  return el;
}

/** Collapses runs of white space to one space and trims. */
export function normalizeSpace(s: string): string {
  return s.replace(/[\s\u00a0]+/g, " ").trim();
}

/** Cuts s to max characters, ending with "…" when cut. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  return s.slice(0, Math.max(0, max - 1)) + "…";
}

/** The parent in the flat tree as far as we need it: parent element, or the shadow host. */
export function parentOrHost(el: Element): Element | null {
  if (el.parentElement) return el.parentElement;
  const root = el.parentNode;
  if (root && root.nodeType === 11 && (root as ShadowRoot).host) return (root as ShadowRoot).host;
  return null;
}
