// browser_ask_user in the service worker (issue 29, DESIGN §7.2): the
// requests live in chrome.storage.session (lib/ask.ts), the message and its
// Done/Decline in the popup only, a neutral notice in the shared tab
// (lib/page/ask-banner.ts through the content script: it names no message
// and answers nothing, issue 40). A waiting ask_wait is woken at once by the
// answer. Only the person answers: an answer counts only from the popup, an
// extension page no web page can script, frame or click (lib/worker/envelope.ts refuses
// "ask-answer" from any other sender).

import { AskBook, KEY_ASKS, newAskId, resultOf, type Ask } from "../../lib/ask";
import { ASK_MAX_WAIT_MS, ERROR_CODES, type AskEndResult, type AskResult } from "../../lib/protocol.gen";
import { errorCode } from "../../lib/peer";
import { KEY_SHARES, normalizeShares } from "../../lib/storage";
import { reported } from "../../lib/diag";
import { contentOp } from "./content-ops";
import { appendActivity, setAskBadge } from "./steer";
import { approvalWaiting } from "./siterules";

export { KEY_ASKS };

const book = new AskBook({
  get: (k) => chrome.storage.session.get(k),
  set: (items) => chrome.storage.session.set(items),
});

/** The calls waiting for each ask, woken when it ends. */
const waiters = new Map<string, Set<() => void>>();

function wake(askId: string): void {
  for (const w of waiters.get(askId) ?? []) w();
}

async function slotOf(tabId: number): Promise<number | undefined> {
  const got = await chrome.storage.local.get(KEY_SHARES);
  return normalizeShares(got[KEY_SHARES])[String(tabId)];
}

/** Writes the end of an ask to the activity log. */
async function logEnd(a: Ask): Promise<void> {
  const slot = await slotOf(a.tabId).catch(reported("ask: reading the tab's number for the log"));
  const answered = a.state === "done" || a.state === "declined";
  await appendActivity({
    at: Date.now(),
    app: a.app,
    tool: "browser_ask_user",
    verb: answered ? `got your answer (${a.answeredIn === "popup" ? "popup" : "page"})` : "stopped waiting for your answer",
    ...(answered ? { text: a.state === "done" ? "Done" : "Declined" } : {}),
    tabId: a.tabId,
    ...(slot !== undefined ? { slot } : {}),
    outcome: answered ? "done" : a.why?.includes("Stop") ? "paused" : "cancelled",
    ...(a.why ? { detail: a.why } : {}),
  });
}

/** An ask ended: its banner goes (when the tab still shows it), its wait answers, the log says so. */
function ended(a: Ask, opts: { banner: boolean }): void {
  if (opts.banner) void contentOp(a.tabId, "ask_hide", { askId: a.askId }).catch(reported("ask: taking the banner down"));
  void book
    .all()
    .then((asks) => {
      // The tab's "?" goes with its last pending request.
      // An action waiting for the person's Allow keeps it too (issue 44).
      if (!Object.values(asks).some((x) => x.tabId === a.tabId && x.state === "pending") && !approvalWaiting(a.tabId)) return setAskBadge(a.tabId, false);
    })
    .catch(reported("ask: the toolbar badge"));
  wake(a.askId);
  void logEnd(a).catch(reported("ask: writing the activity log"));
}

/** Shows a new request in the tab and, with waitMs, waits for its answer. */
export async function askUser(tabId: number, message: string, app: string, waitMs: number, signal?: AbortSignal, askId?: string): Promise<AskResult> {
  const { ask, replaced, expired } = await book.start({ askId: askId ?? newAskId(crypto.randomUUID()), tabId, message, app });
  for (const r of [...replaced, ...expired]) ended(r, { banner: r.tabId !== tabId });
  void setAskBadge(tabId, true).catch(reported("ask: the toolbar badge"));
  try {
    await contentOp(tabId, "ask_show", { askId: ask.askId });
  } catch (e) {
    await book.end((a) => a.askId === ask.askId, "its banner could not be shown");
    await book.take(ask.askId);
    throw e;
  }
  // The call was stopped while the request was being shown (the server never
  // learns its id): it ends here, or its notice would stay for nobody.
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    for (const a of await book.end((x) => x.askId === ask.askId, abortWhy(reason))) ended(a, { banner: errorCode(reason) !== ERROR_CODES.unshared });
    await book.take(ask.askId);
    throw reason instanceof Error ? reason : new Error(String(reason));
  }
  if (waitMs <= 0) return resultOf(ask);
  return askWait(ask.askId, waitMs, signal);
}

/** Why an aborted wait ended the ask, for the log and a later wait. */
function abortWhy(reason: unknown): string {
  switch (errorCode(reason)) {
    case ERROR_CODES.paused:
      return "the person pressed Stop in the monkbrowse popup";
    case ERROR_CODES.unshared:
      return "the person stopped sharing the tab";
    default:
      return "the AI app cancelled the call that waited for it";
  }
}

/** Waits up to ms for the ask to end; an abort ends the ask (its banner goes) and rejects. */
function nap(askId: string, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const set = waiters.get(askId) ?? new Set<() => void>();
    waiters.set(askId, set);
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      set.delete(done);
      if (set.size === 0) waiters.delete(askId);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    const wakeUp = () => {
      done();
      resolve();
    };
    const onAbort = () => {
      done();
      const reason: unknown = signal?.reason;
      void book
        .end((a) => a.askId === askId, abortWhy(reason))
        .then((gone) => gone.forEach((a) => ended(a, { banner: errorCode(reason) !== ERROR_CODES.unshared })))
        .catch(reported("ask: ending a request whose call was stopped"));
      reject(reason instanceof Error ? reason : new Error(String(reason)));
    };
    set.add(wakeUp);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits up to waitMs for the ask's answer (never past ASK_MAX_WAIT_MS since
 * it began). Answers pending when the time is up; an ended ask is reported
 * once and then forgotten.
 */
export async function askWait(askId: string, waitMs: number, signal?: AbortSignal): Promise<AskResult> {
  const deadline = Date.now() + Math.max(0, waitMs);
  for (;;) {
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("the call was stopped");
    const { ask, expired } = await book.get(askId);
    for (const x of expired) ended(x, { banner: true });
    if (!ask) {
      throw new Error(
        `this browser has no request ${askId} (it ended and was reported, or the browser restarted since); call browser_ask_user with a message to ask again`,
      );
    }
    if (ask.state !== "pending") {
      await book.take(askId);
      return resultOf(ask);
    }
    const now = Date.now();
    const toExpiry = ask.created + ASK_MAX_WAIT_MS - now;
    const toDeadline = deadline - now;
    if (toDeadline <= 0 && toExpiry > 0) return resultOf(ask);
    await nap(askId, Math.max(0, Math.min(toDeadline, toExpiry + 1)), signal);
  }
}

/**
 * ask_end: the server stopped waiting for the ask (its call was cancelled,
 * perhaps before the wait reached here or after it answered). A pending ask
 * ends with why (its notice goes, the popup drops it, the log says so); an
 * ended one is only forgotten, as the server forgot it.
 */
export async function askEnd(askId: string, why: string): Promise<AskEndResult> {
  const gone = await book.end((a) => a.askId === askId, why || abortWhy(undefined));
  for (const a of gone) ended(a, { banner: true });
  await book.take(askId);
  return { ended: gone.length > 0 };
}

/** The person's answer from the popup (an extension page). */
export async function answerFromPopup(askId: string, answer: "done" | "declined"): Promise<void> {
  const a = await book.answer(askId, answer, "popup");
  if (a) ended(a, { banner: true });
}

/**
 * Ends the tab's requests. By default no banner is taken down (closed: none
 * left; unshared: the content script's dispose took it); the tab's Stop
 * takes it down.
 */
export async function endAsksInTab(tabId: number, why: string, opts: { banner: boolean } = { banner: false }): Promise<void> {
  for (const a of await book.end((x) => x.tabId === tabId, why)) ended(a, opts);
}

/** Stop in the popup: every request ends and its banner goes. */
export async function endAllAsks(why: string): Promise<void> {
  for (const a of await book.end(() => true, why)) ended(a, { banner: true });
}

/** A shared tab's new top document shows the tab's pending request again (a login's redirects). */
export async function reshowAsk(tabId: number): Promise<void> {
  const asks = await book.all();
  for (const a of Object.values(asks)) {
    if (a.tabId === tabId && a.state === "pending") {
      await setAskBadge(tabId, true);
      await contentOp(tabId, "ask_show", { askId: a.askId });
    }
  }
}
