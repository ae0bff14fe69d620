// Pairing with a one-time code (DESIGN §8, protocol/paircode.go): the
// person runs `monkbrowse pair` where their monkbrowse runs (WSL, a
// container, over SSH) and pastes the code into the options page, which
// runs this exchange on its own socket:
//
//   hello {protocol, extVersion, nonce, codeId}  →  {auth: pairing-code-v1, nonce, proof}
//   pair {proof}                                  →  {sealed}
//
// The code is never sent: its id and key are HMACs of it, the server proves
// it knows the key first, and the secret comes sealed (AES-256-GCM) under a
// key of this exchange alone. The secret is then kept for this port only
// (lib/storage.ts KEY_PAIRED) and the connection proves with it as usual.

import { interpretAck } from "./hello";
import { helloRefusal } from "./refusal";
import { Peer, PeerClosedError, errorText, requestTimeout, type PeerSocket } from "./peer";
import {
  AUTH_SCHEME_CODE,
  HELLO_TIMEOUT_MS,
  MSG_HELLO,
  MSG_PAIR,
  NONCE_SIZE,
  PAIR_CODE_ID_LEN,
  PAIR_CODE_LABEL_ID,
  PAIR_CODE_LABEL_KEY,
  PAIR_CODE_LABEL_SEAL,
  PAIR_CODE_SYMBOLS,
  PROOF_LABEL_CODE_EXTENSION,
  PROOF_LABEL_CODE_SERVER,
  PROTOCOL_VERSION,
  type Hello,
} from "./protocol.gen";
import { checkProof, newNonce, proof } from "./pairing";

/** Crockford's base 32, as `monkbrowse pair` prints it. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** The code's canonical text (upper case, no dashes or spaces, I/L read as 1, O as 0), or why it is not a code. */
export function normalizeCode(pasted: string): { code: string } | { error: string } {
  let out = "";
  for (let ch of pasted.toUpperCase()) {
    if (ch === "-" || /\s/.test(ch)) continue;
    if (ch === "I" || ch === "L") ch = "1";
    else if (ch === "O") ch = "0";
    if (!ALPHABET.includes(ch)) {
      return { error: `That is not a monkbrowse pairing code: "${ch}" is not one of its letters or digits. Copy the code \`monkbrowse pair\` printed.` };
    }
    out += ch;
  }
  if (out.length !== PAIR_CODE_SYMBOLS) {
    return {
      error: `That is not a monkbrowse pairing code: a code has ${PAIR_CODE_SYMBOLS} letters and digits (seven groups of four), this has ${out.length}. Copy the whole code \`monkbrowse pair\` printed.`,
    };
  }
  return { code: out };
}

function hexOf(b: ArrayBuffer | Uint8Array): string {
  let s = "";
  for (const x of new Uint8Array(b)) s += x.toString(16).padStart(2, "0");
  return s;
}

function bytesOf(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

async function hmacHex(key: string, ...parts: Uint8Array[]): Promise<string> {
  const k = await crypto.subtle.importKey("raw", new TextEncoder().encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  let n = 0;
  for (const p of parts) n += p.length;
  const m = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    m.set(p, at);
    at += p.length;
  }
  return hexOf(await crypto.subtle.sign("HMAC", k, m as BufferSource));
}

/** The code's id (sent) and key (never sent), both HMACs of the canonical code. */
export async function codeKeys(code: string): Promise<{ id: string; key: string }> {
  const enc = new TextEncoder();
  const id = (await hmacHex(code, enc.encode(PAIR_CODE_LABEL_ID))).slice(0, PAIR_CODE_ID_LEN);
  const key = await hmacHex(code, enc.encode(PAIR_CODE_LABEL_KEY));
  return { id, key };
}

/** Opens the server's sealed secret, or undefined when it does not open with this key and these nonces. */
export async function openSealed(key: string, nonceExtension: string, nonceServer: string, sealed: unknown): Promise<string | undefined> {
  const ne = bytesOf(nonceExtension);
  const ns = bytesOf(nonceServer);
  const b = typeof sealed === "string" ? bytesOf(sealed) : undefined;
  if (!ne || !ns || ne.length !== NONCE_SIZE || ns.length !== NONCE_SIZE || !b || b.length < 12 + 16) return undefined;
  const enc = new TextEncoder();
  const sealKey = bytesOf(await hmacHex(key, enc.encode(PAIR_CODE_LABEL_SEAL), ne, ns)) as Uint8Array;
  const k = await crypto.subtle.importKey("raw", sealKey as BufferSource, { name: "AES-GCM" }, false, ["decrypt"]);
  try {
    const pt = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: b.slice(0, 12) as BufferSource, additionalData: enc.encode(PAIR_CODE_LABEL_SEAL) as BufferSource },
      k,
      b.slice(12) as BufferSource,
    );
    return new TextDecoder().decode(pt);
  } catch {
    return undefined;
  }
}

/** The words for a server that could not prove it knows the pasted code. */
export function codeNotProven(port: number): string {
  return (
    `The program on port ${port} could not prove it knows this code, so the extension told it nothing: ` +
    "either it is not the monkbrowse that printed the code (check the port above), or the code was mistyped. " +
    "Run `monkbrowse pair` again where your AI app runs and paste the new code."
  );
}

export interface CodePairingDeps {
  openSocket(url: string): Promise<PeerSocket>;
  extVersion: string;
}

/**
 * pairWithCode runs the code exchange with the server on 127.0.0.1:port and
 * resolves with the pairing secret, or with the reason to show the person
 * (a wrong, expired or used code; a server that cannot prove the code; no
 * server at all).
 */
export async function pairWithCode(deps: CodePairingDeps, port: number, pasted: string): Promise<{ secret: string } | { error: string }> {
  const norm = normalizeCode(pasted);
  if ("error" in norm) return norm;
  const { id, key } = await codeKeys(norm.code);
  let sock: PeerSocket;
  try {
    sock = await deps.openSocket(`ws://127.0.0.1:${port}/`);
  } catch {
    return { error: `No monkbrowse server is listening on 127.0.0.1:${port}: start your AI app (it runs monkbrowse), check the port above, then paste the code again.` };
  }
  const peer = new Peer(sock, {});
  const ask = async (type: string, payload: unknown): Promise<{ result: unknown } | { error: string }> => {
    try {
      return { result: await peer.request(type, payload, { signal: requestTimeout(type, HELLO_TIMEOUT_MS) }) };
    } catch (e) {
      const why = e instanceof PeerClosedError ? "it closed the connection" : errorText(e);
      return { error: `The monkbrowse server on port ${port} did not answer the pairing (${why}). Run \`monkbrowse pair\` again and paste the new code.` };
    }
  };
  try {
    const nonce = newNonce();
    const hello: Hello = { protocol: PROTOCOL_VERSION, extVersion: deps.extVersion, nonce, codeId: id };
    const first = await ask(MSG_HELLO, hello);
    if ("error" in first) return first;
    const hv = interpretAck(first.result);
    // Refused before it proved it knows the code: its words are not ours.
    if (!hv.accepted) return { error: helloRefusal(hv, port) };
    if (hv.auth !== AUTH_SCHEME_CODE || !(await checkProof(key, PROOF_LABEL_CODE_SERVER, nonce, hv.nonce, hv.proof))) {
      return { error: codeNotProven(port) };
    }
    const second = await ask(MSG_PAIR, { proof: await proof(key, PROOF_LABEL_CODE_EXTENSION, nonce, hv.nonce) });
    if ("error" in second) return second;
    const r = (typeof second.result === "object" && second.result !== null ? second.result : {}) as Record<string, unknown>;
    if (r.ok !== true) {
      return { error: `monkbrowse refused the code: ${typeof r.reason === "string" ? r.reason : "no reason given"}` };
    }
    const secret = await openSealed(key, nonce, hv.nonce, r.sealed);
    if (secret === undefined || secret === "") return { error: codeNotProven(port) };
    return { secret };
  } finally {
    peer.close("pairing done");
  }
}
