// The site's own tools (WebMCP, issue 43): pure logic, no Chrome API. A
// page registers tools with document.modelContext.registerTool; each frame
// is asked in its own main world (lib/page/webmcp.ts), and what comes back
// is the page's word: every name, title, description, schema and result is
// checked here before it is used, and shown to the AI as page content.
//
// Consent: a tool the page marks read-only runs; any other asks the person
// (in the popup) before its first run per site and AI app; a tool marked
// consequential asks every time unless the person chose "Always on this
// site". "Always" is kept per profile (chrome.storage.local) and revocable
// in the options page; "Allow once" of a tool that is not consequential is
// remembered for the browser session (chrome.storage.session).

import type { KV } from "./activity";
import { afterEither } from "./diag";
import { SITE_CONSENT, type SiteTool } from "./protocol.gen";

/** Storage keys: the "always" grants (local), the session's first-run allowances and the open questions (session). */
export const KEY_SITE_GRANTS = "siteToolGrants";
export const KEY_SITE_ALLOWED = "siteToolAllowed";
export const KEY_SITE_ASKS = "siteToolAsks";

/** Bounds on what a page hands over. */
export const MAX_TOOLS_PER_FRAME = 200;
export const MAX_NAME = 200;
export const MAX_TITLE = 500;
export const MAX_DESCRIPTION = 4000;
export const MAX_SCHEMA_CHARS = 20_000;
/** The longest result kept (characters); the server cuts it again to the token budget. */
export const MAX_RESULT = 100_000;

function cut(s: string, n: number): string {
  const chars = [...s];
  return chars.length > n ? `${chars.slice(0, n - 1).join("")}…` : s;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function firstBool(o: Record<string, unknown>, keys: string[]): boolean {
  for (const k of keys) if (typeof o[k] === "boolean") return o[k] as boolean;
  return false;
}

/**
 * A tool as one frame's page reported it, checked: undefined when it has no
 * usable name. Accepts the current shape (annotations {readOnlyHint,
 * consequentialHint, untrustedContentHint}, inputSchema an object), earlier
 * builds' (inputSchema a JSON string) and renamed fields (readOnly,
 * consequential or destructiveHint, untrustedContent). origin is the
 * frame's origin as the browser knows it, never the page's claim.
 */
export function normalizeTool(raw: unknown, frame: number, origin: string): SiteTool | undefined {
  if (!isRecord(raw)) return undefined;
  const name = raw.name;
  if (typeof name !== "string" || name.trim() === "" || [...name].length > MAX_NAME) return undefined;
  const ann = isRecord(raw.annotations) ? raw.annotations : {};
  const flags = { ...raw, ...ann };
  const out: SiteTool = { name, origin, frame };
  if (typeof raw.title === "string" && raw.title.trim() !== "") out.title = cut(raw.title, MAX_TITLE);
  if (typeof raw.description === "string" && raw.description !== "") out.description = cut(raw.description, MAX_DESCRIPTION);
  const schema = schemaOf(raw.inputSchema);
  if (schema !== undefined) out.inputSchema = schema;
  if (firstBool(flags, ["readOnlyHint", "readOnly"])) out.readOnly = true;
  if (firstBool(flags, ["consequentialHint", "consequential", "destructiveHint"])) out.consequential = true;
  if (firstBool(flags, ["untrustedContentHint", "untrustedContent"])) out.untrustedContent = true;
  return out;
}

/** A tool's input schema as an object (earlier builds gave a JSON string); undefined when none or unusable. */
export function schemaOf(v: unknown): Record<string, unknown> | undefined {
  let s = v;
  if (typeof s === "string") {
    if (s.length > MAX_SCHEMA_CHARS) return undefined;
    try {
      s = JSON.parse(s);
    } catch {
      // A schema that is not JSON is no schema: the tool is still listed
      // and called, and the page checks its own arguments.
      return undefined;
    }
  }
  if (!isRecord(s)) return undefined;
  try {
    const text = JSON.stringify(s);
    if (text.length > MAX_SCHEMA_CHARS) return undefined;
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Cycles or getters that throw: the page gave nothing we can pass on.
    return undefined;
  }
}

// ---- arguments ----------------------------------------------------------

const MAX_PROBLEMS = 5;
const MAX_DEPTH = 32;

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function fits(type: string, v: unknown): boolean {
  switch (type) {
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "string":
      return typeof v === "string";
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
    case "array":
      return Array.isArray(v);
    case "object":
      return isRecord(v);
    default:
      return true; // an unknown type word: the page checks
  }
}

function shown(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return cut(s, 60);
}

function check(schema: unknown, v: unknown, path: string, out: string[], depth: number): void {
  if (out.length >= MAX_PROBLEMS || !isRecord(schema) || depth > MAX_DEPTH) return;
  const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === "string") : [];
  if (types.length > 0 && !types.some((t) => fits(t, v))) {
    out.push(`${path} must be ${types.join(" or ")} (got ${typeName(v)} ${shown(v)})`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    out.push(`${path} must be one of ${cut(schema.enum.map((e) => JSON.stringify(e)).join(", "), 200)} (got ${shown(v)})`);
    return;
  }
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(v)) {
    out.push(`${path} must be ${shown(schema.const)} (got ${shown(v)})`);
    return;
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const alts = schema[key];
    if (Array.isArray(alts) && alts.length > 0 && !alts.some((alt) => problemsOf(alt, v, path, depth + 1).length === 0)) {
      out.push(`${path} fits none of the forms its schema allows (${key})`);
      return;
    }
  }
  if (typeof v === "string") {
    const n = [...v].length;
    if (typeof schema.minLength === "number" && n < schema.minLength) out.push(`${path} must have at least ${schema.minLength} characters (got ${n})`);
    if (typeof schema.maxLength === "number" && n > schema.maxLength) out.push(`${path} must have at most ${schema.maxLength} characters (got ${n})`);
  }
  if (typeof v === "number") {
    if (typeof schema.minimum === "number" && v < schema.minimum) out.push(`${path} must be at least ${schema.minimum} (got ${v})`);
    if (typeof schema.maximum === "number" && v > schema.maximum) out.push(`${path} must be at most ${schema.maximum} (got ${v})`);
    if (typeof schema.exclusiveMinimum === "number" && v <= schema.exclusiveMinimum) out.push(`${path} must be more than ${schema.exclusiveMinimum} (got ${v})`);
    if (typeof schema.exclusiveMaximum === "number" && v >= schema.exclusiveMaximum) out.push(`${path} must be less than ${schema.exclusiveMaximum} (got ${v})`);
  }
  if (Array.isArray(v)) {
    if (typeof schema.minItems === "number" && v.length < schema.minItems) out.push(`${path} must have at least ${schema.minItems} items (got ${v.length})`);
    if (typeof schema.maxItems === "number" && v.length > schema.maxItems) out.push(`${path} must have at most ${schema.maxItems} items (got ${v.length})`);
    if (isRecord(schema.items)) v.forEach((x, i) => check(schema.items, x, `${path}[${i}]`, out, depth + 1));
  }
  if (isRecord(v)) {
    const props = isRecord(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const k of schema.required) {
        if (typeof k === "string" && !Object.hasOwn(v, k)) out.push(`${path} is missing its required field "${k}"`);
      }
    }
    for (const [k, x] of Object.entries(v)) {
      if (Object.hasOwn(props, k)) check(props[k], x, `${path}.${k}`, out, depth + 1);
      else if (schema.additionalProperties === false) {
        const known = Object.keys(props);
        out.push(`${path} has no field "${cut(k, 60)}" (its fields are ${known.length > 0 ? cut(known.join(", "), 200) : "none"})`);
      } else if (isRecord(schema.additionalProperties)) check(schema.additionalProperties, x, `${path}.${k}`, out, depth + 1);
    }
  }
}

function problemsOf(schema: unknown, v: unknown, path: string, depth: number): string[] {
  const out: string[] = [];
  check(schema, v, path, out, depth);
  return out;
}

/**
 * What is wrong with args for this input schema (a subset of JSON Schema:
 * type, enum, const, anyOf/oneOf, properties, required,
 * additionalProperties, items, the length, size and range bounds; patterns
 * and formats are left to the page). Empty when they fit or there is no
 * schema. The arguments are always an object.
 */
export function argumentProblems(schema: Record<string, unknown> | undefined, args: unknown): string[] {
  if (!isRecord(args)) return [`arguments must be an object (got ${typeName(args)})`];
  if (!schema) return [];
  // A schema for an object whose root forgets "type" still describes the object.
  return problemsOf(schema, args, "arguments", 0).slice(0, MAX_PROBLEMS);
}

// ---- masking ------------------------------------------------------------

/** Argument names whose values are secrets (passwords, codes, card data, keys). */
const SECRET_KEY = /pass(word|code|phrase)?|secret|token|otp|one.?time|cvv|cvc|csc|card.?(number|num|no)|cc.?(num|number)|\bpin\b|^pin$|ssn|iban|api.?key|auth|credential|private.?key/i;
/** A value that looks like a card number: 13 to 19 digits, spaces or dashes between. */
const CARD_LIKE = /^(?:\d[ -]?){12,18}\d$/;

export const MASK = "•••";

function maskValue(key: string, v: unknown, depth: number): unknown {
  if (SECRET_KEY.test(key)) return MASK;
  if (typeof v === "string") return CARD_LIKE.test(v.trim()) ? MASK : v;
  if (depth > 8) return "…";
  if (Array.isArray(v)) return v.map((x) => maskValue("", x, depth + 1));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskValue(k, x, depth + 1)]));
  return v;
}

/** The arguments as the person and the log may see them: secret-named fields and card-like numbers masked, cut to n characters. */
export function maskedArgs(args: unknown, n: number): string {
  let s: string;
  try {
    s = JSON.stringify(maskValue("", args, 0)) ?? "";
  } catch {
    s = "";
  }
  return cut(s, n);
}

// ---- consent ------------------------------------------------------------

export type Rule = typeof SITE_CONSENT.readOnly | typeof SITE_CONSENT.always | typeof SITE_CONSENT.before | "ask";

/**
 * Whether a call runs without asking: consequential tools ask unless the
 * person chose "always"; read-only tools run; others run when always
 * allowed or allowed once before in this session.
 */
export function consentRule(tool: Pick<SiteTool, "readOnly" | "consequential">, always: boolean, allowedBefore: boolean): Rule {
  if (tool.consequential) return always ? SITE_CONSENT.always : "ask";
  if (tool.readOnly) return SITE_CONSENT.readOnly;
  if (always) return SITE_CONSENT.always;
  if (allowedBefore) return SITE_CONSENT.before;
  return "ask";
}

/** One kept allowance: this AI app may use this tool on this site (origin). */
export interface Grant {
  origin: string;
  app: string;
  tool: string;
  /** Unix milliseconds when the person chose it. */
  at: number;
}

export function normalizeGrants(v: unknown): Grant[] {
  if (!Array.isArray(v)) return [];
  return v.filter(
    (g): g is Grant => isRecord(g) && typeof g.origin === "string" && typeof g.app === "string" && typeof g.tool === "string" && typeof g.at === "number",
  );
}

const sameGrant = (a: Pick<Grant, "origin" | "app" | "tool">, b: Pick<Grant, "origin" | "app" | "tool">) => a.origin === b.origin && a.app === b.app && a.tool === b.tool;

export function hasGrant(grants: Grant[], g: Pick<Grant, "origin" | "app" | "tool">): boolean {
  return grants.some((x) => sameGrant(x, g));
}

/** The grants with g added (once). */
export function withGrant(grants: Grant[], g: Grant): Grant[] {
  return [...grants.filter((x) => !sameGrant(x, g)), g];
}

/** The grants without g. */
export function withoutGrant(grants: Grant[], g: Pick<Grant, "origin" | "app" | "tool">): Grant[] {
  return grants.filter((x) => !sameGrant(x, g));
}

/** A list of grants in a store key, changed one at a time (two answers never lose one). */
export class GrantList {
  private chain: Promise<unknown> = Promise.resolve();
  constructor(
    private readonly kv: KV,
    private readonly key: string,
  ) {}

  all(): Promise<Grant[]> {
    return this.kv.get(this.key).then((got) => normalizeGrants(got[this.key]));
  }

  has(g: Pick<Grant, "origin" | "app" | "tool">): Promise<boolean> {
    return this.all().then((all) => hasGrant(all, g));
  }

  update(fn: (all: Grant[]) => Grant[]): Promise<void> {
    const run = this.chain.then(async () => {
      await this.kv.set({ [this.key]: fn(await this.all()) });
    });
    this.chain = afterEither(run);
    return run;
  }
}

/** The person's answers in the popup. */
export type Answer = "once" | "always" | "deny";

export function isAnswer(v: unknown): v is Answer {
  return v === "once" || v === "always" || v === "deny";
}

/** A question to the person, shown in the popup until answered or ended. */
export interface SiteAsk {
  id: string;
  tabId: number;
  app: string;
  tool: string;
  title?: string;
  origin: string;
  /** The arguments, masked (maskedArgs). */
  args: string;
  consequential: boolean;
  /** Unix milliseconds. */
  created: number;
}

export function normalizeSiteAsks(v: unknown): SiteAsk[] {
  if (!Array.isArray(v)) return [];
  return v.filter(
    (a): a is SiteAsk =>
      isRecord(a) &&
      typeof a.id === "string" &&
      typeof a.tabId === "number" &&
      typeof a.app === "string" &&
      typeof a.tool === "string" &&
      typeof a.origin === "string" &&
      typeof a.args === "string" &&
      typeof a.created === "number",
  );
}

/** An origin as people read it: the host (with a port other than the scheme's), or the origin itself. */
export function siteName(origin: string): string {
  try {
    const u = new URL(origin);
    return u.host || origin;
  } catch {
    return origin;
  }
}

/** What a consent answer means for the call (SiteToolCallResult.consent). */
export function consentOfAnswer(a: Answer | "unanswered"): string {
  switch (a) {
    case "once":
      return SITE_CONSENT.once;
    case "always":
      return SITE_CONSENT.always;
    case "deny":
      return SITE_CONSENT.denied;
    default:
      return SITE_CONSENT.noAnswer;
  }
}

/**
 * The frame's origin from its URL as the browser reports it: about:blank and
 * about:srcdoc frames take their parent's (the documents share it).
 */
export function frameOrigin(frames: { frameId: number; parentFrameId: number; url: string }[], frameId: number): string {
  const byId = new Map(frames.map((f) => [f.frameId, f]));
  let f = byId.get(frameId);
  for (let hops = 0; f && hops < 32; hops++) {
    if (/^about:/i.test(f.url) && f.parentFrameId >= 0) {
      f = byId.get(f.parentFrameId);
      continue;
    }
    try {
      return new URL(f.url).origin;
    } catch {
      return "null";
    }
  }
  return "null";
}
