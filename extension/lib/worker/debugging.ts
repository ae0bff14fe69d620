// Debugger mode's logic in the service worker (issues 21, 44): the attach
// log, telling the person's Cancel on Chrome's "started debugging this
// browser" bar from our own detach or a tab closing, the native dialogs'
// answers and the response bodies kept per tab. chrome.debugger and storage
// are behind small ports; entrypoints/background/debugger.ts wires them and
// keeps the sessions (attach, detach, idle).

/** How close to our own detach or a tab closing a canceled_by_user is not the person's cancel. */
export const CANCEL_GRACE_MS = 1000;
const LOG_MAX = 200;
/** Response bodies kept per tab (only of requests made while attached). */
export const BODY_MAX = 64 * 1024;
export const BODIES_PER_TAB = 200;

export interface LogEntry {
  time: number;
  tabId: number;
  event: "attach" | "detach" | "dialog" | "refused";
  detail?: string;
}

export interface Body {
  url: string;
  body: string;
  base64: boolean;
  truncated: boolean;
}

/** Where the attach log is kept (chrome.storage.session "debuggerLog"; tests read it). */
export interface AttachLogPort {
  load(): Promise<unknown>;
  save(list: LogEntry[]): Promise<void>;
  reported(what: string): (e: unknown) => void;
}

/** The attach log: one entry at a time, in order, the latest LOG_MAX kept. */
export function createAttachLog(port: AttachLogPort, now: () => number = Date.now): (e: Omit<LogEntry, "time">) => void {
  let chain: Promise<unknown> = Promise.resolve();
  return (e) => {
    const entry: LogEntry = { time: now(), ...e };
    chain = chain
      .then(async () => {
        const got = await port.load();
        const list = Array.isArray(got) ? (got as LogEntry[]) : [];
        list.push(entry);
        await port.save(list.slice(-LOG_MAX));
      })
      .catch(port.reported("debugger: writing the debugger log"));
  };
}

/**
 * Chrome's canceled_by_user is the person's Cancel unless we detached the
 * tab, or the tab closed, within CANCEL_GRACE_MS (before or after: the close
 * may be reported later). onCancel runs once the grace is over.
 */
export function createCancelWatch(onCancel: (tabId: number) => void, now: () => number = Date.now) {
  /** When we last detached (or asked Chrome to detach) each tab. */
  const ownDetachAt = new Map<number, number>();
  /** When each tab closed. */
  const closedAt = new Map<number, number>();
  const within = (map: Map<number, number>, tabId: number, at: number) => {
    const t = map.get(tabId);
    return t !== undefined && Math.abs(at - t) <= CANCEL_GRACE_MS;
  };
  return {
    /** We detach the tab (or ask Chrome to). */
    ownDetach(tabId: number): void {
      ownDetachAt.set(tabId, now());
    },
    /** The tab closed. */
    closed(tabId: number, at = now()): void {
      closedAt.set(tabId, at);
    },
    /** Chrome detached the tab on its own, for reason. */
    detached(tabId: number, reason: string): void {
      if (reason !== "canceled_by_user") return;
      const at = now();
      if (within(ownDetachAt, tabId, at) || within(closedAt, tabId, at)) return;
      setTimeout(() => {
        if (!within(closedAt, tabId, at)) onCancel(tabId);
      }, CANCEL_GRACE_MS);
    },
  };
}

/** Dialog answers, consistent with browser_handle_dialog's defaults. */
export function dialogDefault(type: string): { accept: boolean } {
  // alert acknowledged, confirm dismissed, prompt cancelled; beforeunload: stay on the page.
  return { accept: type === "alert" };
}

export interface EventsPort {
  /** One CDP command in the tab. */
  send(tabId: number, method: string, params: Record<string, unknown>): Promise<unknown>;
  log(e: Omit<LogEntry, "time">): void;
  reported(what: string): (e: unknown) => void;
}

/** One attached tab's state the events read: the responses seen while attached (CDP request id → URL). */
export interface Attached {
  responses: Map<string, { url: string }>;
}

/**
 * The CDP events of attached tabs: a native dialog answered by its default,
 * a response's body kept (truncated to BODY_MAX, the latest BODIES_PER_TAB
 * per tab) when the tab is still attached in the same session once it came.
 */
export function createDebuggerEvents(port: EventsPort) {
  const bodies = new Map<number, Body[]>();
  return {
    /** s is the tab's session; current() says whether it is still the tab's session. */
    event(tabId: number, s: Attached, current: () => boolean, method: string, params: unknown): void {
      const p = (params ?? {}) as Record<string, unknown>;
      if (method === "Page.javascriptDialogOpening") {
        const type = String(p.type ?? "");
        const { accept } = dialogDefault(type);
        port.log({ tabId, event: "dialog", detail: `${type} ${JSON.stringify(String(p.message ?? "").slice(0, 200))} → ${accept ? "accepted" : "dismissed"}` });
        void port.send(tabId, "Page.handleJavaScriptDialog", { accept }).catch(port.reported("debugger: answering a dialog"));
      } else if (method === "Network.responseReceived") {
        const r = (p.response ?? {}) as Record<string, unknown>;
        if (typeof p.requestId === "string") s.responses.set(p.requestId, { url: String(r.url ?? "") });
      } else if (method === "Network.loadingFinished") {
        const id = p.requestId;
        if (typeof id !== "string") return;
        const resp = s.responses.get(id);
        if (!resp) return;
        s.responses.delete(id);
        void port
          .send(tabId, "Network.getResponseBody", { requestId: id })
          .then((res) => {
            const r = res as { body: string; base64Encoded: boolean };
            // Unshared (or detached) while the body was on its way: not kept.
            if (!current()) return;
            const list = bodies.get(tabId) ?? [];
            const truncated = r.body.length > BODY_MAX;
            list.push({ url: resp.url, body: truncated ? r.body.slice(0, BODY_MAX) : r.body, base64: r.base64Encoded, truncated });
            bodies.set(tabId, list.slice(-BODIES_PER_TAB));
          })
          .catch(port.reported("debugger: Network.getResponseBody"));
      }
    },
    bodiesOf(tabId: number): Body[] {
      return bodies.get(tabId) ?? [];
    },
    /** The response bodies of tabs no longer shared go with them. */
    keepShared(sharedIds: ReadonlySet<number>): void {
      for (const id of [...bodies.keys()]) if (!sharedIds.has(id)) bodies.delete(id);
    },
    forget(tabId: number): void {
      bodies.delete(tabId);
    },
  };
}
