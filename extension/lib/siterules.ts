// Site rules (issue 44): what the AI may do on a site, set by the person
// (options page, popup) and by the organisation's policy (lib/policy.ts),
// enforced here in the extension, where neither the page nor the server can
// get around them. Pure logic: which rule holds for a URL, which wire
// requests a rule refuses or puts to the person, and the sentences the AI
// reads. The service worker (background/siterules.ts) applies it.

import { REQUEST_APP_FIELD } from "./protocol.gen";
import type { SitePolicy } from "./protocol.gen";

/** chrome.storage.local key of the person's rules (an array of PersonRule). */
export const KEY_SITE_RULES = "siteRules";

/**
 * never: the tab cannot be shared there; read_only: reads work, actions are
 * refused; ask: actions wait for the person's Allow/Deny; act: the default.
 */
export type SiteRule = "never" | "read_only" | "ask" | "act";
/** Under ask: every action, or only submissions, purchases and deletions. */
export type AskScope = "each" | "risky";

export interface PersonRule {
  /** A host (example.com, 127.0.0.1:8080) or every host under one (*.example.com). */
  pattern: string;
  rule: SiteRule;
  scope?: AskScope;
}

/** The rule in force on a page and who set it. */
export interface RuleInForce {
  rule: SiteRule;
  scope: AskScope;
  /** "policy": the organisation's (shown "set by your organisation"); "person"; "default". */
  source: "policy" | "person" | "default";
  /** The pattern that matched ("" for the default). */
  pattern: string;
  /** The page's host ("" when it has none: about:blank, data:). */
  host: string;
}

const RULES: readonly SiteRule[] = ["never", "read_only", "ask", "act"];
/** Strictness: a higher number keeps the AI further off. */
const STRICTNESS: Record<SiteRule, number> = { act: 0, ask: 1, read_only: 2, never: 3 };

/** Words of people for each rule (popup, options, sentences for the AI). */
export const RULE_WORDS: Record<SiteRule, string> = {
  never: "never",
  read_only: "read only",
  ask: "ask before acting",
  act: "act",
};

export const MAX_RULES = 500;

/**
 * A pattern as typed by a person or an administrator, normalised: lower
 * case, no scheme, path or trailing dot; "*.host" keeps its star. A URL
 * pasted whole gives its host. Undefined when it is no pattern.
 */
export function normalizePattern(raw: string): string | undefined {
  let t = raw.trim().toLowerCase();
  if (t === "") return undefined;
  t = t.replace(/^[a-z][a-z0-9+.-]*:\/\//, "");
  t = t.replace(/[/?#].*$/, "");
  t = t.replace(/^[^@]*@/, ""); // user info
  let wild = false;
  if (t.startsWith("*.")) {
    wild = true;
    t = t.slice(2);
  }
  t = t.replace(/\.(?=$|:)/, "");
  if (t === "" || t.length > 253) return undefined;
  // A host (letters, digits, dots, hyphens, an IPv6 literal in brackets), an optional port.
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9_-]+(\.[a-z0-9_-]+)*)(:[0-9]{1,5})?$/.test(t)) return undefined;
  if (wild && t.includes(":")) return undefined; // *.host:port is not a pattern we offer
  return wild ? `*.${t}` : t;
}

/** The host (and host:port) of a URL for matching; undefined for a URL without a host (about:, data:, chrome:). */
export function hostOf(url: string): { host: string; hostPort: string } | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:" && u.protocol !== "ws:" && u.protocol !== "wss:") return undefined;
  const host = u.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") return undefined;
  return { host, hostPort: u.port ? `${host}:${u.port}` : host };
}

/**
 * How well a pattern matches a host: undefined when not at all, else a
 * specificity (higher is more specific). "example.com" matches that host on
 * any port; "example.com:8080" that port only; "*.example.com" the host and
 * every host under it.
 */
export function matchPattern(pattern: string, h: { host: string; hostPort: string }): number | undefined {
  if (pattern.startsWith("*.")) {
    const base = pattern.slice(2);
    if (h.host === base || h.host.endsWith(`.${base}`)) return base.length;
    return undefined;
  }
  if (pattern.includes(":") && !pattern.startsWith("[")) return pattern === h.hostPort ? 10_000 + pattern.length : undefined;
  if (pattern.startsWith("[") && pattern.includes("]:")) return pattern === h.hostPort ? 10_000 + pattern.length : undefined;
  return pattern === h.host ? 5_000 + pattern.length : undefined;
}

/** Reads the stored person's rules leniently: anything malformed is dropped. */
export function normalizeRules(v: unknown): PersonRule[] {
  if (!Array.isArray(v)) return [];
  const out: PersonRule[] = [];
  const seen = new Set<string>();
  for (const raw of v.slice(0, MAX_RULES)) {
    if (!raw || typeof raw !== "object") continue;
    const r = raw as Record<string, unknown>;
    const pattern = typeof r.pattern === "string" ? normalizePattern(r.pattern) : undefined;
    if (!pattern || seen.has(pattern) || !RULES.includes(r.rule as SiteRule)) continue;
    seen.add(pattern);
    const rule: PersonRule = { pattern, rule: r.rule as SiteRule };
    if (rule.rule === "ask") rule.scope = r.scope === "risky" ? "risky" : "each";
    out.push(rule);
  }
  return out;
}

/** The person's rules with one pattern's rule set (or removed with undefined). */
export function withRule(rules: PersonRule[], pattern: string, rule: SiteRule | undefined, scope: AskScope = "each"): PersonRule[] {
  const p = normalizePattern(pattern);
  if (!p) throw new Error(`"${pattern}" is not a site: type a host such as example.com, or *.example.com for it and every site under it`);
  const rest = rules.filter((r) => r.pattern !== p);
  if (rule === undefined) return rest;
  return [...rest, rule === "ask" ? { pattern: p, rule, scope } : { pattern: p, rule }].slice(-MAX_RULES);
}

/** The most specific of the person's rules matching the host. */
function personMatch(rules: PersonRule[], h: { host: string; hostPort: string }): PersonRule | undefined {
  let best: PersonRule | undefined;
  let bestScore = -1;
  for (const r of rules) {
    const s = matchPattern(r.pattern, h);
    if (s !== undefined && s > bestScore) {
      best = r;
      bestScore = s;
    }
  }
  return best;
}

/** The strictest of the policy's site lists matching the host. */
function policyMatch(policy: SitePolicy | undefined, h: { host: string; hostPort: string }): { rule: SiteRule; pattern: string } | undefined {
  if (!policy) return undefined;
  const lists: [SiteRule, string[] | undefined][] = [
    ["never", policy.blockedSites],
    ["read_only", policy.readOnlySites],
    ["ask", policy.askSites],
  ];
  for (const [rule, list] of lists) {
    for (const raw of list ?? []) {
      const p = normalizePattern(raw);
      if (p && matchPattern(p, h) !== undefined) return { rule, pattern: p };
    }
  }
  return undefined;
}

/**
 * The rule in force on a URL. The organisation's policy wins: a site it
 * lists gets at least its rule, whatever the person set, and is shown as
 * the organisation's; the person may still be stricter (a person's never on
 * a site the policy asks about keeps the AI off). Otherwise the person's
 * most specific pattern; otherwise act.
 */
export function ruleFor(url: string, rules: PersonRule[], policy?: SitePolicy): RuleInForce {
  const h = hostOf(url);
  if (!h) return { rule: "act", scope: "each", source: "default", pattern: "", host: "" };
  const pol = policyMatch(policy, h);
  const mine = personMatch(rules, h);
  if (pol && (!mine || STRICTNESS[pol.rule] >= STRICTNESS[mine.rule])) {
    // The organisation's ask covers each action; a person's stricter scope does not loosen it.
    return { rule: pol.rule, scope: "each", source: "policy", pattern: pol.pattern, host: h.host };
  }
  if (mine) return { rule: mine.rule, scope: mine.scope ?? "each", source: "person", pattern: mine.pattern, host: h.host };
  return { rule: "act", scope: "each", source: "default", pattern: "", host: h.host };
}

// ---- which requests a rule touches ------------------------------------------

/** Requests that only read (or wait, or move between pages): allowed under read only and never asked about. */
const READS: ReadonlySet<string> = new Set([
  "browser_snapshot",
  "browser_find",
  "browser_get_text",
  "browser_screenshot",
  "browser_get_console_logs",
  "browser_network_requests",
  "browser_downloads",
  "browser_pdf",
  "getUrl",
  "getTitle",
  "list_tabs",
  "browser_switch_tab",
  "browser_new_tab",
  "browser_navigate",
  "browser_go_back",
  "browser_go_forward",
  "browser_reload",
  "browser_scroll",
  "browser_ask_user",
  "ask_wait",
  "ask_end",
  "person_edits",
  "browser_get_selection",
  "browser_wait",
  "browser_site_tools",
]);

/** Whether a wire request acts on the page (everything but reads, navigation, scrolling and the hand-off). */
export function isAction(type: string): boolean {
  return !READS.has(type);
}

/** A site tool (a page's own tools offered to the AI, issue 46): named site_tool* on the wire. */
export function isSiteTool(type: string): boolean {
  return /^(browser_)?site_?tools?(_|$)/.test(type);
}

/** Names of submissions, purchases and deletions (the page's accessible names, any case). */
const RISKY_NAME =
  /\b(submit|send|post|publish|save|confirm|apply|sign ?up|register|buy|purchase|pay|payment|checkout|check out|order|place order|subscribe|donate|transfer|book|delete|remove|erase|destroy|discard|cancel (my )?(account|subscription)|unsubscribe|close account)\b/i;

/**
 * Under "ask … only submissions, purchases and deletions": whether this
 * action is one. targets are the page's own role and name of the refs
 * acted on (never the AI's words); an action whose target is unknown, and
 * anything that runs code or aims at a point, counts as one.
 */
export function isRisky(type: string, payload: Record<string, unknown>, targets: ({ role: string; name: string } | null)[]): boolean {
  switch (type) {
    case "browser_evaluate":
    case "browser_click_xy":
    case "browser_drag_xy":
    case "browser_upload_file":
    case "browser_close_tab":
      return true;
    case "browser_type":
      if (payload.submit === true) return true;
      return false;
    case "browser_press_key": {
      const key = typeof payload.key === "string" ? payload.key : "";
      return /(^|\+)(enter|return|delete)$/i.test(key);
    }
    case "browser_fill_form":
    case "browser_select_option":
    case "browser_hover":
      return false;
    case "browser_click":
    case "browser_drag": {
      if (targets.length === 0 || targets.some((t) => t === null)) return true;
      return targets.some((t) => t !== null && (RISKY_NAME.test(t.name) || (t.role === "button" && /^\s*$/.test(t.name))));
    }
    default:
      return true;
  }
}

// ---- sentences -----------------------------------------------------------------

function whose(r: RuleInForce): string {
  return r.source === "policy" ? "your organisation's policy" : "the person's site rules";
}

/** The verb after whose(r): the person's rules make, the policy makes. */
function verb(r: RuleInForce, plural: string, singular: string): string {
  return r.source === "policy" ? singular : plural;
}

function site(r: RuleInForce): string {
  return r.pattern !== "" ? r.pattern : r.host;
}

/** The refusal of an action on a read-only site. */
export function readOnlyRefusal(r: RuleInForce, what: string, slot?: number): string {
  return (
    `Not done: ${whose(r)} ${verb(r, "make", "makes")} ${site(r)} read only for the AI${slot !== undefined ? ` (tab ${slot})` : ""}: ` +
    `reading the page works, but ${what} is refused there and nothing was sent to the page. ` +
    (r.source === "policy" ? "Only the organisation's administrator can change that; " : "Ask the person to do it themselves, or to change the rule in the monkbrowse popup; ") +
    "do not try another way."
  );
}

/** The refusal of sharing or going to a never site. */
export function neverRefusal(r: RuleInForce): string {
  return (
    `${r.source === "policy" ? "Your organisation's policy keeps" : "The person's site rules keep"} the AI off ${site(r)} (never): ` +
    "monkbrowse will not open, read or act on it. Ask the person to do what is needed there themselves."
  );
}

/** What the AI reads when a shared tab went to a never site. */
export function leftReach(r: RuleInForce, slot: number | undefined): string {
  return (
    `tab ${slot ?? "?"} went to ${r.host}, a site ${whose(r)} ${verb(r, "keep", "keeps")} from the AI (never): monkbrowse stopped sharing the tab ` +
    "and will do nothing more in it. It has left your reach; ask the person to share another tab or do the step themselves."
  );
}

/** The refusal of an action the person denied, or did not answer in time. */
export function deniedRefusal(r: RuleInForce, how: "denied" | "unanswered" | "stopped", what: string): string {
  const why =
    how === "denied"
      ? "the person pressed Deny"
      : how === "unanswered"
        ? "the person did not answer in time"
        : "the person stopped the request";
  return (
    `Not done: ${site(r)} is "ask before acting" (${whose(r)}), and ${why} when asked whether the AI may ${what}. ` +
    "Nothing was sent to the page. Do not retry the same action at once; ask the person (browser_ask_user) what they want."
  );
}

/** The app's words for a wire request, as "the AI may …" ends. */
export function actionWords(type: string): string {
  const words: Record<string, string> = {
    browser_click: "click",
    browser_hover: "hover over an element",
    browser_type: "type",
    browser_select_option: "choose an option",
    browser_press_key: "press a key",
    browser_drag: "drag",
    browser_upload_file: "upload a file",
    browser_evaluate: "run JavaScript",
    browser_close_tab: "close the tab",
    browser_fill_form: "fill in a form",
    browser_click_xy: "click at a point",
    browser_drag_xy: "drag between points",
    browser_handle_dialog: "answer a dialog",
  };
  return words[type] ?? (isSiteTool(type) ? "use the site's own tool" : "act on the page");
}

/** The app named in a request (the server adds it), or "". */
export function requestApp(payload: unknown): string {
  const v = payload && typeof payload === "object" ? (payload as Record<string, unknown>)[REQUEST_APP_FIELD] : undefined;
  return typeof v === "string" ? v : "";
}

/** The person's rule changes in their words (the activity log), from the rules before and after. */
export function diffRules(before: PersonRule[], after: PersonRule[]): string[] {
  const out: string[] = [];
  const was = new Map(before.map((r) => [r.pattern, r]));
  const now = new Map(after.map((r) => [r.pattern, r]));
  for (const [p, r] of now) {
    const old = was.get(p);
    if (!old || old.rule !== r.rule || old.scope !== r.scope) out.push(`set ${p} to ${RULE_WORDS[r.rule]}${r.rule === "ask" && r.scope === "risky" ? " (submissions, purchases and deletions)" : ""}`);
  }
  for (const p of was.keys()) if (!now.has(p)) out.push(`removed the rule for ${p}`);
  return out;
}
