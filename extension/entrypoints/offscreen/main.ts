// The offscreen document: it outlives service-worker suspension, so it owns
// the WebSocket to the monkbrowse server (lib/connection.ts). It can only use
// chrome.runtime, so storage and Chrome APIs stay in the service worker.

import { Connection } from "../../lib/connection";
import { isOffMessage, toBg, type OffMessage, type Reply } from "../../lib/messages";
import { openSocket } from "../../lib/websocket";
import { keepInMemory, reported, setDiagSink } from "../../lib/diag";

// Failures go to the service worker's diagnostics log ("diag"); while it
// cannot be reached, they stay in this document's memory ring.
setDiagSink((e) => {
  toBg({ to: "bg", kind: "diag", where: e.where, message: e.message }).catch(() => keepInMemory(e));
});

let nextCallId = 0;

const conn = new Connection({
  connectInfo: (refresh) => toBg({ to: "bg", kind: "connect-info", refresh }),
  openSocket,
  exec: (type, payload, signal) => {
    // The service worker aborts this exec when the server cancels it.
    const callId = `${Date.now().toString(36)}-${(nextCallId++).toString(36)}`;
    const onAbort = () => {
      toBg({ to: "bg", kind: "cancel", callId }).catch(reported("offscreen: passing a cancel to the worker"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    return toBg({ to: "bg", kind: "exec", type, payload, callId }).finally(() =>
      signal.removeEventListener("abort", onAbort),
    );
  },
  accepted: async (info) => {
    await toBg({ to: "bg", kind: "accepted", ...info });
  },
  status: (status) => {
    toBg({ to: "bg", kind: "status", status }).catch(reported("offscreen: passing the connection status to the worker"));
  },
  refused: (r) => {
    toBg({ to: "bg", kind: "refused", ...r }).catch(reported("offscreen: passing a refused call to the worker"));
  },
  log: (m) => console.debug("monkbrowse:", m),
});

chrome.runtime.onMessage.addListener((msg: unknown, _sender, sendResponse: (r: Reply<null>) => void) => {
  if (!isOffMessage(msg)) return false;
  if (msg.kind === "tabs-push") {
    const m = msg as OffMessage<"tabs-push">;
    conn.pushTabs(m.tabs, m.paused === true, { ...(m.policy ? { policy: m.policy } : {}), ...(m.left ? { left: m.left } : {}) });
  }
  else if (msg.kind === "reconnect") conn.reconnectNow();
  sendResponse({ ok: true, result: null });
  return false;
});

conn.start();
