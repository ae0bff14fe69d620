// @title Shopping list (Lexical)
// Lexical with @lexical/list: a bullet list; the editor state's list items
// (their text, in order) are on window.__state.
import { createEditor, $getRoot, $createParagraphNode, $createTextNode } from "lexical";
import { registerRichText, HeadingNode, QuoteNode } from "@lexical/rich-text";
import { ListNode, ListItemNode, $createListNode, $createListItemNode, registerList, $isListNode } from "@lexical/list";
import { createEmptyHistoryState, registerHistory } from "@lexical/history";

const root = document.getElementById("root");
root.innerHTML = `<h1>Shopping list</h1><div id="editor" contenteditable="true" role="textbox" aria-label="Shopping list" aria-multiline="true" style="border:1px solid #888;min-height:60px;padding:6px;width:420px"></div>`;
const editor = createEditor({
  namespace: "list",
  nodes: [HeadingNode, QuoteNode, ListNode, ListItemNode],
  onError: (e) => console.error(e),
});
editor.setRootElement(document.getElementById("editor"));
registerRichText(editor);
registerList(editor);
registerHistory(editor, createEmptyHistoryState(), 0);
window.__state = { items: [], paragraphs: [] };
editor.registerUpdateListener(({ editorState }) => {
  editorState.read(() => {
    const items = [];
    const paragraphs = [];
    for (const n of $getRoot().getChildren()) {
      if ($isListNode(n)) for (const li of n.getChildren()) items.push(li.getTextContent());
      else paragraphs.push(n.getTextContent());
    }
    window.__state = { items, paragraphs };
  });
});
editor.update(() => {
  const title = $createParagraphNode().append($createTextNode("Groceries"));
  const list = $createListNode("bullet");
  for (const t of ["Milk", "Eggs", "Bread"]) list.append($createListItemNode().append($createTextNode(t)));
  $getRoot().clear().append(title, list);
});
window.__editor = editor;
