// Test support: the pairing proof computed with node:crypto, synchronously
// (resolved promises only), and a fake server's answers. Not bundled: only
// tests import it.

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { PairingCrypto } from "./pairing";
import { AUTH_SCHEME, PROOF_LABEL_SERVER, PROTOCOL_VERSION } from "./protocol.gen";

export const TEST_SECRET = "test-pairing-secret-0123456789abcdef";

function hmacHex(secret: string, label: string, ne: string, ns: string): string {
  return createHmac("sha256", secret).update(label).update(Buffer.from(ne, "hex")).update(Buffer.from(ns, "hex")).digest("hex");
}

const okNonce = (n: unknown): n is string => typeof n === "string" && /^[0-9a-f]{64}$/.test(n);

export const nodeCrypto: PairingCrypto = {
  newNonce: () => randomBytes(32).toString("hex"),
  proof: (secret, label, ne, ns) => Promise.resolve(okNonce(ne) && okNonce(ns) ? hmacHex(secret, label, ne, ns) : ""),
  checkProof: (secret, label, ne, ns, p) => {
    if (!okNonce(ne) || !okNonce(ns) || typeof p !== "string" || p.length !== 64) return Promise.resolve(false);
    return Promise.resolve(timingSafeEqual(Buffer.from(hmacHex(secret, label, ne, ns), "hex"), Buffer.from(p, "hex")));
  },
};

/** A server's answer to a hello: its nonce and its proof under secret. */
export function proofAck(secret: string, hello: unknown, serverNonce = randomBytes(32).toString("hex")): Record<string, unknown> {
  const ne = (hello as { nonce?: string } | null)?.nonce ?? "";
  return { ok: true, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", auth: AUTH_SCHEME, nonce: serverNonce, proof: hmacHex(secret, PROOF_LABEL_SERVER, ne, serverNonce) };
}

/** Checks an auth's proof against the hello's nonce and the server's. */
export function authProven(secret: string, label: string, helloNonce: string, serverNonce: string, auth: unknown): boolean {
  const p = (auth as { proof?: unknown } | null)?.proof;
  return typeof p === "string" && p === hmacHex(secret, label, helloNonce, serverNonce);
}
