// The offscreen document's connection to the monkbrowse server: open the
// socket, say hello first, read the ack, relay requests, keep the link
// checked with pings (browser JavaScript cannot see a dead TCP connection),
// and reconnect on the timing of lib/reconnect.ts. Everything that touches
// Chrome or the network comes in through ConnectionDeps, so this runs under
// vitest as it runs in the browser.

import { interpretAck } from "./hello";
import { Peer, PeerClosedError, errorText, requestTimeout, type PeerSocket } from "./peer";
import { HELLO_TIMEOUT_MS, MSG_HELLO, MSG_TABS_CHANGED, PING_INTERVAL_MS, WIRE_TYPES, type Hello, type TabInfo } from "./protocol.gen";
import { Backoff } from "./reconnect";
import type { ConnectionState, Status } from "./storage";

export const PING_TIMEOUT_MS = 5_000;
export const MAX_MISSED_PINGS = 2;

export interface ConnectionDeps {
  /** Port and hello, from the service worker. */
  connectInfo(): Promise<{ port: number; hello: Hello }>;
  /** Opens a socket; resolves once it is open, rejects when it cannot be. */
  openSocket(url: string): Promise<PeerSocket>;
  /** Runs one wire request (in the service worker). */
  /** Runs one wire request; signal aborts when the server cancels it. */
  exec(type: string, payload: unknown, signal: AbortSignal): Promise<unknown>;
  accepted(info: { assignedLabel: string; assignedSlug: string; serverVersion: string }): Promise<void>;
  status(s: Status): void;
  now?: () => number;
  random?: () => number;
  log?: (msg: string) => void;
}

export function serverUrl(port: number): string {
  return `ws://127.0.0.1:${port}/`;
}

export class Connection {
  private gen = 0;
  private peer: Peer | undefined;
  private connected = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private missed = 0;
  private port = 0;
  private last: { state: ConnectionState; reason?: string; since: number } | undefined;
  private readonly backoff: Backoff;
  private readonly now: () => number;
  private stopped = false;

  constructor(private readonly deps: ConnectionDeps) {
    this.now = deps.now ?? Date.now;
    this.backoff = new Backoff(this.now, deps.random ?? Math.random);
  }

  /** Starts connecting (once). */
  start(): void {
    if (this.gen === 0) void this.attempt();
  }

  /** Drops the current socket, if any, and connects again at once (settings changed). */
  reconnectNow(): void {
    this.teardown("reconnecting with new settings");
    this.backoff.connected();
    this.last = undefined;
    // No status until the new settings are known: a "connecting" on the
    // old port would look stale to the service worker (lib/settings-sync.ts).
    this.port = 0;
    void this.attempt();
  }

  stop(): void {
    this.stopped = true;
    this.teardown("stopped");
  }

  get isConnected(): boolean {
    return this.connected;
  }

  /** Sends tabs_changed if the hello has been accepted; otherwise the next hello carries the tabs. */
  pushTabs(tabs: TabInfo[]): boolean {
    if (!this.connected || !this.peer) return false;
    try {
      this.peer.notify(MSG_TABS_CHANGED, { tabs });
      return true;
    } catch {
      return false;
    }
  }

  private teardown(reason: string): void {
    this.gen++;
    this.connected = false;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.stopPings();
    const p = this.peer;
    this.peer = undefined;
    p?.close(reason);
  }

  private setStatus(state: ConnectionState, reason?: string): void {
    if (this.last && this.last.state === state && this.last.reason === reason) return;
    this.last = { state, since: this.now(), ...(reason !== undefined ? { reason } : {}) };
    const s: Status = { state, port: this.port, since: this.last.since };
    if (reason !== undefined) s.reason = reason;
    this.deps.status(s);
  }

  private schedule(ms: number, gen: number): void {
    if (this.stopped || gen !== this.gen) return;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (gen === this.gen) void this.attempt();
    }, ms);
  }

  private failed(gen: number, reason: string): void {
    if (gen !== this.gen || this.stopped) return;
    this.connected = false;
    this.stopPings();
    this.setStatus("disconnected", reason);
    this.schedule(this.backoff.failure(), gen);
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    const gen = ++this.gen;
    if (!this.last && this.port !== 0) this.setStatus("connecting");

    let info: { port: number; hello: Hello };
    try {
      info = await this.deps.connectInfo();
    } catch (e) {
      this.failed(gen, `the extension's service worker did not answer (${errorText(e)})`);
      return;
    }
    if (gen !== this.gen) return;
    if (info.port !== this.port) {
      this.port = info.port;
      this.last = undefined;
      this.setStatus("connecting");
    }

    let sock: PeerSocket;
    try {
      sock = await this.deps.openSocket(serverUrl(info.port));
    } catch {
      this.failed(
        gen,
        `no monkbrowse server is listening on 127.0.0.1:${info.port}; start your AI app (it runs the server), or check the port in the extension's options`,
      );
      return;
    }
    if (gen !== this.gen) {
      sock.close("superseded");
      return;
    }

    // Each attempt ends in one verdict (lost, hello failed, rejected): the
    // first one wins, so closing the peer ourselves never counts twice.
    let settled = false;
    const peer = new Peer(sock, {
      log: this.deps.log,
      onClose: (why) => {
        if (gen !== this.gen || settled) return;
        settled = true;
        this.peer = undefined;
        this.failed(gen, `lost the connection to the monkbrowse server on 127.0.0.1:${info.port}${why ? ` (${why})` : ""}; reconnecting`);
      },
    });
    this.peer = peer;
    for (const type of WIRE_TYPES) {
      peer.handle(type, (payload, signal) => this.deps.exec(type, payload, signal));
    }

    let ackRaw: unknown;
    try {
      ackRaw = await peer.request(MSG_HELLO, info.hello, { signal: requestTimeout(MSG_HELLO, HELLO_TIMEOUT_MS) });
    } catch (e) {
      if (gen !== this.gen || settled) return;
      const why = e instanceof PeerClosedError ? "the server closed the connection" : errorText(e);
      settled = true;
      peer.close("hello failed");
      this.peer = undefined;
      this.failed(gen, `the monkbrowse server on 127.0.0.1:${info.port} did not accept the hello: ${why}`);
      return;
    }
    if (gen !== this.gen) return;

    const verdict = interpretAck(ackRaw);
    if (!verdict.accepted) {
      settled = true;
      this.connected = false;
      peer.close("hello rejected");
      this.peer = undefined;
      this.setStatus("rejected", verdict.reason);
      this.schedule(this.backoff.rejected(), gen);
      return;
    }

    this.connected = true;
    this.backoff.connected();
    this.setStatus("connected");
    this.startPings(peer, gen);
    try {
      await this.deps.accepted({
        assignedLabel: verdict.assignedLabel,
        assignedSlug: verdict.assignedSlug,
        serverVersion: verdict.serverVersion,
      });
    } catch (e) {
      this.deps.log?.(`storing the assigned label failed: ${errorText(e)}`);
    }
  }

  private startPings(peer: Peer, gen: number): void {
    this.stopPings();
    this.missed = 0;
    this.pingTimer = setInterval(() => {
      if (gen !== this.gen || peer.closed) {
        this.stopPings();
        return;
      }
      peer.ping({ signal: requestTimeout("ping", PING_TIMEOUT_MS) }).then(
        () => {
          this.missed = 0;
        },
        () => {
          if (gen !== this.gen || peer.closed) return;
          if (++this.missed >= MAX_MISSED_PINGS) peer.close("the server stopped answering pings");
        },
      );
    }, PING_INTERVAL_MS);
  }

  private stopPings(): void {
    if (this.pingTimer !== undefined) clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }
}
