// @title Note (Quill)
// Quill 2 with the snow toolbar; the document's Delta (quill.getContents())
// is on window.__state.
import Quill from "quill";
import "quill/dist/quill.snow.css";

const root = document.getElementById("root");
root.innerHTML = `<h1>Note</h1><div style="width:560px"><div id="editor" style="height:140px"></div></div>`;
const quill = new Quill("#editor", { theme: "snow", modules: { toolbar: [["bold", "italic"], [{ list: "bullet" }]] } });
quill.root.setAttribute("aria-label", "Note text");
quill.root.setAttribute("role", "textbox");
quill.root.setAttribute("aria-multiline", "true");
const mirror = () => { window.__state = { ops: quill.getContents().ops, text: quill.getText() }; };
quill.on("text-change", mirror);
mirror();
window.__quill = quill;
