// @title Account (Material Web)
// Material Web components: md-tabs (roles and selection set through
// ElementInternals), md-outlined-select, md-switch. The components' own
// properties are on window.__state.
import "@material/web/tabs/tabs.js";
import "@material/web/tabs/primary-tab.js";
import "@material/web/select/outlined-select.js";
import "@material/web/select/select-option.js";
import "@material/web/switch/switch.js";

const root = document.getElementById("root");
root.innerHTML = `<h1>Account</h1>` +
  `<md-tabs id="tabs" aria-label="Account sections"><md-primary-tab>Profile</md-primary-tab><md-primary-tab>Billing</md-primary-tab><md-primary-tab>Security</md-primary-tab></md-tabs>` +
  `<div style="margin:16px 0"><md-outlined-select id="plan" label="Plan"><md-select-option value="free" selected><div slot="headline">Free</div></md-select-option>` +
  `<md-select-option value="pro"><div slot="headline">Pro</div></md-select-option><md-select-option value="team"><div slot="headline">Team</div></md-select-option></md-outlined-select></div>` +
  `<p><md-switch id="tfa" aria-label="Two-factor sign-in"></md-switch> Two-factor sign-in</p>`;
const tabs = document.getElementById("tabs");
const plan = document.getElementById("plan");
const tfa = document.getElementById("tfa");
const mirror = () => { window.__state = { tab: tabs.activeTabIndex, plan: plan.value, tfa: tfa.selected }; };
tabs.addEventListener("change", mirror);
plan.addEventListener("change", mirror);
tfa.addEventListener("change", mirror);
Promise.all(["md-tabs", "md-outlined-select", "md-switch"].map((n) => customElements.whenDefined(n))).then(() => requestAnimationFrame(mirror));
