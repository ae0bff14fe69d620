// A browser WebSocket adapted to PeerSocket (lib/peer.ts): the offscreen
// document's connection and the options page's code pairing open theirs
// with it.

import { errorText, type PeerSocket } from "./peer";

/** The largest frame we accept from the server (a full screenshot or upload fits). */
const MAX_FRAME_CHARS = 64 * 1024 * 1024;

/** Opens a WebSocket and adapts it to PeerSocket once it is open. */
export function openSocket(url: string): Promise<PeerSocket> {
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
