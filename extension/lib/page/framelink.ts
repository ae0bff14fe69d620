// The frame link handshake's page side (docs/DESIGN.md "Frames"): which
// cross-origin iframe element of this document shows which frame of the tab.
//
// Parent side: after a snapshot, the content script posts a fresh random
// token into each cross-origin iframe element's window (from the isolated
// world, so the parent page can neither see nor change what is sent) and
// answers the tokens by the element's ref. Child side: the content script of
// every frame keeps the tokens its *parent window* posted to it
// (event.source === window.parent, which no page can forge) and hands them
// to the service worker when asked by frameId/documentId. The service worker
// pairs the two answers: Chrome attests which frame answered, so the page
// gets no say in the link. What a hostile page can do to it (DESIGN) ends in
// a frame shown unread, never in a wrong one stitched in.

import { frameDocument, tagOf } from "./dom";
import type { RefRegistry } from "./refs";

/** The message the parent's content script posts into a child frame's window. */
export interface LinkMessage {
  monkbrowseLink: string;
}

/** Longest a token may be (ours are UUIDs); longer strings are not ours. */
const MAX_TOKEN = 64;
/** How many tokens a child keeps between two asks, the latest (a flood only makes the frame unread). */
export const MAX_KEPT = 32;
/** How long a child waits for its parent's token when asked before it arrived. */
export const LINK_WAIT_MS = 400;

export function isLinkMessage(d: unknown): d is LinkMessage {
  if (typeof d !== "object" || d === null) return false;
  const t = (d as { monkbrowseLink?: unknown }).monkbrowseLink;
  return typeof t === "string" && t.length > 0 && t.length <= MAX_TOKEN;
}

/**
 * The cross-origin iframe elements of doc and of its same-origin frames
 * (whose documents a snapshot of doc already shows), in document order,
 * hidden ones too: every child frame that waits for a token gets one.
 */
export function crossOriginFrames(doc: Document, depth = 0): Element[] {
  const out: Element[] = [];
  for (const el of Array.from(doc.querySelectorAll("iframe, frame"))) {
    const inner = frameDocument(el);
    if (inner === null) out.push(el);
    else if (depth < 8) out.push(...crossOriginFrames(inner, depth + 1));
  }
  return out;
}

/**
 * Posts a new token into each of els that is a frame element with a window
 * (once per element) and answers the tokens by element; the caller names
 * them by ref once the snapshot has given its lines their refs.
 */
export function postTokens(els: Iterable<Element>, token: () => string): Map<Element, string> {
  const out = new Map<Element, string>();
  for (const el of new Set(els)) {
    if (tagOf(el) !== "iframe" && tagOf(el) !== "frame") continue;
    const win = (el as HTMLIFrameElement).contentWindow;
    if (!win) continue;
    const t = token();
    const msg: LinkMessage = { monkbrowseLink: t };
    try {
      win.postMessage(msg, "*");
    } catch {
      continue;
    }
    out.set(el, t);
  }
  return out;
}

/** Tokens by element → by ref (assigned here for hidden frames, which have no line). */
export function byRef(posted: Map<Element, string>, refs: RefRegistry): Record<string, string> {
  const links: Record<string, string> = {};
  for (const [el, t] of posted) links[refs.refFor(el)] = t;
  return links;
}

/**
 * Posts a new token into each cross-origin frame of doc — those the snapshot
 * met (seen, shadow roots included) and the hidden ones of the light DOM —
 * and answers them by the element's ref.
 */
export function postLinkTokens(doc: Document, refs: RefRegistry, seen: readonly Element[] = [], token: () => string = () => crypto.randomUUID()): Record<string, string> {
  return byRef(postTokens([...seen, ...crossOriginFrames(doc)], token), refs);
}

/**
 * The tokens a snapshot posts: the service worker's (issued, in order, so
 * that it could ask the child frames for them while this document was being
 * read), then fresh ones once those run out.
 */
export function tokenSource(issued: unknown): () => string {
  const list = Array.isArray(issued) ? issued.filter((t): t is string => typeof t === "string" && t.length > 0 && t.length <= MAX_TOKEN).slice(0, MAX_ISSUED) : [];
  return () => list.shift() ?? crypto.randomUUID();
}

/** The most tokens a snapshot takes from the service worker. */
export const MAX_ISSUED = 64;

/**
 * The child side: keeps the tokens win's parent posted into win, and answers
 * them once asked (take). A top-level window has no parent: nothing is kept.
 */
export class LinkInbox {
  private tokens: string[] = [];
  private waiters: Array<() => void> = [];
  private readonly onMessage = (ev: Event) => {
    const m = ev as MessageEvent;
    // Only the parent window's own posts; a sibling, a child or the page
    // itself posting into this window has another source.
    if (this.win.parent === this.win || m.source !== this.win.parent) return;
    if (!isLinkMessage(m.data)) return;
    this.tokens.push(m.data.monkbrowseLink);
    if (this.tokens.length > MAX_KEPT) this.tokens.shift();
    for (const w of this.waiters.splice(0)) w();
  };

  constructor(
    private readonly win: Window,
    private readonly wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    win.addEventListener("message", this.onMessage);
  }

  /**
   * Whether this document is shown inside its parent's snapshot already
   * (a same-origin frame: the parent reads it directly, no link needed).
   */
  inlined(): boolean {
    if (this.win.parent === this.win) return false;
    try {
      return this.win.frameElement !== null;
    } catch {
      return false;
    }
  }

  /**
   * Which of the expected tokens (this round's, from the service worker)
   * the parent window posted and no take answered yet. When none has arrived
   * yet, waits for one (the parent's post and the service worker's ask travel
   * on different paths, and the ask may come first), at most LINK_WAIT_MS.
   * Other tokens (a page's guesses, another round's) stay, at most MAX_KEPT.
   */
  async take(expect: readonly string[]): Promise<string[]> {
    const want = new Set(expect);
    const hits = () => [...new Set(this.tokens.filter((t) => want.has(t)))];
    if (want.size > 0 && hits().length === 0 && this.win.parent !== this.win) {
      let timedOut = false;
      const deadline = this.wait(LINK_WAIT_MS).then(() => {
        timedOut = true;
      });
      while (!timedOut && hits().length === 0) {
        await Promise.race([new Promise<void>((r) => this.waiters.push(r)), deadline]);
      }
    }
    // Only those are taken: another round's (asked for meanwhile) stay.
    const out = hits();
    const taken = new Set(out);
    this.tokens = this.tokens.filter((t) => !taken.has(t));
    return out;
  }

  dispose(): void {
    this.win.removeEventListener("message", this.onMessage);
    for (const w of this.waiters.splice(0)) w();
  }
}
