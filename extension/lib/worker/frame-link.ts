// The frame link for snapshots and points (issue 26, docs/DESIGN.md
// "Frames"): which frame document an iframe line shows, decided by the
// link handshake (lib/page/framelink.ts) in about one round trip, and each
// linked frame's snapshot stitched under its iframe line. framed.ts routes
// ops with what this links; the pure parts are frames.ts.
//
// The parent's content script posts a fresh token into each cross-origin
// iframe element's window and answers them by ref; each candidate child
// frame, asked here by frameId/documentId, answers the tokens its parent
// window posted into it. Chrome routes both answers, so the frame that
// answered is the frame Chrome says it is; decideLinks pairs them and drops
// anything ambiguous. A page that spoofs or races the handshake leaves its
// frame unread ([cross-origin], as before), never shows another frame's
// content under it.

import type { CsOps } from "../messages";
import type { Dialog } from "../protocol.gen";
import { report, reported } from "../diag";
import type { FramesPort } from "./framed";
import {
  MAX_DEPTH,
  TOP_TOKENS,
  cap,
  compose,
  decideLinks,
  emitted,
  freshTokens,
  knownLink,
  numberFor,
  prune,
  sameDocument,
  target,
  treeShape,
  unanswered,
  type Claim,
  type FrameInfo,
  type FrameTable,
  type FrameTarget,
  type SnapshotResult,
} from "./frames";
import { blockedFrames, blockedMark } from "./frame-rules";

/** The tab's frame table, kept by framed.ts (in memory, then session storage). */
export interface TableStore {
  load(tabId: number): Promise<FrameTable>;
  save(tabId: number, t: FrameTable): Promise<void>;
}

export interface Linker {
  /** The top frame's snapshot with every linked frame's stitched in. */
  snapshot(tabId: number, args: CsOps["snapshot"]["args"]): Promise<SnapshotResult>;
  /** The frame the iframe element ref of document parent shows (from the table, else a new round); null when none answers. */
  frameBehind(tabId: number, parent: FrameTarget, parentN: number | null, ref: string): Promise<{ f: FrameInfo; n: number } | null>;
  /** The tab is gone: its last tree goes. */
  forget(tabId: number): void;
  /**
   * Links the outermost of the blocked frames (never, by frameId) that no
   * round has linked yet, when their parent is the top frame or a linked
   * frame: its iframe's place is then known (a screenshot paints it over).
   */
  linkBlocked(tabId: number, frames: FrameInfo[], blocked: Map<number, unknown>): Promise<void>;
}

/** A claim with the snapshot the frame answered along with it (a snapshot round). */
interface SnapClaim extends Claim {
  snapshot?: SnapshotResult;
}

interface Stitched {
  lines: string[];
  viewport: string[];
  dialogs: Dialog[];
}

/**
 * The questions of one snapshot round, asked of every frame of the tab at
 * once, while the top frame reads itself: each frame gets the tokens the
 * service worker issues for its own cross-origin iframes (linkTokens of its
 * snapshot) and is asked for those its ancestors were issued (any of them
 * may be the document that posts into it: a same-origin parent is read by
 * its own parent). A frame whose parent window posted one of them answers
 * with its snapshot. Which document's token a frame holds decides nothing
 * yet: stitchUnder pairs them per document, with decideLinks, from Chrome's
 * tree only.
 */
interface Round {
  frames: FrameInfo[];
  table: FrameTable;
  issued: Map<number, string[]>;
  asks: Map<number, Promise<{ f: FrameInfo; r: CsOps["frame_link"]["result"] } | null>>;
  /** Frames linked by an earlier round whose documents are all still there: asked for their snapshot only. */
  direct: Map<number, Promise<SnapshotResult | null>>;
  /** "<parent documentId>\n<iframe ref>" → the frame an earlier round linked to that iframe element. */
  knownAt: Map<string, number>;
}

/** A linked frame's snapshot asked before the tab's frame tree is read, with the tokens it was issued. */
interface EarlyRead {
  frameId: number;
  tokens: string[];
  read: Promise<SnapshotResult | null>;
}

/** The frame link of every tab, through port; tables keeps the frame numbers. */
export function createLinker(port: FramesPort, tables: TableStore): Linker {
  const contentOpIn: FramesPort["op"] = (tabId, frame, op, args) => port.op(tabId, frame, op, args);
  const allFrames = (tabId: number) => port.allFrames(tabId);
  const loadTable = (tabId: number) => tables.load(tabId);
  const saveTable = (tabId: number, t: FrameTable) => tables.save(tabId, t);

  /** The frame tree each tab had at its last snapshot (service worker memory only). */
  const lastTree = new Map<number, FrameInfo[]>();

  /**
   * The frames that may answer a token root's document posted: its children,
   * and the children of those its snapshot already shows (same-origin frames,
   * which say so: "inlined"), level by level.
   */
  async function claimsUnder(tabId: number, frames: FrameInfo[], root: number, expect: string[]): Promise<Claim[]> {
    const claims: Claim[] = [];
    let level = frames.filter((f) => f.parentFrameId === root);
    for (let depth = 0; level.length > 0 && depth < MAX_DEPTH; depth++) {
      const answers = await Promise.all(
        level.map((f) =>
          contentOpIn(tabId, target(f), "frame_link", { expect }).then(
            (r) => ({ f, r }),
            unanswered("frames: asking a child frame for its link token"),
          ),
        ),
      );
      const next: FrameInfo[] = [];
      for (const a of answers) {
        if (!a) continue;
        if (a.r.inlined) next.push(...frames.filter((f) => f.parentFrameId === a.f.frameId));
        else claims.push({ frameId: a.f.frameId, tokens: Array.isArray(a.r.tokens) ? a.r.tokens.filter((t) => typeof t === "string") : [] });
      }
      level = next;
    }
    return claims;
  }

  /**
   * One round of the handshake outside a snapshot (a point over a frame: frameBehind) for the document root (its frame number rootN,
   * null for the top frame), which posted the tokens posted (ref → token): the
   * frames Chrome places under it answer, decideLinks pairs them, and each link
   * is numbered and recorded with its place (the table is saved by the caller).
   */
  async function linkRound(tabId: number, frames: FrameInfo[], table: FrameTable, root: number, rootN: number | null, posted: Record<string, string>): Promise<Map<string, { f: FrameInfo; n: number }>> {
    const out = new Map<string, { f: FrameInfo; n: number }>();
    if (Object.keys(posted).length === 0) return out;
    const rootInfo = frames.find((x) => x.frameId === root);
    const parent = rootInfo ? target(rootInfo) : { frameId: root };
    for (const [ref, frameId] of decideLinks(posted, await claimsUnder(tabId, frames, root, Object.values(posted)))) {
      const f = frames.find((x) => x.frameId === frameId);
      if (!f || f.documentId === undefined) continue;
      out.set(ref, { f, n: numberFor(table, f.documentId, f.frameId, { parent, parentN: rootN, iframeRef: ref }) });
    }
    return out;
  }

  /**
   * The linked frames of the tab's last frame tree, asked for their snapshot
   * at once (by documentId: a frame that loaded another document since
   * answers nothing), so they read themselves while the top frame does and
   * the tree is read; askAll takes each one whose document and place in the
   * tree are still the same, and asks the others afresh.
   */
  function readKnownEarly(tabId: number, table: FrameTable): Map<string, EarlyRead> {
    const out = new Map<string, EarlyRead>();
    const frames = lastTree.get(tabId);
    if (!frames || frames.length < 2) return out;
    const { ancestors, descendants } = treeShape(frames);
    const live = new Set(frames.map((f) => f.documentId));
    // A frame the site rules keep from the AI (never) is not asked for its snapshot.
    const kept = blockedFrames(frames, port.ruleOf);
    for (const f of frames) {
      if (f.frameId === 0 || f.documentId === undefined || kept.has(f.frameId) || ancestors(f).length > MAX_DEPTH || !knownLink(table, f, live)) continue;
      const tokens = freshTokens(descendants.get(f.frameId) ?? 0);
      const read = contentOpIn(tabId, target(f), "snapshot", { linkTokens: tokens, refMarks: true }).catch(unanswered("frames: reading a linked frame"));
      out.set(f.documentId, { frameId: f.frameId, tokens, read });
    }
    return out;
  }

  /** The same frame at the same place: document, frame id, parent document and number of frames under it. */
  function samePlace(early: EarlyRead | undefined, f: FrameInfo, parentDoc: string | undefined, was: FrameInfo[] | undefined, under: number): early is EarlyRead {
    if (!early || early.frameId !== f.frameId || early.tokens.length !== Math.min(under, 64) || !was) return false;
    const before = was.find((x) => x.documentId === f.documentId);
    return before !== undefined && was.find((x) => x.frameId === before.parentFrameId)?.documentId === parentDoc;
  }

  function askAll(tabId: number, frames: FrameInfo[], table: FrameTable, topTokens: string[], early = new Map<string, EarlyRead>(), was?: FrameInfo[]): Pick<Round, "issued" | "asks" | "direct" | "knownAt"> {
    const byId = new Map(frames.map((f) => [f.frameId, f]));
    const { ancestors, descendants } = treeShape(frames);
    const issued = new Map<number, string[]>([[0, topTokens]]);
    const deep = frames.filter((f) => f.frameId !== 0 && ancestors(f).length <= MAX_DEPTH);
    for (const f of deep) issued.set(f.frameId, freshTokens(descendants.get(f.frameId) ?? 0));
    const asks: Round["asks"] = new Map();
    const direct: Round["direct"] = new Map();
    const knownAt: Round["knownAt"] = new Map();
    const live = new Set(frames.map((f) => f.documentId));
    // A frame the site rules keep from the AI (never): linked to its iframe line (to mark it), never asked for its snapshot.
    const kept = blockedFrames(frames, port.ruleOf);
    for (const f of deep) {
      const known = knownLink(table, f, live);
      if (known) {
        knownAt.set(`${known.parentDoc}\n${known.iframeRef}`, f.frameId);
        if (kept.has(f.frameId)) continue;
        const e = f.documentId !== undefined ? early.get(f.documentId) : undefined;
        if (samePlace(e, f, byId.get(f.parentFrameId)?.documentId, was, descendants.get(f.frameId) ?? 0)) {
          issued.set(f.frameId, e.tokens);
          direct.set(f.frameId, e.read);
        } else {
          direct.set(f.frameId, contentOpIn(tabId, target(f), "snapshot", { linkTokens: issued.get(f.frameId) ?? [], refMarks: true }).catch(unanswered("frames: reading a linked frame")));
        }
        continue;
      }
      const expect = ancestors(f).flatMap((a) => issued.get(a.frameId) ?? []);
      if (expect.length === 0) continue;
      asks.set(
        f.frameId,
        contentOpIn(tabId, target(f), "frame_link", kept.has(f.frameId) ? { expect } : { expect, snapshot: { linkTokens: issued.get(f.frameId) ?? [], refMarks: true } }).then(
          (r) => ({ f, r }),
          unanswered("frames: asking a child frame for its link token"),
        ),
      );
    }
    return { issued, asks, direct, knownAt };
  }

  /** The claims of root's candidate frames (its children, and the children of those that answer inlined), from the round's answers. */
  async function roundClaims(round: Round, root: number): Promise<SnapClaim[]> {
    const claims: SnapClaim[] = [];
    let level = round.frames.filter((f) => f.parentFrameId === root);
    for (let depth = 0; level.length > 0 && depth < MAX_DEPTH; depth++) {
      const answers = await Promise.all(level.map((f) => round.asks.get(f.frameId) ?? Promise.resolve(null)));
      const next: FrameInfo[] = [];
      for (const a of answers) {
        if (!a) continue;
        if (a.r.inlined) next.push(...round.frames.filter((f) => f.parentFrameId === a.f.frameId));
        else {
          const tokens = Array.isArray(a.r.tokens) ? a.r.tokens.filter((t) => typeof t === "string") : [];
          const snap = a.r.snapshot && typeof a.r.snapshot === "object" ? a.r.snapshot : undefined;
          claims.push({ frameId: a.f.frameId, tokens, ...(snap ? { snapshot: snap } : {}) });
        }
      }
      level = next;
    }
    return claims;
  }

  /**
   * Root's snapshot lines (refs named by frame n unless it is the top frame)
   * with its linked frames stitched in; null when its answer's marks do not
   * hold (then it is not shown: its iframe line stays unread).
   */
  async function stitchUnder(tabId: number, round: Round, root: number, res: SnapshotResult, n: number | null, depth: number): Promise<Stitched | null> {
    const local = (ref: string) => (n === null ? ref : `f${n}${ref}`);
    const doc = emitted(String(res.snapshot ?? ""), res.marks);
    if (doc === null) {
      report("frames: a snapshot answer whose ref marks do not match its lines", new Error(`frame ${n ?? "top"}`));
      return null;
    }
    let viewport = (Array.isArray(res.viewport) ? res.viewport : []).map(local);
    const dialogs: Dialog[] = Array.isArray(res.dialogs) ? [...res.dialogs] : [];
    const posted = res.links && typeof res.links === "object" ? res.links : {};
    const children = new Map<string, string[]>();
    const marks = new Map<string, string>();
    const done = (): Stitched => ({ lines: compose(doc, n, children, marks), viewport, dialogs });
    if (Object.keys(posted).length === 0 || depth >= MAX_DEPTH) return done();
    // Only the tokens issued for root count: one a page made up, or root's
    // content script took fresh once those ran out, was asked for by nobody.
    const issued = new Set(round.issued.get(root) ?? []);
    const rootInfo = round.frames.find((x) => x.frameId === root);
    const parent = rootInfo ? target(rootInfo) : { frameId: root };
    // The iframes an earlier round linked (both documents unchanged), then a decision for the others.
    const linked = new Map<string, { frameId: number; snapshot?: SnapshotResult }>();
    for (const ref of Object.keys(posted)) {
      const frameId = rootInfo?.documentId !== undefined ? round.knownAt.get(`${rootInfo.documentId}\n${ref}`) : undefined;
      if (frameId === undefined) continue;
      const snap = await round.direct.get(frameId);
      linked.set(ref, { frameId, ...(snap ? { snapshot: snap } : {}) });
    }
    const mine = Object.fromEntries(Object.entries(posted).filter(([ref, t]) => issued.has(t) && !linked.has(ref)));
    if (Object.keys(mine).length > 0) {
      const claims = await roundClaims(round, root);
      for (const [ref, frameId] of decideLinks(mine, claims)) {
        const snap = claims.find((c) => c.frameId === frameId)?.snapshot;
        linked.set(ref, { frameId, ...(snap ? { snapshot: snap } : {}) });
      }
    }
    const kept = blockedFrames(round.frames, port.ruleOf);
    for (const [ref, { frameId, snapshot: child }] of linked) {
      const f = round.frames.find((x) => x.frameId === frameId);
      const never = kept.get(frameId);
      if (f?.documentId !== undefined && never !== undefined) {
        // Kept from the AI (never): its iframe line says so, and nothing of the frame is read or shown.
        numberFor(round.table, f.documentId, f.frameId, { parent, parentN: n, iframeRef: ref });
        marks.set(ref, blockedMark(never));
        continue;
      }
      // No snapshot: it failed (the frame went away meanwhile); its line stays unread.
      if (!f || f.documentId === undefined || !child) continue;
      const cn = numberFor(round.table, f.documentId, f.frameId, { parent, parentN: n, iframeRef: ref });
      const sub = await stitchUnder(tabId, round, f.frameId, child, cn, depth + 1);
      if (sub === null) continue;
      children.set(ref, sub.lines);
      const at = viewport.indexOf(local(ref));
      if (at >= 0) viewport = [...viewport.slice(0, at + 1), ...sub.viewport, ...viewport.slice(at + 1)];
      dialogs.push(...sub.dialogs);
    }
    return done();
  }

  /**
   * The top frame's snapshot with every linked frame's stitched in, in about
   * one round trip: the frame tree is read and every frame asked while the
   * top frame reads itself (askAll), and the frames read themselves as soon as
   * their tokens arrive.
   */
  async function framedSnapshot(tabId: number, args: CsOps["snapshot"]["args"]): Promise<SnapshotResult> {
    const topTokens = freshTokens(TOP_TOKENS);
    const was = lastTree.get(tabId);
    const early = was && was.length > 1 ? readKnownEarly(tabId, await loadTable(tabId)) : undefined;
    const topP = contentOpIn(tabId, { frameId: 0 }, "snapshot", { ...args, linkTokens: topTokens });
    const frames = await allFrames(tabId).catch(reported("frames: reading the tab's frame tree"));
    if (frames) lastTree.set(tabId, frames);
    const table = frames && frames.length > 1 ? await loadTable(tabId) : undefined;
    if (frames && table) prune(table, frames);
    const asked = frames && table ? askAll(tabId, frames, table, topTokens, early, was) : undefined;
    const top = await topP;
    // No cross-origin iframe in the top document: nothing to stitch.
    if (!top.links || Object.keys(top.links).length === 0 || !frames || !table || !asked) {
      const { links: _links, marks: _marks, ...rest } = top;
      return rest;
    }
    const s = await stitchUnder(tabId, { frames, table, ...asked }, 0, top, null, 0);
    await saveTable(tabId, table);
    const { links: _links, marks: _marks, ...rest } = top;
    if (s === null) return rest;
    const out: SnapshotResult = { ...rest, snapshot: cap(s.lines.join("\n")), viewport: s.viewport };
    if (s.dialogs.length > 0) out.dialogs = s.dialogs;
    return out;
  }

  /**
   * The frame that the iframe element ref of document parent (frame number
   * parentN, null: the top frame) shows: from the table when the snapshot
   * linked it and that document is still there, else from a new handshake
   * round for parent. Null when no frame of ours answers for it.
   */
  async function frameBehind(tabId: number, parent: FrameTarget, parentN: number | null, ref: string): Promise<{ f: FrameInfo; n: number } | null> {
    const frames = await allFrames(tabId);
    const table = await loadTable(tabId);
    prune(table, frames);
    const parentInfo = parent.frameId === 0 && parent.documentId === undefined ? frames.find((f) => f.frameId === 0) : undefined;
    const parentDoc: FrameTarget = parentInfo ? target(parentInfo) : parent;
    for (const [n, d] of Object.entries(table.byN)) {
      if (d.iframeRef !== ref || !d.parent || !sameDocument(d.parent, parentDoc)) continue;
      const f = frames.find((x) => x.documentId === d.documentId);
      if (f) return { f, n: Number(n) };
    }
    const { links } = await contentOpIn(tabId, parent, "frame_tokens", { ref });
    const linked = await linkRound(tabId, frames, table, parent.frameId, parentN, links && typeof links === "object" ? links : {});
    await saveTable(tabId, table);
    return linked.get(ref) ?? null;
  }

  async function linkBlocked(tabId: number, frames: FrameInfo[], blocked: Map<number, unknown>): Promise<void> {
    const table = await loadTable(tabId);
    prune(table, frames);
    const linked = new Set(Object.values(table.byN).map((d) => d.documentId));
    const parents = new Set<number>();
    for (const f of frames) {
      if (!blocked.has(f.frameId) || blocked.has(f.parentFrameId) || f.documentId === undefined || linked.has(f.documentId)) continue;
      parents.add(f.parentFrameId);
    }
    for (const p of parents) {
      const info = frames.find((f) => f.frameId === p);
      if (!info) continue;
      const n = p === 0 ? null : Number(Object.entries(table.byN).find(([, d]) => d.documentId === info.documentId)?.[0] ?? NaN);
      if (n !== null && Number.isNaN(n)) continue; // its parent's own place is not known
      const got = await contentOpIn(tabId, target(info), "frame_tokens", {}).catch(unanswered("frames: linking a frame kept from the AI"));
      await linkRound(tabId, frames, table, p, n, got?.links && typeof got.links === "object" ? got.links : {});
    }
    await saveTable(tabId, table);
  }

  return { snapshot: framedSnapshot, frameBehind, forget: (tabId) => void lastTree.delete(tabId), linkBlocked };
}
