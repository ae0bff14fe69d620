// @title SVG widgets
// Hand-written SVG widgets with ARIA roles: a switch toggled by click or
// Space, and a slider moved by the arrow keys.
const root = document.getElementById("root");
root.innerHTML = `<h1>SVG widgets</h1>
<svg width="320" height="120" viewBox="0 0 320 120">
  <g id="switch" role="switch" aria-checked="false" aria-label="Dark mode" tabindex="0">
    <rect x="10" y="10" width="80" height="40" rx="20" fill="#ccc"></rect>
    <circle id="knob" cx="30" cy="30" r="16" fill="#fff"></circle>
  </g>
  <g id="slider" role="slider" aria-label="Volume" aria-valuemin="0" aria-valuemax="10" aria-valuenow="5" tabindex="0">
    <rect x="10" y="80" width="300" height="10" fill="#ddd"></rect>
    <circle id="thumb" cx="160" cy="85" r="10" fill="#36c"></circle>
  </g>
</svg>`;
const sw = document.getElementById("switch");
const slider = document.getElementById("slider");
window.__state = { dark: false, volume: 5, focusEvents: 0 };
function toggle() {
  window.__state.dark = !window.__state.dark;
  sw.setAttribute("aria-checked", String(window.__state.dark));
  document.getElementById("knob").setAttribute("cx", window.__state.dark ? "70" : "30");
}
sw.addEventListener("click", toggle);
sw.addEventListener("keydown", (e) => {
  if (e.key === " " || e.key === "Enter") {
    e.preventDefault();
    toggle();
  }
});
slider.addEventListener("focus", () => window.__state.focusEvents++);
slider.addEventListener("keydown", (e) => {
  const d = e.key === "ArrowRight" || e.key === "ArrowUp" ? 1 : e.key === "ArrowLeft" || e.key === "ArrowDown" ? -1 : 0;
  if (!d) return;
  e.preventDefault();
  const v = Math.max(0, Math.min(10, window.__state.volume + d));
  window.__state.volume = v;
  slider.setAttribute("aria-valuenow", String(v));
  document.getElementById("thumb").setAttribute("cx", String(10 + v * 30));
});
