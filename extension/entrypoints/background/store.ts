// The service worker's reads and writes of chrome.storage: settings,
// identity, consent, shares, the pairing secret (session storage) and the
// diagnostics log. Everything here is wiring; the logic is in lib/.

import { NATIVE_HOST_NAME, parseHostReply, type SecretSource } from "../../lib/pairing";
import { ensureIdentity } from "../../lib/identity";
import {
  KEY_CONSENT,
  KEY_IDENTITY,
  KEY_SETTINGS,
  KEY_SHARES,
  normalizeConsent,
  normalizeSettings,
  normalizeShares,
  type Consent,
  type Identity,
  type Settings,
  type Shares,
} from "../../lib/storage";
import { afterEither, DIAG_KEY, DiagLog, type DiagEntry } from "../../lib/diag";
import { consentUnderPolicy } from "./siterules";

// ---- storage helpers -------------------------------------------------------

/**
 * Keeps this profile's shares, consent switches and settings out of reach of
 * our content script: it runs in the page's renderer process, which a
 * malicious page may have compromised, and by default chrome.storage.local is
 * open to content scripts. None of ours needs storage, so only the extension's
 * own pages and this worker may read or write it (Chrome 102+ for the call;
 * older builds keep the default and we carry on).
 */
export function lockStorage(): void {
  chrome.storage.local.setAccessLevel({ accessLevel: "TRUSTED_CONTEXTS" }).catch((err: unknown) => {
    console.warn("monkbrowse: could not restrict chrome.storage.local to the extension's own pages", err);
  });
}

export async function readSettings(): Promise<Settings> {
  const got = await chrome.storage.local.get(KEY_SETTINGS);
  return normalizeSettings(got[KEY_SETTINGS]);
}

// Identity reads and writes are chained: two first-time reads racing (on
// install, the hello and onInstalled) must not mint two profileIds.
let identityChain: Promise<unknown> = Promise.resolve();
export function withIdentity<T>(fn: (identity: Identity) => Promise<T>): Promise<T> {
  const run = identityChain.then(async () => {
    const got = await chrome.storage.local.get(KEY_IDENTITY);
    const { identity, changed } = ensureIdentity(got[KEY_IDENTITY], () => crypto.randomUUID());
    if (changed) await chrome.storage.local.set({ [KEY_IDENTITY]: identity });
    return fn(identity);
  });
  identityChain = afterEither(run);
  return run;
}

export const readIdentity = () => withIdentity(async (identity) => identity);

export async function readConsent(): Promise<Consent> {
  const got = await chrome.storage.local.get(KEY_CONSENT);
  // What the organisation's policy forbids is off whatever the person chose (issue 44).
  return consentUnderPolicy(normalizeConsent(got[KEY_CONSENT]));
}

export async function readShares(): Promise<Shares> {
  const got = await chrome.storage.local.get(KEY_SHARES);
  return normalizeShares(got[KEY_SHARES]);
}

/**
 * The pairing secret (DESIGN §5.2): fetched from monkbrowse's native host
 * (registered by `monkbrowse install`) and kept in session storage, which
 * Chrome holds in memory only, until the browser quits.
 */
const SECRET_KEY = "pairingSecret";
export const secretSource: SecretSource = {
  cached: async () => {
    const v = (await chrome.storage.session.get(SECRET_KEY))[SECRET_KEY];
    return typeof v === "string" && v !== "" ? v : undefined;
  },
  store: async (secret) => {
    await chrome.storage.session.set({ [SECRET_KEY]: secret });
  },
  fetchNative: async () => {
    try {
      return parseHostReply(await chrome.runtime.sendNativeMessage(NATIVE_HOST_NAME, { type: "pairing" }));
    } catch (e) {
      throw new Error(e instanceof Error ? e.message : String(e));
    }
  },
};

// Failures the worker goes on without, and those content scripts and the
// offscreen document send ("diag"): the last DIAG_MAX in chrome.storage.session,
// shown by the options page (lib/diag.ts).
export const diagLog = new DiagLog({
  get: async () => {
    const got = await chrome.storage.session.get(DIAG_KEY);
    const v = got[DIAG_KEY];
    return Array.isArray(v) ? (v as DiagEntry[]) : [];
  },
  set: (entries) => chrome.storage.session.set({ [DIAG_KEY]: entries }),
});
