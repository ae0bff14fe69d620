// Real-browser smoke test of the content script and MAIN-world hooks: loads the
// built extension in headless Chromium, serves a test page, and drives the
// content script through the service worker over CDP, as the extension does.
//   cd extension && npm run build && node --experimental-websocket lib/page/realbrowser.smoke.mjs [extDir]
// Needs /usr/bin/chromium and a free port 9339. Not part of `vitest run`.
import http from "node:http";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
const page = `<!doctype html><html><head><title>T</title><script>
console.log("early", {a:1}); const ok = confirm("Delete?"); console.warn("confirm gave", ok);
</script></head><body>
<h1>Sign in</h1>
<form id="f" onsubmit="event.preventDefault(); console.log('submitted', document.getElementById('email').value)">
<label>Email <input id="email" type="email" value="ada@example.com"></label>
<label><input type="checkbox" id="cb"> Remember me</label>
<a href="/reset">Forgot password?</a>
<select aria-label="Color"><option>Red</option><option>Green</option></select>
<input type="file" id="file" hidden>
<button>Continue</button>
</form>
<div id="host"></div>
<div hidden>secret hidden</div>
<iframe title="same" srcdoc="<button onclick=&quot;console.log('frame click')&quot;>In frame</button>"></iframe>
<iframe title="other" src="http://localhost:PORT2/x"></iframe>
<script>
const sr = document.getElementById('host').attachShadow({mode:'closed'}); sr.innerHTML = '<button>Shadow btn</button>';
setTimeout(() => { throw new Error("late boom") }, 10);
Promise.reject(new Error("nope"));
</script></body></html>`;
const srv = http.createServer((req, res) => { res.setHeader("content-type", "text/html"); res.end(req.url === "/" ? page.replace("PORT2", srv2.address().port) : "<p>other origin</p>"); });
const srv2 = http.createServer((req, res) => { res.setHeader("content-type", "text/html"); res.end("<p>x</p><script>console.log('xframe')</script>"); });
await new Promise((r) => srv.listen(0, "127.0.0.1", r));
await new Promise((r) => srv2.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${srv.address().port}/`;
const ext = process.argv[2] ?? new URL("../../.output/chrome-mv3", import.meta.url).pathname;
const failures = [];
const check = (cond, what) => { if (!cond) failures.push(what); };
const prof = mkdtempSync("/tmp/smoke/prof-");
const br = spawn("chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", `--user-data-dir=${prof}`, `--load-extension=${ext}`, `--disable-extensions-except=${ext}`, "--remote-debugging-port=9339", url], { stdio: "ignore" });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
try {
  let sw;
  for (let i = 0; i < 50 && !sw; i++) {
    await sleep(300);
    try { const list = await (await fetch("http://127.0.0.1:9339/json/list")).json(); sw = list.find((t) => t.type === "service_worker"); } catch { /* not up yet: try again */ }
  }
  if (!sw) throw new Error("no service worker");
  await sleep(1500);
  const ws = new WebSocket(sw.webSocketDebuggerUrl);
  await new Promise((r) => ws.addEventListener("open", r));
  let id = 0; const pending = new Map();
  ws.addEventListener("message", (ev) => { const m = JSON.parse(ev.data); if (pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); } });
  const ev = (expr) => new Promise((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method: "Runtime.evaluate", params: { expression: expr, awaitPromise: true, returnByValue: true } })); });
  const cs = async (op, args = {}) => {
    const r = await ev(`(async () => { const [t] = await chrome.tabs.query({url: ${JSON.stringify(url + "*")}}); return await chrome.tabs.sendMessage(t.id, {cs: true, op: ${JSON.stringify(op)}, args: ${JSON.stringify(args)}}, {frameId: 0}); })()`);
    return r.result?.result?.value ?? r;
  };
  const snap = await cs("snapshot"); console.log(snap.result?.snapshot ?? JSON.stringify(snap));
  const s = snap.result.snapshot;
  check(s.includes('- textbox "Email" [ref=e3]: ada@example.com'), "snapshot: textbox value");
  check(s.includes('- button "Shadow btn"'), "snapshot: closed shadow root through chrome.dom");
  check(/- iframe "same" \[ref=e\d+\]:\n {2}- button "In frame"/.test(s), "snapshot: same-origin iframe");
  check(s.includes('- iframe "other" [cross-origin]'), "snapshot: cross-origin iframe");
  check(!s.includes("secret hidden"), "snapshot: hidden text left out");
  const ref = (re) => re.exec(s)?.[1];
  console.log("type:", JSON.stringify(await cs("type", { ref: ref(/textbox "Email" \[ref=(e\d+)\]/), text: "bob@example.com", submit: true })));
  console.log("click cb:", JSON.stringify(await cs("click", { ref: ref(/checkbox "Remember me" \[ref=(e\d+)\]/) })));
  console.log("click frame:", JSON.stringify(await cs("click", { ref: ref(/button "In frame" \[ref=(e\d+)\]/) })));
  console.log("select:", JSON.stringify(await cs("select", { ref: ref(/combobox "Color" \[ref=(e\d+)\]/), values: ["Green"] })));
  console.log("upload:", JSON.stringify(await cs("upload", { ref: ref(/\[type=file\] \[hidden\] \[ref=(e\d+)\]/), name: "a.txt", data: Buffer.from("hi").toString("base64") })));
  console.log("press:", JSON.stringify(await cs("press_key", { key: "Shift+Tab" })));
  console.log("scroll:", JSON.stringify(await cs("scroll", { direction: "down" })));
  console.log("text:", JSON.stringify(await cs("get_text", {})).slice(0, 200));
  console.log("stale:", JSON.stringify(await cs("click", { ref: "e999" })));
  const snap2 = await cs("snapshot"); console.log(snap2.result?.snapshot);
  // second injection must not double-register
  const inj = await ev(`(async () => { const [t] = await chrome.tabs.query({url: ${JSON.stringify(url + "*")}}); await chrome.scripting.executeScript({target:{tabId:t.id}, files:["content-scripts/content.js"]}); return "ok"; })()`);
  console.log("reinject:", JSON.stringify(inj.result?.result?.value ?? inj));
  const s2 = snap2.result.snapshot;
  check(s2.includes('- textbox "Email" [ref=e3]: bob@example.com'), "type kept the ref and set the value");
  check(s2.includes('- checkbox "Remember me" [checked] [ref=e4]'), "click toggled the checkbox");
  check(s2.includes('- option "Green" [selected]'), "select");
  const logs = await cs("console_logs");
  const texts = logs.result.logs.map((l) => `${l.level}: ${l.text.split("\n")[0]}`);
  for (const want of ['log: early {"a":1}', 'dialog: confirm("Delete?") → true', "error: Uncaught Error: late boom", "error: Uncaught (in promise) Error: nope", "log: submitted bob@example.com", "log: [iframe about:srcdoc] frame click"]) {
    check(texts.includes(want), `console_logs has ${want}`);
  } console.log(JSON.stringify(logs.result?.logs?.map((l) => `${l.level}: ${l.text.split("\n")[0]}`), null, 1));
  ws.close();
} finally {
  br.kill(); srv.close(); srv2.close();
}
if (failures.length) { console.error("FAIL:\n  " + failures.join("\n  ")); process.exit(1); }
console.log("real-browser smoke: all checks passed");
