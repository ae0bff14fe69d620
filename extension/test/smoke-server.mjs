// A tiny stand-in for the monkbrowse server, for smoke-testing the built
// extension in a real Chromium without the Go server: a WebSocket endpoint
// (written here on node:http, no dependencies) that accepts the hello, then
// runs a script of wire requests and prints every answer; it also serves two
// test pages over plain HTTP on the same port.
//
//   node --experimental-websocket test/smoke-server.mjs PORT USER_DATA_DIR
//
// (test/smoke.sh starts both.) Another browser on the machine may run the
// same extension, so the server points this browser's extension at PORT
// through CDP (settings = {port: PORT, label: "smoke"}) and refuses any
// hello whose label is not "smoke".
//
// Exits 0 when every step of the script passed, 1 otherwise (or after 90 s).
// SMOKE_SW_CONSOLE=1 also prints the service worker's console.

import { createHash } from "node:crypto";
import { createServer } from "node:http";

import { readFileSync } from "node:fs";
import { join } from "node:path";

const port = Number(process.argv[2] ?? 9555);
const userDataDir = process.argv[3];
const base = `http://127.0.0.1:${port}`;

const pages = {
  "/one.html": `<!doctype html><title>Page one</title><h1>Sign in</h1>
<label>Email <input id=email></label><button onclick="document.title='clicked '+document.getElementById('email').value">Continue</button>
<a href="/two.html">Next page</a> <a href="/slow.html">Slow page</a> <a href="/async.html">Async page</a>
<script>console.log("hello from page one")</script>`,
  // Answered after SLOW_MS, with an image that takes as long again: the page's load ends late.
  "/slow.html": `<!doctype html><title>Slow page</title><h1>Slow page loaded</h1><img src="/slow.png" alt="late picture">`,
  "/async.html": `<!doctype html><title>Async page</title><h1>Async</h1><p id=out>empty</p>
<button onclick="setTimeout(() => { document.getElementById('out').textContent = 'Rendered later' }, 40)">Load later</button>
<button onclick="history.pushState({}, '', '/async.html?view=2'); requestAnimationFrame(() => { document.getElementById('out').textContent = 'View two' })">Switch view</button>
<button>Nothing</button>
<form action="/two.html"><input name=q aria-label=Query></form>`,
  "/two.html": `<!doctype html><title>Page two</title><h1>Second</h1><p>Some text on page two.</p>`,
  "/csp.html": null, // served with a strict CSP below
};

const SLOW_MS = 500;
const log = (...a) => console.error("[smoke]", ...a);

function encodeText(str) {
  const data = Buffer.from(str, "utf8");
  let head;
  if (data.length < 126) head = Buffer.from([0x81, data.length]);
  else if (data.length < 65536) {
    head = Buffer.alloc(4);
    head[0] = 0x81;
    head[1] = 126;
    head.writeUInt16BE(data.length, 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = 0x81;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(data.length), 2);
  }
  return Buffer.concat([head, data]);
}

/** Parses client frames from buf; returns [messages, rest, closed]. */
function parse(buf, partial) {
  const out = [];
  let closed = false;
  for (;;) {
    if (buf.length < 2) break;
    const fin = (buf[0] & 0x80) !== 0;
    const op = buf[0] & 0x0f;
    const masked = (buf[1] & 0x80) !== 0;
    let len = buf[1] & 0x7f;
    let off = 2;
    if (len === 126) {
      if (buf.length < 4) break;
      len = buf.readUInt16BE(2);
      off = 4;
    } else if (len === 127) {
      if (buf.length < 10) break;
      len = Number(buf.readBigUInt64BE(2));
      off = 10;
    }
    const maskOff = off;
    if (masked) off += 4;
    if (buf.length < off + len) break;
    const payload = Buffer.from(buf.subarray(off, off + len));
    if (masked) for (let i = 0; i < len; i++) payload[i] ^= buf[maskOff + (i % 4)];
    buf = buf.subarray(off + len);
    if (op === 0x8) closed = true;
    else if (op === 0x1 || op === 0x0) {
      partial.push(payload);
      if (fin) {
        out.push(Buffer.concat(partial).toString("utf8"));
        partial.length = 0;
      }
    }
  }
  return [out, buf, closed];
}

let nextId = 0;
const pending = new Map();
let sock;
function request(type, payload, timeoutMs = 30000) {
  const id = String(++nextId);
  sock.write(encodeText(JSON.stringify({ k: "req", id, type, payload })));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${type} timed out`)), timeoutMs);
    pending.set(id, (f) => {
      clearTimeout(t);
      if (f.ok) resolve(f.result);
      else reject(new Error(f.error));
    });
  });
}

const results = [];
async function step(name, fn) {
  try {
    const r = await fn();
    results.push([name, true]);
    log("PASS", name, JSON.stringify(r)?.slice(0, 300));
    return r;
  } catch (e) {
    results.push([name, false]);
    log("FAIL", name, e.message);
    return undefined;
  }
}

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

async function script(hello) {
  await step("hello carries protocol 1, a uuid profileId and tabs[]", () => {
    check(hello.protocol === 1, "protocol");
    check(/^[0-9a-f-]{36}$/.test(hello.profileId), "profileId");
    check(Array.isArray(hello.tabs), "tabs");
    return hello;
  });
  await step("list_tabs is empty before any share", async () => {
    const r = await request("list_tabs", {});
    check(r.tabs.length === 0, "expected no shared tabs");
    return r;
  });
  const nt = await step("browser_new_tab opens, shares and waits for load", async () => {
    const r = await request("browser_new_tab", { url: `${base}/one.html` }, 60000);
    check(r.slot === 1, "slot 1");
    return r;
  });
  if (!nt) return;
  const tabId = nt.tabId;
  await step("getTitle after new tab load", async () => {
    const r = await request("getTitle", { tabId });
    check(r.title === "Page one", `title ${r.title}`);
    return r;
  });
  await step("refuses an unshared tab", async () => {
    try {
      await request("getUrl", { tabId: tabId + 1000 });
    } catch (e) {
      check(/is not shared with the AI/.test(e.message), e.message);
      return e.message;
    }
    throw new Error("no error");
  });
  await step("browser_evaluate", async () => {
    const r = await request("browser_evaluate", { tabId, expression: "document.querySelectorAll('h1').length + 1" });
    check(r.result === 2, `result ${r.result}`);
    const a = await request("browser_evaluate", { tabId, expression: "await new Promise(r => setTimeout(() => r({x: [1,2]}), 10))" });
    check(JSON.stringify(a.result) === '{"x":[1,2]}', `async result ${JSON.stringify(a.result)}`);
    return [r, a];
  });
  await step("browser_evaluate throws clearly", async () => {
    try {
      await request("browser_evaluate", { tabId, expression: "nope.nope" });
    } catch (e) {
      check(/ReferenceError/.test(e.message), e.message);
      return e.message;
    }
    throw new Error("no error");
  });
  await step("browser_screenshot returns base64 png", async () => {
    const r = await request("browser_screenshot", { tabId }, 15000);
    check(r.data.startsWith("iVBORw0KGgo"), "png magic");
    return { tabId: r.tabId, bytes: r.data.length };
  });
  const snap = await step("browser_snapshot", async () => {
    const r = await request("browser_snapshot", { tabId });
    check(r.url === `${base}/one.html`, `url ${r.url}`);
    check(typeof r.snapshot === "string" && r.snapshot.length > 0, "snapshot text");
    return r;
  });
  if (snap) log("snapshot:\n" + snap.snapshot);
  const ref = (re) => snap?.snapshot.split("\n").find((l) => re.test(l))?.match(/\[ref=(e\d+)\]/)?.[1];
  const email = ref(/textbox/);
  const button = ref(/button "Continue"/);
  if (email && button) {
    await step("browser_type + browser_click via the content script", async () => {
      await request("browser_type", { tabId, ref: email, element: "Email", text: "ada@example.com" });
      await request("browser_click", { tabId, ref: button, element: "Continue" });
      const r = await request("getTitle", { tabId });
      check(r.title === "clicked ada@example.com", `title ${r.title}`);
      return r;
    });
  }
  // Actions that navigate or update the page later answer once it is there:
  // the server snapshots right after the answer.
  const snapRef = (text, re) => text.split("\n").find((l) => re.test(l))?.match(/\[ref=(e\d+)\]/)?.[1];
  const timed = async (fn) => {
    const t0 = performance.now();
    await fn();
    return Math.round(performance.now() - t0);
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  await step("a click on a link answers once the new (slow) page has loaded", async () => {
    await request("browser_navigate", { tabId, url: `${base}/one.html` }, 60000);
    const s = await request("browser_snapshot", { tabId });
    const link = snapRef(s.snapshot, /link "Slow page"/);
    const ms = await timed(() => request("browser_click", { tabId, ref: link, element: "Slow page" }));
    const after = await request("browser_snapshot", { tabId });
    check(after.url === `${base}/slow.html`, `url right after the click: ${after.url}`);
    check(/Slow page loaded/.test(after.snapshot), `snapshot right after the click:\n${after.snapshot}`);
    const ready = await request("browser_evaluate", { tabId, expression: "document.readyState" });
    check(ready.result === "complete", `readyState ${ready.result}`);
    check(ms >= 2 * SLOW_MS, `answered after ${ms} ms, before the page's load`);
    return { ms };
  });
  await step("a click on a link to a quick page (the reply may be lost in the unload) succeeds", async () => {
    await request("browser_navigate", { tabId, url: `${base}/one.html` }, 60000);
    const s = await request("browser_snapshot", { tabId });
    const link = snapRef(s.snapshot, /link "Async page"/);
    const ms = await timed(() => request("browser_click", { tabId, ref: link, element: "Async page" }));
    const after = await request("browser_snapshot", { tabId });
    check(after.url === `${base}/async.html`, `url right after the click: ${after.url}`);
    return { ms };
  });
  const asyncSnap = await request("browser_snapshot", { tabId }).catch(() => ({ snapshot: "" }));
  await step("a click whose page renders 40 ms later answers after the render", async () => {
    const ms = await timed(() => request("browser_click", { tabId, ref: snapRef(asyncSnap.snapshot, /button "Load later"/), element: "Load later" }));
    const after = await request("browser_snapshot", { tabId });
    check(/Rendered later/.test(after.snapshot), `snapshot right after the click:\n${after.snapshot}`);
    return { ms };
  });
  await step("a click that changes the URL with history.pushState answers at once, with the render", async () => {
    const ms = await timed(() => request("browser_click", { tabId, ref: snapRef(asyncSnap.snapshot, /button "Switch view"/), element: "Switch view" }));
    const after = await request("browser_snapshot", { tabId });
    check(after.url === `${base}/async.html?view=2`, `url ${after.url}`);
    check(/View two/.test(after.snapshot), `snapshot right after the click:\n${after.snapshot}`);
    return { ms };
  });
  await step("cost of the waits: a click that changes nothing vs a read (foreground tab)", async () => {
    const nothing = snapRef(asyncSnap.snapshot, /button "Nothing"/);
    const clicks = [];
    const hovers = [];
    const reads = [];
    for (let i = 0; i < 9; i++) {
      clicks.push(await timed(() => request("browser_click", { tabId, ref: nothing, element: "Nothing" })));
      hovers.push(await timed(() => request("browser_hover", { tabId, ref: nothing, element: "Nothing" })));
      reads.push(await timed(() => request("browser_get_text", { tabId, ref: nothing })));
    }
    const vis = await request("browser_evaluate", { tabId, expression: "document.visibilityState" });
    // click: DOM settle + navigation grace; hover: DOM settle only; get_text: neither.
    return { visibility: vis.result, clickMedian: median(clicks), hoverMedian: median(hovers), readMedian: median(reads) };
  });
  await step("browser_type with submit answers once the submitted page has loaded", async () => {
    const q = snapRef(asyncSnap.snapshot, /textbox "Query"/);
    const ms = await timed(() => request("browser_type", { tabId, ref: q, element: "Query", text: "cats", submit: true }));
    const after = await request("browser_snapshot", { tabId });
    check(after.url === `${base}/two.html?q=cats`, `url right after the submit: ${after.url}`);
    check(/Second/.test(after.snapshot), `snapshot right after the submit:\n${after.snapshot}`);
    return { ms };
  });
  await step("browser_navigate back to page one", () => request("browser_navigate", { tabId, url: `${base}/one.html` }, 60000));
  await step("browser_get_console_logs", async () => {
    const r = await request("browser_get_console_logs", { tabId });
    return r;
  });
  await step("browser_navigate waits for the new page", async () => {
    await request("browser_navigate", { tabId, url: `${base}/two.html` }, 60000);
    const r = await request("getTitle", { tabId });
    check(r.title === "Page two", `title ${r.title}`);
    return r;
  });
  await step("history has two entries", async () => {
    const r = await request("browser_evaluate", { tabId, expression: "history.length" });
    return r;
  });
  await step("browser_go_back waits for the previous page", async () => {
    await request("browser_go_back", { tabId }, 60000);
    const r = await request("getUrl", { tabId });
    check(r.url.endsWith("/one.html"), `url ${r.url}`);
    return r;
  });
  await step("browser_reload", () => request("browser_reload", { tabId }, 60000));
  await step("browser_evaluate on a CSP page says so", async () => {
    await request("browser_navigate", { tabId, url: `${base}/csp.html` }, 60000);
    try {
      await request("browser_evaluate", { tabId, expression: "1+1" });
    } catch (e) {
      check(/Content Security Policy/.test(e.message), e.message);
      return e.message;
    }
    throw new Error("no error");
  });
  await step("list_tabs shows the shared tab", async () => {
    const r = await request("list_tabs", {});
    check(r.tabs.length === 1 && r.tabs[0].tabId === tabId && r.tabs[0].slot === 1, JSON.stringify(r));
    return r;
  });
  const other = await step("a second new tab gets slot 2 and becomes active", async () => {
    const r = await request("browser_new_tab", {}, 60000);
    check(r.slot === 2, `slot ${r.slot}`);
    return r;
  });
  if (other) {
    await step("screenshot of a background tab restores the active tab", async () => {
      const r = await request("browser_screenshot", { tabId }, 15000);
      check(r.data.startsWith("iVBORw0KGgo"), "png magic");
      const { tabs } = await request("list_tabs", {});
      const active = tabs.find((t) => t.active);
      check(active?.tabId === other.tabId, `active tab is ${active?.tabId}, want ${other.tabId}`);
      return tabs.map((t) => [t.slot, t.active]);
    });
    await step("cost of the waits in a background tab", async () => {
      await request("browser_navigate", { tabId, url: `${base}/async.html` }, 60000);
      const s = await request("browser_snapshot", { tabId });
      const nothing = snapRef(s.snapshot, /button "Nothing"/);
      const clicks = [];
      const hovers = [];
      for (let i = 0; i < 5; i++) {
        clicks.push(await timed(() => request("browser_click", { tabId, ref: nothing, element: "Nothing" })));
        hovers.push(await timed(() => request("browser_hover", { tabId, ref: nothing, element: "Nothing" })));
      }
      const vis = await request("browser_evaluate", { tabId, expression: "document.visibilityState" });
      // Chrome runs a hidden page's timers once a second: these must not take a second.
      check(median(clicks) < 700 && median(hovers) < 700, `clicks ${clicks}, hovers ${hovers}`);
      return { visibility: vis.result, clickMedian: median(clicks), hoverMedian: median(hovers) };
    });
    await step("browser_switch_tab", async () => {
      const r = await request("browser_switch_tab", { tabId });
      check(r.activeTabId === tabId, JSON.stringify(r));
      return r;
    });
    await step("omitted tabId means the active shared tab", async () => {
      const r = await request("getUrl", {});
      check(r.tabId === tabId, JSON.stringify(r));
      return r;
    });
    await step("internal pages cannot be automated", async () => {
      await request("browser_navigate", { tabId: other.tabId, url: "chrome://version" }).catch(() => undefined);
      try {
        await request("browser_new_tab", { url: "chrome://settings" });
      } catch (e) {
        check(/only http/.test(e.message), e.message);
        return e.message;
      }
      throw new Error("no error");
    });
  }
  await step("browser_close_tab", () => request("browser_close_tab", { tabId }));
  await step("a closed tab's share is gone", async () => {
    await new Promise((r) => setTimeout(r, 300));
    const { tabs } = await request("list_tabs", {});
    check(!tabs.some((t) => t.tabId === tabId), JSON.stringify(tabs));
    return tabs;
  });
}

const server = createServer((req, res) => {
  const path = (req.url ?? "/").split("?")[0];
  if (path === "/csp.html") {
    res.writeHead(200, { "content-type": "text/html", "content-security-policy": "script-src 'self'" });
    res.end("<!doctype html><title>CSP page</title><p>strict</p>");
    return;
  }
  if (path === "/slow.png") {
    setTimeout(() => {
      res.writeHead(200, { "content-type": "image/svg+xml" });
      res.end(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`);
    }, SLOW_MS);
    return;
  }
  const body = pages[path];
  if (body && path === "/slow.html") {
    setTimeout(() => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(body);
    }, SLOW_MS);
  } else if (body) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(body);
  } else {
    res.writeHead(404);
    res.end("not found");
  }
});

server.on("upgrade", (req, socket) => {
  log("upgrade from origin", req.headers.origin);
  const accept = createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  let buf = Buffer.alloc(0);
  const partial = [];
  socket.on("data", (d) => {
    let msgs, closed;
    [msgs, buf, closed] = parse(Buffer.concat([buf, d]), partial);
    for (const m of msgs) {
      const f = JSON.parse(m);
      if (f.k !== "png") log("<-", m.length > 300 ? m.slice(0, 300) + "…" : m);
      if (f.k === "png") socket.write(encodeText('{"k":"pog"}'));
      else if (f.k === "req" && f.type === "hello" && (f.payload?.label !== "smoke" || sock)) {
        socket.write(encodeText(JSON.stringify({ k: "res", id: f.id, ok: true, result: { ok: false, protocol: 1, serverVersion: "0.3.0-smoke", reason: "not the smoke-test browser" } })));
        socket.end();
      } else if (f.k === "req" && f.type === "hello") {
        sock = socket;
        socket.write(encodeText(JSON.stringify({ k: "res", id: f.id, ok: true, result: { ok: true, protocol: 1, serverVersion: "0.3.0-smoke", assignedLabel: "chrome-1", assignedSlug: "chrome-1" } })));
        script(f.payload).then(finish, (e) => {
          log("script crashed", e);
          finish();
        });
      } else if (f.k === "res") pending.get(f.id)?.(f);
    }
    if (closed) socket.end();
  });
  socket.on("error", () => undefined);
});

function finish() {
  const failed = results.filter(([, ok]) => !ok).length + (results.length === 0 ? 1 : 0);
  console.log(`${results.filter(([, ok]) => ok).length} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

setTimeout(() => {
  log("timed out waiting for the extension");
  finish();
  process.exit(1);
}, 90_000).unref?.();

/** Points this browser's extension at our port, through CDP on its service worker. */
async function configureExtension() {
  if (!userDataDir) return;
  const extId = readFileSync(new URL("../EXTENSION_ID", import.meta.url), "utf8").trim();
  let cdpPort, path;
  for (let i = 0; i < 100 && !cdpPort; i++) {
    try {
      [cdpPort, path] = readFileSync(join(userDataDir, "DevToolsActivePort"), "utf8").trim().split("\n");
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (!cdpPort) throw new Error("Chromium did not start its DevTools endpoint");
  const ws = new WebSocket(`ws://127.0.0.1:${cdpPort}${path}`);
  await new Promise((r, j) => ((ws.onopen = r), (ws.onerror = j)));
  let id = 0;
  const waiters = new Map();
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    waiters.get(m.id)?.(m);
  };
  const cdp = (method, params = {}, sessionId) =>
    new Promise((r) => {
      const n = ++id;
      waiters.set(n, r);
      ws.send(JSON.stringify({ id: n, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  for (let i = 0; i < 100; i++) {
    const { result } = await cdp("Target.getTargets");
    const sw = result.targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith(`chrome-extension://${extId}/`));
    if (sw) {
      const { result: att } = await cdp("Target.attachToTarget", { targetId: sw.targetId, flatten: true });
      // Right after start the worker may not have its extension bindings yet: retry.
      for (let j = 0; j < 50; j++) {
        const r = await cdp(
          "Runtime.evaluate",
          { expression: `chrome.storage.local.set({settings:{port:${port},label:"smoke"}}).then(() => "ok")`, awaitPromise: true },
          att.sessionId,
        );
        if (r.result?.result?.value === "ok") {
          log("configured the extension");
          if (process.env.SMOKE_SW_CONSOLE) {
            const prev = ws.onmessage;
            ws.onmessage = (ev) => {
              const m = JSON.parse(ev.data);
              if (m.method === "Runtime.consoleAPICalled") log("sw console:", m.params.args.map((a) => a.value ?? a.description).join(" "));
              prev(ev);
            };
            await cdp("Runtime.enable", {}, att.sessionId);
          } else ws.close();
          return;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error("could not set the extension's settings through CDP");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the extension's service worker did not appear");
}

server.listen(port, "127.0.0.1", () => {
  log(`listening on ${base}`);
  configureExtension().catch((e) => {
    log("cannot configure the extension:", e.message);
    finish();
  });
});
