// The service worker's side of frames with a fake port: the stitched
// snapshot from each frame's answers, and ops on frame refs sent to their
// frame document.
import { beforeEach, describe, expect, it } from "vitest";
import type { CsMessage, CsOp, CsOps, ElementBox } from "../messages";
import { createFrames, type Frames } from "./framed";
import type { FrameInfo, FrameTarget } from "./frames";
import { ruleFor, type PersonRule } from "../siterules";
import { errorCode } from "../peer";

type Doc = (msg: CsMessage) => unknown;

let docs: Record<string, Doc>;
let frames: FrameInfo[];
let sent: Array<{ to: string; op: string; args: unknown }>;

/** The tab's frame tree as the fake Chrome answers it (a test may hold it back). */
let getAllFrames: () => Promise<FrameInfo[]>;
let fx: Frames;
/** The person's site rules the fake worker holds (issue 44); none unless a test sets them. */
let personRules: PersonRule[];

/** As Chrome and content-ops.ts: a message to one frame document, by documentId when known. */
async function sendTo<K extends CsOp>(frame: FrameTarget, op: K, args: CsOps[K]["args"]): Promise<CsOps[K]["result"]> {
  const to = frame.documentId ?? frames.find((f) => f.frameId === frame.frameId)!.documentId!;
  const msg = { cs: true, op, args } as CsMessage;
  sent.push({ to, op: msg.op, args: msg.args });
  const d = docs[to];
  if (!d) throw new Error("Could not establish connection. Receiving end does not exist.");
  return withMarks(msg, await d(msg)) as CsOps[K]["result"];
}

function fakePort() {
  const store = new Map<number, unknown>();
  getAllFrames = async () => frames;
  fx = createFrames({
    allFrames: () => getAllFrames(),
    op: (_tab, frame, op, args) => sendTo(frame, op, args),
    loadTable: async (tabId) => structuredClone(store.get(tabId)),
    saveTable: async (tabId, t) => void store.set(tabId, structuredClone(t)),
    removeTable: async (tabId) => void store.delete(tabId),
    armOf: () => null,
    armTab: async () => undefined,
    armDocument: async () => undefined,
    ruleOf: (url) => ruleFor(url, personRules),
  });
}

const framedContent: Frames["content"] = (tabId, op, args) => fx.content(tabId, op, args);
const refBox: Frames["refBox"] = (tabId, ref, scroll) => fx.refBox(tabId, ref, scroll);

beforeEach(() => {
  sent = [];
  personRules = [];
  fakePort(); // a new worker's memory and storage per test
});

/**
 * The marks a content script answers with its snapshot (lib/page/snapshot-yaml.ts):
 * every ref line's when asked (refMarks), else only the [cross-origin]
 * iframe lines'. The fixtures here are our own text, so reading it is fine.
 */
function marksOf(snapshot: string, all: boolean): number[] {
  const out: number[] = [];
  snapshot.split("\n").forEach((line, i) => {
    const at = line.lastIndexOf(" [ref=");
    if (at < 0) return;
    const cross = line.indexOf(" [cross-origin]");
    if (all || cross >= 0) out.push(i, at + 6, cross);
  });
  return out;
}

function withMarks(msg: CsMessage, r: unknown): unknown {
  const mark = (res: unknown, args: unknown) => {
    const x = res as { snapshot?: unknown; marks?: unknown } | undefined;
    if (!x || typeof x.snapshot !== "string" || x.marks !== undefined) return res;
    return { ...x, marks: marksOf(x.snapshot, (args as { refMarks?: boolean } | undefined)?.refMarks === true) };
  };
  if (msg.op === "snapshot") return mark(r, msg.args);
  if (msg.op === "frame_link") {
    const x = r as { snapshot?: unknown };
    if (x?.snapshot) return { ...x, snapshot: mark(x.snapshot, (msg.args as { snapshot?: unknown }).snapshot) };
  }
  return r;
}

/** A child document that answers frame_link with what its parent posted into it. */
function child(snapshot: string, got: () => string[], extra: Partial<Record<string, (a: unknown) => unknown>> = {}): Doc {
  return (msg) => {
    if (msg.op === "frame_link") {
      const a = msg.args as { expect: string[]; snapshot?: object };
      const tokens = got().filter((t) => a.expect.includes(t));
      // As content.ts: a frame that got a token answers its snapshot along with it.
      return { inlined: false, tokens, ...(a.snapshot && tokens.length > 0 ? { snapshot: { snapshot, viewport: [] } } : {}) };
    }
    if (msg.op === "snapshot") return { snapshot, viewport: [] };
    const h = extra[msg.op];
    if (h) return h(msg.args);
    throw new Error(`unexpected ${msg.op}`);
  };
}

describe("framedContent", () => {
  const topYaml = '- heading "Pay" [level=1] [ref=e1]\n- iframe "Card" [cross-origin] [ref=e2]\n- iframe "Ad" [cross-origin] [ref=e3]';
  let round: Record<string, string>;
  beforeEach(() => {
    frames = [
      { frameId: 0, parentFrameId: -1, documentId: "TOP", url: "http://127.0.0.1/" },
      { frameId: 4, parentFrameId: 0, documentId: "CARD", url: "http://localhost/card" },
      { frameId: 7, parentFrameId: 0, documentId: "AD", url: "http://localhost/ad" },
    ];
    round = {};
    let n = 0;
    docs = {
      TOP: (msg) => {
        if (msg.op !== "snapshot") throw new Error(`top: ${msg.op}`);
        // The tokens the worker issued, in order (fresh ones past them).
        const issued = [...((msg.args as { linkTokens?: string[] }).linkTokens ?? [])];
        round = { e2: issued.shift() ?? `t${++n}`, e3: issued.shift() ?? `t${++n}` };
        return { snapshot: topYaml, viewport: ["e1", "e2"], refHigh: 3, links: round };
      },
    };
  });

  it("stitches each frame under the iframe line its token came back from, with refs naming the frame", async () => {
    docs.CARD = child('- textbox "Card number" [ref=e1]', () => [round.e2!]);
    docs.AD = child('- button "Offer" [ref=e1]', () => [round.e3!]);
    const r = await framedContent(1, "snapshot", {});
    expect(r.snapshot).toBe(
      '- heading "Pay" [level=1] [ref=e1]\n- iframe "Card" [ref=e2]:\n  - textbox "Card number" [ref=f1e1]\n- iframe "Ad" [ref=e3]:\n  - button "Offer" [ref=f2e1]',
    );
    expect(r.links).toBeUndefined();
    // One question per frame: each answered its snapshot with its token.
    expect(sent.filter((m) => m.to !== "TOP").map((m) => `${m.to}:${m.op}`)).toEqual(["CARD:frame_link", "AD:frame_link"]);
    // The same documents again: the same frame numbers, and the links made
    // before still hold (neither document changed): the frames are only
    // asked for their snapshot.
    sent = [];
    const again = await framedContent(1, "snapshot", {});
    expect(again.snapshot).toBe(r.snapshot);
    expect(sent.filter((m) => m.to !== "TOP").map((m) => `${m.to}:${m.op}`)).toEqual(["CARD:snapshot", "AD:snapshot"]);
  });

  it("asks frames it linked before for their snapshot before the frame tree is read, and only those still in place", async () => {
    docs.CARD = child('- textbox "Card number" [ref=e1]', () => [round.e2!]);
    docs.AD = child('- button "Offer" [ref=e1]', () => [round.e3!]);
    const first = await framedContent(1, "snapshot", {});
    // The tree answers only once both linked frames were asked: a worker
    // that waited for the tree before asking them would never get it.
    const tree = frames;
    let release!: () => void;
    const bothAsked = new Promise<void>((r) => (release = r));
    const held = async () => {
      await bothAsked;
      return tree;
    };
    getAllFrames = held;
    sent = [];
    const inner = docs.AD!;
    docs.AD = (msg) => {
      if (msg.op === "snapshot") release();
      return inner(msg);
    };
    const again = await framedContent(1, "snapshot", {});
    expect(again.snapshot).toBe(first.snapshot);
    expect(sent.map((m) => `${m.to}:${m.op}`)).toEqual(["CARD:snapshot", "AD:snapshot", "TOP:snapshot"]);
    // The ad frame loads another document: its early question finds nobody,
    // and the new document is linked by a handshake of its own.
    frames = [tree[0]!, tree[1]!, { frameId: 7, parentFrameId: 0, documentId: "AD2", url: "http://localhost/ad2" }];
    getAllFrames = async () => frames;
    docs.AD2 = child('- button "New offer" [ref=e1]', () => [round.e3!]);
    sent = [];
    const third = await framedContent(1, "snapshot", {});
    expect(third.snapshot).toContain('- button "New offer" [ref=f3e1]');
    expect(third.snapshot).not.toContain("Offer\" [ref=f2e1]");
    expect(sent.map((m) => `${m.to}:${m.op}`)).toEqual(["CARD:snapshot", "AD:snapshot", "TOP:snapshot", "AD2:frame_link"]);
  });

  it("asks the frames while the top frame reads itself, with the tokens the worker issued it", async () => {
    // The top's snapshot answers only once the card frame was asked: a
    // worker that asked after the top's answer would never get one.
    let asked!: () => void;
    const cardAsked = new Promise<void>((r) => (asked = r));
    let posted!: (t: string) => void;
    const token = new Promise<string>((r) => (posted = r));
    docs.TOP = async (msg) => {
      const issued = (msg.args as { linkTokens: string[] }).linkTokens;
      await cardAsked;
      posted(issued[0]!); // the top page posts the first issued token into the card's iframe
      return { snapshot: '- iframe "Card" [cross-origin] [ref=e2]', viewport: [], links: { e2: issued[0]! } };
    };
    docs.CARD = async (msg) => {
      if (msg.op !== "frame_link") throw new Error(`card: ${msg.op}`);
      asked();
      const t = await token;
      const a = msg.args as { expect: string[] };
      return { inlined: false, tokens: a.expect.includes(t) ? [t] : [], snapshot: { snapshot: '- textbox "Card number" [ref=e1]', viewport: [] } };
    };
    docs.AD = async () => ({ inlined: false, tokens: [] });
    const r = await framedContent(1, "snapshot", {});
    expect(r.snapshot).toBe('- iframe "Card" [ref=e2]:\n  - textbox "Card number" [ref=f1e1]');
  });

  it("a token the top's content script took itself (none issued for it) links nothing", async () => {
    docs.TOP = () => ({ snapshot: topYaml, viewport: [], links: { e2: "self-made", e3: "self-made-2" } });
    docs.CARD = child('- textbox "Card number" [ref=e1]', () => ["self-made"]);
    docs.AD = child('- button "Offer" [ref=e1]', () => ["self-made-2"]);
    expect((await framedContent(1, "snapshot", {})).snapshot).toBe(topYaml);
  });

  it("a frame that claims a token nobody issued (it answers tokens it was not asked for) links nothing", async () => {
    docs.TOP = () => ({ snapshot: topYaml, viewport: [], links: { e2: "made-up", e3: "made-up-2" } });
    // A compromised card frame answers the page's own token, unasked.
    const card: Doc = (msg) =>
      msg.op === "frame_link" ? { inlined: false, tokens: ["made-up"], snapshot: { snapshot: '- textbox "Card number" [ref=e1]', viewport: [] } } : { snapshot: "", viewport: [] };
    docs.CARD = card;
    docs.AD = child("", () => []);
    expect((await framedContent(1, "snapshot", {})).snapshot).toBe(topYaml);
  });

  it("a token passed on from one frame to the other stitches neither wrong", async () => {
    // The ad's token also reached the card frame (the page relayed it).
    docs.CARD = child('- textbox "Card number" [ref=e1]', () => [round.e2!, round.e3!]);
    docs.AD = child('- button "Offer" [ref=e1]', () => [round.e3!]);
    const r = await framedContent(1, "snapshot", {});
    expect(r.snapshot).toBe(topYaml);
  });

  it("sends an op on a frame ref to that frame document with its own ref, and names the frame ref in its errors", async () => {
    const clicks: unknown[] = [];
    docs.CARD = child('- textbox "Card number" [ref=e1]', () => [round.e2!], {
      click: (a) => {
        clicks.push(a);
        return {};
      },
      hover: () => {
        throw new Error("ref e9 was not found on this page; take a new browser_snapshot and use a ref from it");
      },
    });
    docs.AD = child("", () => []);
    await framedContent(1, "snapshot", {});
    await framedContent(1, "click", { ref: "f1e1" });
    expect(clicks).toEqual([{ ref: "e1" }]);
    expect(sent.at(-1)).toMatchObject({ to: "CARD", op: "click" });
    await expect(framedContent(1, "hover", { ref: "f1e9" })).rejects.toThrow("ref f1e9 was not found");
    await expect(framedContent(1, "click", { ref: "f9e1" })).rejects.toThrow("not on the page any more");
    await expect(framedContent(1, "drag", { startRef: "e1", endRef: "f1e1" })).rejects.toThrow("different frames");
  });

  it("a frame ref of a document the frame no longer shows is refused, never sent to the new one", async () => {
    docs.CARD = child('- textbox "Card number" [ref=e1]', () => [round.e2!]);
    docs.AD = child("", () => []);
    await framedContent(1, "snapshot", {});
    // The card frame loads another document; a snapshot numbers it anew.
    frames[1] = { ...frames[1]!, documentId: "CARD2" };
    docs.CARD2 = child('- button "Done" [ref=e1]', () => [round.e2!]);
    const r = await framedContent(1, "snapshot", {});
    expect(r.snapshot).toContain('- button "Done" [ref=f2e1]');
    sent = [];
    await expect(framedContent(1, "click", { ref: "f1e1" })).rejects.toThrow("not on the page any more");
    expect(sent).toEqual([]);
  });

  it("a frame that went away since the snapshot: its ref is refused as gone", async () => {
    docs.CARD = child('- textbox "Card number" [ref=e1]', () => [round.e2!]);
    docs.AD = child("", () => []);
    await framedContent(1, "snapshot", {});
    // The iframe is removed: Chrome has neither the frame nor its document.
    frames.splice(1, 1);
    delete docs.CARD;
    await expect(framedContent(1, "click", { ref: "f1e1" })).rejects.toThrow("ref f1e1 is in a frame that is not on the page any more");
  });
});

/** A box as the content script's rect answers it, in its document's reachable viewport (visible: cut to it). */
function box(x: number, y: number, width: number, height: number, vw = 1000, vh = 800): ElementBox {
  const vx = Math.max(0, x);
  const vy = Math.max(0, y);
  return {
    x, y, width, height, dpr: 1, viewportWidth: vw, viewportHeight: vh,
    visible: { x: vx, y: vy, width: Math.max(0, Math.min(vw, x + width) - vx), height: Math.max(0, Math.min(vh, y + height) - vy) },
  };
}

describe("frames on the page: boxes and points", () => {
  // The top page holds the card frame (e2, content box at 100,200, 400×300);
  // the card frame holds a nested frame (its e5, content box at 10,250,
  // 300×100, so partly below the card frame's viewport).
  let round: Record<string, string>;
  let inner: Record<string, string>;
  let topXy: Array<Record<string, unknown>>;
  let cardXy: Array<Record<string, unknown>>;
  let nestXy: Array<Record<string, unknown>>;
  beforeEach(() => {
    frames = [
      { frameId: 0, parentFrameId: -1, documentId: "TOP", url: "http://127.0.0.1/" },
      { frameId: 4, parentFrameId: 0, documentId: "CARD", url: "http://localhost/card" },
      { frameId: 9, parentFrameId: 4, documentId: "NEST", url: "http://127.0.0.1:2/nest" },
    ];
    round = {};
    inner = {};
    topXy = [];
    cardXy = [];
    nestXy = [];
    let n = 0;
    docs = {
      TOP: (msg) => {
        const a = msg.args as Record<string, unknown>;
        if (msg.op === "snapshot") {
          round = { e2: (a.linkTokens as string[] | undefined)?.[0] ?? `t${++n}` };
          return { snapshot: '- iframe "Card" [cross-origin] [ref=e2]', viewport: [], links: round };
        }
        if (msg.op === "frame_tokens") {
          round = { e2: `t${++n}` };
          return { links: round };
        }
        if (msg.op === "rect" && a.ref === "e2" && a.content === true) return box(100, 200, 400, 300);
        if (msg.op === "click_xy" || msg.op === "drag_xy") {
          topXy.push(a);
          const x = (a.x ?? a.startX) as number;
          if (x >= 100 && x < 500) return msg.op === "click_xy" ? { target: "<iframe#card>", into: { ref: "e2", x: x - 100, y: (a.y as number) - 200 } } : { target: "<iframe#card>", into: { ref: "e2", x: x - 100, y: (a.startY as number) - 200, endX: (a.endX as number) - 100, endY: (a.endY as number) - 200 } };
          return { target: "<button#top>", dialogs: [] };
        }
        throw new Error(`top: ${msg.op}`);
      },
      CARD: (msg) => {
        const a = msg.args as Record<string, unknown>;
        const snap = (issued?: string[]) => {
          inner = { e5: issued?.[0] ?? `i${++n}` };
          return { snapshot: '- textbox "Card number" [ref=e1]\n- iframe "Nest" [cross-origin] [ref=e5]', viewport: [], links: inner };
        };
        if (msg.op === "frame_link") {
          const tokens = Object.values(round).filter((t) => (a.expect as string[]).includes(t));
          return { inlined: false, tokens, ...(a.snapshot && tokens.length > 0 ? { snapshot: snap((a.snapshot as { linkTokens?: string[] }).linkTokens) } : {}) };
        }
        if (msg.op === "snapshot") return snap();
        if (msg.op === "frame_tokens") {
          inner = { e5: `i${++n}` };
          return { links: inner };
        }
        if (msg.op === "rect" && a.ref === "e1") return box(20, 30, 200, 40, 400, 300);
        if (msg.op === "rect" && a.ref === "e5" && a.content === true) return box(10, 250, 300, 100, 400, 300);
        if (msg.op === "click_xy") {
          cardXy.push(a);
          if ((a.y as number) >= 250) return { target: "<iframe#nest>", into: { ref: "e5", x: (a.x as number) - 10, y: (a.y as number) - 250 }, dialogs: [{ type: "alert", message: "card says", accepted: true, armed: false }] };
          return { target: "<input#number>" };
        }
        if (msg.op === "drag_xy") {
          cardXy.push(a);
          return { target: "<div#slider>" };
        }
        throw new Error(`card: ${msg.op}`);
      },
      NEST: (msg) => {
        const a = msg.args as Record<string, unknown>;
        if (msg.op === "frame_link") {
          const tokens = Object.values(inner).filter((t) => (a.expect as string[]).includes(t));
          return { inlined: false, tokens, ...(a.snapshot && tokens.length > 0 ? { snapshot: { snapshot: '- button "Hello" [ref=e1]', viewport: [] } } : {}) };
        }
        if (msg.op === "rect" && a.ref === "e1") return box(5, 60, 50, 30, 300, 100);
        if (msg.op === "click_xy") {
          nestXy.push(a);
          return { target: "<button#hello>" };
        }
        throw new Error(`nest: ${msg.op}`);
      },
    };
  });

  it("a frame ref's box is its box in its frame plus each iframe's content box, cut by each frame's viewport", async () => {
    const snap = await framedContent(1, "snapshot", {});
    expect(snap.snapshot).toContain('- button "Hello" [ref=f2e1]');
    const card = await refBox(1, "f1e1");
    expect(card).toMatchObject({ x: 120, y: 230, width: 200, height: 40, viewportWidth: 1000, viewportHeight: 800 });
    expect(card.visible).toEqual({ x: 120, y: 230, width: 200, height: 40 });
    // Nested: 100+10+5, 200+250+60; the card frame's viewport ends at y 200+300.
    const hello = await refBox(1, "f2e1");
    expect(hello).toMatchObject({ x: 115, y: 510, width: 50, height: 30 });
    expect(hello.visible.height).toBe(0);
    // Scrolled into view outermost first: the top's iframe, the card's iframe, then the element.
    const scrolls = sent.filter((m) => m.op === "rect" && (m.args as { scroll?: boolean }).scroll === true).map((m) => `${m.to}:${(m.args as { ref: string }).ref}`);
    expect(scrolls.slice(-3)).toEqual(["TOP:e2", "CARD:e5", "NEST:e1"]);
  });

  it("a frame ref whose frame was not linked in a snapshot has no known place", async () => {
    await expect(refBox(1, "f1e1")).rejects.toThrow("not on the page any more");
  });

  it("click_xy on a frame's area goes on to the frame behind that iframe, nested too, with the point in each frame's viewport", async () => {
    // No snapshot first: the link comes from a round of its own.
    const r = await framedContent(1, "click_xy", { x: 140, y: 460 });
    expect(topXy).toEqual([{ x: 140, y: 460 }]);
    expect(cardXy).toEqual([{ x: 40, y: 260 }]);
    expect(nestXy).toEqual([{ x: 30, y: 10 }]);
    expect(r.target).toBe("<button#hello>");
    // The dialogs reported on the way are kept.
    expect(r.dialogs?.map((d) => d.message)).toEqual(["card says"]);
    // The second time the links are known: no new round.
    sent = [];
    await framedContent(1, "click_xy", { x: 140, y: 230 });
    expect(sent.map((m) => `${m.to}:${m.op}`)).toEqual(["TOP:click_xy", "CARD:click_xy"]);
    // Outside the frames: the top page's own element.
    expect((await framedContent(1, "click_xy", { x: 600, y: 10 })).target).toBe("<button#top>");
  });

  it("drag_xy within a frame goes to that frame with both points in its viewport", async () => {
    await framedContent(1, "drag_xy", { startX: 150, startY: 250, endX: 300, endY: 260 });
    expect(cardXy).toEqual([{ startX: 50, startY: 50, endX: 200, endY: 60 }]);
  });

  it("a point on a frame nobody links (a page that spoofs, a frame with no content script) is refused, nothing clicked", async () => {
    docs.CARD = (msg) => {
      if (msg.op === "frame_link") return { inlined: false, tokens: ["made-up"] };
      throw new Error(`card: ${msg.op}`);
    };
    await expect(framedContent(1, "click_xy", { x: 140, y: 230 })).rejects.toThrow("whose page monkbrowse cannot reach");
    expect(sent.filter((m) => m.to === "CARD").map((m) => m.op)).toEqual(["frame_link"]);
  });
});

describe("site rules in frames (issue 44: the rules hold everywhere)", () => {
  const topYaml = '- heading "Shop" [level=1] [ref=e1]\n- iframe "Card" [cross-origin] [ref=e2]\n- iframe "Ad" [cross-origin] [ref=e3]';
  let round: Record<string, string>;
  let touched: string[];
  beforeEach(() => {
    frames = [
      { frameId: 0, parentFrameId: -1, documentId: "TOP", url: "http://shop.test/" },
      { frameId: 4, parentFrameId: 0, documentId: "CARD", url: "http://never.test/card" },
      { frameId: 7, parentFrameId: 0, documentId: "AD", url: "http://ro.test/ad" },
      { frameId: 8, parentFrameId: 4, documentId: "INNER", url: "about:blank" },
    ];
    round = {};
    touched = [];
    let n = 0;
    const record = (who: string, result: unknown) => (a: unknown) => (touched.push(`${who}:${JSON.stringify(a)}`), result);
    docs = {
      TOP: (msg) => {
        if (msg.op === "snapshot") {
          const issued = [...((msg.args as { linkTokens?: string[] }).linkTokens ?? [])];
          round = { e2: issued.shift() ?? `t${++n}`, e3: issued.shift() ?? `t${++n}` };
          return { snapshot: topYaml, viewport: ["e1", "e2", "e3"], refHigh: 3, links: round };
        }
        if (msg.op === "get_text") return { text: "Shop" };
        if (msg.op === "console_logs") return { logs: [{ level: "log", text: "top says", time: 1 }] };
        if (msg.op === "click_xy") return { target: "<iframe#card>", into: { ref: "e2", x: 5, y: 5 } };
        if (msg.op === "press_key") return record("TOP", {})(msg.args);
        if (msg.op === "frame_tokens") {
          round = { e2: `t${++n}`, e3: `t${++n}` };
          return { links: round };
        }
        const a = msg.args as { ref?: string; content?: boolean };
        if (msg.op === "rect" && a.ref === "e2" && a.content === true) return box(100, 200, 400, 300);
        if (msg.op === "rect" && a.ref === "e3" && a.content === true) return box(100, 600, 400, 100);
        throw new Error(`top: ${msg.op}`);
      },
      CARD: child('- textbox "SECRET-CARD" [ref=e1]', () => [round.e2!], {
        click: record("CARD", {}),
        type: record("CARD", {}),
        get_text: record("CARD", { text: "SECRET-CARD" }),
        console_logs: record("CARD", { logs: [{ level: "log", text: "SECRET-CARD log", time: 2 }] }),
        click_xy: record("CARD", { target: "<input>" }),
        rect: record("CARD", { x: 0, y: 0, width: 1, height: 1, visible: { x: 0, y: 0, width: 1, height: 1 }, dpr: 1, viewportWidth: 1, viewportHeight: 1 }),
        secret_boxes: record("CARD", { boxes: [], scrollX: 0, scrollY: 0 }),
        focus: () => ({ focused: true }),
      }),
      AD: child('- textbox "Coupon" [ref=e1]', () => [round.e3!], {
        type: record("AD", {}),
        get_text: () => ({ text: "Coupon text" }),
        console_logs: () => ({ logs: [{ level: "log", text: "ad says", time: 3 }] }),
        focus: () => ({ focused: false }),
      }),
      INNER: (msg) => {
        if (msg.op !== "frame_link" && msg.op !== "focus") touched.push(`INNER:${msg.op}`);
        if (msg.op === "get_text") return { text: "SECRET-INNER" };
        if (msg.op === "console_logs") return { logs: [{ level: "log", text: "SECRET-INNER", time: 4 }] };
        if (msg.op === "focus") return { focused: false };
        return { inlined: false, tokens: [] };
      },
    };
  });

  /** Every message a blocked document (the never frame, the frame inside it) got, but the link handshake's own question. */
  const beyondLink = () => sent.filter((m) => (m.to === "CARD" || m.to === "INNER") && !(m.op === "frame_link" && !("snapshot" in (m.args as object))));

  it("a frame on a never site is one line in the snapshot, asked for nothing but its link, and neither its text nor its console is read", async () => {
    personRules = [{ pattern: "never.test", rule: "never" }];
    const r = await framedContent(1, "snapshot", {});
    expect(r.snapshot).toBe(
      '- heading "Shop" [level=1] [ref=e1]\n- iframe "Card" [blocked by your site rules: never on never.test] [ref=e2]\n- iframe "Ad" [ref=e3]:\n  - textbox "Coupon" [ref=f2e1]',
    );
    expect(beyondLink()).toEqual([]);
    // Linked before: not even asked for its link again.
    sent = [];
    expect((await framedContent(1, "snapshot", {})).snapshot).toBe(r.snapshot);
    expect(sent.filter((m) => m.to === "CARD")).toEqual([]);
    const text = await framedContent(1, "get_text", {});
    expect(text.text).toContain("Coupon text");
    expect(text.text).not.toContain("SECRET");
    const logs = await framedContent(1, "console_logs", {});
    expect(logs.logs.map((l) => l.text)).toEqual(["top says", "[frame http://ro.test] ad says"]);
    await fx.secretBoxes(1);
    expect(beyondLink()).toEqual([]);
    expect(touched).toEqual([]);
  });

  it("a ref into a frame that became never is refused for every op, naming the rule; nothing reaches the frame", async () => {
    await framedContent(1, "snapshot", {}); // the rules allowed it then: f1e1 is the card's textbox
    personRules = [{ pattern: "never.test", rule: "never" }];
    sent = [];
    for (const [op, args] of [
      ["click", { ref: "f1e1" }],
      ["type", { ref: "f1e1", text: "4111" }],
      ["get_text", { ref: "f1e1" }],
    ] as const) {
      const err = await framedContent(1, op, args as never).catch((e: unknown) => e);
      expect(errorCode(err), op).toBe("site_rule");
      expect((err as Error).message).toContain("ref f1e1 is in a frame of the page on never.test, a site the person's site rules keep from the AI (never: never.test)");
    }
    await expect(refBox(1, "f1e1")).rejects.toThrow("(never: never.test)");
    await expect(fx.refFrame(1, "f1e1")).rejects.toThrow("(never: never.test)");
    expect(await fx.refRule(1, "f1e1")).toMatchObject({ fromTop: false, rule: { rule: "never" } });
    expect(await fx.refRule(1, "e2")).toBeNull();
    expect(sent.filter((m) => m.to === "CARD")).toEqual([]);
    expect(touched).toEqual([]);
  });

  it("a point on a never frame and a key for its focused field are refused; nothing reaches it", async () => {
    personRules = [{ pattern: "never.test", rule: "never" }];
    await framedContent(1, "snapshot", {});
    const err = await framedContent(1, "click_xy", { x: 120, y: 220 }).catch((e: unknown) => e);
    expect(errorCode(err)).toBe("site_rule");
    expect((err as Error).message).toMatch(/^Not done: the point \(<iframe#card>\) is in a frame of the page on never\.test/);
    const key = await framedContent(1, "press_key", { key: "a" }).catch((e: unknown) => e);
    expect(errorCode(key)).toBe("site_rule");
    expect((key as Error).message).toContain("the focused element is in a frame of the page on never.test");
    expect(touched).toEqual([]);
  });

  it("a frame on a read-only site reads and refuses actions by ref, at a point and at its focus", async () => {
    personRules = [{ pattern: "ro.test", rule: "read_only" }];
    const r = await framedContent(1, "snapshot", {});
    expect(r.snapshot).toContain('- textbox "Coupon" [ref=f2e1]');
    expect(r.snapshot).toContain('- textbox "SECRET-CARD" [ref=f1e1]'); // never.test has no rule here
    const err = await framedContent(1, "type", { ref: "f2e1", text: "SAVE10" }).catch((e: unknown) => e);
    expect(errorCode(err)).toBe("site_rule");
    expect((err as Error).message).toMatch(/^Not done: ref f2e1 is in a frame of the page on ro\.test, which the person's site rules make read only for the AI \(ro\.test\): reading the frame works, but to type there is refused/);
    expect(touched.filter((t) => t.startsWith("AD"))).toEqual([]);
    // Acting in the card frame (act) still works.
    await framedContent(1, "type", { ref: "f1e1", text: "4111" });
    expect(touched).toEqual(['CARD:{"ref":"e1","text":"4111"}']);
  });

  it("a screenshot paints a never frame over whole, linked first when no snapshot did; its own secret fields are not asked for", async () => {
    personRules = [{ pattern: "never.test", rule: "never" }];
    docs.AD = child("", () => [round.e3!], { secret_boxes: () => ({ boxes: [], scrollX: 0, scrollY: 0 }) });
    // No snapshot before: the top frame posts its tokens and the frames answer with their link only.
    expect(await fx.blockedBoxes(1)).toEqual([{ x: 100, y: 200, width: 400, height: 300 }]);
    expect(sent.map((m) => `${m.to}:${m.op}`)).toContain("TOP:frame_tokens");
    expect(await fx.secretBoxes(1)).toEqual([]);
    expect(beyondLink()).toEqual([]);
    expect(touched).toEqual([]);
    // Without the rule, nothing is painted over but the frame's own secret fields.
    personRules = [];
    expect(await fx.blockedBoxes(1)).toEqual([]);
    expect(await fx.secretBoxes(1)).toEqual([]);
    expect(touched).toEqual(["CARD:{}"]);
  });

  it("real input (the debugger mode's) is refused at a point on a stricter frame's area, at a ref in it and on its focus", async () => {
    personRules = [
      { pattern: "never.test", rule: "never" },
      { pattern: "ro.test", rule: "read_only" },
    ];
    const refused = async (op: string, args: Record<string, unknown>) => {
      const err = await fx.guardInput(1, op, args).then(() => undefined, (e: unknown) => e);
      return err === undefined ? undefined : `${errorCode(err)}: ${(err as Error).message}`;
    };
    // No snapshot before: the frames' places are linked for the question.
    expect(await refused("click_xy", { x: 120, y: 220 })).toMatch(/^site_rule: Not done: the point \(120, 220\) is in a frame of the page on never\.test/);
    expect(await refused("click_xy", { x: 120, y: 650 })).toMatch(/^site_rule: .*read only for the AI \(ro\.test\)/);
    expect(await refused("click_xy", { x: 600, y: 10 })).toBeUndefined();
    expect(await refused("drag_xy", { startX: 600, startY: 10, endX: 150, endY: 250 })).toMatch(/^site_rule: .*never\.test/);
    await framedContent(1, "snapshot", {});
    expect(await refused("hover", { ref: "f2e1" })).toMatch(/^site_rule: Not done: ref f2e1 is in a frame of the page on ro\.test/);
    expect(await refused("press_key", { key: "a" })).toMatch(/^site_rule: Not done: the focused element is in a frame of the page on never\.test/);
    personRules = [];
    expect(await refused("click_xy", { x: 120, y: 220 })).toBeUndefined();
    expect(await refused("hover", { ref: "f2e1" })).toBeUndefined();
    expect(touched).toEqual([]);
    // Asked nothing but its link and whether it holds the focus (press_key's question to every frame).
    expect(beyondLink().filter((m) => m.op !== "focus")).toEqual([]);
  });

  it("describe (the ask question's targets) of a frame ref goes to its frame; of a never frame's, is refused", async () => {
    docs.AD = child('- textbox "Coupon" [ref=e1]', () => [round.e3!], { describe: (a) => ({ targets: (a as { refs: string[] }).refs.map((r) => ({ role: "textbox", name: `Coupon ${r}`, secret: false })) }) });
    await framedContent(1, "snapshot", {});
    expect((await framedContent(1, "describe", { refs: ["f2e1"] })).targets).toEqual([{ role: "textbox", name: "Coupon e1", secret: false }]);
    personRules = [{ pattern: "ro.test", rule: "never" }];
    expect(errorCode(await framedContent(1, "describe", { refs: ["f2e1"] }).catch((e: unknown) => e))).toBe("site_rule");
  });

  it("a frame inside a never frame (about:blank) is kept off with it", async () => {
    personRules = [{ pattern: "never.test", rule: "never" }];
    await framedContent(1, "get_text", {});
    await framedContent(1, "console_logs", {});
    expect(sent.filter((m) => m.to === "INNER")).toEqual([]);
  });
});
