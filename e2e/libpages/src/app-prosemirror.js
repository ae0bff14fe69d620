// @title Draft (ProseMirror)
// A plain ProseMirror editor (basic schema, lists, base keymap, history);
// the editor state's document (doc.toJSON()) is on window.__state.
import { EditorState } from "prosemirror-state";
import { EditorView } from "prosemirror-view";
import { Schema, DOMParser } from "prosemirror-model";
import { schema as basic } from "prosemirror-schema-basic";
import { addListNodes, splitListItem } from "prosemirror-schema-list";
import { keymap } from "prosemirror-keymap";
import { baseKeymap, toggleMark } from "prosemirror-commands";
import { history, undo, redo } from "prosemirror-history";

const schema = new Schema({ nodes: addListNodes(basic.spec.nodes, "paragraph block*", "block"), marks: basic.spec.marks });
const root = document.getElementById("root");
root.innerHTML = `<h1>Draft</h1><div id="editor" style="border:1px solid #888;padding:6px;width:560px"></div>` +
  `<div id="seed" hidden><p>The quick brown fox</p><ul><li><p>Milk</p></li><li><p>Eggs</p></li><li><p>Bread</p></li></ul></div>`;
const doc = DOMParser.fromSchema(schema).parse(document.getElementById("seed"));
document.getElementById("seed").remove();
const mirror = (state) => { window.__state = { doc: state.doc.toJSON(), text: state.doc.textContent }; };
const view = new EditorView(document.getElementById("editor"), {
  state: EditorState.create({
    doc,
    plugins: [
      history(),
      keymap({ "Mod-z": undo, "Mod-y": redo, "Mod-b": toggleMark(schema.marks.strong), "Enter": splitListItem(schema.nodes.list_item) }),
      keymap(baseKeymap),
    ],
  }),
  attributes: { role: "textbox", "aria-label": "Draft body", "aria-multiline": "true" },
  dispatchTransaction(tr) {
    view.updateState(view.state.apply(tr));
    mirror(view.state);
  },
});
mirror(view.state);
window.__view = view;
