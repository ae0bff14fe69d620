// @title Script (CodeMirror 6)
// CodeMirror 6 (@codemirror/view, @codemirror/state) with its default
// keymap: the editor observes its contenteditable DOM and keeps its own
// document, mirrored from view.state on window.__state.
import { EditorState } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { defaultKeymap, insertNewlineAndIndent } from "@codemirror/commands";

const root = document.getElementById("root");
root.innerHTML = `<h1>Script</h1><div id="mount" style="border:1px solid #888;width:560px"></div>`;
const mirror = (state) => { window.__state = { doc: state.doc.toString(), lines: state.doc.lines }; };
const view = new EditorView({
  parent: document.getElementById("mount"),
  state: EditorState.create({
    doc: "let total = 0;\nfor (const x of items) total += x;\nconsole.log(total);",
    extensions: [keymap.of([{ key: "Enter", run: insertNewlineAndIndent }, ...defaultKeymap]), EditorView.contentAttributes.of({ "aria-label": "Script source" })],
  }),
  dispatch(tr) {
    view.update([tr]);
    mirror(view.state);
  },
});
mirror(view.state);
window.__view = view;
