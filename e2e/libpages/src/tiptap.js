// @title TipTap editor
// TipTap (ProseMirror) with the starter kit; the editor's own document is
// mirrored on window.__state.
import { Editor } from "@tiptap/core";
import StarterKit from "@tiptap/starter-kit";

const root = document.getElementById("root");
root.innerHTML = `<h1>TipTap editor</h1><div id="mount"></div>`;
const editor = new Editor({
  element: document.getElementById("mount"),
  extensions: [StarterKit],
  content: "<p>Draft text</p>",
  editorProps: { attributes: { "aria-label": "Comment", role: "textbox" } },
  onUpdate: ({ editor }) => mirror(editor),
  onSelectionUpdate: ({ editor }) => mirror(editor),
});
function mirror(ed) {
  window.__state = { text: ed.getText(), html: ed.getHTML(), bold: ed.isActive("bold") };
}
mirror(editor);
