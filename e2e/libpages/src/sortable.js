// @title SortableJS list
// SortableJS in its default HTML5 drag-and-drop mode; the order it reports
// (onEnd, toArray) is mirrored on window.__state.
import Sortable from "sortablejs";

const root = document.getElementById("root");
root.innerHTML = `<h1>SortableJS list</h1><ul id="list" aria-label="Priorities">` +
  ["Alpha", "Bravo", "Charlie", "Delta"].map((n) => `<li data-id="${n}">${n}</li>`).join("") + `</ul>`;
const sortable = Sortable.create(document.getElementById("list"), {
  animation: 0,
  onEnd: (evt) => {
    window.__state = { order: sortable.toArray(), oldIndex: evt.oldIndex, newIndex: evt.newIndex, ends: window.__state.ends + 1 };
  },
});
window.__state = { order: sortable.toArray(), ends: 0 };
