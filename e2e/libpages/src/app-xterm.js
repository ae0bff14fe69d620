// @title Terminal (xterm.js)
// An xterm.js terminal running a tiny shell (echo, date); what the terminal
// shows is read from its own buffer (term.buffer.active) into window.__state.
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";

const root = document.getElementById("root");
root.innerHTML = `<h1>Terminal</h1><div id="term" style="width:640px"></div>`;
const term = new Terminal({ cols: 60, rows: 12, screenReaderMode: false });
term.open(document.getElementById("term"));
let line = "";
const commands = [];
const prompt = () => term.write("\r\n$ ");
term.write("tiny shell\r\n$ ");
term.onData((d) => {
  for (const ch of d) {
    if (ch === "\r") {
      const cmd = line.trim();
      commands.push(cmd);
      line = "";
      if (cmd.startsWith("echo ")) term.write("\r\n" + cmd.slice(5));
      else if (cmd) term.write("\r\nunknown command: " + cmd);
      prompt();
    } else if (ch === "\x7f") {
      if (line) { line = line.slice(0, -1); term.write("\b \b"); }
    } else if (ch >= " ") {
      line += ch;
      term.write(ch);
    }
  }
});
function mirror() {
  const b = term.buffer.active;
  const lines = [];
  for (let i = 0; i < b.length; i++) lines.push(b.getLine(i).translateToString(true));
  while (lines.length && !lines[lines.length - 1]) lines.pop();
  window.__state = { lines, commands: [...commands], line };
}
term.onWriteParsed(mirror);
mirror();
window.__term = term;
