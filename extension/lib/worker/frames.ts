// Frames of a shared tab, the pure part (issue 26, docs/DESIGN.md "Frames"):
// frame refs ("f2e15"), a content script's snapshot lines and ref marks
// checked and composed, the link handshake's decision (decideLinks), frame
// numbers per document, boxes through iframes and the merged console of
// every frame. framed.ts asks the frames through its port and stitches with
// these; nothing here touches Chrome.
//
// Frame numbers: one per frame document, counted per tab and never reused
// (chrome.storage.session, like the ref base), so "f2e15" names one element
// of one document and a ref of a frame's earlier document is unknown, not
// another element.

import type { CsOps, ElementBox } from "../messages";
import type { ConsoleEntry } from "../protocol.gen";
import { CodedError } from "../peer";
import { report } from "../diag";

/** One frame's document of a tab (webNavigation's frameId and, when known, documentId). */
export interface FrameTarget {
  frameId: number;
  documentId?: string;
}

export interface FrameInfo {
  frameId: number;
  parentFrameId: number;
  documentId?: string;
  url: string;
}

/** How deep frames in frames are read (the page's own same-origin nesting is bounded alike). */
export const MAX_DEPTH = 8;

// ---- refs ------------------------------------------------------------------

export const FRAME_REF = /^f([1-9]\d*)(e[1-9]\d*)$/;

/** "f2e15" (also as pasted: "[ref=f2e15]", "ref=f2e15") → frame 2, local ref "e15"; null for a top-frame ref. */
export function splitRef(input: string): { n: number; local: string; full: string } | null {
  const ref = input.trim().replace(/^\[/, "").replace(/\]$/, "").replace(/^ref=/, "");
  const m = FRAME_REF.exec(ref);
  return m ? { n: Number(m[1]), local: m[2]!, full: ref } : null;
}

/** A ref's text where a mark points (sticky: at that column only). */
export const MARKED_REF = /(e[1-9]\d*)\]/y;

/** The iframe line's mark of a frame not read (snapshot-yaml.ts CROSS_ORIGIN), as printed. */
export const CROSS_MARK = " [cross-origin]";

/**
 * One document's snapshot as its content script emitted it: the lines, and
 * where each printed ref is (snapshot-yaml.ts Emitted.marks: line index,
 * column of the ref's text, column of the line's [cross-origin] mark or -1).
 * Refs are named and frames stitched in from these positions only: what a
 * page wrote on a line (a role, a name, a value) is never read back for a
 * ref, so it cannot make one.
 */
export interface Emitted {
  lines: string[];
  /** By line index: the ref's column and text, the cross-origin mark's column (-1: none). */
  refs: Map<number, { at: number; ref: string; cross: number }>;
}

/**
 * A snapshot answer's lines and marks, checked: each mark must point at a
 * ref ("eN]") and at the cross-origin mark it says; null when one does not
 * (the answer is then not stitched: the frame stays unread).
 */
export function emitted(snapshot: string, marks: unknown): Emitted | null {
  const lines = snapshot === "" ? [] : snapshot.split("\n");
  const refs = new Map<number, { at: number; ref: string; cross: number }>();
  if (!Array.isArray(marks) || marks.length % 3 !== 0) return null;
  for (let i = 0; i < marks.length; i += 3) {
    const [li, at, cross] = [marks[i], marks[i + 1], marks[i + 2]] as unknown[];
    if (typeof li !== "number" || typeof at !== "number" || typeof cross !== "number") return null;
    const line = lines[li];
    if (line === undefined || refs.has(li)) return null;
    MARKED_REF.lastIndex = at;
    const m = MARKED_REF.exec(line);
    if (!m || !line.startsWith(" [ref=", at - 6)) return null;
    if (cross >= 0 && !line.startsWith(CROSS_MARK, cross)) return null;
    refs.set(li, { at, ref: m[1]!, cross });
  }
  return { lines, refs };
}

/**
 * The lines of doc with every printed ref named by frame n ("e3" → "f2e3";
 * n null: the top frame's, as they are), the lines of iframe refs in
 * children (local ref → the frame's lines, already named) without their
 * [cross-origin] mark and with those lines under them, one level deeper;
 * the iframe lines of blocked (local ref → mark: a frame the site rules
 * keep from the AI, lib/worker/frame-rules.ts) with that mark in place of
 * [cross-origin] and nothing under them.
 */
export function compose(doc: Emitted, n: number | null, children: Map<string, string[]> = new Map(), blocked: Map<string, string> = new Map()): string[] {
  const out: string[] = [];
  for (let i = 0; i < doc.lines.length; i++) {
    let line = doc.lines[i]!;
    const r = doc.refs.get(i);
    if (!r) {
      out.push(line);
      continue;
    }
    const mark = r.cross >= 0 ? blocked.get(r.ref) : undefined;
    const kids = mark === undefined ? children.get(r.ref) : undefined;
    let at = r.at;
    if ((kids || mark !== undefined) && r.cross >= 0) {
      line = line.slice(0, r.cross) + (mark ?? "") + line.slice(r.cross + CROSS_MARK.length);
      if (r.cross < at) at += (mark ?? "").length - CROSS_MARK.length;
    }
    if (n !== null) line = `${line.slice(0, at)}f${n}${line.slice(at)}`;
    if (kids === undefined || kids.length === 0) {
      out.push(line);
      continue;
    }
    // A cross-origin iframe line is "head [ref=…]" with nothing after it.
    out.push(`${line}:`);
    const pad = " ".repeat(line.length - line.trimStart().length + 2);
    for (const k of kids) out.push(pad + k);
  }
  return out;
}

// ---- the handshake ---------------------------------------------------------

/** One candidate child frame's answer to frame_link. */
export interface Claim {
  frameId: number;
  tokens: string[];
}

/**
 * Pairs the tokens a parent posted (ref → token) with the frames that
 * answered them: a link is made only for a token exactly one frame answered,
 * by a frame that answered no other token of this round. Tokens nobody was
 * given (a page's guesses, an earlier round's) count for nothing. Anything
 * else (a token two frames answer, a frame answering two) is a page
 * meddling: those iframes stay unread.
 */
export function decideLinks(posted: Record<string, string>, claims: Claim[]): Map<string, number> {
  const refOf = new Map<string, string>();
  for (const [ref, token] of Object.entries(posted)) refOf.set(token, ref);
  const claimers = new Map<string, number[]>();
  for (const c of claims) {
    const known = [...new Set(c.tokens.filter((t) => refOf.has(t)))];
    if (known.length === 0) continue;
    // A frame answering two of this round's tokens: one of them was passed on to it.
    const mark = known.length === 1 ? c.frameId : -1;
    for (const t of known) claimers.set(t, [...(claimers.get(t) ?? []), mark]);
  }
  const out = new Map<string, number>();
  for (const [token, who] of claimers) {
    if (who.length !== 1 || who[0] === -1) continue;
    out.set(refOf.get(token)!, who[0]!);
  }
  return out;
}

// ---- frame numbers ---------------------------------------------------------

/**
 * One frame document's entry: where Chrome says it is, and where the link
 * handshake found it on the page: the document that holds its iframe element
 * (parent, and parent's own frame number, null for the top frame) and that
 * element's ref there. The frame's offset in the top page (element
 * screenshots, input at coordinates) is the sum of those iframes' boxes.
 */
export interface FrameEntry {
  documentId: string;
  frameId: number;
  parent?: FrameTarget;
  parentN?: number | null;
  iframeRef?: string;
}

export interface FrameTable {
  next: number;
  /** frame number → the frame document it names. */
  byN: Record<string, FrameEntry>;
}

/** Where a linked frame's iframe element is: the document holding it, that document's number (null: the top frame), the element's ref there. */
export interface LinkPlace {
  parent: FrameTarget;
  parentN: number | null;
  iframeRef: string;
}

/** The number of a frame document, a new one the first time it is seen; at: where its iframe was linked (kept for offsets). */
export function numberFor(t: FrameTable, documentId: string, frameId: number, at?: LinkPlace): number {
  for (const [n, d] of Object.entries(t.byN)) {
    if (d.documentId !== documentId) continue;
    if (at) Object.assign(d, at);
    return Number(n);
  }
  const n = t.next++;
  t.byN[String(n)] = { documentId, frameId, ...at };
  return n;
}

export function sameDocument(a: FrameTarget, b: FrameTarget): boolean {
  return a.documentId !== undefined && b.documentId !== undefined ? a.documentId === b.documentId : a.frameId === b.frameId;
}

/** Forgets the numbers of documents the tab no longer has (the counter keeps going). */
export function prune(t: FrameTable, frames: FrameInfo[]): void {
  const live = new Set(frames.map((f) => f.documentId));
  for (const [n, d] of Object.entries(t.byN)) if (!live.has(d.documentId)) delete t.byN[n];
}

// ---- snapshot --------------------------------------------------------------

export type SnapshotResult = CsOps["snapshot"]["result"];

export function target(f: FrameInfo): FrameTarget {
  return f.documentId !== undefined ? { frameId: f.frameId, documentId: f.documentId } : { frameId: f.frameId };
}

/** Tokens the top frame is issued (it takes fresh ones after these: frames the tree did not have yet stay unread that time). */
export const TOP_TOKENS = 64;

export function freshTokens(n: number): string[] {
  return Array.from({ length: Math.max(0, Math.min(n, 64)) }, () => crypto.randomUUID());
}

/** A frame tree's shape: each frame's ancestors and how many frames are under it. */
export function treeShape(frames: FrameInfo[]): { ancestors: (f: FrameInfo) => FrameInfo[]; descendants: Map<number, number> } {
  const byId = new Map(frames.map((f) => [f.frameId, f]));
  const ancestors = (f: FrameInfo): FrameInfo[] => {
    const out: FrameInfo[] = [];
    for (let p = byId.get(f.parentFrameId); p && out.length <= MAX_DEPTH; p = byId.get(p.parentFrameId)) out.push(p);
    return out;
  };
  const descendants = new Map<number, number>();
  for (const f of frames) for (const a of ancestors(f)) descendants.set(a.frameId, (descendants.get(a.frameId) ?? 0) + 1);
  return { ancestors, descendants };
}

/**
 * Whether the table links frame f of this tree to its iframe element with
 * the link still holding: linked before, and neither document changed since
 * (an iframe element cannot show another document without loading it, a new
 * documentId), so only the frame's snapshot is needed.
 */
export function knownLink(table: FrameTable, f: FrameInfo, live: Set<string | undefined>): { parentDoc: string; iframeRef: string } | null {
  const known = Object.values(table.byN).find((d) => d.documentId === f.documentId);
  if (known?.parent?.documentId === undefined || known.iframeRef === undefined || !live.has(known.parent.documentId)) return null;
  return { parentDoc: known.parent.documentId, iframeRef: known.iframeRef };
}

/** Output cap of the stitched snapshot, as the page's own (lib/page/snapshot.ts maxChars). */
export const MAX_CHARS = 1_500_000;

export function cap(s: string): string {
  if (s.length <= MAX_CHARS) return s;
  const cut = s.lastIndexOf("\n", MAX_CHARS);
  return s.slice(0, cut < 0 ? 0 : cut) + `\n- text: "… the snapshot was cut here (page too large); use browser_get_text, or scroll and snapshot again"`;
}

// ---- where frames are on the page ----------------------------------------

/** r moved by (dx, dy) and cut to clip. */
export function clipTo(r: { x: number; y: number; width: number; height: number }, dx: number, dy: number, clip: { x: number; y: number; width: number; height: number }) {
  const x = Math.max(r.x + dx, clip.x);
  const y = Math.max(r.y + dy, clip.y);
  return { x, y, width: Math.max(0, Math.min(r.x + dx + r.width, clip.x + clip.width) - x), height: Math.max(0, Math.min(r.y + dy + r.height, clip.y + clip.height) - y) };
}

/**
 * Composes a frame element's box (in its frame's viewport, boxes[0]) with
 * the content boxes of the iframes around it (boxes[1..], each in its own
 * document's reachable viewport, innermost first): the box in the top page's
 * viewport, its visible part cut by every iframe on the way and the top's
 * viewport, which it takes from the outermost box.
 */
export function composeBoxes(boxes: ElementBox[]): ElementBox {
  const el = boxes[0]!;
  let x = el.x;
  let y = el.y;
  let visible = el.visible;
  for (const c of boxes.slice(1)) {
    visible = clipTo(visible, c.x, c.y, c.visible);
    x += c.x;
    y += c.y;
  }
  const top = boxes[boxes.length - 1]!;
  return { x, y, width: el.width, height: el.height, visible, dpr: top.dpr, viewportWidth: top.viewportWidth, viewportHeight: top.viewportHeight };
}

// ---- routing ---------------------------------------------------------------

/** A frame's error names the ref as the AI wrote it ("f2e15", not the frame's own "e15"). */
export function renamed(e: unknown, rename: Map<string, string>): unknown {
  if (!(e instanceof Error) || e instanceof CodedError || rename.size === 0) return e;
  let m = e.message;
  for (const [local, full] of rename) m = m.replaceAll(`ref ${local} `, `ref ${full} `).replaceAll(`ref ${local};`, `ref ${full};`);
  if (m === e.message) return e;
  return new Error(m);
}

// ---- console ---------------------------------------------------------------

/** As many entries as one page keeps (lib/page/console.ts). */
export const MAX_LOGS = 1000;

/** Where a frame's entries say they come from: its origin ("about:blank" and the like as is). */
export function frameOrigin(url: string): string {
  try {
    const o = new URL(url).origin;
    return o === "null" ? url.split(/[?#]/)[0]! : o;
  } catch {
    return url;
  }
}

/**
 * Page text with every line that could pass for one of our frame headers
 * ("[frame https://…]", after any spaces and backslashes) given one more
 * backslash, so only the headers we write begin with "[frame ": a frame
 * cannot attribute its text to another origin, nor the top page its text to
 * a frame. Injective, so nothing of the page's text is lost.
 */
export function escapeFrameHeaders(text: string): string {
  return text.replace(/^([ \t]*)(\\*\[frame )/gim, "$1\\$2");
}

/**
 * One console log of every frame's entries, by time: the top frame's as
 * they are, each other frame's marked with its origin ("[frame
 * https://pay.example] …"), the last MAX_LOGS.
 */
export function mergeLogs(perFrame: Array<{ frameId: number; url: string; logs: ConsoleEntry[] }>): ConsoleEntry[] {
  const all: ConsoleEntry[] = [];
  for (const f of perFrame) {
    for (const e of f.logs) {
      const text = escapeFrameHeaders(String(e.text ?? ""));
      all.push({ ...e, text: f.frameId === 0 ? text : `[frame ${frameOrigin(f.url)}] ${text}` });
    }
  }
  // Stable: entries of one frame at the same millisecond keep their order.
  all.sort((a, b) => a.time - b.time);
  return all.slice(-MAX_LOGS);
}

// ---- text ------------------------------------------------------------------

/** Most text get_text answers, as the page's own cap (lib/page/text.ts MAX_TEXT). */
export const MAX_TEXT = 100_000;

/**
 * A rejection handler for a question to one frame: a frame with no content
 * script (an error page, chrome://, a frame that went away) answers nothing,
 * which is expected and not logged; any other failure is reported.
 */
export function unanswered(where: string): (e: unknown) => null {
  return (e) => {
    const m = e instanceof Error ? e.message : String(e);
    if (!/Receiving end does not exist|No frame with id|No tab with id|frame was removed|No document with id/i.test(m)) report(where, e);
    return null;
  };
}
