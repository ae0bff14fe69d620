import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Connection } from "./connection";
import { pipe, type PeerSocket } from "./peer";
import { decodeFrame, encodeFrame } from "./frame";
import type { AuthProfile } from "./hello";
import { TEST_SECRET, nodeCrypto, proofAck } from "./pairing-testing";
import { PROTOCOL_VERSION } from "./protocol.gen";
import { needsReconnect, type Served } from "./settings-sync";
import type { Settings, Status } from "./storage";

const settle = async () => {
  for (let i = 0; i < 30; i++) await Promise.resolve();
};

describe("needsReconnect", () => {
  const stored: Settings = { port: 9333, label: "work" };
  it("compares what was served with what is stored", () => {
    expect(needsReconnect(stored, { port: 9333, label: "work" })).toBe(false);
    expect(needsReconnect(stored, { port: 9222, label: "work" })).toBe(true);
    expect(needsReconnect(stored, { port: 9333, label: "" })).toBe(true);
  });
  it("falls back on the status's port when nothing was served (the worker restarted)", () => {
    const st = (port: number): Status => ({ state: "connected", port, since: 1 });
    expect(needsReconnect(stored, undefined, st(9222))).toBe(true);
    expect(needsReconnect(stored, undefined, st(9333))).toBe(false);
    expect(needsReconnect(stored, undefined, st(0))).toBe(false);
    expect(needsReconnect(stored, undefined)).toBe(false);
  });
});

// A model of the service worker and the offscreen connection right after
// Chrome starts: the settings change while the connection's first attempt
// is under way, and the "reconnect" message is lost (the offscreen document
// was not listening yet). The status check repairs it at once.
describe("settings changed before the first status", () => {
  let listening: Set<number>;
  let urls: string[];
  let stored: Settings;
  let served: Served | undefined;
  let statuses: Status[];
  let conn: Connection;
  const profile = (label: string): AuthProfile => ({ profileId: "p", label, tabs: [] });

  const openSocket = async (url: string): Promise<PeerSocket> => {
    urls.push(url);
    const port = Number(new URL(url).port);
    if (!listening.has(port)) throw new Error("ECONNREFUSED");
    const [server, client] = pipe();
    server.onMessage((text) => {
      const f = decodeFrame(text);
      if (f?.k === "req" && f.type === "hello") server.send(encodeFrame({ k: "res", id: f.id, ok: true, result: proofAck(TEST_SECRET, f.payload) }));
      if (f?.k === "req" && f.type === "auth") {
        server.send(encodeFrame({ k: "res", id: f.id, ok: true, result: { ok: true, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", assignedLabel: "x", assignedSlug: "x" } }));
      }
      if (f?.k === "png") server.send('{"k":"pog"}');
    });
    return client;
  };

  beforeEach(() => {
    vi.useFakeTimers();
    listening = new Set([9222, 9333]);
    urls = [];
    stored = { port: 9222, label: "" };
    served = undefined;
    statuses = [];
  });
  afterEach(() => {
    conn?.stop();
    vi.useRealTimers();
  });

  function start(withCheck: boolean) {
    conn = new Connection({
      // The service worker's connect-info: reads the stored settings and
      // remembers what it served.
      connectInfo: async () => {
        served = { port: stored.port, label: stored.label };
        return { port: stored.port, extVersion: "0.3.0", profile: profile(stored.label), secret: TEST_SECRET, fresh: true };
      },
      crypto: nodeCrypto,
      openSocket,
      exec: async () => null,
      accepted: async () => undefined,
      // The service worker's status handler.
      status: (s) => {
        statuses.push(s);
        if (withCheck && needsReconnect(stored, served, s)) queueMicrotask(() => conn.reconnectNow());
      },
      random: () => 0.5,
    });
    conn.start();
  }

  for (const withCheck of [false, true]) {
    it(withCheck ? "reconnects at once with the status check" : "without the check, stays on the old port (the race)", async () => {
      start(withCheck);
      // Chrome just started: the first attempt has asked for its settings;
      // the person (or a harness) changes the port now. The reconnect
      // message is lost.
      stored = { port: 9333, label: "work" };
      await settle();
      await vi.advanceTimersByTimeAsync(1000);
      const last = statuses.at(-1)!;
      if (withCheck) {
        expect(last).toMatchObject({ state: "connected", port: 9333 });
        expect(urls.at(-1)).toBe("ws://127.0.0.1:9333/");
      } else {
        expect(last).toMatchObject({ state: "connected", port: 9222 });
      }
    });
  }
});
