// A transport-agnostic request/response peer (DESIGN §4), the TypeScript twin
// of the Go messaging.Peer. It speaks the envelope of lib/frame.ts over any
// PeerSocket: the offscreen document wraps a browser WebSocket, tests use
// the in-memory pipe().

import { decodeFrame, encodeFrame, type Frame } from "./frame";
import { MSG_CANCEL } from "./protocol.gen";

/**
 * PeerSocket is what a Peer needs from a transport: one text frame per
 * send, one callback per received frame. JavaScript is single-threaded, so
 * there are no concurrency rules beyond these:
 * - send throws (or silently drops) once the socket is closed;
 * - close is idempotent and makes the socket call its close callback once;
 * - the close callback fires once, whichever side closed.
 */
export interface PeerSocket {
  send(frame: string): void;
  close(reason?: string): void;
  onMessage(cb: (frame: string) => void): void;
  onClose(cb: (reason?: string) => void): void;
}

/** Fails a request that got no answer in time: the reason of requestTimeout's signal. */
export class RequestTimeoutError extends Error {
  override name = "RequestTimeoutError";
  constructor(
    readonly type: string,
    readonly timeoutMs: number,
  ) {
    super(`request "${type}" timed out after ${timeoutMs} ms`);
  }
}

/**
 * A signal that aborts after ms with a RequestTimeoutError naming type (the
 * twin of Go's context.WithTimeoutCause(…, &RequestTimeoutError{…})).
 * Combine it with a caller's signal through AbortSignal.any.
 */
export function requestTimeout(type: string, ms: number): AbortSignal {
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(new RequestTimeoutError(type, ms)), ms);
  return ctl.signal;
}

/** How long a request or ping may wait: its signal alone (the caller builds it, e.g. with requestTimeout). */
export interface RequestOptions {
  /** Fails the call with the signal's reason when it aborts; without one the call waits for its answer or the peer's close. */
  signal?: AbortSignal;
}

/** An ok:false answer from the other side. Decide on code, never on the message. */
export class RemoteError extends Error {
  override name = "RemoteError";
  constructor(
    readonly type: string,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * An error with a machine-readable code (one of the generated ERROR_CODES):
 * thrown by a request handler, it answers with that code beside the message.
 */
export class CodedError extends Error {
  override name = "CodedError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Fails requests in flight when the peer closes, and every call after. */
export class PeerClosedError extends Error {
  override name = "PeerClosedError";
  constructor(message = "peer disconnected") {
    super(message);
  }
}

/**
 * A request handler. signal aborts when the server sends a cancel notify
 * for this request (MSG_CANCEL, DESIGN §6) or the peer closes; the handler
 * should stop what it can abandon (waits, settles) and still return or
 * throw: the answer is sent either way.
 */
export type Handler = (payload: unknown, signal: AbortSignal) => unknown;
export type NotifyHandler = (payload: unknown) => void;

export interface PeerOptions {
  /** Called once, after the peer has closed and failed its in-flight calls. */
  onClose?: (reason?: string) => void;
  /** Diagnostics (dropped frames, handler failures); undefined → silent. */
  log?: (msg: string) => void;
}

interface Pending {
  type: string;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Stops listening to the call's signal. */
  unlisten: () => void;
}

interface PendingPing {
  resolve: () => void;
  reject: (e: unknown) => void;
  unlisten: () => void;
}

/** Calls onAbort once when signal aborts; returns the function that stops listening. */
function listen(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (!signal) return () => {};
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

export class Peer {
  private nextId = 0;
  private readonly pending = new Map<string, Pending>();
  private pings: PendingPing[] = [];
  private readonly handlers = new Map<string, Handler>();
  private readonly notifyHandlers = new Map<string, NotifyHandler>();
  /** Requests being served, by id: aborted by a cancel notify or on close. */
  private readonly serving = new Map<string, AbortController>();
  private closedReason: string | undefined;
  private isClosed = false;
  private droppedCount = 0;

  constructor(
    private readonly sock: PeerSocket,
    private readonly opts: PeerOptions = {},
  ) {
    sock.onMessage((text) => this.receive(text));
    sock.onClose((reason) => this.shutdown(reason));
  }

  /** Registers the handler of requests of one type (replacing any earlier one). */
  handle(type: string, h: Handler): void {
    this.handlers.set(type, h);
  }

  /** Registers the handler of notifies of one type. */
  handleNotify(type: string, h: NotifyHandler): void {
    this.notifyHandlers.set(type, h);
  }

  /** Number of malformed frames dropped so far. */
  get dropped(): number {
    return this.droppedCount;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Why the peer closed, once it has. */
  get closeReason(): string | undefined {
    return this.closedReason;
  }

  /**
   * Sends a request and resolves with the other side's result. Rejects with
   * the signal's reason when it aborts (a RequestTimeoutError for a signal
   * of requestTimeout), RemoteError on ok:false, PeerClosedError when the
   * peer is or becomes closed.
   */
  request(type: string, payload: unknown, opts: RequestOptions = {}): Promise<unknown> {
    if (this.isClosed) return Promise.reject(new PeerClosedError());
    const signal = opts.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = String(++this.nextId);
    return new Promise<unknown>((resolve, reject) => {
      const unlisten = listen(signal, () => {
        if (this.pending.delete(id)) reject(signal!.reason);
      });
      this.pending.set(id, { type, resolve, reject, unlisten });
      try {
        this.sock.send(encodeFrame({ k: "req", id, type, payload: payload ?? {} }));
      } catch (e) {
        unlisten();
        this.pending.delete(id);
        reject(new PeerClosedError(`sending "${type}" failed: ${errorText(e)}`));
      }
    });
  }

  /** Sends a notify; never waits. Throws PeerClosedError when closed. */
  notify(type: string, payload: unknown): void {
    if (this.isClosed) throw new PeerClosedError();
    this.sock.send(encodeFrame({ k: "ntf", type, payload: payload ?? {} }));
  }

  /** Sends a ping and resolves on the pong; rejects as request does. */
  ping(opts: RequestOptions = {}): Promise<void> {
    if (this.isClosed) return Promise.reject(new PeerClosedError());
    const signal = opts.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const entry: PendingPing = {
        resolve,
        reject,
        unlisten: listen(signal, () => {
          const i = this.pings.indexOf(entry);
          if (i >= 0) {
            this.pings.splice(i, 1);
            reject(signal!.reason);
          }
        }),
      };
      this.pings.push(entry);
      try {
        this.sock.send(encodeFrame({ k: "png" }));
      } catch (e) {
        entry.unlisten();
        this.pings = this.pings.filter((p) => p !== entry);
        reject(new PeerClosedError(`sending ping failed: ${errorText(e)}`));
      }
    });
  }

  /** Closes the socket; idempotent. In-flight calls fail with "peer disconnected". */
  close(reason?: string): void {
    if (this.isClosed) return;
    this.sock.close(reason);
    // A socket whose close callback is late or missing must not leave calls hanging.
    this.shutdown(reason);
  }

  private shutdown(reason?: string): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.closedReason = reason;
    for (const p of this.pending.values()) {
      p.unlisten();
      p.reject(new PeerClosedError());
    }
    this.pending.clear();
    for (const p of this.pings) {
      p.unlisten();
      p.reject(new PeerClosedError());
    }
    this.pings = [];
    for (const c of this.serving.values()) c.abort(new PeerClosedError());
    this.serving.clear();
    this.opts.onClose?.(reason);
  }

  private drop(why: string): void {
    this.droppedCount++;
    this.opts.log?.(`messaging: dropped a frame: ${why}`);
  }

  private trySend(f: Frame): void {
    if (this.isClosed) return;
    try {
      this.sock.send(encodeFrame(f));
    } catch (e) {
      this.opts.log?.(`messaging: send failed: ${errorText(e)}`);
    }
  }

  private receive(text: string): void {
    if (this.isClosed) return;
    const f = decodeFrame(text);
    if (!f) {
      this.drop("malformed");
      return;
    }
    switch (f.k) {
      case "png":
        this.trySend({ k: "pog" });
        return;
      case "pog": {
        const p = this.pings.shift();
        if (p) {
          p.unlisten();
          p.resolve();
        }
        return;
      }
      case "res": {
        const p = this.pending.get(f.id);
        if (!p) return; // late answer to an aborted (timed-out) request
        this.pending.delete(f.id);
        p.unlisten();
        if (f.ok) p.resolve(f.result ?? null);
        else p.reject(new RemoteError(p.type, f.error ?? `request "${p.type}" failed`, f.code));
        return;
      }
      case "ntf": {
        if (f.type === MSG_CANCEL) {
          const id = (f.payload as { id?: unknown } | undefined)?.id;
          if (typeof id === "string") this.serving.get(id)?.abort(new Error("cancelled by the server"));
          return;
        }
        const h = this.notifyHandlers.get(f.type);
        if (!h) return;
        try {
          h(f.payload);
        } catch (e) {
          this.opts.log?.(`messaging: notify handler "${f.type}" threw: ${errorText(e)}`);
        }
        return;
      }
      case "req":
        void this.serve(f.id, f.type, f.payload);
        return;
    }
  }

  private async serve(id: string, type: string, payload: unknown): Promise<void> {
    const h = this.handlers.get(type);
    if (!h) {
      this.trySend({ k: "res", id, ok: false, error: `no handler for request "${type}"` });
      return;
    }
    const ctl = new AbortController();
    this.serving.set(id, ctl);
    try {
      const result = await h(payload, ctl.signal);
      this.trySend({ k: "res", id, ok: true, result: result === undefined ? null : result });
    } catch (e) {
      const code = errorCode(e);
      this.trySend(code ? { k: "res", id, ok: false, error: errorText(e), code } : { k: "res", id, ok: false, error: errorText(e) });
    } finally {
      if (this.serving.get(id) === ctl) this.serving.delete(id);
    }
  }
}

/** The code a CodedError (or a RemoteError passed on) carries, if any. */
export function errorCode(e: unknown): string | undefined {
  return e instanceof CodedError || e instanceof RemoteError ? e.code : undefined;
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === "string") return e;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
}

/**
 * pipe returns two linked in-memory sockets: a frame sent on one arrives on
 * the other asynchronously (as over a real socket), and closing either closes
 * both.
 */
export function pipe(): [PeerSocket, PeerSocket] {
  class End implements PeerSocket {
    other!: End;
    closed = false;
    private msgCbs: ((f: string) => void)[] = [];
    private closeCbs: ((r?: string) => void)[] = [];
    send(frame: string): void {
      if (this.closed) throw new Error("socket closed");
      const other = this.other;
      queueMicrotask(() => {
        if (!other.closed) for (const cb of other.msgCbs) cb(frame);
      });
    }
    close(reason?: string): void {
      this.end(reason);
      this.other.end(reason);
    }
    end(reason?: string): void {
      if (this.closed) return;
      this.closed = true;
      queueMicrotask(() => {
        for (const cb of this.closeCbs) cb(reason);
      });
    }
    onMessage(cb: (f: string) => void): void {
      this.msgCbs.push(cb);
    }
    onClose(cb: (r?: string) => void): void {
      this.closeCbs.push(cb);
    }
  }
  const a = new End();
  const b = new End();
  a.other = b;
  b.other = a;
  return [a, b];
}
