// @title Contacts (TanStack Virtual)
// A window-scrolling virtual list of 2,000 contacts with @tanstack/virtual-core:
// only the rows near the viewport are in the DOM. The chosen contact (app
// state) is on window.__state.
import { Virtualizer, observeWindowOffset, observeWindowRect, windowScroll } from "@tanstack/virtual-core";

const root = document.getElementById("root");
root.innerHTML = `<h1>Contacts</h1><p id="chosen">No contact chosen</p><div id="list" role="list" aria-label="Contacts" style="position:relative;width:400px"></div>`;
const list = document.getElementById("list");
const rowH = 32;
window.__state = { chosen: null, rendered: 0 };
const v = new Virtualizer({
  count: 2000,
  estimateSize: () => rowH,
  overscan: 4,
  getScrollElement: () => window,
  scrollToFn: windowScroll,
  observeElementRect: observeWindowRect,
  observeElementOffset: observeWindowOffset,
  scrollMargin: list.offsetTop,
  onChange: () => render(),
});
// Rows are kept by index while they stay in range, as keyed frameworks do.
const rows = new Map();
function rowFor(index) {
  let row = rows.get(index);
  if (row) return row;
  row = document.createElement("div");
  row.setAttribute("role", "listitem");
  row.style.cssText = `position:absolute;top:0;left:0;width:100%;height:${rowH}px`;
  const b = document.createElement("button");
  b.textContent = `Contact ${index + 1}`;
  b.onclick = () => { window.__state = { ...window.__state, chosen: index + 1 }; document.getElementById("chosen").textContent = `Chosen: Contact ${index + 1}`; };
  row.append(b);
  rows.set(index, row);
  return row;
}
function render() {
  list.style.height = v.getTotalSize() + "px";
  const items = v.getVirtualItems();
  const keep = new Set(items.map((it) => it.index));
  for (const [i, row] of rows) if (!keep.has(i)) { row.remove(); rows.delete(i); }
  for (const it of items) {
    const row = rowFor(it.index);
    row.style.transform = `translateY(${it.start - v.options.scrollMargin}px)`;
    if (!row.isConnected) list.append(row);
  }
  window.__state = { ...window.__state, rendered: items.length };
}
v._willUpdate();
v._didMount();
render();
window.__virt = v;
