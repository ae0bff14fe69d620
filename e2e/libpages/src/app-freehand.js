// @title Sketch (perfect-freehand)
// A sketch pad: pointer events on a <canvas> feed perfect-freehand, whose
// outline is painted; the strokes (their input points) are on window.__state.
import { getStroke } from "perfect-freehand";

const root = document.getElementById("root");
root.innerHTML = `<h1>Sketch</h1><canvas id="pad" width="600" height="360" style="border:1px solid #888;touch-action:none"></canvas>`;
const pad = document.getElementById("pad");
const g = pad.getContext("2d");
const strokes = [];
let current = null;
function paint() {
  g.clearRect(0, 0, pad.width, pad.height);
  for (const s of [...strokes, ...(current ? [current] : [])]) {
    const outline = getStroke(s, { size: 8 });
    if (!outline.length) continue;
    g.beginPath();
    g.moveTo(outline[0][0], outline[0][1]);
    for (const [x, y] of outline) g.lineTo(x, y);
    g.fill();
  }
}
const at = (e) => { const r = pad.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top, e.pressure || 0.5]; };
pad.addEventListener("pointerdown", (e) => { pad.setPointerCapture(e.pointerId); current = [at(e)]; });
pad.addEventListener("pointermove", (e) => { if (current && e.buttons & 1) { current.push(at(e)); paint(); } });
pad.addEventListener("pointerup", () => {
  if (!current) return;
  strokes.push(current);
  current = null;
  paint();
  mirror();
});
function mirror() {
  window.__state = {
    strokes: strokes.map((s) => {
      const xs = s.map((p) => p[0]), ys = s.map((p) => p[1]);
      return { points: s.length, minX: Math.round(Math.min(...xs)), maxX: Math.round(Math.max(...xs)), minY: Math.round(Math.min(...ys)), maxY: Math.round(Math.max(...ys)) };
    }),
  };
}
mirror();
