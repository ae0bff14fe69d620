// @title Preferences (Shoelace)
// Shoelace web components (sl-select with sl-option, sl-switch); the
// components' own properties (select.value, switch.checked) are on window.__state.
import "@shoelace-style/shoelace/dist/themes/light.css";
import "@shoelace-style/shoelace/dist/components/select/select.js";
import "@shoelace-style/shoelace/dist/components/option/option.js";
import "@shoelace-style/shoelace/dist/components/switch/switch.js";

const root = document.getElementById("root");
root.innerHTML = `<h1>Preferences</h1>` +
  `<sl-select id="prio" label="Priority" value="low" style="width:300px"><sl-option value="low">Low</sl-option><sl-option value="medium">Medium</sl-option><sl-option value="high">High</sl-option></sl-select>` +
  `<p><sl-switch id="notify">Notifications</sl-switch></p>`;
const sel = document.getElementById("prio");
const sw = document.getElementById("notify");
const mirror = () => { window.__state = { priority: sel.value, notify: sw.checked, open: sel.open }; };
sel.addEventListener("sl-change", mirror);
sel.addEventListener("sl-after-show", mirror);
sel.addEventListener("sl-after-hide", mirror);
sw.addEventListener("sl-change", mirror);
Promise.all([customElements.whenDefined("sl-select"), customElements.whenDefined("sl-switch")]).then(mirror);
