// @title Whiteboard (Konva)
// A Konva whiteboard: a drag on empty board draws a rectangle (down, moves,
// up, as drawing apps do); the sun can be dragged. The stage's own shapes
// (stage.find) are on window.__state.
import Konva from "konva";

const root = document.getElementById("root");
root.innerHTML = `<h1>Whiteboard</h1><p>Drag on the board to draw a rectangle; drag the sun to move it.</p><div id="board" style="border:1px solid #888;width:600px;height:360px"></div>`;
const stage = new Konva.Stage({ container: "board", width: 600, height: 360 });
const layer = new Konva.Layer();
stage.add(layer);
layer.add(new Konva.Rect({ x: 0, y: 0, width: 600, height: 360, fill: "#f8f8f0", name: "background" }));
const sun = new Konva.Circle({ x: 480, y: 80, radius: 30, fill: "gold", draggable: true, id: "sun" });
layer.add(sun);
let drawing = null;
stage.on("pointerdown", (e) => {
  if (e.target !== stage && !e.target.hasName("background")) return;
  const p = stage.getPointerPosition();
  drawing = new Konva.Rect({ x: p.x, y: p.y, width: 0, height: 0, stroke: "blue", name: "drawn" });
  layer.add(drawing);
});
stage.on("pointermove", () => {
  if (!drawing) return;
  const p = stage.getPointerPosition();
  drawing.width(p.x - drawing.x());
  drawing.height(p.y - drawing.y());
});
stage.on("pointerup", () => { drawing = null; mirror(); });
sun.on("dragend", mirror);
function mirror() {
  window.__state = {
    rects: stage.find(".drawn").map((r) => ({ x: Math.round(r.x()), y: Math.round(r.y()), w: Math.round(r.width()), h: Math.round(r.height()) })),
    sun: { x: Math.round(sun.x()), y: Math.round(sun.y()) },
  };
}
mirror();
window.__stage = stage;
