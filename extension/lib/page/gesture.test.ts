// @vitest-environment happy-dom
// The pointer sequence of browser_drag_xy (gesture.ts, xy.ts): what canvas
// whiteboards, sliders and pointer-event drag libraries need to see.
import { beforeEach, describe, expect, it } from "vitest";
import { dragPath, MAX_MOVES, MIN_MOVES, MOVE_STEP_PX, noteCapture } from "./gesture";
import { RefRegistry } from "./refs";
import { clickAt, dragAt } from "./xy";

let refs: RefRegistry;

/** Lays out el at (x, y, w, h) for getBoundingClientRect (happy-dom does no layout). */
function place(el: Element, x: number, y: number, w: number, h: number): void {
  el.getBoundingClientRect = () => ({ left: x, top: y, width: w, height: h, right: x + w, bottom: y + h, x, y, toJSON: () => ({}) }) as DOMRect;
}

describe("dragPath", () => {
  it("spaces the moves at most MOVE_STEP_PX apart, between MIN_MOVES and MAX_MOVES of them, ending on the target", () => {
    const short = dragPath({ x: 0, y: 0 }, { x: 10, y: 0 });
    expect(short).toHaveLength(MIN_MOVES);
    const mid = dragPath({ x: 0, y: 0 }, { x: 300, y: 400 });
    expect(mid).toHaveLength(Math.ceil(500 / MOVE_STEP_PX));
    expect(mid.at(-1)).toEqual({ x: 300, y: 400 });
    for (let i = 1; i < mid.length; i++) expect(Math.hypot(mid[i]!.x - mid[i - 1]!.x, mid[i]!.y - mid[i - 1]!.y)).toBeLessThanOrEqual(MOVE_STEP_PX);
    expect(dragPath({ x: 0, y: 0 }, { x: 5000, y: 0 })).toHaveLength(MAX_MOVES);
  });
});

describe("drag_xy on a canvas whiteboard", () => {
  let board: HTMLCanvasElement;
  let outside: HTMLDivElement;
  beforeEach(() => {
    document.body.innerHTML = `<canvas id="board"></canvas><div id="outside"></div>`;
    refs = new RefRegistry();
    board = document.getElementById("board") as HTMLCanvasElement;
    outside = document.getElementById("outside") as HTMLDivElement;
    place(board, 0, 0, 400, 300);
    document.elementFromPoint = (x: number, y: number) => (x < 400 && y < 300 ? board : outside);
  });

  it("draws the dragged size: the app reads moves in animation frames, as Excalidraw does", async () => {
    // The app: pointerdown starts a shape and captures the pointer; moves
    // are applied in the next frame; pointerup keeps the shape as drawn.
    const shapes: { w: number; h: number }[] = [];
    let drawing: { x: number; y: number; w: number; h: number; pending: PointerEvent | null } | null = null;
    let moves = 0;
    let frames = 0;
    board.addEventListener("pointerdown", (e) => {
      board.setPointerCapture(e.pointerId);
      noteCapture(board, true); // what the MAIN-world hooks report
      drawing = { x: e.clientX, y: e.clientY, w: 0, h: 0, pending: null };
    });
    board.addEventListener("pointermove", (e) => {
      if (!drawing || e.buttons !== 1) return;
      moves++;
      const first = drawing.pending === null;
      drawing.pending = e;
      if (first) {
        requestAnimationFrame(() => {
          frames++;
          if (!drawing?.pending) return;
          drawing.w = drawing.pending.clientX - drawing.x;
          drawing.h = drawing.pending.clientY - drawing.y;
          drawing.pending = null;
        });
      }
    });
    board.addEventListener("pointerup", () => {
      if (drawing) shapes.push({ w: drawing.w, h: drawing.h });
      drawing = null;
    });
    const r = await dragAt(document, refs, { startX: 50, startY: 40, endX: 250, endY: 190 });
    expect(r.target).toBe("<canvas#board>");
    expect(moves).toBeGreaterThanOrEqual(MIN_MOVES);
    expect(frames).toBeGreaterThanOrEqual(moves - 1);
    expect(shapes).toEqual([{ w: 200, h: 150 }]);
  });

  it("presses with buttons=1, moves with buttons=1 to the element under each point, then releases and clicks", async () => {
    const seen: string[] = [];
    for (const t of ["pointerdown", "mousedown", "pointermove", "pointerover", "pointerup", "mouseup", "click"]) {
      document.addEventListener(t, (e) => seen.push(`${e.type}@${(e.target as Element).id}:${(e as MouseEvent).buttons}`), true);
    }
    // From the canvas out below its edge: the moves there reach #outside.
    await dragAt(document, refs, { startX: 300, startY: 100, endX: 300, endY: 400 });
    const pressed = seen.indexOf("pointerdown@board:1");
    expect(pressed).toBeGreaterThanOrEqual(0);
    expect(seen[pressed + 1]).toBe("mousedown@board:1");
    const moves = seen.slice(pressed).filter((s) => s.startsWith("pointermove@"));
    expect(moves.length).toBeGreaterThanOrEqual(MIN_MOVES);
    expect(moves.every((s) => s.endsWith(":1"))).toBe(true);
    expect(moves).toContain("pointermove@board:1");
    expect(moves.at(-1)).toBe("pointermove@outside:1");
    // Crossing onto #outside: its over and enter first, with the button held.
    expect(seen).toContain("pointerover@outside:1");
    expect(seen.slice(-3)).toEqual(["pointerup@outside:0", "mouseup@outside:0", "click@:0"]);
  });

  it("gives each move its step as movementX/Y", async () => {
    const steps: [number, number][] = [];
    board.addEventListener("pointermove", (e) => {
      if (e.buttons === 1) steps.push([e.movementX, e.movementY]);
    });
    await dragAt(document, refs, { startX: 10, startY: 10, endX: 170, endY: 10 });
    expect(steps).toHaveLength(10);
    expect(steps.every(([x, y]) => x === 16 && y === 0)).toBe(true);
  });

  it("with capture, moves and the release over another element still go to the capturing one", async () => {
    const seen: string[] = [];
    for (const t of ["pointermove", "pointerup"]) document.addEventListener(t, (e) => seen.push(`${e.type}@${(e.target as Element).id}`), true);
    // The target point is on #outside (x ≥ 400 is outside the canvas in this layout).
    document.elementFromPoint = (x: number, y: number) => (x < 200 && y < 300 ? board : outside);
    board.addEventListener("pointerdown", () => noteCapture(board, true), { once: true });
    for (const t of ["gotpointercapture", "lostpointercapture"]) document.addEventListener(t, (e) => seen.push(`${e.type}@${(e.target as Element).id}`), true);
    await dragAt(document, refs, { startX: 100, startY: 100, endX: 300, endY: 100 });
    expect(seen.some((s) => s.endsWith("@outside"))).toBe(false);
    // The page is told of its capture before the first move, and of its end after the release.
    expect(seen.filter((s) => s.includes("capture"))).toEqual(["gotpointercapture@board", "lostpointercapture@board"]);
    // seen[0] is the hover move before the press.
    expect(seen.slice(0, 3)).toEqual(["pointermove@board", "gotpointercapture@board", "pointermove@board"]);
    expect(seen.slice(-2)).toEqual(["pointerup@board", "lostpointercapture@board"]);
    seen.length = 0;
    // Without capture the same drag ends on #outside.
    await dragAt(document, refs, { startX: 100, startY: 100, endX: 300, endY: 100 });
    expect(seen.at(-1)).toBe("pointerup@outside");
    expect(seen.filter((s) => s === "pointermove@outside").length).toBeGreaterThan(0);
  });

  it("a click by coordinates presses and releases in separate tasks", async () => {
    const order: string[] = [];
    board.addEventListener("pointerdown", () => {
      order.push("down");
      queueMicrotask(() => order.push("page ran"));
      setTimeout(() => order.push("task ran"), 0);
    });
    board.addEventListener("pointerup", () => order.push("up"));
    board.addEventListener("click", () => order.push("click"));
    await clickAt(document, refs, { x: 10, y: 10 });
    expect(order.slice(0, 2)).toEqual(["down", "page ran"]);
    expect(order.indexOf("up")).toBeGreaterThan(order.indexOf("page ran"));
    expect(order.at(-1) === "click" || order.includes("click")).toBe(true);
  });
});

describe("drag_xy from a draggable element", () => {
  it("runs an HTML5 drag with one DataTransfer from dragstart to drop", async () => {
    document.body.innerHTML = `<div id="card" draggable="true">Card</div><div id="bin">Bin</div>`;
    refs = new RefRegistry();
    const card = document.getElementById("card")!;
    const bin = document.getElementById("bin")!;
    document.elementFromPoint = (x: number) => (x < 100 ? card : bin);
    const transfers = new Set<DataTransfer | null>();
    const seen: string[] = [];
    for (const t of ["dragstart", "dragenter", "dragover", "drop", "dragend"]) {
      document.addEventListener(t, (e) => {
        seen.push(`${e.type}@${(e.target as Element).id}`);
        transfers.add((e as DragEvent).dataTransfer);
      }, true);
    }
    card.addEventListener("dragstart", (e) => (e as DragEvent).dataTransfer?.setData("text/plain", "card"));
    bin.addEventListener("dragover", (e) => e.preventDefault());
    let dropped = "";
    bin.addEventListener("drop", (e) => (dropped = (e as DragEvent).dataTransfer?.getData("text/plain") ?? ""));
    await dragAt(document, refs, { startX: 20, startY: 10, endX: 300, endY: 10 });
    expect(seen[0]).toBe("dragstart@card");
    expect(seen).toContain("dragover@bin");
    expect(seen.slice(-2)).toEqual(["drop@bin", "dragend@card"]);
    expect(transfers.size).toBe(1);
    expect(dropped).toBe("card");
  });
});

describe("the page's pointer capture, seen through the MAIN-world hooks", () => {
  it("setPointerCapture and releasePointerCapture reach noteCapture; the page's call still runs", async () => {
    const { installPageHooks } = await import("./page-hooks");
    const { captureTarget } = await import("./gesture");
    const proto = Element.prototype as unknown as Record<string, unknown>;
    const calls: string[] = [];
    // happy-dom's stand-ins for the natives.
    proto.setPointerCapture = function (this: Element, id: number) {
      calls.push(`set ${this.id} ${id}`);
    };
    proto.releasePointerCapture = function (this: Element, id: number) {
      calls.push(`release ${this.id} ${id}`);
    };
    installPageHooks(window as unknown as Window & typeof globalThis, () => {}, () => false, () => {}, (el, on) => noteCapture(el, on));
    document.body.innerHTML = `<canvas id="c"></canvas>`;
    const c = document.getElementById("c")!;
    c.setPointerCapture(1);
    expect(captureTarget()).toBe(c);
    c.releasePointerCapture(1);
    expect(captureTarget()).toBeNull();
    expect(calls).toEqual(["set c 1", "release c 1"]);
  });
});
