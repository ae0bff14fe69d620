// Values the AI is never shown: what a person types into a password-like or a
// card field. The one rule (isSecretField) is used by snapshots, get_text,
// find, fill_form answers and the console (maskSecretsIn); a later activity
// log reuses it. Snapshots and get_text show bullets instead (one per
// character, at most 12).
//
// A field is secret when it is, or ever was while this document was watched
// (issue 40: a page's "Show password" turns the field into type=text; what
// the person typed stays theirs):
//   - <input type=password>;
//   - autocomplete current-password, new-password or one-time-code (any
//     section/hint tokens around it), or a payment card's cc-number, cc-csc,
//     cc-exp, cc-exp-month or cc-exp-year;
//   - shown masked by CSS (-webkit-text-security other than none), the way
//     pages build password fields out of type=text;
//   - one box of a group of one-character boxes (an OTP input split into
//     digits): a text-like input limited to one character whose parent holds
//     at least OTP_GROUP_MIN such inputs.

/** autocomplete tokens that mark a secret value. */
const SECRET_AUTOCOMPLETE: ReadonlySet<string> = new Set([
  "current-password",
  "new-password",
  "one-time-code",
  "cc-number",
  "cc-csc",
  "cc-exp",
  "cc-exp-month",
  "cc-exp-year",
]);

/**
 * Every element of this realm's documents that was ever seen secret: it
 * stays secret for its life (a WeakSet: it goes with the element). Filled by
 * isSecretField whenever it sees one, and by watchSecrets, which sees a
 * field's type or autocomplete change even before anything asked about it.
 */
const everSecret: WeakSet<Element> = ((): WeakSet<Element> => {
  // Kept on the isolated world's global, so the set outlives this script: a
  // tab shared again (or the extension reloaded) injects the file anew into
  // the same document, and what was seen secret stays secret.
  const g = globalThis as unknown as Record<string, WeakSet<Element> | undefined>;
  return (g.__monkbrowseEverSecret ??= new WeakSet<Element>());
})();

function hasSecretToken(autocomplete: string | null): boolean {
  return (autocomplete ?? "").toLowerCase().split(/\s+/).some((t) => SECRET_AUTOCOMPLETE.has(t));
}

/** A one-character box counts as an OTP digit when its parent holds at least this many. */
export const OTP_GROUP_MIN = 4;

const TEXTLIKE = new Set(["", "text", "tel", "number", "password", "search"]);

function isOneCharBox(el: Element): boolean {
  if (el.tagName.toLowerCase() !== "input") return false;
  const input = el as HTMLInputElement;
  if (!TEXTLIKE.has((el.getAttribute("type") ?? "").toLowerCase())) return false;
  return input.maxLength === 1 || el.getAttribute("maxlength") === "1";
}

function textSecurity(el: Element): string {
  const inline = (el as HTMLElement).style?.getPropertyValue?.("-webkit-text-security") ?? "";
  if (inline) return inline.trim().toLowerCase();
  try {
    const view = el.ownerDocument.defaultView;
    return (view?.getComputedStyle(el).getPropertyValue("-webkit-text-security") ?? "").trim().toLowerCase();
  } catch {
    return "";
  }
}

/** A field whose value is a secret (see the rule above): once true, true for the element's life. */
export function isSecretField(el: Element): boolean {
  if (everSecret.has(el)) return true;
  if (!secretNow(el)) return false;
  everSecret.add(el);
  return true;
}

/**
 * Marks the secret fields of root (a document or a shadow root) and keeps
 * marking them as the page changes: a field inserted secret, and a field
 * whose type or autocomplete changes from a secret one (the mutation's old
 * value), even when the page switched it back to plain text before this
 * observer's callback ran. Returns the function that stops watching.
 * Called by the content script as soon as it runs. It is injected when the
 * document commits (webNavigation.onCommitted), which races the parser: on
 * a small page the fields are parsed and a page script may have switched
 * one to text before this runs (seen in e2e: 3 of 3 times on a local page);
 * such a field is not caught. Everything after that is.
 *
 * With shadowRootOf (chrome.dom.openOrClosedShadowRoot), the shadow roots
 * of custom elements (a tag name with "-", where pages put them) are
 * watched too, open or closed, when the element is there at the start or
 * inserted with its root already attached; a root attached later is seen
 * by the next snapshot or by the person's focus, not here.
 */
export function watchSecrets(root: Document | ShadowRoot, shadowRootOf?: (el: Element) => ShadowRoot | null): () => void {
  const observers: MutationObserver[] = [];
  const watched = new WeakSet<Node>();
  const shadows = (n: Element) => {
    if (!shadowRootOf) return;
    const hosts = n.localName.includes("-") ? [n] : [];
    for (const el of Array.from(n.querySelectorAll("*"))) if (el.localName.includes("-")) hosts.push(el);
    for (const h of hosts) {
      const sr = shadowRootOf(h);
      if (sr) watch(sr);
    }
  };
  const mark = (n: Node) => {
    if (!(n instanceof Element)) return;
    if (isField(n)) isSecretField(n);
    for (const f of Array.from(n.querySelectorAll("input, textarea"))) isSecretField(f);
    shadows(n);
  };
  const onRecords = (records: MutationRecord[]) => {
    for (const r of records) {
      if (r.type === "attributes" && r.target instanceof Element && isField(r.target)) {
        const el = r.target;
        const was = r.oldValue;
        if ((r.attributeName === "type" && el.tagName.toLowerCase() === "input" && (was ?? "").trim().toLowerCase() === "password") || (r.attributeName === "autocomplete" && hasSecretToken(was))) {
          everSecret.add(el);
        }
        isSecretField(el);
      } else if (r.type === "childList") {
        for (const n of Array.from(r.addedNodes)) mark(n);
      }
    }
  };
  function watch(r: Document | ShadowRoot): void {
    if (watched.has(r)) return;
    watched.add(r);
    const mo = new MutationObserver(onRecords);
    mo.observe(r, { subtree: true, childList: true, attributes: true, attributeFilter: ["type", "autocomplete"], attributeOldValue: true });
    observers.push(mo);
    for (const f of Array.from(r.querySelectorAll("input, textarea"))) isSecretField(f);
    for (const c of Array.from(r.children)) shadows(c);
  }
  watch(root);
  return () => observers.splice(0).forEach((mo) => mo.disconnect());
}

function isField(el: Element): boolean {
  const tag = el.tagName.toLowerCase();
  return tag === "input" || tag === "textarea";
}

/** The rule above, on the field as it is now. */
function secretNow(el: Element): boolean {
  const tag = el.tagName.toLowerCase();
  if (tag !== "input" && tag !== "textarea") return false;
  if (tag === "input" && (el as HTMLInputElement).type === "password") return true;
  if (hasSecretToken(el.getAttribute("autocomplete"))) return true;
  const ts = textSecurity(el);
  if (ts !== "" && ts !== "none" && ts !== "initial" && ts !== "unset") return true;
  if (isOneCharBox(el)) {
    const parent = el.parentElement;
    if (parent) {
      let boxes = 0;
      for (const sib of Array.from(parent.querySelectorAll("input"))) if (isOneCharBox(sib)) boxes++;
      if (boxes >= OTP_GROUP_MIN) return true;
    }
  }
  return false;
}

/** The masked form of a secret value ("" stays ""). */
export function maskSecret(value: string): string {
  return "•".repeat(Math.min(value.length, 12));
}

/**
 * The non-empty values of doc's secret fields, for masking them where the
 * page's own structure repeats them: an accessible name computed from a label
 * that embeds a field takes that field's value (accname's embedded-control
 * rule), so `<label>Code <input maxlength=1>…</label>` names every box of an
 * OTP group after the digits typed in the others. Undefined when doc has none
 * (the usual case: nothing more is done per name).
 */
export class SecretValues {
  private constructor(private readonly fields: (HTMLInputElement | HTMLTextAreaElement)[]) {}

  static of(doc: Document): SecretValues | undefined {
    const fields: (HTMLInputElement | HTMLTextAreaElement)[] = [];
    for (const el of Array.from(doc.querySelectorAll("input, textarea"))) {
      if ((el as HTMLInputElement).value && isSecretField(el)) fields.push(el as HTMLInputElement);
    }
    return fields.length ? new SecretValues(fields) : undefined;
  }

  /**
   * name (el's accessible name) with the value of every secret field it may
   * have taken in masked: fields inside el, inside its labels or inside the
   * elements its aria-labelledby names. Values of 3 characters or more are
   * masked wherever they appear in the name.
   */
  maskName(el: Element, name: string): string {
    if (!name) return name;
    const roots: Element[] = [el, ...Array.from((el as HTMLInputElement).labels ?? [])];
    for (const id of (el.getAttribute("aria-labelledby") ?? "").split(/\s+/)) {
      const r = id ? el.ownerDocument.getElementById(id) : null;
      if (r) roots.push(r);
    }
    const values = new Set<string>();
    for (const f of this.fields) {
      if (f.value.length >= 3 || roots.some((r) => r.contains(f))) values.add(f.value);
    }
    return maskAll(name, values);
  }
}

function maskAll(text: string, values: Iterable<string>): string {
  let out = text;
  for (const v of Array.from(values).sort((a, b) => b.length - a.length)) out = out.split(v).join(maskSecret(v));
  return out;
}

/**
 * Text that may quote the value of a secret field (a console line, an error
 * message) with every non-empty secret value of doc replaced by its mask.
 * Values shorter than 3 characters are left (an OTP digit would mask every
 * digit of the text); the group's joined value is masked instead.
 */
export function maskSecretsIn(doc: Document, text: string): string {
  const values = new Set<string>();
  const groups = new Map<Element, string>();
  for (const el of Array.from(doc.querySelectorAll("input, textarea"))) {
    if (!isSecretField(el)) continue;
    const v = (el as HTMLInputElement).value;
    if (!v) continue;
    if (v.length >= 3) values.add(v);
    if (isOneCharBox(el) && el.parentElement) groups.set(el.parentElement, (groups.get(el.parentElement) ?? "") + v);
  }
  for (const g of groups.values()) if (g.length >= 3) values.add(g);
  return maskAll(text, values);
}

/** A box in the top viewport's CSS pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The most boxes secretBoxes answers (a page of thousands of card fields is painted over in part). */
export const MAX_SECRET_BOXES = 500;

/**
 * The boxes of doc's secret fields that show in its viewport, in viewport CSS
 * pixels, for screenshots to paint over: in doc, in the shadow roots
 * shadowRoot gives (closed ones too), and in same-origin iframes (their
 * boxes moved by the iframe's place). Cross-origin frames answer for
 * themselves, not here.
 */
export function secretBoxes(doc: Document, shadowRoot: (el: Element) => ShadowRoot | null, depth = 0): Box[] {
  const out: Box[] = [];
  const view = doc.defaultView;
  const vw = view?.innerWidth ?? 0;
  const vh = view?.innerHeight ?? 0;
  const visit = (root: Document | ShadowRoot) => {
    const walker = doc.createTreeWalker(root, 1 /* NodeFilter.SHOW_ELEMENT */);
    for (let n = walker.nextNode(); n && out.length < MAX_SECRET_BOXES; n = walker.nextNode()) {
      const el = n as Element;
      const sr = shadowRoot(el);
      if (sr) visit(sr);
      const tag = el.tagName.toLowerCase();
      if (tag === "iframe" && depth < 4) {
        let inner: Document | null = null;
        try {
          inner = (el as HTMLIFrameElement).contentDocument;
        } catch {
          inner = null; // cross-origin: its own content script answers
        }
        if (!inner) continue;
        const r = el.getBoundingClientRect();
        const dx = r.left + el.clientLeft;
        const dy = r.top + el.clientTop;
        for (const b of secretBoxes(inner, shadowRoot, depth + 1)) {
          const x = Math.max(b.x + dx, r.left);
          const y = Math.max(b.y + dy, r.top);
          const right = Math.min(b.x + dx + b.width, r.right);
          const bottom = Math.min(b.y + dy + b.height, r.bottom);
          if (right > x && bottom > y) out.push({ x, y, width: right - x, height: bottom - y });
        }
        continue;
      }
      if ((tag !== "input" && tag !== "textarea") || !isSecretField(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0 || r.right <= 0 || r.bottom <= 0 || r.left >= vw || r.top >= vh) continue;
      out.push({ x: r.left, y: r.top, width: r.width, height: r.height });
    }
  };
  visit(doc);
  return out.slice(0, MAX_SECRET_BOXES);
}
