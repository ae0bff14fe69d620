// The content script's side of the debugger mode's reading of Chromium's
// tree (lib/axtree.ts): which elements the snapshot could not read, kept in
// this isolated world for the service worker to find through the debugger,
// and the reader that puts Chromium's additions under the snapshot's own.

import { AX_MAX, AX_STASH, mergeAx } from "../axtree";
import { parseInternals, type InternalsInfo, type InternalsReader } from "./internals";

/** The candidates of the snapshot being prepared; the service worker reads them by stamp. */
interface Stash {
  stamp: string;
  elements: Element[];
  /** Documents all of whose candidates are in elements (none was left out by the budget). */
  covered: Set<Document>;
}

let current: Stash | null = null;

function stamp(): string {
  const b = new Uint8Array(8);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** A defined (upgraded) custom element: only those can have attached internals. */
function defined(el: Element): boolean {
  let known = false;
  try {
    known = el.matches(":defined");
  } catch {
    known = false; // a DOM without :defined (a test's): its registry says
  }
  // Where this world has a registry (not a content script's; a test DOM): it knows too.
  return known || el.ownerDocument.defaultView?.customElements?.get(el.localName) !== undefined;
}

/**
 * The elements the snapshot cannot read: defined custom elements of
 * documents the MAIN-world hooks reached too late (reader.late) that the
 * hooks do not know, through shadow roots and same-origin iframes, in page
 * order, at most max. Kept (replacing any earlier stash) under a fresh stamp.
 */
export function stashCandidates(doc: Document, reader: InternalsReader, shadowRoot: (el: Element) => ShadowRoot | null, max = AX_MAX): { stamp: string; count: number; truncated: boolean } {
  const elements: Element[] = [];
  const covered = new Set<Document>();
  let truncated = false;
  const lateOf = new Map<Document, boolean>();
  const late = (d: Document) => {
    let l = lateOf.get(d);
    if (l === undefined) lateOf.set(d, (l = reader.late(d)));
    return l;
  };
  const walk = (root: Document | ShadowRoot, d: Document): void => {
    const all = root.querySelectorAll("*");
    for (let i = 0; i < all.length; i++) {
      const el = all[i]!;
      const t = el.localName;
      if (t === "iframe" || t === "frame") {
        let inner: Document | null = null;
        try {
          inner = (el as HTMLIFrameElement).contentDocument;
        } catch {
          inner = null; // cross-origin: its own content script reads it
        }
        if (inner) visitDoc(inner);
        continue;
      }
      if (!t.includes("-")) continue;
      if (defined(el) && late(d) && reader.read(el) === null) {
        if (elements.length >= max) {
          truncated = true;
          return;
        }
        elements.push(el);
      }
      const sr = shadowRoot(el);
      if (sr) walk(sr, d);
      if (truncated) return;
    }
  };
  const visitDoc = (d: Document) => {
    walk(d, d);
    if (!truncated) covered.add(d);
  };
  visitDoc(doc);
  // Documents left out by the budget are not covered, even those read before the cut.
  if (truncated) covered.clear();
  current = { stamp: stamp(), elements, covered };
  (globalThis as Record<string, unknown>)[AX_STASH] = elements.length > 0 ? { stamp: current.stamp, elements } : undefined;
  return { stamp: current.stamp, count: elements.length, truncated };
}

/**
 * The snapshot's reader with Chromium's additions (hints, in the order of
 * the stash stamped stamp) merged under the hooks' reading; a document
 * whose candidates were all read is no longer late (its roles are shown).
 * The stash is let go. Without a matching stash (another snapshot stashed
 * since), the reader is unchanged.
 */
export function withChromiumAx(reader: InternalsReader, ax: { stamp: string; hints: unknown[] } | undefined): InternalsReader {
  const s = current;
  if (!ax || !s || s.stamp !== ax.stamp || ax.hints.length !== s.elements.length) return reader;
  current = null;
  (globalThis as Record<string, unknown>)[AX_STASH] = undefined;
  const added = new Map<Element, InternalsInfo>();
  s.elements.forEach((el, i) => {
    // The worker's hints, taken like the hooks' answers: known keys, strings, cut.
    const h = parseInternals(JSON.stringify(ax.hints[i] ?? null));
    if (h && Object.keys(h).length > 0) added.set(el, h);
  });
  return {
    read: (el) => mergeAx(reader.read(el), added.get(el)),
    late: (d) => reader.late(d) && !s.covered.has(d),
  };
}
