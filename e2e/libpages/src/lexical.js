// @title Lexical editor
// A vanilla Lexical rich-text editor with history; its editor state (not
// the DOM) is mirrored on window.__state.
import { createEditor, $getRoot, $getSelection, $isRangeSelection } from "lexical";
import { registerRichText, HeadingNode, QuoteNode } from "@lexical/rich-text";
import { createEmptyHistoryState, registerHistory } from "@lexical/history";

const root = document.getElementById("root");
root.innerHTML = `<h1>Lexical editor</h1><div id="editor" contenteditable="true" role="textbox" aria-label="Post body" aria-multiline="true" style="border:1px solid #888;min-height:60px;padding:6px"></div>`;
const editor = createEditor({
  namespace: "corpus",
  nodes: [HeadingNode, QuoteNode],
  onError: (e) => console.error(e),
  theme: { text: { bold: "bold" } },
});
editor.setRootElement(document.getElementById("editor"));
registerRichText(editor);
registerHistory(editor, createEmptyHistoryState(), 0);
window.__state = { text: "", bold: false, updates: 0 };
editor.registerUpdateListener(({ editorState }) => {
  editorState.read(() => {
    const sel = $getSelection();
    window.__state = {
      text: $getRoot().getTextContent(),
      bold: $isRangeSelection(sel) ? sel.hasFormat("bold") : false,
      updates: window.__state.updates + 1,
    };
  });
});
window.__editor = editor;
