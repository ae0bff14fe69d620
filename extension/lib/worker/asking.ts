// "Ask before acting" in the service worker (issue 44): an action on an ask
// site waits for the person's Allow/Deny (answered in the popup only), a
// rule change, a stop or the call's time. Storage, the tab's notice, the
// toolbar badge and the activity log are behind AskingPort
// (entrypoints/background/siterules.ts wires them); the decisions are in
// lib/siterules.ts.

import { CodedError, errorText } from "../peer";
import { ERROR_CODES, TIMEOUTS_MS, type WireType } from "../protocol.gen";
import { RULE_WORDS, actionWords, deniedRefusal, isRisky, neverRefusal, readOnlyRefusal, type RuleInForce } from "../siterules";
import { GRANT_MS, grantKey, liveGrants, type Approval, type ApprovalAnswer } from "../approvals";
import type { ActivityEntry } from "../activity";

export type Target = { role: string; name: string } | null;

export interface AskingPort {
  /** The targets' roles and names (content script "describe"). */
  describe(tabId: number, refs: string[]): Promise<Target[]>;
  /** The stored 10-minute grants, as stored, and storing them. */
  grants(): Promise<unknown>;
  saveGrants(g: Record<string, number>): Promise<void>;
  /** Stores the waiting actions (the popup renders from storage). */
  store(approvals: Record<string, Approval>): Promise<void>;
  /** The tab's neutral notice: ask_show / ask_hide. */
  notice(tabId: number, op: "ask_show" | "ask_hide", askId: string): Promise<void>;
  /** The "?" badge of the tab: waiting says whether one of ours waits there. */
  badge(tabId: number, waiting: boolean): Promise<void>;
  /** One activity-log line. */
  log(e: Omit<ActivityEntry, "at">): void;
  /** A report of a failed side effect (the diagnostics log). */
  reported(what: string): (e: unknown) => void;
}

/** How long the describe of the targets may take before the question goes without names. */
export const DESCRIBE_MS = 1500;

export function refuse(text: string): CodedError {
  return new CodedError(ERROR_CODES.site_rule, text);
}

function refsOf(p: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of ["ref", "startRef", "endRef"]) if (typeof p[k] === "string") out.push(p[k]);
  if (Array.isArray(p.fields)) for (const f of p.fields) if (f && typeof (f as { ref?: unknown }).ref === "string") out.push((f as { ref: string }).ref);
  return out;
}

interface Waiting {
  approval: Approval;
  rule: RuleInForce;
  payload: Record<string, unknown>;
  settle(err: CodedError | Error | undefined, why: string): void;
}

export type SlotOf = (tabId: number) => Promise<number | undefined>;

export function createAsking(port: AskingPort, now: () => number = Date.now, newId: () => string = () => crypto.randomUUID().replace(/-/g, "").slice(0, 12)) {
  const waiting = new Map<string, Waiting>();
  let chain: Promise<unknown> = Promise.resolve();

  function store(): Promise<void> {
    const run = chain.then(() => port.store(Object.fromEntries([...waiting.values()].map((w) => [w.approval.id, w.approval]))));
    chain = run.catch(port.reported("approvals: storing the waiting actions"));
    return run;
  }
  const waitingIn = (tabId: number) => [...waiting.values()].some((w) => w.approval.tabId === tabId);
  const badge = (tabId: number) => void port.badge(tabId, waitingIn(tabId)).catch(port.reported("approvals: the toolbar badge"));
  const logAt = (a: Approval, slotOf: SlotOf, verb: string, outcome: "done" | "refused") =>
    void slotOf(a.tabId).then((slot) => port.log({ app: a.app, tool: a.tool, verb, tabId: a.tabId, ...(slot !== undefined ? { slot } : {}), outcome }));

  async function describe(tabId: number, refs: string[]): Promise<Target[]> {
    if (refs.length === 0) return [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("late")), DESCRIBE_MS)));
      return await Promise.race([port.describe(tabId, refs), late]);
    } catch {
      return refs.map(() => null);
    } finally {
      clearTimeout(timer);
    }
  }

  function waitForAnswer(a: Approval, r: RuleInForce, payload: Record<string, unknown>, type: string, signal: AbortSignal, slotOf: SlotOf): Promise<RuleInForce> {
    const budget = Math.max(5_000, (TIMEOUTS_MS[type as WireType] ?? 25_000) - 3_000);
    return new Promise<RuleInForce>((resolve, reject) => {
      let over = false;
      const timer = setTimeout(() => w.settle(refuse(deniedRefusal(r, "unanswered", a.what)), "not answered in time"), budget);
      const onAbort = () => w.settle(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)), "the call was stopped");
      const w: Waiting = {
        approval: a,
        rule: r,
        payload,
        settle: (err, why) => {
          if (over) return;
          over = true;
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          waiting.delete(a.id);
          void store();
          void port.notice(a.tabId, "ask_hide", a.id).catch(port.reported("approvals: taking the notice down"));
          badge(a.tabId);
          logAt(a, slotOf, err ? `was not allowed to ${a.what} (${why})` : `was allowed to ${a.what} (${why})`, err ? "refused" : "done");
          if (err) reject(err);
          else resolve(r);
        },
      };
      waiting.set(a.id, w);
      signal.addEventListener("abort", onAbort, { once: true });
      void store();
      badge(a.tabId);
      // The tab's neutral notice (the hand-off's): it names nothing and answers nothing.
      void port.notice(a.tabId, "ask_show", a.id).catch(port.reported("approvals: showing the notice in the tab"));
      logAt(a, slotOf, `asked you to allow it to ${a.what}${a.target ? ` ${a.target}` : ""} (${RULE_WORDS.ask} on ${a.pattern || a.host})`, "done");
      if (signal.aborted) onAbort();
    });
  }

  return {
    /** Whether an action waits for the person's answer in the tab (the "?" badge stays while one does). */
    waitingIn,

    /**
     * An action on an ask site: it goes when the rule's scope leaves it out
     * or a grant holds, else waits for the person's answer (or a rule change)
     * until the call's time is nearly up or signal aborts; throws the refusal.
     */
    async ask(tab: number, r: RuleInForce, type: string, p: Record<string, unknown>, app: string, signal: AbortSignal, slotOf: SlotOf): Promise<void> {
      const targets = await describe(tab, refsOf(p));
      if (r.scope === "risky" && !isRisky(type, p, targets)) return;
      if (liveGrants(await port.grants(), now())[grantKey(app, r.host)] !== undefined) return;
      const first = targets.find((t) => t !== null);
      const a: Approval = {
        id: newId(),
        tabId: tab,
        app: app || "The AI",
        tool: type,
        what: actionWords(type),
        ...(first ? { target: `${first.role}${first.name ? ` "${first.name}"` : ""}` } : {}),
        host: r.host,
        pattern: r.pattern,
        source: r.source,
        created: now(),
      };
      await waitForAnswer(a, r, p, type, signal, slotOf);
    },

    /** The person's answer from the popup (an extension page; index.ts refuses it from anything else). */
    async answer(id: string, answer: ApprovalAnswer): Promise<void> {
      const w = waiting.get(id);
      if (!w) return;
      if (answer === "deny") {
        w.settle(refuse(deniedRefusal(w.rule, "denied", w.approval.what)), "you pressed Deny");
        return;
      }
      if (answer === "allow10") {
        const key = grantKey(w.approval.app === "The AI" ? "" : w.approval.app, w.approval.host);
        await port.saveGrants({ ...liveGrants(await port.grants(), now()), [key]: now() + GRANT_MS });
        // The same app's other waiting actions on the site go too.
        for (const o of [...waiting.values()]) {
          if (o !== w && o.approval.app === w.approval.app && o.approval.host === w.approval.host) o.settle(undefined, "you allowed it for 10 minutes");
        }
        w.settle(undefined, "you allowed it for 10 minutes");
        return;
      }
      w.settle(undefined, "you pressed Allow");
    },

    /** Stop, a tab's Pause, unsharing: the waiting actions of the tab (or all) are refused with why. */
    end(match: (tabId: number) => boolean, err: CodedError): void {
      for (const w of [...waiting.values()]) if (match(w.approval.tabId)) w.settle(err, errorText(err));
    },

    /** A rule changed: each waiting action is decided again by the rule now in force. */
    async recheck(ruleOf: (tabId: number) => Promise<RuleInForce>): Promise<void> {
      for (const w of [...waiting.values()]) {
        const r = await ruleOf(w.approval.tabId);
        if (r.rule === "act") w.settle(undefined, `the rule for ${r.host} is now act`);
        else if (r.rule === "read_only") w.settle(refuse(readOnlyRefusal(r, w.approval.what)), `the rule for ${r.host} is now read only`);
        else if (r.rule === "never") w.settle(refuse(`Not done: ${neverRefusal(r)}`), `the rule for ${r.host} is now never`);
        else if (r.scope === "risky" && !isRisky(w.approval.tool, w.payload, [null])) w.settle(undefined, "the rule now asks only about submissions, purchases and deletions");
        else w.rule = r;
      }
    },
  };
}

export type Asking = ReturnType<typeof createAsking>;
