// Every frame of a shared tab (issue 26, docs/DESIGN.md "Frames"): the
// snapshot stitches each cross-origin frame's own snapshot under its iframe
// line, refs name their frame ("f2e15"), and ops on a frame ref go to that
// frame's content script. Chrome (the frame tree, messages to one frame
// document, session storage, the armed dialog answer) is behind FramesPort;
// entrypoints/background/frames.ts wires it. The pure parts are frames.ts.
//
// Which frame an iframe line shows is frame-link.ts's (the link handshake
// and the stitched snapshot).

import { ACTION_OPS, type CsOp, type CsOps, type ElementBox } from "../messages";
import { ERROR_CODES, type Dialog } from "../protocol.gen";
import { CodedError } from "../peer";
import { report, reported } from "../diag";
import type { DialogArm } from "../page/console";
import {
  MAX_DEPTH,
  MAX_TEXT,
  composeBoxes,
  escapeFrameHeaders,
  frameOrigin,
  mergeLogs,
  renamed,
  splitRef,
  target,
  unanswered,
  type FrameEntry,
  type FrameInfo,
  type FrameTable,
  type FrameTarget,
} from "./frames";
import { createLinker } from "./frame-link";
import { blockedFrames, frameRefusal, ruleOfTarget, stricterFrames, type FrameRule, type RuleOf } from "./frame-rules";

/** What frames need of the browser. */
export interface FramesPort {
  /** The tab's frames as Chrome has them now (webNavigation.getAllFrames). */
  allFrames(tabId: number): Promise<FrameInfo[]>;
  /** One op to one frame document's content script (its share gate and injection included). */
  op<K extends CsOp>(tabId: number, frame: FrameTarget, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]>;
  /** The tab's stored frame table (chrome.storage.session), undefined when none. */
  loadTable(tabId: number): Promise<unknown>;
  saveTable(tabId: number, t: FrameTable): Promise<void>;
  removeTable(tabId: number): Promise<void>;
  /** The answer browser_handle_dialog armed for the tab's next dialog, if any. */
  armOf(tabId: number): DialogArm | null;
  /** Arms (null: disarms) the tab's top frame, or one frame document. */
  armTab(tabId: number, arm: DialogArm | null): Promise<void>;
  armDocument(tabId: number, documentId: string, arm: DialogArm | null): Promise<void>;
  /**
   * The site rule in force on a URL (issue 44; background/siterules.ts): a
   * frame on a never site is not read or acted on, a read-only one not acted
   * on (frame-rules.ts). Absent: no rules (every frame as the top frame).
   */
  ruleOf?: RuleOf;
}

/** A tab's frames as the executor's port reaches them. */
export interface Frames {
  /** BrowserPort.content with frames: snapshots stitched, ops on frame refs in their frame, press_key in the focused frame, the text and console logs of every frame. */
  content<K extends CsOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]>;
  /** A ref's element box in the top page's viewport (CSS px), scrolled into view unless scroll is false. */
  refBox(tabId: number, ref: string, scroll?: boolean): Promise<ElementBox>;
  /** The frame a ref is in (null: the top frame) and the ref local to it. */
  refFrame(tabId: number, ref: string): Promise<{ frame: FrameTarget | null; local: string }>;
  /** The boxes of the secret fields in view in the frames a snapshot linked, in the top page's viewport. */
  secretBoxes(tabId: number): Promise<{ x: number; y: number; width: number; height: number }[]>;
  /** The tab is gone: its table and last tree go. */
  forget(tabId: number): void;
  /** The areas of the frames the site rules keep from the AI (never), in the top page's viewport: a screenshot paints them over. */
  blockedBoxes(tabId: number): Promise<{ x: number; y: number; width: number; height: number }[]>;
  /** Refuses real input (the debugger mode's) at a ref, the focus or a point in a frame whose site rule keeps op off (site_rule). */
  guardInput(tabId: number, op: string, args: Record<string, unknown>): Promise<void>;
  /** The site rule in force in the frame of a frame ref (null: a top-frame ref, no rules, or a frame gone: the op says so). */
  refRule(tabId: number, ref: string): Promise<FrameRule | null>;
}

type XyOp = "click_xy" | "drag_xy";
type Box = { x: number; y: number; width: number; height: number };

/** The frames of every tab, through port. */
export function createFrames(port: FramesPort): Frames {
  const contentOpIn = <K extends CsOp>(tabId: number, frame: FrameTarget, op: K, args: CsOps[K]["args"]) => port.op(tabId, frame, op, args);
  const allFrames = (tabId: number) => port.allFrames(tabId);

  /**
   * The tables as last saved, by tab: a snapshot reads and saves its tab's
   * table each time, and storage.session costs a round trip to the browser
   * process each way; the copy in memory (gone when the worker stops, then
   * read from storage again) spares both while nothing changed.
   */
  const saved = new Map<number, string>();

  const linker = createLinker(port, { load: loadTable, save: saveTable });
  const framedSnapshot = linker.snapshot;
  const frameBehind = linker.frameBehind;

  async function loadTable(tabId: number): Promise<FrameTable> {
    const mem = saved.get(tabId);
    if (mem !== undefined) return JSON.parse(mem) as FrameTable;
    const v = (await port.loadTable(tabId)) as FrameTable | undefined;
    const t = v && typeof v.next === "number" && typeof v.byN === "object" ? v : { next: 1, byN: {} };
    saved.set(tabId, JSON.stringify(t));
    return t;
  }

  async function saveTable(tabId: number, t: FrameTable): Promise<void> {
    const text = JSON.stringify(t);
    if (saved.get(tabId) === text) return;
    saved.set(tabId, text);
    await port.saveTable(tabId, t);
  }

  function forget(tabId: number): void {
    saved.delete(tabId);
    linker.forget(tabId);
    port.removeTable(tabId).catch(reported("frames: forgetting a closed tab's frame table"));
  }

  // ---- frame numbers ---------------------------------------------------------

  async function frameOf(tabId: number, n: number, full: string): Promise<FrameTarget> {
    const d = (await loadTable(tabId)).byN[String(n)];
    if (!d) {
      throw new Error(
        `ref ${full} is in a frame that is not on the page any more (it loaded another document or was removed); take a new browser_snapshot and use a ref from it`,
      );
    }
    return d;
  }










  /**
   * Throws the refusal when the site rules keep op from frame (never: every
   * op; read only: actions; ask: actions at a point or the focus): the
   * frame's rule is its site's or a frame's above it, when stricter than the
   * top frame's (which the gate decided). where names what is in the frame.
   */
  async function guard(tabId: number, frame: FrameTarget, op: string, where: string, frames?: FrameInfo[]): Promise<void> {
    if (!port.ruleOf || (frame.frameId === 0 && frame.documentId === undefined)) return;
    const fr = ruleOfTarget(frames ?? (await allFrames(tabId)), frame, port.ruleOf);
    if (!fr) throw new Error(`${where} is in a frame that is not on the page any more (it loaded another document or was removed); take a new browser_snapshot and use a ref from it`);
    const why = frameRefusal(fr, op, where);
    if (why !== undefined) throw new CodedError(ERROR_CODES.site_rule, why);
  }

  /** The frames of the tab whose content the site rules keep from the AI (never), by frameId. */
  const blockedIn = (frames: FrameInfo[]) => blockedFrames(frames, port.ruleOf);

  async function refRule(tabId: number, ref: string): Promise<FrameRule | null> {
    const s = splitRef(ref);
    if (!s || !port.ruleOf) return null;
    const d = (await loadTable(tabId)).byN[String(s.n)];
    return d ? (ruleOfTarget(await allFrames(tabId), d, port.ruleOf) ?? null) : null;
  }

  // ---- where frames are on the page ----------------------------------------

  /** The frame a ref is in (null: the top frame) and the ref local to it. */
  async function refFrame(tabId: number, ref: string): Promise<{ frame: FrameTarget | null; local: string }> {
    const s = splitRef(ref);
    if (!s) return { frame: null, local: ref };
    const frame = await frameOf(tabId, s.n, s.full);
    await guard(tabId, frame, "rect", `ref ${s.full}`);
    return { frame, local: s.local };
  }

  /**
   * A ref's element box in the top page's viewport (CSS px), scrolled into view
   * unless scroll is false. For a frame ref: the element's box in its frame plus
   * each iframe's content box up to the top page, from the places the handshake
   * linked them (never what a page says); each iframe is scrolled into view in
   * its parent first, outermost first, then the element in its frame.
   */
  async function refBox(tabId: number, ref: string, scroll = true): Promise<ElementBox> {
    const s = splitRef(ref);
    if (!s) return contentOpIn(tabId, { frameId: 0 }, "rect", { ref, scroll });
    const table = await loadTable(tabId);
    const gone = () =>
      new Error(`ref ${s.full} is in a frame that is not on the page any more (it loaded another document or was removed); take a new browser_snapshot and use a ref from it`);
    let d = table.byN[String(s.n)];
    if (!d) throw gone();
    await guard(tabId, d, "rect", `ref ${s.full}`);
    const levels: Array<{ frame: FrameTarget; ref: string; content: boolean }> = [{ frame: d, ref: s.local, content: false }];
    for (let depth = 0; d; depth++) {
      if (!d.parent || d.iframeRef === undefined || depth > MAX_DEPTH) {
        throw new Error(`ref ${s.full} is in a frame whose place on the page is not known yet; take a new browser_snapshot and use a ref from it`);
      }
      levels.push({ frame: d.parent, ref: d.iframeRef, content: true });
      if (d.parentN === null || d.parentN === undefined) break;
      d = table.byN[String(d.parentN)];
      if (!d) throw gone();
    }
    const rename = new Map([[s.local, s.full]]);
    try {
      if (scroll) for (const l of [...levels].reverse()) await contentOpIn(tabId, l.frame, "rect", { ref: l.ref, scroll: true, content: l.content });
      const boxes = await Promise.all(levels.map((l) => contentOpIn(tabId, l.frame, "rect", { ref: l.ref, scroll: false, content: l.content })));
      return composeBoxes(boxes);
    } catch (e) {
      if (e instanceof CodedError) throw e;
      // A document on the way is gone (it navigated, or its iframe was removed) since the snapshot.
      const live = new Set((await allFrames(tabId)).map((f) => f.documentId));
      if (levels.some((l) => l.frame.documentId !== undefined && !live.has(l.frame.documentId))) throw gone();
      throw renamed(e, rename);
    }
  }


  /**
   * The boxes of the secret fields in view in the frames a snapshot linked
   * (each frame's own content script answers secret_boxes; a cross-origin
   * frame's are read nowhere else), in the top page's viewport: moved by each
   * iframe's content box on the way up and cut by it (never what a page
   * says: the places the handshake linked). For screenshots to paint over
   * (issue 40). A frame no snapshot has linked yet, or whose place is not
   * known, is not covered; one that does not answer is skipped (reported).
   */
  async function frameSecretBoxes(tabId: number): Promise<Box[]> {
    return (await coverBoxes(tabId, "secrets")).map((a) => a.box);
  }

  /**
   * The areas of the frames the site rules keep from the AI (never), in the
   * top page's viewport: each outermost one's iframe content box, moved and
   * cut by the iframes around it (the places the handshake linked; linked
   * first when no snapshot did). A screenshot paints them over whatever the
   * person allows for secret fields (issue 44); the frames are asked nothing
   * but their link.
   */
  async function blockedBoxes(tabId: number): Promise<Box[]> {
    return (await coverBoxes(tabId, "blocked")).map((a) => a.box);
  }

  /**
   * Real input (the debugger mode's, which no content script sees) refused
   * where the site rules keep op off: at a ref in a stricter frame, on the
   * focus in one (press_key), at a point on one's area (click_xy, drag_xy;
   * every rule stricter than the top frame's refuses input at a point).
   */
  async function guardInput(tabId: number, op: string, args: Record<string, unknown>): Promise<void> {
    if (!port.ruleOf) return;
    for (const k of ["ref", "startRef", "endRef"]) {
      const s = typeof args[k] === "string" ? splitRef(args[k]) : null;
      if (s) await guard(tabId, await frameOf(tabId, s.n, s.full), op, `ref ${s.full}`);
    }
    if (op === "press_key") await focusedFrame(tabId);
    if (op !== "click_xy" && op !== "drag_xy") return;
    const points = op === "click_xy" ? [[args.x, args.y]] : [[args.startX, args.startY], [args.endX, args.endY]];
    const areas = await coverBoxes(tabId, "strict");
    for (const [x, y] of points as number[][]) {
      for (const { box, fr } of areas) {
        if (!fr || x! < box.x || y! < box.y || x! >= box.x + box.width || y! >= box.y + box.height) continue;
        const why = frameRefusal(fr, op, `the point (${x}, ${y})`);
        if (why !== undefined) throw new CodedError(ERROR_CODES.site_rule, why);
      }
    }
  }

  async function coverBoxes(tabId: number, kind: "secrets" | "blocked" | "strict"): Promise<Array<{ box: Box; fr?: FrameRule }>> {
    const tree = await allFrames(tabId);
    const kept = blockedIn(tree);
    // The frames whose whole area is wanted: kept from the AI (never), or under any rule stricter than the top's.
    const picked: Map<number, unknown> = kind === "blocked" ? kept : kind === "strict" ? stricterFrames(tree, port.ruleOf) : new Map();
    if (kind !== "secrets" && picked.size === 0) return [];
    if (kind !== "secrets") await linker.linkBlocked(tabId, tree, picked);
    const table = await loadTable(tabId);
    const live = new Set(tree.map((f) => f.documentId));
    const out: Array<{ box: Box; fr?: FrameRule }> = [];
    const byId = new Map(tree.map((f) => [f.frameId, f]));
    await Promise.all(
      Object.values(table.byN).map(async (d) => {
        if (!live.has(d.documentId)) return;
        // A blocked frame's secret fields are not asked for; a frame inside a picked frame is within its area.
        if (kind === "secrets" ? kept.has(d.frameId) : !picked.has(d.frameId) || picked.has(byId.get(d.frameId)?.parentFrameId ?? -1)) return;
        const levels: Array<{ frame: FrameTarget; ref: string }> = [];
        let cur: FrameEntry | undefined = d;
        for (let depth = 0; cur; depth++) {
          if (!cur.parent || cur.iframeRef === undefined || depth > MAX_DEPTH) return;
          levels.push({ frame: cur.parent, ref: cur.iframeRef });
          if (cur.parentN === null || cur.parentN === undefined) break;
          cur = table.byN[String(cur.parentN)];
          if (!cur) return;
        }
        const around = () => Promise.all(levels.map((l) => contentOpIn(tabId, l.frame, "rect", { ref: l.ref, scroll: false, content: true })));
        if (kind !== "secrets") {
          try {
            // The frame's whole area: its iframe's content box, moved and cut by the iframes around it.
            const box = composeBoxes(await around());
            const fr = picked.get(d.frameId);
            if (box.visible.width > 0 && box.visible.height > 0) out.push({ box: box.visible, ...(kind === "strict" ? { fr: fr as FrameRule } : {}) });
          } catch (e) {
            report(`frames: the area of a frame under a site rule (${d.documentId})`, e);
          }
          return;
        }
        try {
          const [own, boxes] = await Promise.all([contentOpIn(tabId, d, "secret_boxes", {}), around()]);
          for (const b of own.boxes) {
            const box = composeBoxes([{ ...b, visible: b, dpr: 1, viewportWidth: 0, viewportHeight: 0 }, ...boxes]);
            if (box.visible.width > 0 && box.visible.height > 0) out.push({ box: box.visible });
          }
        } catch (e) {
          report(`screenshot: the secret fields of frame document ${d.documentId}`, e);
        }
      }),
    );
    return out;
  }

  /**
   * click_xy / drag_xy at top-page coordinates: the top frame hit-tests the
   * point; on a cross-origin frame's area it answers `into` (the iframe's ref,
   * the point in that frame's viewport) and the op goes on to the frame behind
   * that iframe, level by level. Dialogs reported on the way are kept.
   */
  async function xyInFrames<K extends XyOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]> {
    let at: FrameTarget = { frameId: 0 };
    let atN: number | null = null;
    let a: CsOps[XyOp]["args"] = args;
    const dialogs: Dialog[] = [];
    for (let depth = 0; ; depth++) {
      const r: CsOps[XyOp]["result"] = await contentOpIn(tabId, at, op, a as CsOps[K]["args"]);
      if (Array.isArray(r.dialogs)) dialogs.push(...r.dialogs);
      const into = r.into;
      if (!into) return (dialogs.length > 0 ? { ...r, dialogs } : r) as CsOps[K]["result"];
      const behind: { f: FrameInfo; n: number } | null = depth < MAX_DEPTH ? await frameBehind(tabId, at, atN, into.ref) : null;
      if (!behind) {
        throw new Error(
          `the point is on a frame (${r.target}) whose page monkbrowse cannot reach (a page of Chrome's, another extension's, or one that did not answer); nothing was clicked. ` +
            "Use the iframe's line in browser_snapshot, or ask the person to switch on the debugger mode, whose real mouse reaches every frame",
        );
      }
      await guard(tabId, target(behind.f), op, `the point (${r.target})`);
      a = op === "click_xy" ? { ...(a as CsOps["click_xy"]["args"]), x: into.x, y: into.y } : { startX: into.x, startY: into.y, endX: into.endX ?? into.x, endY: into.endY ?? into.y };
      at = target(behind.f);
      atN = behind.n;
    }
  }

  // ---- routing ---------------------------------------------------------------

  /** The frame an op's refs are in and the args with the refs local to it; null frame: the top one. */
  async function routeRefs<K extends CsOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<{ frame: FrameTarget | null; args: CsOps[K]["args"]; rename: Map<string, string> }> {
    const a = args as Record<string, unknown>;
    const rename = new Map<string, string>();
    let frame: FrameTarget | null = null;
    let frameN: number | null = null;
    const seen: Array<number | null> = [];
    const localize = async (v: unknown): Promise<unknown> => {
      if (typeof v !== "string") return v;
      const s = splitRef(v);
      seen.push(s ? s.n : null);
      if (!s) return v;
      if (frameN !== s.n) {
        frame = await frameOf(tabId, s.n, s.full);
        frameN = s.n;
      }
      rename.set(s.local, s.full);
      return s.local;
    };
    const out: Record<string, unknown> = { ...a };
    for (const k of ["ref", "startRef", "endRef"]) if (k in a) out[k] = await localize(a[k]);
    if (Array.isArray(a.refs)) out.refs = await Promise.all(a.refs.map(localize));
    if (Array.isArray(a.fields)) {
      out.fields = await Promise.all(a.fields.map(async (f: Record<string, unknown>) => ({ ...f, ref: await localize(f.ref) })));
    }
    if (new Set(seen).size > 1) {
      throw new Error(
        `the refs of one ${op} are in different frames of the page (${seen.map((n) => (n === null ? "the top page" : `frame f${n}`)).join(", ")}); ` +
          "act in one frame per call (one browser_fill_form per frame's form, a drag within one frame)",
      );
    }
    return { frame, args: out as CsOps[K]["args"], rename };
  }


  /** The frame whose document has the keyboard focus (press_key goes there); the top frame when none says so. */
  async function focusedFrame(tabId: number): Promise<FrameTarget> {
    const frames = await allFrames(tabId);
    if (frames.length <= 1) return { frameId: 0 };
    const answers = await Promise.all(
      frames.filter((f) => f.frameId !== 0).map((f) =>
        contentOpIn(tabId, target(f), "focus", {}).then(
          (r) => (r.focused ? f : null),
          unanswered("frames: asking a frame whether it has focus"),
        ),
      ),
    );
    const f = answers.find((x) => x !== null);
    if (f) await guard(tabId, target(f), "press_key", "the focused element", frames);
    return f ? target(f) : { frameId: 0 };
  }

  // ---- dialogs ---------------------------------------------------------------

  /**
   * An action the AI takes in a frame carries the tab's armed dialog answer
   * with it: the answer moves from the top frame's hooks to that frame
   * document's for the action, and back when no dialog used it. A frame the
   * AI does not act in (an ad) never holds it, so it cannot use it up; the
   * frame acted in answers its own "Are you sure?" as the AI asked.
   */
  async function withArmIn<T>(tabId: number, frame: FrameTarget, act: () => Promise<T>): Promise<T> {
    const arm = frame.documentId !== undefined ? port.armOf(tabId) : null;
    if (!arm || frame.documentId === undefined) return act();
    const doc = frame.documentId;
    await port.armTab(tabId, null);
    await port.armDocument(tabId, doc, arm);
    let used = false;
    try {
      const res = await act();
      used = (res as { dialogs?: Dialog[] } | null)?.dialogs?.some((d) => d.armed) === true;
      return res;
    } finally {
      // A dialog that used it says so in the answer and to the worker ("dialog-used"): nothing to put back then.
      const left = used ? null : port.armOf(tabId);
      await port.armDocument(tabId, doc, null).catch(reported("frames: taking an armed dialog answer back from a frame"));
      if (left) await port.armTab(tabId, left).catch(reported("frames: putting an armed dialog answer back in the top frame"));
    }
  }

  // ---- console ---------------------------------------------------------------

  async function allLogs(tabId: number): Promise<CsOps["console_logs"]["result"]> {
    const top = await contentOpIn(tabId, { frameId: 0 }, "console_logs", {});
    const tree = await allFrames(tabId);
    // A frame the site rules keep from the AI (never): its console is not asked for.
    const kept = blockedIn(tree);
    const frames = tree.filter((f) => f.frameId !== 0 && !kept.has(f.frameId));
    if (frames.length === 0) return top;
    const others = await Promise.all(
      frames.map((f) =>
        contentOpIn(tabId, target(f), "console_logs", {}).then(
          (r) => ({ frameId: f.frameId, url: f.url, logs: Array.isArray(r.logs) ? r.logs : [] }),
          () => ({ frameId: f.frameId, url: f.url, logs: [] }), // nothing of ours there
        ),
      ),
    );
    return { logs: mergeLogs([{ frameId: 0, url: "", logs: Array.isArray(top.logs) ? top.logs : [] }, ...others]) };
  }

  // ---- text ------------------------------------------------------------------

  /**
   * The page's text, then each other frame's (a page's innerText leaves frames
   * out), each under a line naming the frame's origin, in Chrome's frame order.
   */
  async function allText(tabId: number): Promise<CsOps["get_text"]["result"]> {
    const top = await contentOpIn(tabId, { frameId: 0 }, "get_text", {});
    const tree = await allFrames(tabId);
    // A frame the site rules keep from the AI (never): its text is not asked for.
    const kept = blockedIn(tree);
    const frames = tree.filter((f) => f.frameId !== 0 && !kept.has(f.frameId));
    if (frames.length === 0) return top;
    const parts = [escapeFrameHeaders(String(top.text ?? ""))];
    const texts = await Promise.all(
      frames.map((f) =>
        contentOpIn(tabId, target(f), "get_text", {}).then(
          (r) => ({ f, text: String(r.text ?? "").trim() }),
          () => ({ f, text: "" }), // nothing of ours there
        ),
      ),
    );
    for (const { f, text } of texts) if (text !== "") parts.push(`[frame ${frameOrigin(f.url)}]\n${escapeFrameHeaders(text)}`);
    let text = parts.join("\n\n");
    if (text.length > MAX_TEXT) text = `${text.slice(0, MAX_TEXT)}\n… [truncated: showed ${MAX_TEXT} of ${text.length} characters; pass a ref to read one part]`;
    return { text };
  }

  /**
   * BrowserPort.content with frames: snapshots stitched, ops on frame refs in
   * their frame, press_key in the focused frame, the text and console logs of
   * every frame, the rest in the top frame.
   */
  async function framedContent<K extends CsOp>(tabId: number, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]> {
    if (op === "snapshot") return (await framedSnapshot(tabId, args as CsOps["snapshot"]["args"])) as CsOps[K]["result"];
    if (op === "press_key") return contentOpIn(tabId, await focusedFrame(tabId), op, args);
    if (op === "console_logs") return (await allLogs(tabId)) as CsOps[K]["result"];
    if (op === "get_text" && !(args as CsOps["get_text"]["args"]).ref) return (await allText(tabId)) as CsOps[K]["result"];
    if (op === "click_xy" || op === "drag_xy") return xyInFrames(tabId, op as XyOp, args as CsOps[XyOp]["args"]) as Promise<CsOps[K]["result"]>;
    if (op === "rect") return (await refBox(tabId, (args as CsOps["rect"]["args"]).ref, (args as CsOps["rect"]["args"]).scroll !== false)) as CsOps[K]["result"];
    const r = await routeRefs(tabId, op, args);
    if (r.frame !== null) await guard(tabId, r.frame, op, `ref ${[...r.rename.values()][0] ?? ""}`);
    try {
      const frame: FrameTarget | null = r.frame;
      if (frame !== null && (ACTION_OPS as readonly string[]).includes(op)) return await withArmIn(tabId, frame, () => contentOpIn(tabId, frame, op, r.args));
      return await contentOpIn(tabId, r.frame ?? { frameId: 0 }, op, r.args);
    } catch (e) {
      const frame: FrameTarget | null = r.frame;
      if (frame !== null && !(e instanceof CodedError) && !(await allFrames(tabId)).some((f) => f.documentId === frame.documentId)) {
        // The frame's document is gone (it navigated, or its iframe was removed) since the snapshot.
        const full = [...r.rename.values()][0] ?? "";
        throw new Error(`ref ${full} is in a frame that is not on the page any more (it loaded another document or was removed); take a new browser_snapshot and use a ref from it`);
      }
      throw renamed(e, r.rename);
    }
  }

  return { content: framedContent, refBox, refFrame, secretBoxes: frameSecretBoxes, blockedBoxes, guardInput, forget, refRule };
}
