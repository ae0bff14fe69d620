// The offscreen document: it outlives service-worker suspension, so it owns
// the WebSocket to the monkbrowse server (lib/connection.ts). It can only use
// chrome.runtime, so storage and Chrome APIs stay in the service worker.

import { Connection } from "../../lib/connection";
import { isOffMessage, toBg, type OffMessage, type Reply } from "../../lib/messages";
import { errorText, type PeerSocket } from "../../lib/peer";
import { keepInMemory, reported, setDiagSink } from "../../lib/diag";

/** The largest frame we accept from the server (a full screenshot or upload fits). */
const MAX_FRAME_CHARS = 64 * 1024 * 1024;

/** Opens a WebSocket and adapts it to PeerSocket once it is open. */
function openSocket(url: string): Promise<PeerSocket> {
  return new Promise((resolve, reject) => {
    let ws: WebSocket;
    try {
      ws = new WebSocket(url);
    } catch (e) {
      reject(e instanceof Error ? e : new Error(errorText(e)));
      return;
    }
    const msgCbs: ((f: string) => void)[] = [];
    const closeCbs: ((r?: string) => void)[] = [];
    let opened = false;
    let closed = false;
    const fireClose = (reason?: string) => {
      if (closed) return;
      closed = true;
      for (const cb of closeCbs) cb(reason);
    };
    const sock: PeerSocket = {
      send(frame) {
        if (closed || ws.readyState !== WebSocket.OPEN) throw new Error("the WebSocket is closed");
        ws.send(frame);
      },
      close(reason) {
        try {
          ws.close(1000, (reason ?? "").slice(0, 120));
        } catch {
          ws.close();
        }
        fireClose(reason);
      },
      onMessage(cb) {
        msgCbs.push(cb);
      },
      onClose(cb) {
        closeCbs.push(cb);
      },
    };
    ws.onopen = () => {
      opened = true;
      resolve(sock);
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (typeof ev.data !== "string") return; // the envelope is text only
      if (ev.data.length > MAX_FRAME_CHARS) return;
      for (const cb of msgCbs) cb(ev.data);
    };
    ws.onerror = () => {
      if (!opened) reject(new Error(`cannot connect to ${url}`));
    };
    ws.onclose = (ev: CloseEvent) => {
      if (!opened) reject(new Error(`cannot connect to ${url} (code ${ev.code})`));
      else fireClose(ev.reason || `code ${ev.code}`);
    };
  });
}

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
  log: (m) => console.debug("monkbrowse:", m),
});

chrome.runtime.onMessage.addListener((msg: unknown, _sender, sendResponse: (r: Reply<null>) => void) => {
  if (!isOffMessage(msg)) return false;
  if (msg.kind === "tabs-push") {
    const m = msg as OffMessage<"tabs-push">;
    conn.pushTabs(m.tabs, m.paused === true);
  }
  else if (msg.kind === "reconnect") conn.reconnectNow();
  sendResponse({ ok: true, result: null });
  return false;
});

conn.start();
