// @title CodeMirror 5 editor
// CodeMirror 5: the editor reads a hidden textarea (zero-height wrapper,
// 1-px textarea) and draws the text itself; the editor's own document is
// mirrored on window.__state.
import CodeMirror from "codemirror";
import "codemirror/lib/codemirror.css"; // esbuild writes it to codemirror5.css, which the page links

const root = document.getElementById("root");
root.innerHTML = `<h1>Code editor</h1><div id="mount"></div>`;
// The stylesheet is linked in the head, so it applies before this script runs.
start();

function start() {
  const cm = CodeMirror(document.getElementById("mount"), {
    value: "let x = 1;",
    lineNumbers: true,
    screenReaderLabel: "Source code",
  });
  function mirror() {
    window.__state = { text: cm.getValue(), focused: cm.hasFocus() };
  }
  cm.on("change", mirror);
  cm.on("focus", mirror);
  cm.on("blur", mirror);
  mirror();
}
