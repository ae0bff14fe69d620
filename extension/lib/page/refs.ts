// Element refs ("e12") handed to the AI in snapshots.
//
// A ref names one element for the life of the registry (the content script
// keeps one per top-level document, covering its same-origin iframes too): an
// unchanged element keeps its ref across snapshots, and a ref never moves to
// another element. Elements are held weakly so a ref never keeps a removed
// node alive.

/** An error whose message is meant for the AI, as is. */
export class PageError extends Error {
  override name = "PageError";
}

const REF_RE = /^e[1-9]\d*$/;

/** Accepts "e12", and forgivingly "[ref=e12]" or "ref=e12" as pasted from a snapshot line. */
export function normalizeRef(input: unknown): string {
  if (typeof input !== "string" || input.trim() === "") {
    throw new PageError(
      "no ref given; take a browser_snapshot and pass the ref of the element (like e12)",
    );
  }
  const ref = input.trim().replace(/^\[/, "").replace(/\]$/, "").replace(/^ref=/, "");
  if (!REF_RE.test(ref)) {
    throw new PageError(
      `${JSON.stringify(input)} is not a ref (refs look like e12); take a new browser_snapshot and use a ref from it`,
    );
  }
  return ref;
}

export class RefRegistry {
  private next = 1;
  private readonly byElement = new WeakMap<Element, string>();
  private readonly byRef = new Map<string, WeakRef<Element>>();

  /** The element's ref, assigning the next free one the first time. */
  refFor(el: Element): string {
    let ref = this.byElement.get(el);
    if (ref === undefined) {
      ref = `e${this.next++}`;
      this.byElement.set(el, ref);
      this.byRef.set(ref, new WeakRef(el));
    }
    return ref;
  }

  /**
   * Makes the next new ref greater than e<base>. The service worker passes
   * the highest ref any earlier document of the tab handed out, so a ref from
   * the previous page can never name an element of this one: it is unknown
   * here and the AI is told to take a new snapshot.
   */
  advanceTo(base: number): void {
    if (Number.isInteger(base) && base >= this.next) this.next = base + 1;
  }

  /** The highest ref number handed out so far (0 for none). */
  get high(): number {
    return this.next - 1;
  }

  /** The ref already given to el, if any (never assigns one). */
  peek(el: Element): string | undefined {
    return this.byElement.get(el);
  }

  /**
   * The element behind a ref. Throws a PageError for an unknown ref and for
   * one whose element was collected or is no longer in its document.
   */
  resolve(input: unknown): Element {
    const ref = normalizeRef(input);
    const weak = this.byRef.get(ref);
    if (weak === undefined) {
      throw new PageError(
        `ref ${ref} was not found on this page; take a new browser_snapshot and use a ref from it`,
      );
    }
    const el = weak.deref();
    if (el === undefined || !isLive(el)) {
      if (el === undefined) this.byRef.delete(ref);
      throw new PageError(
        `ref ${ref} is not on the page any more (the page changed); take a new browser_snapshot and use a ref from it`,
      );
    }
    return el;
  }

  /** Drops entries whose elements were garbage-collected (keeps the map small on long-lived pages). */
  sweep(): void {
    for (const [ref, weak] of this.byRef) {
      if (weak.deref() === undefined) this.byRef.delete(ref);
    }
  }

  get size(): number {
    return this.byRef.size;
  }
}

/**
 * Connected, and — for an element inside a same-origin iframe — that iframe is
 * itself still live and still shows this document.
 */
function isLive(el: Element): boolean {
  if (!el.isConnected) return false;
  const doc = el.ownerDocument;
  const win = doc.defaultView;
  if (win === null) return false; // the frame's document was replaced
  let frame: Element | null | undefined = null;
  try {
    frame = win.frameElement;
  } catch {
    return true; // cross-origin parent: cannot tell more
  }
  return frame == null || isLive(frame);
}
