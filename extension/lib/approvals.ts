// "Ask before acting" (issue 44): the actions waiting for the person's
// Allow or Deny. Like the hand-off's requests (lib/ask.ts) they live in
// chrome.storage.session (memory only, the extension's own pages only) and
// are answered only in the popup, which no page can script, frame or click;
// the tab shows the hand-off's neutral notice and the "?" badge. Pure
// logic: the record, reading it back, and "allow for 10 minutes".

/** chrome.storage.session keys. */
export const KEY_APPROVALS = "approvals";
export const KEY_APPROVAL_GRANTS = "approvalGrants";

/** How long "Allow for 10 minutes" lets the app act on the site without asking. */
export const GRANT_MS = 10 * 60 * 1000;

export type ApprovalAnswer = "allow" | "allow10" | "deny";

export interface Approval {
  id: string;
  tabId: number;
  /** The AI app asking, as the person knows it. */
  app: string;
  /** The wire type (browser_click, …). */
  tool: string;
  /** What the AI wants to do, in people's words ("click"). */
  what: string;
  /** The element, as the page names it (role and name), when known. */
  target?: string;
  /** The page's host, and the pattern whose rule asks. */
  host: string;
  pattern: string;
  /** "policy" when the organisation's rule asks. */
  source: "policy" | "person" | "default";
  /** Unix milliseconds. */
  created: number;
}

export function normalizeApprovals(v: unknown): Approval[] {
  if (!v || typeof v !== "object") return [];
  const out: Approval[] = [];
  for (const raw of Object.values(v as Record<string, unknown>)) {
    if (!raw || typeof raw !== "object") continue;
    const a = raw as Record<string, unknown>;
    if (typeof a.id !== "string" || typeof a.tabId !== "number" || typeof a.app !== "string" || typeof a.what !== "string" || typeof a.created !== "number") continue;
    const ap: Approval = {
      id: a.id,
      tabId: a.tabId,
      app: a.app,
      tool: typeof a.tool === "string" ? a.tool : "",
      what: a.what,
      host: typeof a.host === "string" ? a.host : "",
      pattern: typeof a.pattern === "string" ? a.pattern : "",
      source: a.source === "policy" || a.source === "person" ? a.source : "default",
      created: a.created,
    };
    if (typeof a.target === "string") ap.target = a.target;
    out.push(ap);
  }
  return out.sort((x, y) => x.created - y.created);
}

/** The key of a grant: one AI app on one site. */
export function grantKey(app: string, host: string): string {
  return `${app}\n${host}`;
}

/** Grants (key → until, Unix ms) still running at now; the rest dropped. */
export function liveGrants(v: unknown, now: number): Record<string, number> {
  const out: Record<string, number> = {};
  if (!v || typeof v !== "object" || Array.isArray(v)) return out;
  for (const [k, until] of Object.entries(v as Record<string, unknown>)) {
    if (typeof until === "number" && until > now) out[k] = until;
  }
  return out;
}

/** The question the popup shows. */
export function approvalQuestion(a: Approval, slot: number | undefined): string {
  const where = slot !== undefined ? ` in tab ${slot}` : "";
  return `${a.app} wants to ${a.what}${a.target ? ` ${a.target}` : ""} on ${a.host}${where}.`;
}
