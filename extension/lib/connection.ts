// The offscreen document's connection to the monkbrowse server: open the
// socket, say hello first, read the ack, relay requests, keep the link
// checked with pings (browser JavaScript cannot see a dead TCP connection),
// and reconnect on the timing of lib/reconnect.ts. Everything that touches
// Chrome or the network comes in through ConnectionDeps, so this runs under
// vitest as it runs in the browser.

import { interpretAck, type AuthProfile } from "./hello";
import { helloRefusal } from "./refusal";
import { notPairedReason, notYourMonkbrowse, webCrypto, type PairingCrypto } from "./pairing";
import { Peer, PeerClosedError, errorText, requestTimeout, type PeerSocket } from "./peer";
import {
  AUTH_SCHEME,
  HELLO_TIMEOUT_MS,
  MSG_AUTH,
  MSG_HELLO,
  MSG_REFUSED,
  MSG_TABS_CHANGED,
  PING_INTERVAL_MS,
  PROOF_LABEL_EXTENSION,
  PROOF_LABEL_SERVER,
  PROTOCOL_VERSION,
  WIRE_TYPES,
  type Hello,
  type Refused,
  type TabInfo,
  type TabsChanged,
} from "./protocol.gen";
import { Backoff } from "./reconnect";
import type { ConnectionState, Status } from "./storage";

export const PING_TIMEOUT_MS = 5_000;
export const MAX_MISSED_PINGS = 2;

/** What the service worker gives each attempt (lib/messages.ts connect-info). */
export interface ConnectInfo {
  port: number;
  extVersion: string;
  /** Sent in the auth, only to a server that proved the pairing. */
  profile: AuthProfile;
  /** The pairing secret; absent when the extension is not paired. */
  secret?: string;
  /** Whether the secret was fetched from the native host just now. */
  fresh: boolean;
  /** The secret a pasted code gave for this port (options page), tried besides the native host's. */
  pasted?: string;
  /** Why the native host could not answer, if it could not. */
  problem?: string;
}

export interface ConnectionDeps {
  /** Port, profile and pairing secret, from the service worker; refresh asks the native host again. */
  connectInfo(refresh: boolean): Promise<ConnectInfo>;
  /** Opens a socket; resolves once it is open, rejects when it cannot be. */
  openSocket(url: string): Promise<PeerSocket>;
  /** Runs one wire request (in the service worker). */
  /** Runs one wire request; signal aborts when the server cancels it. */
  exec(type: string, payload: unknown, signal: AbortSignal): Promise<unknown>;
  accepted(info: { assignedLabel: string; assignedSlug: string; serverVersion: string }): Promise<void>;
  status(s: Status): void;
  /** The server refused a call unsent because the person paused the AI (for the activity log). */
  refused?(r: Refused): void;
  now?: () => number;
  random?: () => number;
  /** The pairing proof's functions; default WebCrypto (lib/pairing.ts). */
  crypto?: PairingCrypto;
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
  /** Ask the native host for the secret at the next attempt (the first, and after a failed proof). */
  private refreshSecret = true;

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

  /** Sends tabs_changed (with the pause, issue 28) if the hello has been accepted; otherwise the next auth carries them. */
  pushTabs(tabs: TabInfo[], paused = false, extra: Pick<TabsChanged, "policy" | "left"> = {}): boolean {
    if (!this.connected || !this.peer) return false;
    try {
      // The organisation's policy and the tabs that left the AI's reach ride along (issue 44).
      this.peer.notify(MSG_TABS_CHANGED, { tabs, ...(paused ? { paused } : {}), ...extra });
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

  private setStatus(state: ConnectionState, reason?: string, unproven = false): void {
    if (this.last && this.last.state === state && this.last.reason === reason) return;
    this.last = { state, since: this.now(), ...(reason !== undefined ? { reason } : {}) };
    const s: Status = { state, port: this.port, since: this.last.since };
    if (reason !== undefined) s.reason = reason;
    if (unproven) s.unproven = true;
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

    let info: ConnectInfo;
    try {
      info = await this.deps.connectInfo(this.refreshSecret);
    } catch (e) {
      this.failed(gen, `the extension's service worker did not answer (${errorText(e)})`);
      return;
    }
    if (gen !== this.gen) return;
    this.refreshSecret = false;
    if (info.port !== this.port) {
      this.port = info.port;
      this.last = undefined;
      this.setStatus("connecting");
    }
    // The secrets to try: the pasted code's for this port and the native
    // host's. The server's proof tells which one it holds; nothing is
    // sent under a secret the server did not prove.
    const secrets = [info.pasted, info.secret].filter((s): s is string => typeof s === "string" && s !== "");
    if (secrets.length === 0) {
      // Not paired: no socket at all, so nothing reaches whatever listens.
      this.refreshSecret = true;
      this.setStatus("rejected", notPairedReason(info.problem, globalThis.chrome?.runtime?.id));
      this.schedule(this.backoff.rejected(), gen);
      return;
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

    const reject = (reason: string, retryMs: number, why: string, unproven = false) => {
      settled = true;
      this.connected = false;
      peer.close(why);
      this.peer = undefined;
      this.setStatus("rejected", reason, unproven);
      this.schedule(retryMs, gen);
    };
    const ask = async (type: string, payload: unknown): Promise<unknown | undefined> => {
      try {
        return await peer.request(type, payload, { signal: requestTimeout(type, HELLO_TIMEOUT_MS) });
      } catch (e) {
        if (gen !== this.gen || settled) return undefined;
        const why = e instanceof PeerClosedError ? "the server closed the connection" : errorText(e);
        settled = true;
        peer.close("hello failed");
        this.peer = undefined;
        this.failed(gen, `the monkbrowse server on 127.0.0.1:${info.port} did not accept the ${type}: ${why}`);
        return undefined;
      }
    };

    // The hello: our version and nonce, nothing about the person's tabs.
    const cr = this.deps.crypto ?? webCrypto;
    const nonce = cr.newNonce();
    const hello: Hello = { protocol: PROTOCOL_VERSION, extVersion: info.extVersion, nonce };
    const helloAck = await ask(MSG_HELLO, hello);
    if (helloAck === undefined || gen !== this.gen || settled) return;
    const hv = interpretAck(helloAck);
    if (!hv.accepted) {
      // Nothing proven yet: the program's words are not shown as ours.
      reject(helloRefusal(hv, info.port), this.backoff.rejected(), "hello rejected", true);
      return;
    }
    let secret: string | undefined;
    if (hv.auth === AUTH_SCHEME) {
      for (const s of secrets) {
        if (await cr.checkProof(s, PROOF_LABEL_SERVER, nonce, hv.nonce, hv.proof)) {
          secret = s;
          break;
        }
      }
    }
    if (gen !== this.gen || settled) return;
    if (secret === undefined) {
      // Perhaps a `monkbrowse pair --reset`: ask the native host again,
      // soon when the secret was an old one, slowly when it was fresh.
      this.refreshSecret = true;
      reject(notYourMonkbrowse(info.port, info.pasted !== undefined), info.fresh ? this.backoff.rejected() : this.backoff.failure(), "the server could not prove the pairing");
      return;
    }

    // Proven: now the server may send requests, and hears who we are.
    for (const type of WIRE_TYPES) {
      peer.handle(type, (payload, signal) => this.deps.exec(type, payload, signal));
    }
    peer.handleNotify(MSG_REFUSED, (payload) => {
      const r = payload as Partial<Refused> | null;
      if (typeof r?.tool !== "string") return;
      const out: Refused = { tool: r.tool };
      if (typeof r.tabId === "number") out.tabId = r.tabId;
      if (typeof r.app === "string") out.app = r.app;
      this.deps.refused?.(out);
    });
    const ackRaw = await ask(MSG_AUTH, { proof: await cr.proof(secret, PROOF_LABEL_EXTENSION, nonce, hv.nonce), ...info.profile });
    if (ackRaw === undefined || gen !== this.gen || settled) return;

    const verdict = interpretAck(ackRaw);
    if (!verdict.accepted) {
      if (verdict.reason.includes("could not prove it is paired")) this.refreshSecret = true;
      reject(verdict.reason, this.backoff.rejected(), "auth rejected");
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
