// @vitest-environment happy-dom
// Points on a cross-origin frame's area (issue 26): answered as `into`, no
// event in this document; the frame's border stays this document's.
import { beforeEach, describe, expect, it } from "vitest";
import { RefRegistry } from "./refs";
import { clickAt, dragAt } from "./xy";

let refs: RefRegistry;
let frame: HTMLIFrameElement;
let events: string[];

/** Lays out el at (x, y, w, h) for getBoundingClientRect (happy-dom does no layout). */
function place(el: Element, x: number, y: number, w: number, h: number): void {
  el.getBoundingClientRect = () => ({ left: x, top: y, width: w, height: h, right: x + w, bottom: y + h, x, y, toJSON: () => ({}) }) as DOMRect;
}

beforeEach(() => {
  document.body.innerHTML = `<button id="top">Top</button><iframe id="card" style="border: 5px solid; padding: 0"></iframe>`;
  refs = new RefRegistry();
  frame = document.getElementById("card") as HTMLIFrameElement;
  // A cross-origin frame: its document is out of reach.
  Object.defineProperty(frame, "contentDocument", { value: null });
  place(frame, 100, 200, 410, 310);
  const button = document.getElementById("top")!;
  document.elementFromPoint = (x: number, y: number) => (x >= 100 && x < 510 && y >= 200 && y < 510 ? frame : button);
  events = [];
  for (const t of ["pointerdown", "mousedown", "mouseup", "click"]) document.addEventListener(t, (e) => events.push(`${e.type}@${(e.target as Element).id}`), true);
});

describe("click_xy and drag_xy over a cross-origin frame", () => {
  it("a point on the frame's content answers into with the point in the frame's viewport, and fires nothing here", async () => {
    const r = await clickAt(document, refs, { x: 140, y: 260 });
    expect(r.into).toEqual({ ref: refs.refFor(frame), x: 35, y: 55 });
    expect(events).toEqual([]);
  });
  it("a point on the frame's border is the iframe element's own", async () => {
    const r = await clickAt(document, refs, { x: 102, y: 260 });
    expect(r.into).toBeUndefined();
    expect(events).toContain("click@card");
  });
  it("a point elsewhere is clicked here", async () => {
    const r = await clickAt(document, refs, { x: 20, y: 20 });
    expect(r.into).toBeUndefined();
    expect(events).toContain("click@top");
  });
  it("a drag within the frame answers both points in its viewport; one that crosses its edge is refused before any event", async () => {
    expect((await dragAt(document, refs, { startX: 140, startY: 260, endX: 300, endY: 270 })).into).toEqual({ ref: refs.refFor(frame), x: 35, y: 55, endX: 195, endY: 65 });
    await expect(dragAt(document, refs, { startX: 140, startY: 260, endX: 20, endY: 20 })).rejects.toThrow("different frames");
    expect(events).toEqual([]);
  });
});
