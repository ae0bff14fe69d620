// The organisation's policy (issue 44): Chrome's managed storage for the
// extension (chrome.storage.managed, schema public/managed_schema.json),
// set by an administrator (on Linux a JSON file under
// /etc/chromium/policies/managed, key 3rdparty.extensions.<id>). Pure
// logic: the stored value normalised into the wire's SitePolicy, and what
// it forbids. Managed settings win over the person's (lib/siterules.ts
// ruleFor; consent switches forced off), and the pages show them as "set by
// your organisation".

import type { Consent } from "./storage";
import type { SitePolicy } from "./protocol.gen";
import { isSiteTool, normalizePattern } from "./siterules";

/** The capabilities a policy may forbid, by the name the schema uses. */
export const CAPABILITIES = ["evaluate", "debugger", "responseBodies", "uploads", "downloads", "coordinates", "siteTools"] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Words for people (popup, options, sentences for the AI). */
export const CAPABILITY_WORDS: Record<Capability, string> = {
  evaluate: "running JavaScript in pages",
  debugger: "Chrome's debugger (real input, native dialogs, PDFs)",
  responseBodies: "reading response bodies",
  uploads: "uploading files",
  downloads: "listing downloads",
  coordinates: "clicking and dragging at screen points",
  siteTools: "the sites' own tools",
};

/** The longest list kept from a policy (a broken policy must not slow every request). */
const LIST_MAX = 1000;

function patterns(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const x of v.slice(0, LIST_MAX)) {
    if (typeof x !== "string") continue;
    const p = normalizePattern(x);
    if (p && !out.includes(p)) out.push(p);
  }
  return out.length > 0 ? out : undefined;
}

/**
 * The managed storage's items as a SitePolicy, or undefined when the
 * organisation set nothing. Unknown keys and malformed values are ignored
 * (Chrome checks the schema too, but an older Chrome or a hand-made file
 * may not).
 */
export function normalizePolicy(v: unknown): SitePolicy | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const p: SitePolicy = {};
  const blocked = patterns(o.blockedSites);
  const readOnly = patterns(o.readOnlySites);
  const ask = patterns(o.askSites);
  if (blocked) p.blockedSites = blocked;
  if (readOnly) p.readOnlySites = readOnly;
  if (ask) p.askSites = ask;
  const caps = o.capabilities;
  if (caps && typeof caps === "object" && !Array.isArray(caps)) {
    const forbidden = CAPABILITIES.filter((c) => (caps as Record<string, unknown>)[c] === false);
    if (forbidden.length > 0) p.forbidden = forbidden;
  }
  if (Array.isArray(o.allowedApps)) {
    const apps = o.allowedApps.filter((x): x is string => typeof x === "string" && x.trim() !== "").map((x) => x.trim().slice(0, 60)).slice(0, LIST_MAX);
    if (apps.length > 0) p.allowedApps = apps;
  }
  if (o.logExport === false) p.noLogExport = true;
  if (typeof o.logRetentionDays === "number" && Number.isInteger(o.logRetentionDays) && o.logRetentionDays >= 1 && o.logRetentionDays <= 3650) {
    p.logRetentionDays = o.logRetentionDays;
  }
  return Object.keys(p).length > 0 ? p : undefined;
}

export function forbids(policy: SitePolicy | undefined, cap: Capability): boolean {
  return policy?.forbidden?.includes(cap) ?? false;
}

/** The person's switches with what the policy forbids forced off. */
export function withPolicy(consent: Consent, policy: SitePolicy | undefined): Consent {
  if (!policy) return consent;
  return { ...consent, evaluate: consent.evaluate && !forbids(policy, "evaluate"), debugger: consent.debugger && !forbids(policy, "debugger") };
}

/** Whether the policy lets this AI app act (names compared without case; no list: every app). */
export function appAllowed(policy: SitePolicy | undefined, app: string): boolean {
  const list = policy?.allowedApps;
  if (!list || list.length === 0) return true;
  const a = app.trim().toLowerCase();
  return list.some((x) => x.toLowerCase() === a);
}

/** The capability a wire request needs, if the policy may forbid it. */
export function capabilityOf(type: string, payload: Record<string, unknown>): Capability | undefined {
  switch (type) {
    case "browser_evaluate":
      return "evaluate";
    case "browser_pdf":
      return "debugger";
    case "browser_network_requests":
      return payload.includeBodies === true ? "responseBodies" : undefined;
    case "browser_upload_file":
      return "uploads";
    case "browser_downloads":
      return "downloads";
    case "browser_click_xy":
    case "browser_drag_xy":
      return "coordinates";
    default:
      return isSiteTool(type) ? "siteTools" : undefined;
  }
}

/** The refusal of a request that needs a capability the policy forbids. */
export function capabilityRefusal(cap: Capability): string {
  return (
    `Not done: your organisation's policy does not allow ${CAPABILITY_WORDS[cap]} through monkbrowse in this browser. ` +
    "Nothing was sent to the page. Only the organisation's administrator can change that; do the task another way or ask the person."
  );
}

/** The refusal of every request from an AI app the policy does not list. */
export function appRefusal(app: string, policy: SitePolicy): string {
  const names = (policy.allowedApps ?? []).map((n) => `"${n}"`).join(", ");
  return (
    `Not done: your organisation's policy lets only these AI apps use this browser through monkbrowse: ${names}; ` +
    `this app announced itself as "${app || "(no name)"}". Nothing was sent to the browser. Only the organisation's administrator can change that.`
  );
}

/** Days an activity entry is kept under the policy (undefined: the log's own limit only). */
export function retentionCutoff(policy: SitePolicy | undefined, now: number): number | undefined {
  const d = policy?.logRetentionDays;
  return d === undefined ? undefined : now - d * 24 * 60 * 60 * 1000;
}
