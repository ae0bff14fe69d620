// The extension port's pairing proof (DESIGN §5.2, protocol/proof.go): each
// side proves it holds the pairing secret with an HMAC-SHA256 keyed with the
// secret's text, over a label naming the direction followed by the two
// nonces as raw bytes, the extension's first:
//
//   serverProof    = HMAC(secret, PROOF_LABEL_SERVER    || nonceExtension || nonceServer)
//   extensionProof = HMAC(secret, PROOF_LABEL_EXTENSION || nonceExtension || nonceServer)
//
// The server proves first; the extension says nothing about its profile or
// tabs to a server whose proof does not hold.

import { NONCE_SIZE } from "./protocol.gen";
import { reported } from "./diag";

/** The name of monkbrowse's native-messaging host (server/internal/install). */
export const NATIVE_HOST_NAME = "com.monkbrowse.pairing";

const HEX_RE = /^[0-9a-f]*$/;

function hexToBytes(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !HEX_RE.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function bytesToHex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/** A fresh nonce in its wire form (2 × NONCE_SIZE hex digits). */
export function newNonce(): string {
  const b = new Uint8Array(NONCE_SIZE);
  crypto.getRandomValues(b);
  return bytesToHex(b);
}

function decodeNonce(n: unknown): Uint8Array | undefined {
  if (typeof n !== "string" || n.length !== 2 * NONCE_SIZE) return undefined;
  return hexToBytes(n);
}

function message(label: string, nonceExtension: Uint8Array, nonceServer: Uint8Array): Uint8Array {
  const l = new TextEncoder().encode(label);
  const m = new Uint8Array(l.length + nonceExtension.length + nonceServer.length);
  m.set(l, 0);
  m.set(nonceExtension, l.length);
  m.set(nonceServer, l.length + nonceExtension.length);
  return m;
}

async function key(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

/** The proof of label over the two nonces, or "" when a nonce is malformed. */
export async function proof(secret: string, label: string, nonceExtension: string, nonceServer: string): Promise<string> {
  const ne = decodeNonce(nonceExtension);
  const ns = decodeNonce(nonceServer);
  if (!ne || !ns) return "";
  const sig = await crypto.subtle.sign("HMAC", await key(secret, "sign"), message(label, ne, ns) as BufferSource);
  return bytesToHex(new Uint8Array(sig));
}

/** Whether p is the proof of label over the nonces (WebCrypto's verify compares in constant time). */
export async function checkProof(secret: string, label: string, nonceExtension: string, nonceServer: unknown, p: unknown): Promise<boolean> {
  const ne = decodeNonce(nonceExtension);
  const ns = decodeNonce(nonceServer);
  if (!ne || !ns || typeof p !== "string" || p.length !== 64) return false;
  const sig = hexToBytes(p);
  if (!sig) return false;
  return crypto.subtle.verify("HMAC", await key(secret, "verify"), sig as BufferSource, message(label, ne, ns) as BufferSource);
}

/** The proof functions, injectable so that tests can run them synchronously. */
export interface PairingCrypto {
  newNonce(): string;
  proof(secret: string, label: string, nonceExtension: string, nonceServer: string): Promise<string>;
  checkProof(secret: string, label: string, nonceExtension: string, nonceServer: unknown, p: unknown): Promise<boolean>;
}

export const webCrypto: PairingCrypto = { newNonce, proof, checkProof };

/** For a monkbrowse on another machine, in WSL or a container: how its extension pairs (README: Remote). */
const ELSEWHERE =
  "for a monkbrowse that runs elsewhere (WSL, a container, over SSH), run `monkbrowse pair` there and paste its code into this extension's options (Pair with a code)";

/**
 * The popup's words for a server on the port that could not prove the
 * pairing. pasted says the extension had a secret from a pasted code for
 * this port: that monkbrowse's pairing was then probably reset.
 */
export function notYourMonkbrowse(port: number, pasted = false): string {
  const reset = pasted
    ? "If it is your monkbrowse, its pairing was reset (`monkbrowse pair --reset`) or it is another one: run `monkbrowse pair` where it runs and paste the new code into this extension's options (Pair with a code); "
    : "If it is your monkbrowse, its pairing was reset (`monkbrowse pair --reset`) or this extension was never paired with it: on this computer run `monkbrowse install` (it registers the pairing helper Chrome asks), then reload the extension; ";
  return `The program on port ${port} is not your monkbrowse (it could not prove the pairing), so this extension told it nothing about your tabs. ${reset}${ELSEWHERE}.`;
}

/** The popup's words when the extension has no pairing secret at all. */
export const NOT_PAIRED_REASON =
  "This extension is not paired with monkbrowse yet: run `monkbrowse install` on this computer (it registers the pairing helper Chrome asks), " +
  `then reload the extension from chrome://extensions; ${ELSEWHERE}.`;

/**
 * The popup's words when the extension could not get the secret; problem is
 * what Chrome or the pairing helper said. Chrome forbids the helper to an
 * extension whose id its manifest does not list (a copy under another id,
 * your own build): the words then name the id and the flag that allows it.
 */
export function notPairedReason(problem: string | undefined, extensionId: string | undefined): string {
  if (!problem) return NOT_PAIRED_REASON;
  if (extensionId && /forbidden/i.test(problem)) {
    return (
      `Chrome would not let this extension (id ${extensionId}) ask monkbrowse's pairing helper: the helper is registered for another extension id. ` +
      `If this is your own build of the extension, run \`monkbrowse install --allow-extension-id ${extensionId}\`, then reload the extension. (Chrome said: ${problem})`
    );
  }
  return `${NOT_PAIRED_REASON} (The pairing helper said: ${problem}.)`;
}

/** What the service worker knows about the pairing secret. */
export interface SecretSource {
  /** The secret last fetched from the native host, if any. */
  cached(): Promise<string | undefined>;
  store(secret: string): Promise<void>;
  /** Asks monkbrowse's native host; rejects with why when it cannot. */
  fetchNative(): Promise<string>;
}

/**
 * resolveSecret returns the secret to prove with: the cached one unless
 * refresh (after a failed proof or at start), else a fresh one from the
 * native host (cached), else the cached one. fresh says whether it came from
 * the host just now; problem says why the host could not answer.
 */
export async function resolveSecret(src: SecretSource, refresh: boolean): Promise<{ secret?: string; fresh: boolean; problem?: string }> {
  const cached = await src.cached().catch(reported("pairing: reading the cached secret"));
  if (cached && !refresh) return { secret: cached, fresh: false };
  try {
    const s = await src.fetchNative();
    await src.store(s).catch(reported("pairing: caching the secret"));
    return { secret: s, fresh: true };
  } catch (e) {
    const problem = e instanceof Error ? e.message : String(e);
    return cached ? { secret: cached, fresh: false, problem } : { fresh: false, problem };
  }
}

/** Reads the native host's answer ({secret} or {error}). */
export function parseHostReply(r: unknown): string {
  const o = (typeof r === "object" && r !== null ? r : {}) as Record<string, unknown>;
  if (typeof o.secret === "string" && o.secret !== "") return o.secret;
  if (typeof o.error === "string") throw new Error(o.error);
  throw new Error("the monkbrowse pairing host gave no secret");
}
