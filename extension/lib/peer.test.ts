import { afterEach, describe, expect, it, vi } from "vitest";
import { decodeFrame } from "./frame";
import { CodedError, Peer, PeerClosedError, RemoteError, RequestTimeoutError, pipe, requestTimeout, type PeerSocket } from "./peer";

/** A socket whose sent frames are recorded and whose incoming frames the test injects. */
class FakeSocket implements PeerSocket {
  sent: string[] = [];
  closed = false;
  private msg: ((f: string) => void)[] = [];
  private cls: ((r?: string) => void)[] = [];
  send(f: string) {
    if (this.closed) throw new Error("closed");
    this.sent.push(f);
  }
  close(r?: string) {
    if (this.closed) return;
    this.closed = true;
    for (const cb of this.cls) cb(r);
  }
  onMessage(cb: (f: string) => void) {
    this.msg.push(cb);
  }
  onClose(cb: (r?: string) => void) {
    this.cls.push(cb);
  }
  deliver(f: string) {
    for (const cb of this.msg) cb(f);
  }
}

// One turn of the event loop: every promise chain the delivered frames
// started has run (they are microtasks; nothing here waits on a timer).
const flush = () => new Promise((r) => setImmediate(r));

afterEach(() => {
  vi.useRealTimers();
});

describe("Peer", () => {
  it("a cancel notify aborts the handler's signal; the handler still answers (issue 12)", async () => {
    const s = new FakeSocket();
    const p = new Peer(s);
    let seen: AbortSignal | undefined;
    p.handle("slow", (_payload, signal) => {
      seen = signal;
      return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ stopped: true })));
    });
    s.deliver(`{"k":"req","id":"4","type":"slow","payload":{}}`);
    s.deliver(`{"k":"req","id":"5","type":"slow","payload":{}}`);
    await flush();
    expect(seen?.aborted).toBe(false);
    s.deliver(`{"k":"ntf","type":"cancel","payload":{"id":"4"}}`);
    await flush();
    expect(s.sent.map((f) => decodeFrame(f))).toEqual([{ k: "res", id: "4", ok: true, result: { stopped: true } }]);
    // Unknown ids and malformed cancels are ignored.
    s.deliver(`{"k":"ntf","type":"cancel","payload":{"id":"99"}}`);
    s.deliver(`{"k":"ntf","type":"cancel","payload":{}}`);
    await flush();
    expect(s.sent.length).toBe(1);
    p.close();
  });

  it("numbers requests with incrementing decimal-string ids", async () => {
    const s = new FakeSocket();
    const p = new Peer(s);
    void p.request("a", { x: 1 }).catch(() => undefined);
    void p.request("b", undefined).catch(() => undefined);
    expect(s.sent).toEqual(['{"k":"req","id":"1","type":"a","payload":{"x":1}}', '{"k":"req","id":"2","type":"b","payload":{}}']);
    p.close();
  });

  it("resolves a request with its result and rejects ok:false as RemoteError", async () => {
    const s = new FakeSocket();
    const p = new Peer(s);
    const a = p.request("browser_click", {});
    const b = p.request("browser_type", {});
    s.deliver('{"k":"res","id":"2","ok":false,"error":"ref e7 is stale"}');
    s.deliver('{"k":"res","id":"1","ok":true,"result":{"tabId":3}}');
    await expect(a).resolves.toEqual({ tabId: 3 });
    const err = await b.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).message).toBe("ref e7 is stale");
    expect((err as RemoteError).type).toBe("browser_type");
  });

  it("fails with the signal's reason: requestTimeout's RequestTimeoutError naming type and ms; drops the late answer", async () => {
    vi.useFakeTimers();
    const s = new FakeSocket();
    const p = new Peer(s);
    const r = p.request("browser_navigate", {}, { signal: requestTimeout("browser_navigate", 250) });
    const d = p.request("getUrl", {}, { signal: requestTimeout("getUrl", 1000) });
    vi.advanceTimersByTime(250);
    const err = await r.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect((err as RequestTimeoutError).type).toBe("browser_navigate");
    expect((err as RequestTimeoutError).timeoutMs).toBe(250);
    expect((err as Error).message).toBe('request "browser_navigate" timed out after 250 ms');
    s.deliver('{"k":"res","id":"1","ok":true,"result":{}}'); // late: ignored
    expect(p.dropped).toBe(0);
    vi.advanceTimersByTime(750);
    await expect(d).rejects.toThrow('request "getUrl" timed out after 1000 ms');
  });

  it("fails at once with an already aborted signal, and on a caller's abort combined by AbortSignal.any", async () => {
    vi.useFakeTimers();
    const s = new FakeSocket();
    const p = new Peer(s);
    const gone = new Error("the call was cancelled");
    await expect(p.request("x", {}, { signal: AbortSignal.abort(gone) })).rejects.toBe(gone);
    expect(s.sent).toEqual([]); // nothing was sent
    const caller = new AbortController();
    const r = p.request("y", {}, { signal: AbortSignal.any([caller.signal, requestTimeout("y", 1000)]) });
    caller.abort(gone);
    await expect(r).rejects.toBe(gone);
    s.deliver('{"k":"res","id":"1","ok":true,"result":{}}'); // late: ignored
    expect(p.dropped).toBe(0);
  });

  it("waits without a signal until the answer comes (no timeout of its own)", async () => {
    vi.useFakeTimers();
    const s = new FakeSocket();
    const p = new Peer(s);
    const r = p.request("x", {});
    let settled = false;
    void r.then(
      () => (settled = true),
      () => (settled = true),
    );
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(settled).toBe(false);
    s.deliver('{"k":"res","id":"1","ok":true,"result":{"late":true}}');
    await expect(r).resolves.toEqual({ late: true });
  });

  it("answers requests through handlers; errors, throws and missing handlers become ok:false", async () => {
    const s = new FakeSocket();
    const p = new Peer(s);
    p.handle("sync", (x) => ({ echo: x }));
    p.handle("async", async () => {
      await flush();
      return { late: true };
    });
    p.handle("undef", () => undefined);
    p.handle("throws", () => {
      throw new Error("tab 5 is not shared");
    });
    p.handle("rejects", () => Promise.reject(new Error("nope")));
    p.handle("throws-string", () => {
      throw "plain";
    });
    s.deliver('{"k":"req","id":"1","type":"async","payload":{}}');
    s.deliver('{"k":"req","id":"2","type":"sync","payload":{"a":1}}');
    s.deliver('{"k":"req","id":"3","type":"throws","payload":{}}');
    s.deliver('{"k":"req","id":"4","type":"rejects","payload":{}}');
    s.deliver('{"k":"req","id":"5","type":"missing","payload":{}}');
    s.deliver('{"k":"req","id":"6","type":"undef"}');
    s.deliver('{"k":"req","id":"7","type":"throws-string","payload":{}}');
    await flush();
    await flush();
    const byId = Object.fromEntries(s.sent.map((f) => [decodeFrame(f)!.k === "res" ? (decodeFrame(f) as { id: string }).id : "?", f]));
    expect(byId["1"]).toBe('{"k":"res","id":"1","ok":true,"result":{"late":true}}');
    expect(byId["2"]).toBe('{"k":"res","id":"2","ok":true,"result":{"echo":{"a":1}}}');
    expect(byId["3"]).toBe('{"k":"res","id":"3","ok":false,"error":"tab 5 is not shared"}');
    expect(byId["4"]).toBe('{"k":"res","id":"4","ok":false,"error":"nope"}');
    expect(byId["5"]).toBe('{"k":"res","id":"5","ok":false,"error":"no handler for request \\"missing\\""}');
    expect(byId["6"]).toBe('{"k":"res","id":"6","ok":true,"result":null}');
    expect(byId["7"]).toBe('{"k":"res","id":"7","ok":false,"error":"plain"}');
    // The fast handler did not wait for the slow one.
    expect(decodeFrame(s.sent[s.sent.length - 1]!)).toMatchObject({ id: "1" });
  });

  it("answers ping with pong at the messaging layer, and ping() resolves on pong", async () => {
    const s = new FakeSocket();
    const p = new Peer(s);
    s.deliver('{"k":"png"}');
    expect(s.sent).toEqual(['{"k":"pog"}']);
    const ping = p.ping({ signal: requestTimeout("ping", 1000) });
    expect(s.sent[1]).toBe('{"k":"png"}');
    s.deliver('{"k":"pog"}');
    await expect(ping).resolves.toBeUndefined();
  });

  it("fails a ping without pong", async () => {
    vi.useFakeTimers();
    const p = new Peer(new FakeSocket());
    const ping = p.ping({ signal: requestTimeout("ping", 500) });
    vi.advanceTimersByTime(500);
    await expect(ping).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it("delivers notifies to their handler and sends notify without waiting", () => {
    const s = new FakeSocket();
    const p = new Peer(s);
    const got: unknown[] = [];
    p.handleNotify("tabs_changed", (x) => got.push(x));
    s.deliver('{"k":"ntf","type":"tabs_changed","payload":{"tabs":[]}}');
    s.deliver('{"k":"ntf","type":"unknown","payload":{}}');
    expect(got).toEqual([{ tabs: [] }]);
    p.notify("tabs_changed", { tabs: [1] });
    expect(s.sent).toEqual(['{"k":"ntf","type":"tabs_changed","payload":{"tabs":[1]}}']);
  });

  it("drops and counts malformed frames without breaking", async () => {
    const s = new FakeSocket();
    const p = new Peer(s);
    p.handle("x", () => ({ fine: true }));
    for (const bad of ["{", "42", '{"k":"nope"}', '{"k":"req","type":"x"}', '{"k":"res","ok":true}', ""]) s.deliver(bad);
    expect(p.dropped).toBe(6);
    s.deliver('{"k":"req","id":"1","type":"x","payload":{}}');
    await flush();
    expect(s.sent).toEqual(['{"k":"res","id":"1","ok":true,"result":{"fine":true}}']);
  });

  it("fails every in-flight request and ping with 'peer disconnected' on close, and later calls at once", async () => {
    const s = new FakeSocket();
    let closedWith: string | undefined = "not yet";
    const p = new Peer(s, { onClose: (r) => (closedWith = r) });
    const a = p.request("a", {});
    const b = p.request("b", {});
    const ping = p.ping();
    s.close("server went away");
    for (const pr of [a, b, ping]) {
      const e = await pr.catch((x: unknown) => x);
      expect(e).toBeInstanceOf(PeerClosedError);
      expect((e as Error).message).toBe("peer disconnected");
    }
    expect(closedWith).toBe("server went away");
    expect(p.closed).toBe(true);
    await expect(p.request("c", {})).rejects.toThrow("peer disconnected");
    await expect(p.ping()).rejects.toBeInstanceOf(PeerClosedError);
    expect(() => p.notify("n", {})).toThrow(PeerClosedError);
    p.close(); // idempotent
  });

  it("close() on our side fails in-flight calls too", async () => {
    const s = new FakeSocket();
    const p = new Peer(s);
    const a = p.request("a", {});
    p.close("bye");
    await expect(a).rejects.toThrow("peer disconnected");
    expect(s.closed).toBe(true);
  });

  it("sends a thrown CodedError's code beside its message, and hands the code to the caller", async () => {
    const [x, y] = pipe();
    const server = new Peer(x);
    const ext = new Peer(y);
    ext.handle("browser_click", () => {
      throw new CodedError("tab_gone", "tab 9 does not exist any more (it was closed)");
    });
    ext.handle("browser_hover", () => {
      throw new Error("no code");
    });
    const err = await server.request("browser_click", { tabId: 9 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).code).toBe("tab_gone");
    expect((err as RemoteError).message).toBe("tab 9 does not exist any more (it was closed)");
    const plain = await server.request("browser_hover", {}).catch((e: unknown) => e);
    expect((plain as RemoteError).code).toBeUndefined();
    const s = new FakeSocket();
    const p = new Peer(s);
    p.handle("t", () => {
      throw new CodedError("not_shared", "tab 5 is not shared");
    });
    s.deliver('{"k":"req","id":"1","type":"t"}');
    await flush();
    expect(s.sent).toEqual(['{"k":"res","id":"1","ok":false,"error":"tab 5 is not shared","code":"not_shared"}']);
    server.close();
  });

  it("talks to another Peer over pipe(), in both directions", async () => {
    const [x, y] = pipe();
    const server = new Peer(x);
    const ext = new Peer(y);
    server.handle("hello", (h) => ({ ok: true, got: h }));
    ext.handle("browser_click", (p) => ({ tabId: (p as { tabId: number }).tabId }));
    await expect(ext.request("hello", { protocol: 1 })).resolves.toEqual({ ok: true, got: { protocol: 1 } });
    await expect(server.request("browser_click", { tabId: 9 })).resolves.toEqual({ tabId: 9 });
    await expect(server.ping({ signal: requestTimeout("ping", 1000) })).resolves.toBeUndefined();
    const pending = server.request("browser_click", { tabId: 1 }, { signal: requestTimeout("browser_click", 60_000) });
    ext.close();
    await expect(pending.then(() => "answered", (e: Error) => e.message)).resolves.toMatch(/answered|peer disconnected/);
    await flush();
    expect(server.closed).toBe(true);
  });
});
