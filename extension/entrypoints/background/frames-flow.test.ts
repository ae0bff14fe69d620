// The service worker's side of frames with a fake Chrome: the stitched
// snapshot from each frame's answers, and ops on frame refs sent to their
// frame document.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CsMessage } from "../../lib/messages";
import { setShareState } from "./gate";
import { framedContent, type FrameInfo } from "./frames";

setShareState({ ready: async () => undefined, shared: () => true });

type Doc = (msg: CsMessage) => unknown;

let docs: Record<string, Doc>;
let frames: FrameInfo[];
let sent: Array<{ to: string; op: string; args: unknown }>;

function fakeChrome() {
  const store = new Map<string, unknown>();
  vi.stubGlobal("chrome", {
    storage: {
      session: {
        get: async (k: string) => (store.has(k) ? { [k]: structuredClone(store.get(k)) } : {}),
        set: async (o: Record<string, unknown>) => {
          for (const [k, v] of Object.entries(o)) store.set(k, structuredClone(v));
        },
        remove: async (k: string) => void store.delete(k),
      },
    },
    webNavigation: { getAllFrames: async () => frames },
    tabs: {
      sendMessage: async (_tab: number, msg: CsMessage, opts: { frameId?: number; documentId?: string }) => {
        const to = opts.documentId ?? frames.find((f) => f.frameId === opts.frameId)!.documentId!;
        sent.push({ to, op: msg.op, args: msg.args });
        const d = docs[to];
        if (!d) throw new Error("Could not establish connection. Receiving end does not exist.");
        try {
          return { ok: true, result: await d(msg) };
        } catch (e) {
          return { ok: false, error: (e as Error).message };
        }
      },
    },
  });
}

beforeEach(() => {
  sent = [];
  fakeChrome();
});
afterEach(() => vi.unstubAllGlobals());

/** A child document that answers frame_link with what its parent posted into it. */
function child(snapshot: string, got: () => string[], extra: Partial<Record<string, (a: unknown) => unknown>> = {}): Doc {
  return (msg) => {
    if (msg.op === "frame_link") {
      const expect = (msg.args as { expect: string[] }).expect;
      return { inlined: false, tokens: got().filter((t) => expect.includes(t)) };
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
        round = { e2: `t${++n}`, e3: `t${++n}` };
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
    // The same documents again: the same frame numbers.
    const again = await framedContent(1, "snapshot", {});
    expect(again.snapshot).toBe(r.snapshot);
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
    vi.stubGlobal("chrome", {
      ...(globalThis as unknown as { chrome: object }).chrome,
      scripting: { executeScript: async () => Promise.reject(new Error("No document with id CARD")) },
    });
    await expect(framedContent(1, "click", { ref: "f1e1" })).rejects.toThrow("ref f1e1 is in a frame that is not on the page any more");
  });
});
