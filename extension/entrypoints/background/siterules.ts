// Site rules and the organisation's policy in the service worker (issue 44):
// the rules in memory (the person's from chrome.storage.local, the
// organisation's from chrome.storage.managed), the gate every wire request
// passes before it touches a page (siteGate), the person's Allow/Deny for
// "ask before acting" (answered in the popup only, like the hand-off), and
// a shared tab that went to a "never" site leaving the AI's reach. The
// decisions are in lib/siterules.ts and lib/policy.ts.

import { CodedError } from "../../lib/peer";
import { ERROR_CODES, type LeftTab, type SitePolicy, type TabInfo } from "../../lib/protocol.gen";
import { KEY_SITE_RULES, diffRules, isAction, leftReach, neverRefusal, normalizeRules, readOnlyRefusal, requestApp, ruleFor, actionWords, type PersonRule, type RuleInForce } from "../../lib/siterules";
import { appAllowed, appRefusal, capabilityOf, capabilityRefusal, forbids, normalizePolicy, retentionCutoff, withPolicy } from "../../lib/policy";
import { KEY_APPROVALS, KEY_APPROVAL_GRANTS, type ApprovalAnswer } from "../../lib/approvals";
import { PERSON_APP, type ActivityEntry } from "../../lib/activity";
import { KEY_SHARES, normalizeShares, type Consent } from "../../lib/storage";
import { reported, report } from "../../lib/diag";
import { createAsking, refuse } from "../../lib/worker/asking";
import { createLeftTabs } from "../../lib/worker/left";
import { rank, refusalFor, strictestRef, type FrameRule } from "../../lib/worker/frame-rules";
import { contentOp } from "./content-ops";
import { appendActivity, keepActivitySince, setAskBadge } from "./steer";

let rules: PersonRule[] = [];
/** The shared tabs' numbers (tab id → slot), for a tab leaving the AI's reach to be named at once. */
const slots = new Map<number, number>();

/** The shares changed (shares.ts): the numbers as stored. */
export function noteShareSlots(shares: Record<string, number>): void {
  slots.clear();
  for (const [k, v] of Object.entries(shares)) slots.set(Number(k), v);
}
let policy: SitePolicy | undefined;
let loading: Promise<void> | undefined;
let loaded = false;

async function readManaged(): Promise<SitePolicy | undefined> {
  try {
    return normalizePolicy(await chrome.storage.managed.get(null));
  } catch (e) {
    // No schema (an older build) or no managed storage in this browser: no policy.
    report("policy: reading chrome.storage.managed", e);
    return undefined;
  }
}

/** Reads both rule sets into memory (once; storage changes keep them current). */
export function loadRules(): Promise<void> {
  loading ??= (async () => {
    const [local, managed] = await Promise.all([chrome.storage.local.get([KEY_SITE_RULES, KEY_SHARES]), readManaged()]);
    rules = normalizeRules(local[KEY_SITE_RULES]);
    if (slots.size === 0) noteShareSlots(normalizeShares(local[KEY_SHARES]));
    policy = managed;
    loaded = true;
  })();
  return loading;
}

/** The organisation's policy in force (undefined: none). */
export function currentPolicy(): SitePolicy | undefined {
  return policy;
}

/** The rule in force on a URL (the rules as last read). */
export function ruleForUrl(url: string): RuleInForce {
  return ruleFor(url, rules, policy);
}

async function tabUrl(tabId: number): Promise<string> {
  try {
    const t = await chrome.tabs.get(tabId);
    return t.url || t.pendingUrl || "";
  } catch {
    return "";
  }
}

export async function ruleForTab(tabId: number): Promise<RuleInForce> {
  await loadRules();
  return ruleForUrl(await tabUrl(tabId));
}

/** The shared tabs with the rule in force on each (TabInfo.rule: read_only or ask; act is left out). */
export function withRules(tabs: TabInfo[]): TabInfo[] {
  return tabs.map((t) => {
    const r = ruleForUrl(t.url);
    return r.rule === "read_only" || r.rule === "ask" ? { ...t, rule: r.rule } : t;
  });
}

/** The person's switches with what the policy forbids forced off. */
export async function consentUnderPolicy(c: Consent): Promise<Consent> {
  await loadRules();
  return withPolicy(c, policy);
}

// ---- never: sharing refused, a shared tab leaving the AI's reach ----------------

/** Why the person cannot share this tab now (never), in their words; undefined when they can. */
export async function shareRefusal(tabId: number): Promise<string | undefined> {
  const r = await ruleForTab(tabId);
  if (r.rule !== "never") {
    lefts.sharedAgain(tabId);
    return undefined;
  }
  return `This tab cannot be shared: ${r.pattern || r.host} is set to "never" ${r.source === "policy" ? "by your organisation" : "in your site rules"}, so the AI may not see or use it.`;
}

/** Whether a tab's URL is on a never site (sync, for the share-all list and navigations). */
export function isNever(url: string): boolean {
  return loaded && ruleForUrl(url).rule === "never";
}

interface Hooks {
  /** Unshares the tab at once (the share gate refuses it from now on) and stops its running calls with reason. */
  leave(tabId: number, reason: CodedError): void;
  /** The shared tabs and their numbers. */
  shares(): Promise<Record<string, number>>;
  /** Something the server should hear changed (policy, a tab left): push tabs_changed. */
  changed(): void;
  /** The rule in force in a frame ref's frame (frames.ts; null: the top frame's ref). */
  frameRule?(tabId: number, ref: string): Promise<FrameRule | null>;
  /** The targets' roles and names, frame refs asked in their frame (frames.ts); absent: the top frame's content script. */
  describe?(tabId: number, refs: string[]): Promise<({ role: string; name: string } | null)[]>;
}

let hooks: Hooks | undefined;
/** Tabs that left the AI's reach (lib/worker/left.ts). */
const lefts = createLeftTabs();

/** The tabs that left the AI's reach whose numbers are not shared again (list_tabs answers carry them). */
export const leftNow = (sharedSlots: Set<number>): LeftTab[] => lefts.now(sharedSlots);
/** The tabs that left the AI's reach since the last tabs_changed (sent once). */
export const takeLeft = (): LeftTab[] => lefts.take();

/**
 * A shared tab's top frame committed url: on a never site it stops being
 * shared now, before anything is injected there, and the AI is told.
 * Returns true when it left.
 */
export function leavesReach(tabId: number, url: string, slot: number | undefined = slots.get(tabId)): boolean {
  if (!hooks || !isNever(url)) return false;
  const r = ruleForUrl(url);
  const reason = leftReach(r, slot);
  lefts.note(tabId, slot, reason);
  hooks.leave(tabId, new CodedError(ERROR_CODES.unshared, reason));
  logRule({ app: PERSON_APP, verb: `stopped sharing the tab: it went to ${r.host}, set to never`, tabId, ...(slot !== undefined ? { slot } : {}), outcome: "done" });
  hooks.changed();
  return true;
}

/** After a rule change: every shared tab now on a never site leaves. */
async function sweepShared(): Promise<void> {
  if (!hooks) return;
  const shares = await hooks.shares();
  for (const [k, slot] of Object.entries(shares)) {
    const tabId = Number(k);
    leavesReach(tabId, await tabUrl(tabId), slot);
  }
}

// ---- the gate -----------------------------------------------------------------

/**
 * Every wire request passes here before it touches a page: the policy's AI
 * apps and capabilities, a navigation to a never site, and an action on a
 * read-only or ask site. Throws the refusal (code site_rule); under ask,
 * waits for the person's answer (or a rule change) until the call's time is
 * nearly up or signal aborts.
 */
export async function siteGate(
  type: string,
  payload: unknown,
  tabId: number | undefined,
  resolveTab: (tabId: number | undefined) => Promise<{ id: number }>,
  slotOf: (tabId: number) => Promise<number | undefined>,
  signal: AbortSignal,
): Promise<void> {
  await loadRules();
  const p = payload && typeof payload === "object" ? (payload as Record<string, unknown>) : {};
  const app = requestApp(payload);
  if (type === "list_tabs" || type === "getUrl" || type === "getTitle") {
    if (!appAllowed(policy, app) && app !== "") throw refuse(appRefusal(app, policy!));
    return;
  }
  if (!appAllowed(policy, app)) throw refuse(appRefusal(app, policy!));
  // A call naming a tab that went to a never site hears why, not just "not shared".
  const gone = lefts.why(tabId);
  if (gone !== undefined) throw refuse(gone.charAt(0).toUpperCase() + gone.slice(1));
  const cap = capabilityOf(type, p);
  if (cap && forbids(policy, cap)) throw refuse(capabilityRefusal(cap));
  if ((type === "browser_navigate" || type === "browser_new_tab") && typeof p.url === "string") {
    const r = ruleForUrl(p.url);
    if (r.rule === "never") throw refuse(`Not done: ${neverRefusal(r)}`);
  }
  if (!isAction(type)) return;
  const tab = tabId ?? (await resolveTab(undefined)).id;
  let r = await ruleForTab(tab);
  // A ref into a frame on a stricter site: that frame's rule (lib/worker/frame-rules.ts).
  const inFrame = hooks?.frameRule ? await strictestRef(p, (ref) => hooks!.frameRule!(tab, ref)) : undefined;
  if (inFrame && rank(inFrame.fr.rule) > rank(r)) {
    const why = refusalFor(inFrame.fr, "action", actionWords(type), `ref ${inFrame.ref}`);
    if (why !== undefined) throw refuse(why);
    r = inFrame.fr.rule;
  }
  if (r.rule === "act") return;
  if (r.rule === "never") throw refuse(`Not done: ${neverRefusal(r)}`);
  if (r.rule === "read_only") throw refuse(readOnlyRefusal(r, actionWords(type), await slotOf(tab)));
  await asking.ask(tab, r, type, p, app, signal, slotOf);
}

// ---- ask before acting: waiting for the person's answer (lib/worker/asking.ts) ----

const asking = createAsking({
  describe: async (tabId, refs) => (hooks?.describe ? hooks.describe(tabId, refs) : (await contentOp(tabId, "describe", { refs })).targets),
  grants: async () => (await chrome.storage.session.get(KEY_APPROVAL_GRANTS))[KEY_APPROVAL_GRANTS],
  saveGrants: (g) => chrome.storage.session.set({ [KEY_APPROVAL_GRANTS]: g }),
  store: (approvals) => chrome.storage.session.set({ [KEY_APPROVALS]: approvals }),
  notice: async (tabId, op, askId) => void (await contentOp(tabId, op, { askId })),
  badge: async (tabId, mine) => {
    const asks = (await chrome.storage.session.get("asks"))["asks"];
    const theirs = asks && typeof asks === "object" && Object.values(asks as Record<string, { tabId?: unknown; state?: unknown }>).some((a) => a?.tabId === tabId && a?.state === "pending");
    await setAskBadge(tabId, mine || theirs === true);
  },
  log: (e) => logRule(e),
  reported,
});

/** Whether an action waits for the person's answer in the tab (the "?" badge stays while one does). */
export const approvalWaiting = (tabId: number): boolean => asking.waitingIn(tabId);
/** The person's answer from the popup (an extension page; index.ts refuses it from anything else). */
export const answerApproval = (id: string, answer: ApprovalAnswer): Promise<void> => asking.answer(id, answer);
/** Stop, a tab's Pause, unsharing: the waiting actions of the tab (or all) are refused with why. */
export const endApprovals = (match: (tabId: number) => boolean, err: CodedError): void => asking.end(match, err);
/** A rule changed: each waiting action is decided again by the rule now in force. */
const recheckWaiting = (): Promise<void> => asking.recheck(ruleForTab);

function logRule(e: Omit<ActivityEntry, "at" | "tool"> & { tool?: string }): void {
  void appendActivity({ at: Date.now(), tool: e.tool ?? "site_rule", ...e }).catch(reported("site rules: writing the activity log"));
}

// ---- changes -----------------------------------------------------------------

/** Drops activity entries older than the policy's retention (also on the worker's keepalive alarm). */
export async function applyRetention(): Promise<void> {
  await loadRules();
  const cutoff = retentionCutoff(policy, Date.now());
  if (cutoff !== undefined) await keepActivitySince(cutoff);
}

/** Installs the storage listeners (the worker's first turn) and loads the rules. */
export function installSiteRules(h: Hooks): void {
  hooks = h;
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && changes[KEY_SITE_RULES]) {
      const before = normalizeRules(changes[KEY_SITE_RULES].oldValue);
      const after = normalizeRules(changes[KEY_SITE_RULES].newValue);
      rules = after;
      for (const verb of diffRules(before, after)) logRule({ app: PERSON_APP, verb, outcome: "done" });
      void recheckWaiting().then(sweepShared).then(h.changed).catch(reported("site rules: applying a changed rule"));
    }
    if (area === "managed") {
      void readManaged()
        .then((p) => {
          policy = p;
          logRule({ app: "Your organisation", verb: "changed the policy", outcome: "done" });
          return recheckWaiting().then(sweepShared).then(applyRetention);
        })
        .then(h.changed)
        .catch(reported("policy: applying a changed policy"));
    }
  });
  // A worker that stopped lost the calls that waited for an answer: their questions go too.
  void chrome.storage.session.remove(KEY_APPROVALS).catch(reported("approvals: forgetting a stopped worker's questions"));
  void loadRules().then(applyRetention).catch(reported("site rules: loading"));
}
