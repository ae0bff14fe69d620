// The AI's requests to the person (browser_ask_user, issue 29, DESIGN §7.2):
// pure logic over a small key-value store. The service worker gives it
// chrome.storage.session (in memory, open to the extension's own pages
// only, kept while the browser runs), so a request survives the worker
// stopping; the popup reads the same key. Nothing here touches a page.

import { afterEither } from "./diag";
import { ASK_MAX_WAIT_MS, type AskResult } from "./protocol.gen";
import type { KV } from "./activity";

/** Storage key (chrome.storage.session). */
export const KEY_ASKS = "asks";

export type AskState = "pending" | "done" | "declined" | "expired" | "gone";

export interface Ask {
  askId: string;
  tabId: number;
  message: string;
  app: string;
  /** Unix milliseconds. */
  created: number;
  state: AskState;
  answeredIn?: "page" | "popup";
  /** Why an ask is gone (the tab closed, unshared, Stop). */
  why?: string;
}

/** The longest message kept (the server allows 500 characters). */
export const MESSAGE_LIMIT = 500;

function normalizeAsk(v: unknown): Ask | undefined {
  if (!v || typeof v !== "object") return undefined;
  const a = v as Record<string, unknown>;
  if (typeof a.askId !== "string" || typeof a.tabId !== "number" || typeof a.message !== "string" || typeof a.created !== "number") return undefined;
  const state = a.state;
  if (state !== "pending" && state !== "done" && state !== "declined" && state !== "expired" && state !== "gone") return undefined;
  const out: Ask = { askId: a.askId, tabId: a.tabId, message: a.message, app: typeof a.app === "string" ? a.app : "The AI", created: a.created, state };
  if (a.answeredIn === "page" || a.answeredIn === "popup") out.answeredIn = a.answeredIn;
  if (typeof a.why === "string") out.why = a.why;
  return out;
}

export function normalizeAsks(v: unknown): Record<string, Ask> {
  const out: Record<string, Ask> = {};
  if (!v || typeof v !== "object") return out;
  for (const raw of Object.values(v as Record<string, unknown>)) {
    const a = normalizeAsk(raw);
    if (a) out[a.askId] = a;
  }
  return out;
}

/** The pending asks, oldest first (the popup lists them). */
export function pendingAsks(asks: Record<string, Ask>): Ask[] {
  return Object.values(asks)
    .filter((a) => a.state === "pending")
    .sort((a, b) => a.created - b.created);
}

/** The wire answer for an ask. */
export function resultOf(a: Ask): AskResult {
  const r: AskResult = { tabId: a.tabId, askId: a.askId, state: a.state, created: a.created };
  if (a.answeredIn) r.answeredIn = a.answeredIn;
  if (a.why) r.why = a.why;
  return r;
}

/** A new ask id: 12 characters of a random UUID (not guessable by a page). */
export function newAskId(uuid: string): string {
  return uuid.replace(/-/g, "").slice(0, 12);
}

/** Whether v is an ask id as the server names them (AskUserRequest.askId): 12 lowercase hex digits. */
export function isAskId(v: unknown): v is string {
  return typeof v === "string" && /^[0-9a-f]{12}$/.test(v);
}

/**
 * The asks in the store. Every change is chained (an answer racing an
 * unshare never loses one) and returns what changed, for the caller to
 * take the banner down and wake the waiting call. An ask is kept until the
 * server has been told its end (take) or ASK_MAX_WAIT_MS after it began.
 */
export class AskBook {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly kv: KV,
    private readonly now: () => number = Date.now,
  ) {}

  private locked<T>(fn: (asks: Record<string, Ask>) => { asks?: Record<string, Ask>; out: T }): Promise<T> {
    const run = this.chain.then(async () => {
      const asks = normalizeAsks((await this.kv.get(KEY_ASKS))[KEY_ASKS]);
      const r = fn(asks);
      if (r.asks) await this.kv.set({ [KEY_ASKS]: r.asks });
      return r.out;
    });
    this.chain = afterEither(run);
    return run;
  }

  /** Expires what is over ASK_MAX_WAIT_MS and forgets what ended long ago. */
  private sweep(asks: Record<string, Ask>): Ask[] {
    const expired: Ask[] = [];
    const t = this.now();
    for (const a of Object.values(asks)) {
      if (t - a.created < ASK_MAX_WAIT_MS) continue;
      if (a.state === "pending") {
        a.state = "expired";
        expired.push(a);
      } else if (t - a.created > 2 * ASK_MAX_WAIT_MS) {
        delete asks[a.askId];
      }
    }
    return expired;
  }

  /**
   * A new pending ask in the tab. The tab's earlier pending ask (the AI
   * asks anew) is ended as gone and returned in replaced.
   */
  start(a: { askId: string; tabId: number; message: string; app: string }): Promise<{ ask: Ask; replaced: Ask[]; expired: Ask[] }> {
    return this.locked((asks) => {
      const expired = this.sweep(asks);
      const replaced: Ask[] = [];
      for (const old of Object.values(asks)) {
        if (old.tabId === a.tabId && old.state === "pending") {
          old.state = "gone";
          old.why = "a newer request in the same tab replaced it";
          replaced.push(old);
        }
      }
      const ask: Ask = { ...a, message: [...a.message].slice(0, MESSAGE_LIMIT).join(""), created: this.now(), state: "pending" };
      asks[ask.askId] = ask;
      return { asks, out: { ask, replaced, expired } };
    });
  }

  /** The ask (after expiring it if its time is up), or undefined. */
  get(askId: string): Promise<{ ask: Ask | undefined; expired: Ask[] }> {
    return this.locked((asks) => {
      const expired = this.sweep(asks);
      return { asks: expired.length > 0 ? asks : undefined, out: { ask: asks[askId], expired } };
    });
  }

  /** Removes an ended ask once its end has been reported to the server. */
  take(askId: string): Promise<void> {
    return this.locked((asks) => {
      const a = asks[askId];
      if (!a || a.state === "pending") return { out: undefined };
      delete asks[askId];
      return { asks, out: undefined };
    });
  }

  /** The person's answer; undefined when the ask is not pending (answered already, ended). */
  answer(askId: string, answer: "done" | "declined", where: "page" | "popup", tabId?: number): Promise<Ask | undefined> {
    return this.locked((asks) => {
      this.sweep(asks);
      const a = asks[askId];
      if (!a || a.state !== "pending") return { asks, out: undefined };
      if (tabId !== undefined && a.tabId !== tabId) return { out: undefined };
      a.state = answer;
      a.answeredIn = where;
      return { asks, out: { ...a } };
    });
  }

  /** Ends the pending asks that match (a tab's, or all) without an answer. */
  end(match: (a: Ask) => boolean, why: string): Promise<Ask[]> {
    return this.locked((asks) => {
      const ended: Ask[] = [];
      for (const a of Object.values(asks)) {
        if (a.state === "pending" && match(a)) {
          a.state = "gone";
          a.why = why;
          ended.push({ ...a });
        }
      }
      return { asks: ended.length > 0 ? asks : undefined, out: ended };
    });
  }

  all(): Promise<Record<string, Ask>> {
    return this.locked((asks) => ({ out: asks }));
  }
}
