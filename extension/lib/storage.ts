// The chrome.storage.local layout of docs/CONTRACTS.md. Reading and writing
// happen in entrypoints (saveSwitch, shared by the options page and the
// popup, is the exception); this file names the keys and shapes and
// normalises whatever is stored (an older or hand-edited value must never
// break the extension).

import { DEFAULT_EXTENSION_PORT } from "./protocol.gen";

export const KEY_SETTINGS = "settings";
export const KEY_IDENTITY = "identity";
export const KEY_SHARES = "shares";
export const KEY_STATUS = "status";
/**
 * What the person allows the AI to do in this Chrome profile, beyond reading
 * and acting in shared tabs (options page, section "For this Chrome profile";
 * the popup shows it too). Every switch is off until the person turns it on.
 */
export const KEY_CONSENT = "consent";
/**
 * The pairing secrets received with a one-time code (options page, "Pair
 * with a code"; lib/pairing-code.ts), one per server port: a monkbrowse in
 * WSL or a container has its own secret, which no native host on this
 * computer knows.
 */
export const KEY_PAIRED = "pairedSecrets";

/** Port (as a string) → pairing secret. */
export type PairedSecrets = Record<string, string>;

/** Reads KEY_PAIRED leniently: anything malformed is no secret. */
export function normalizePaired(v: unknown): PairedSecrets {
  const out: PairedSecrets = {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) return out;
  for (const [port, secret] of Object.entries(v as Record<string, unknown>)) {
    if (/^[0-9]{1,5}$/.test(port) && typeof secret === "string" && secret !== "") out[port] = secret;
  }
  return out;
}

export interface Settings {
  port: number;
  label: string;
}

export interface Identity {
  profileId: string;
  assignedLabel?: string;
  assignedSlug?: string;
}

/** Shared tab id (as a string) → slot number. */
export type Shares = Record<string, number>;

export type ConnectionState = "connecting" | "connected" | "rejected" | "disconnected";

export interface Status {
  state: ConnectionState;
  reason?: string;
  /** The refusal came from a program that had not proven it is monkbrowse (a refused hello). */
  unproven?: boolean;
  port: number;
  since: number;
}

/**
 * The consent object's key holding when the person cancelled Chrome's
 * debugging (the bar's Cancel): the mode is off since; the popup says so.
 */
export const CONSENT_DEBUGGER_CANCELLED = "debuggerCancelled";

/** The person's grants for this Chrome profile (KEY_CONSENT). Absent or malformed means off. */
export interface Consent {
  /** "Let the AI run JavaScript in shared tabs": browser_evaluate. */
  evaluate: boolean;
  /**
   * "Use Chrome's debugger for real input": trusted input, native dialogs,
   * response bodies, PDFs, one-capture full-page screenshots. Chrome shows a
   * banner while the extension is attached to a tab.
   */
  debugger: boolean;
  /**
   * "Show password, code and card fields in screenshots": off, screenshots
   * paint over the boxes of secret fields (lib/page/secret.ts; issue 40).
   */
  secretsInShots: boolean;
}

export const DEFAULT_CONSENT: Consent = { evaluate: false, debugger: false, secretsInShots: false };

/** Only an explicit `true` turns a switch on. */
export function normalizeConsent(v: unknown): Consent {
  const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, unknown>;
  return { ...DEFAULT_CONSENT, evaluate: o.evaluate === true, debugger: o.debugger === true, secretsInShots: o.secretsInShots === true };
}

/**
 * The value to store after one switch changed: the stored object with that
 * switch set, keeping every other key (switches another page or a newer
 * version owns).
 */
export function withSwitch(stored: unknown, name: keyof Consent, on: boolean): Record<string, unknown> {
  const cur = (typeof stored === "object" && stored !== null ? stored : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...cur, [name]: on };
  // Switching the debugger on again ends "the person cancelled debugging".
  if (name === "debugger" && on) delete out[CONSENT_DEBUGGER_CANCELLED];
  return out;
}

/** Sets one of the person's switches in chrome.storage.local (read, modify, write). */
export async function saveSwitch(name: keyof Consent, on: boolean): Promise<void> {
  const got = await chrome.storage.local.get(KEY_CONSENT);
  await chrome.storage.local.set({ [KEY_CONSENT]: withSwitch(got[KEY_CONSENT], name, on) });
}

export const MAX_LABEL_LEN = 64;

export function isValidPort(n: unknown): n is number {
  return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** Parses a port typed by a person; returns an error message or the number. */
export function parsePort(text: string): { port: number } | { error: string } {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return { error: "The port must be a whole number between 1 and 65535." };
  const n = Number(t);
  if (!isValidPort(n)) return { error: "The port must be between 1 and 65535." };
  return { port: n };
}

/** Validates a label typed by a person; returns an error message or the trimmed label. */
export function parseLabel(text: string): { label: string } | { error: string } {
  const t = text.trim();
  if (t.length > MAX_LABEL_LEN) return { error: `The label must be at most ${MAX_LABEL_LEN} characters.` };
  return { label: t };
}

export function normalizeSettings(v: unknown): Settings {
  const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, unknown>;
  return {
    port: isValidPort(o.port) ? o.port : DEFAULT_EXTENSION_PORT,
    label: typeof o.label === "string" ? o.label.trim().slice(0, MAX_LABEL_LEN) : "",
  };
}

export function normalizeShares(v: unknown): Shares {
  const out: Shares = {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) return out;
  for (const [k, slot] of Object.entries(v as Record<string, unknown>)) {
    if (/^\d+$/.test(k) && typeof slot === "number" && Number.isInteger(slot) && slot >= 1) {
      out[k] = slot;
    }
  }
  return out;
}

export function normalizeStatus(v: unknown, port = DEFAULT_EXTENSION_PORT): Status {
  const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, unknown>;
  const states: ConnectionState[] = ["connecting", "connected", "rejected", "disconnected"];
  const state = states.includes(o.state as ConnectionState) ? (o.state as ConnectionState) : "disconnected";
  const s: Status = {
    state,
    port: isValidPort(o.port) ? o.port : port,
    since: typeof o.since === "number" ? o.since : 0,
  };
  if (typeof o.reason === "string" && o.reason !== "") s.reason = o.reason;
  if (o.unproven === true) s.unproven = true;
  return s;
}
