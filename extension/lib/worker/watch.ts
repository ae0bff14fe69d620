// The activity log's watch over the wire requests (issue 28, DESIGN §7.1):
// each call that touches a shared tab is written to the log with the AI app
// that made it and the element it targeted as the page names it (asked
// before the action changes the page), typed text only when no target is
// secret; calls refused by the pause are logged too. The page, the tab and
// the log are behind CallLogPort (entrypoints/background/calls.ts wires it).

import {
  READ_TYPES,
  isLogged,
  outcomeOf,
  refsOf,
  textOf,
  refusalIn,
  verbOf,
  type ActivityEntry,
} from "../activity";
import { CodedError, errorCode, errorText } from "../peer";
import { REQUEST_APP_FIELD } from "../protocol.gen";
import { afterEither, report } from "../diag";
import { appOf, type CallWatch } from "./exec";
import { pausedError } from "./pause";

export interface CallLogPort {
  /** Loads what the log reads (the worker just started). */
  ready(): Promise<void>;
  /** The tab a request without tabId acts on (the active shared tab). */
  resolveTab(tabId: number | undefined): Promise<{ id: number }>;
  /** The tab's number for the person, if shared. */
  slotOf(tabId: number): Promise<number | undefined>;
  /** The page's description of refs (the content script's describe op), in order; null for one it cannot describe. */
  describe(tabId: number, refs: string[]): Promise<{ targets: ({ role: string; name: string; secret: boolean } | null)[] }>;
  /** The tab's URL (pendingUrl while it loads); rejects when the tab is gone. */
  tab(tabId: number): Promise<{ url?: string; pendingUrl?: string }>;
  /** Writes one entry. */
  append(e: ActivityEntry): Promise<void>;
  /** app's call in tabId succeeded (opened: it opened the tab): the tab's apps for list_tabs. */
  acted(tabId: number, app: string, opened: boolean): void;
  /** Why a request on tabId may not run now, or undefined. */
  pausedFor(tabId: number | undefined): CodedError | undefined;
}

export interface CallLog {
  /**
   * Starts watching one wire request: its targets are asked of the page now,
   * before the action changes it; done/failed write the log entry.
   */
  watch(type: string, payload: unknown): Promise<CallWatch>;
  /** Logs a request refused because the AI is paused (the page is not touched) and returns the refusal, err. */
  logPaused(type: string, payload: unknown, err?: CodedError): CodedError;
  /** Logs a call the server refused without sending it because the AI is paused (protocol.MsgRefused). */
  logRefused(tool: string, tabId: number | undefined, app: string | undefined): void;
}

/**
 * How long the targets may take: a page blocked by a native dialog does not
 * answer, and the action itself then says so (after its own wait); the entry
 * goes without a target rather than doubling that wait.
 */
const DESCRIBE_WAIT_MS = 1500;

function withinDescribeWait<T>(p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the page did not describe the targets in time")), DESCRIBE_WAIT_MS);
  });
  void afterEither(p); // a late failure is nobody's business: the race answered already
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const NOTHING: CallWatch = { done: () => undefined, failed: () => undefined };

/** The calls whose entry keeps text typed or chosen into their targets (lib/activity.ts textOf). */
const TEXT_TYPES: ReadonlySet<string> = new Set(["browser_type", "browser_select_option", "browser_fill_form"]);

interface Ended {
  type: string;
  p: Record<string, unknown>;
  app: string;
  tab: number | undefined;
  first: { role: string; name: string } | undefined;
  secrets: boolean[];
  result: Record<string, unknown>;
  err: unknown;
  failed: boolean;
}

/** The activity log of the calls, through port. */
export function createCallLog(port: CallLogPort): CallLog {
  /** The app whose action was the tab's last entry (its follow-up snapshot is not logged again). */
  const lastAction = new Map<number, string>();

  /**
   * Starts watching one wire request: its targets are asked of the page now,
   * before the action changes it; done/failed write the log entry. The
   * question is sent before the action's own message and not waited for: the
   * content script answers messages in order and reads the targets at once,
   * so the answer describes the page before the action, and the action pays
   * no extra round trip. Should the answer be lost (a navigation), the entry
   * has no target and its typed text counts as secret.
   */
  async function watch(type: string, payload: unknown): Promise<CallWatch> {
    if (!isLogged(type)) return NOTHING;
    await port.ready();
    const p = payload && typeof payload === "object" ? (payload as Record<string, unknown>) : {};
    const app = appOf(payload);
    let tabId = typeof p.tabId === "number" ? p.tabId : undefined;
    const refs = refsOf(type, p);
    type Targets = ({ role: string; name: string; secret: boolean } | null)[];
    let described: Promise<Targets> = Promise.resolve([]);
    if (refs.length > 0) {
      described = (async (): Promise<Targets> => {
        try {
          tabId ??= (await port.resolveTab(undefined)).id;
          return (await withinDescribeWait(port.describe(tabId, refs))).targets;
        } catch {
          // The action meets the same problem and says so; the entry has no target.
          return refs.map(() => null);
        }
      })();
    }
    const end = (result: unknown, err: unknown, failed: boolean) => {
      const r = result && typeof result === "object" ? (result as Record<string, unknown>) : {};
      const tab = typeof r.tabId === "number" ? r.tabId : tabId;
      if (!failed && READ_TYPES.has(type) && tab !== undefined && lastAction.get(tab) === app) {
        lastAction.delete(tab); // the action's own follow-up snapshot
        return;
      }
      if (tab !== undefined) {
        if (READ_TYPES.has(type)) lastAction.delete(tab);
        else lastAction.set(tab, app);
      }
      void described.then(async (targets) => {
        // A secret field is one the page says is, or one it could not describe.
        const secrets = refs.map((_r, i) => targets[i]?.secret ?? true);
        // Typed text is kept only when the field was not secret after the
        // action either: a page may make it a password field meanwhile
        // (secret is sticky in the page, issue 40). A field gone since keeps
        // what the page said before.
        if (TEXT_TYPES.has(type) && tab !== undefined && secrets.some((s) => !s)) {
          const after = await withinDescribeWait(port.describe(tab, refs)).then(
            (d) => d.targets,
            () => refs.map(() => null),
          );
          for (let i = 0; i < secrets.length; i++) if (after[i]?.secret) secrets[i] = true;
        }
        const first = targets.find((t) => t !== null) ?? undefined;
        return record({ type, p, app, tab, first, secrets, result: r, err, failed });
      });
    };
    return { done: (r) => end(r, undefined, false), failed: (e) => end(undefined, e, true) };
  }

  /** Logs a request refused because the AI is paused (the page is not touched) and returns the refusal, err. */
  function logPaused(type: string, payload: unknown, err: CodedError = pausedError()): CodedError {
    if (isLogged(type)) {
      const p = payload && typeof payload === "object" ? (payload as Record<string, unknown>) : {};
      const tab = typeof p.tabId === "number" ? p.tabId : undefined;
      void record({ type, p, app: appOf(payload), tab, first: undefined, secrets: refsOf(type, p).map(() => true), result: {}, err, failed: true });
    }
    return err;
  }

  /**
   * Logs a call the server refused without sending it because the AI is
   * paused (protocol.MsgRefused): the browser saw nothing else of it. Repeats
   * collapse into one entry (ActivityLog.append).
   */
  function logRefused(tool: string, tabId: number | undefined, app: string | undefined): void {
    const payload: Record<string, unknown> = {};
    if (tabId !== undefined && tabId > 0) payload.tabId = tabId;
    if (app) payload[REQUEST_APP_FIELD] = app;
    logPaused(tool, payload, port.pausedFor(tabId) ?? pausedError());
  }

  async function record(c: Ended): Promise<void> {
    const e: ActivityEntry = { at: Date.now(), app: c.app, tool: c.type, verb: verbOf(c.type), outcome: outcomeOf(c.failed, errorCode(c.err)) };
    if (c.first) e.target = { role: c.first.role, name: c.first.name };
    else if (typeof c.result.target === "string" && c.result.target !== "") e.target = { role: "", name: c.result.target }; // click_xy: what the page hit
    const text = textOf(c.type, c.p, c.secrets);
    if (text !== undefined) e.text = text;
    if (c.failed) e.detail = errorText(c.err);
    const refusal = c.failed ? undefined : refusalIn(c.type, c.result);
    if (refusal) {
      e.outcome = "refused";
      e.detail = refusal;
    }
    if (c.tab !== undefined) {
      e.tabId = c.tab;
      try {
        const slot = await port.slotOf(c.tab);
        if (slot !== undefined) e.slot = slot;
        // A tab closed by the call itself has no URL to keep; one closed by the
        // person meanwhile is reported, and the entry keeps what it has.
        const t = c.type === "browser_close_tab" ? undefined : await port.tab(c.tab);
        const url = t?.url || t?.pendingUrl;
        if (url) e.url = url;
      } catch (err) {
        report("activity: reading a call's tab", err);
      }
      if (!c.failed) port.acted(c.tab, c.app, c.type === "browser_new_tab");
    }
    await port.append(e).catch((err: unknown) => console.warn("monkbrowse: could not write the activity log", err));
  }

  return { watch, logPaused, logRefused };
}
