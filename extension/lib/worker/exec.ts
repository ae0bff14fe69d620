// How the service worker runs one wire request the offscreen document
// relays (DESIGN §5.5, §7.1): the pause gate (Stop in the popup: nothing is
// sent to the page until Resume), the abort registry (the server's cancel,
// the person's Stop or unshare answer a running call at once) and the call
// watch (the activity log's entry). Chrome stays behind ExecPort
// (entrypoints/background/calls.ts wires it), so all of it runs in unit
// tests (exec.test.ts).

import { CodedError, errorCode, errorText } from "../peer";
import { ERROR_CODES, REQUEST_APP_FIELD } from "../protocol.gen";
import { UNKNOWN_APP, isLogged } from "../activity";

/** The activity log's watch over one call: exactly one of these is called when it ends. */
export interface CallWatch {
  done(result: unknown): void;
  failed(err: unknown): void;
}

/** What the exec module needs of the service worker; each method's rule is on it. */
export interface ExecPort {
  /** Loads the stored pause (a worker that just woke has not read it yet); before the first gate. */
  ready(): Promise<void>;
  /** Why a call on tabId may not run now (the profile or that tab is stopped), or undefined. Synchronous. */
  pausedFor(tabId: number | undefined): CodedError | undefined;
  /** Writes a call refused by the pause to the activity log (the page is not touched); returns err. Synchronous. */
  logPaused(type: string, payload: unknown, err: CodedError): CodedError;
  /** Starts the activity log's watch of a call (the page is asked for its targets now, before the call changes it). */
  watch(type: string, payload: unknown): Promise<CallWatch>;
  /** Input in tabId is monkbrowse's own, not the person's, until the returned function is called (lib/person.ts). */
  beginActing(tabId: number): () => void;
  /** The tab's toolbar badge says app acts in it until the returned function is called. */
  actingIn(tabId: number, app: string): () => void;
  /** Executes the request in the browser (lib/executor.ts); signal is aborted by cancel, Stop or unshare. */
  execute(type: string, payload: unknown, signal: AbortSignal): Promise<unknown>;
  /** The answer the server gets for a call that succeeded (list_tabs' pause marks, a new tab's group, the cancel notice). */
  answer(type: string, result: unknown, app: string): Promise<unknown>;
  /** The error the server gets for a call that failed (with the cancel notice, if any). */
  failure(err: unknown): Promise<unknown>;
}

/** One wire request as the offscreen document relays it (BgMessages.exec). */
export interface ExecRequest {
  type: string;
  payload: unknown;
  /** The offscreen document's id of the call: the server's cancel names it. */
  callId?: string;
}

/** The app a request names (REQUEST_APP_FIELD), or UNKNOWN_APP. */
export function appOf(payload: unknown): string {
  const v = payload && typeof payload === "object" ? (payload as Record<string, unknown>)[REQUEST_APP_FIELD] : undefined;
  return typeof v === "string" && v.trim() !== "" ? v : UNKNOWN_APP;
}

/** The tab a request names, if it names one. */
export function tabOf(payload: unknown): number | undefined {
  const t = payload && typeof payload === "object" ? (payload as { tabId?: unknown }).tabId : undefined;
  return typeof t === "number" ? t : undefined;
}

/**
 * The extension's one place where an abort is honoured (DESIGN §5.5): the
 * call answers with the abort's reason at once (the server's cancel, the
 * person unsharing the tab), whatever its work is still doing; that work
 * meets the share gate (entrypoints/background/gate.ts) at its next
 * injection, attach or op.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The error a call the server cancelled answers with. */
export function cancelledError(): CodedError {
  return new CodedError(ERROR_CODES.cancelled, "the call was cancelled by its MCP client while it ran; what it had begun may have happened");
}

/** A running call: its abort, and the tab it names. */
interface Running {
  ctl: AbortController;
  tabId?: number;
}

/**
 * The wire requests being executed, by callId, with the tab each names:
 * what the server's cancel, the person's Stop and an unshare abort.
 */
export class AbortRegistry {
  private readonly calls = new Map<string, Running>();

  /** Registers a call (no callId: it cannot be cancelled by id, only by its tab); the returned function ends it. */
  add(callId: string | undefined, tabId: number | undefined, ctl: AbortController): () => void {
    if (!callId) return () => undefined;
    const r: Running = { ctl, tabId };
    this.calls.set(callId, r);
    return () => {
      if (this.calls.get(callId) === r) this.calls.delete(callId);
    };
  }

  /** The server cancelled callId: it answers reason at once (nothing if it ended already). */
  cancel(callId: string, reason: Error): void {
    this.calls.get(callId)?.ctl.abort(reason);
  }

  /** Stops every running call on the tab (the person unshared it): each answers with reason. */
  abortTab(tabId: number, reason: Error): void {
    for (const r of this.calls.values()) if (r.tabId === tabId) r.ctl.abort(reason);
  }

  /**
   * The person pressed Stop (of tabId, or of the profile when undefined):
   * each running call the pause now covers answers with its refusal.
   */
  abortPaused(tabId: number | undefined, pausedFor: (tabId: number | undefined) => CodedError | undefined): void {
    for (const r of this.calls.values()) {
      const why = pausedFor(r.tabId);
      if (why && (tabId === undefined || r.tabId === tabId)) r.ctl.abort(why);
    }
  }

  /** How many calls run (for tests). */
  get size(): number {
    return this.calls.size;
  }
}

/** Runs wire requests through the pause gate, the call watch and the abort registry. */
export class Exec {
  readonly running = new AbortRegistry();

  constructor(private readonly port: ExecPort) {}

  /**
   * The service worker's pause gate: a wire request on tabId runs only while
   * neither the profile nor that tab is stopped; otherwise this throws the
   * paused refusal, logged. Synchronous, so that run's check and its
   * registering the call for Stop's abort have nothing async between them.
   */
  gate(type: string, payload: unknown, tabId: number | undefined): void {
    const refusal = this.port.pausedFor(tabId);
    if (refusal) throw this.port.logPaused(type, payload, refusal);
  }

  /** Runs one wire request; resolves with the server's answer or rejects with its error. */
  async run(req: ExecRequest): Promise<unknown> {
    const { type, payload } = req;
    const ctl = new AbortController();
    const tabId = tabOf(payload);
    const app = appOf(payload);
    // Registered before anything async: the server's cancel (or an unshare)
    // that comes while the pause is loaded or the targets are read finds
    // the call, which then never runs; it is not lost while the call runs
    // on as if nothing came.
    const unregister = this.running.add(req.callId, tabId, ctl);
    try {
      await this.port.ready();
      // Stop in the popup (the profile, or this tab): nothing is sent to the page until Resume.
      this.gate(type, payload, tabId);
      const watch = await this.port.watch(type, payload);
      // Stop may have come while the targets were read: checked again with
      // nothing async before the abort is checked and the call runs.
      this.gate(type, payload, tabId);
      return await this.execute(type, payload, tabId, app, ctl.signal, watch);
    } finally {
      unregister();
    }
  }

  /** The call past the gate: it runs unless its abort came already, and answers at once when its abort comes. */
  private async execute(type: string, payload: unknown, tabId: number | undefined, app: string, signal: AbortSignal, watch: CallWatch): Promise<unknown> {
    if (signal.aborted) {
      // Cancelled (or its tab unshared) before it ran: nothing is sent to the page.
      watch.failed(signal.reason);
      throw await this.port.failure(signal.reason);
    }
    // Input in the tab while this runs is monkbrowse's own, not the person's (lib/person.ts).
    const endActing = tabId !== undefined && type !== "person_edits" ? this.port.beginActing(tabId) : undefined;
    // The tab's toolbar badge says the AI acts in it until the call ends, however it ends.
    const acted = tabId !== undefined && isLogged(type) ? this.port.actingIn(tabId, app) : undefined;
    try {
      const r = await untilAborted(this.port.execute(type, payload, signal), signal);
      watch.done(r);
      return await this.port.answer(type, r, app);
    } catch (e) {
      watch.failed(e);
      throw await this.port.failure(e);
    } finally {
      endActing?.();
      acted?.();
    }
  }

  /** The server cancelled callId. */
  cancel(callId: string): void {
    this.running.cancel(callId, cancelledError());
  }
}

/** err with notice appended to its text, its code kept (the person cancelled debugging meanwhile). */
export function withNotice(err: unknown, notice: string | undefined): unknown {
  if (notice === undefined) return err;
  const code = errorCode(err);
  const text = `${errorText(err)}\n\n${notice}`;
  return code !== undefined ? new CodedError(code, text) : new Error(text);
}
