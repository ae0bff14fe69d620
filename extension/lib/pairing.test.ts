import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeFrame, type ResponseFrame, type RequestFrame } from "./frame";
import { checkProof, newNonce, notPairedReason, NOT_PAIRED_REASON, parseHostReply, proof, resolveSecret, type SecretSource } from "./pairing";
import { nodeCrypto } from "./pairing-testing";
import { PROOF_LABEL_EXTENSION, PROOF_LABEL_SERVER } from "./protocol.gen";

// The Go golden vectors (protocol/frames_test.go): secret, nonces.
const GO_SECRET = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const frames = join(__dirname, "..", "..", "protocol", "testdata", "frames");

/** A golden frame; a missing file fails the test (readFileSync throws). */
function golden<T>(name: string): T | undefined {
  return decodeFrame(readFileSync(join(frames, name), "utf8")) as T;
}

describe("the pairing proof (WebCrypto)", () => {
  it("computes the Go server's proof and the Go extension's proof of the golden vectors", async () => {
    const hello = golden<RequestFrame>("hello.req.json");
    const ack = golden<ResponseFrame>("hello.res.accepted.json");
    const auth = golden<RequestFrame>("auth.req.json");
    expect(hello && ack && auth).toBeTruthy();
    const ne = (hello!.payload as { nonce: string }).nonce;
    const { nonce: ns, proof: sp } = ack!.result as { nonce: string; proof: string };
    const secret = goSecret();
    expect(await checkProof(secret, PROOF_LABEL_SERVER, ne, ns, sp)).toBe(true);
    expect(await proof(secret, PROOF_LABEL_SERVER, ne, ns)).toBe(sp);
    expect(await proof(secret, PROOF_LABEL_EXTENSION, ne, ns)).toBe((auth!.payload as { proof: string }).proof);
    // The other label, another secret, swapped nonces: no.
    expect(await checkProof(secret, PROOF_LABEL_EXTENSION, ne, ns, sp)).toBe(false);
    expect(await checkProof(secret + "x", PROOF_LABEL_SERVER, ne, ns, sp)).toBe(false);
    expect(await checkProof(secret, PROOF_LABEL_SERVER, ns, ne, sp)).toBe(false);
  });

  it("agrees with node:crypto (the tests' stand-in) and refuses malformed input", async () => {
    const ne = newNonce();
    const ns = newNonce();
    expect(ne).toMatch(/^[0-9a-f]{64}$/);
    expect(ne).not.toBe(ns);
    expect(await proof("s", PROOF_LABEL_SERVER, ne, ns)).toBe(await nodeCrypto.proof("s", PROOF_LABEL_SERVER, ne, ns));
    expect(await proof("s", PROOF_LABEL_SERVER, "abc", ns)).toBe("");
    for (const bad of [undefined, 7, "", "zz".repeat(32), "ab".repeat(31)]) {
      expect(await checkProof("s", PROOF_LABEL_SERVER, ne, ns, bad)).toBe(false);
      expect(await checkProof("s", PROOF_LABEL_SERVER, ne, bad, "ab".repeat(32))).toBe(false);
    }
  });
});

describe("resolveSecret", () => {
  function source(native: string | Error, cached?: string): SecretSource & { stored: string[]; asked: number } {
    const s = {
      stored: [] as string[],
      asked: 0,
      cached: async () => cached,
      store: async (v: string) => {
        s.stored.push(v);
      },
      fetchNative: async () => {
        s.asked++;
        if (native instanceof Error) throw native;
        return native;
      },
    };
    return s;
  }
  it("uses the cached secret unless asked to refresh", async () => {
    const s = source("new", "old");
    expect(await resolveSecret(s, false)).toEqual({ secret: "old", fresh: false });
    expect(s.asked).toBe(0);
    expect(await resolveSecret(s, true)).toEqual({ secret: "new", fresh: true });
    expect(s.stored).toEqual(["new"]);
  });
  it("says why the native host could not answer", async () => {
    expect(await resolveSecret(source(new Error("Specified native messaging host not found.")), true)).toEqual({
      fresh: false,
      problem: "Specified native messaging host not found.",
    });
    expect(await resolveSecret(source(new Error("gone"), "old"), true)).toEqual({ secret: "old", fresh: false, problem: "gone" });
  });
  it("reads the host's reply", () => {
    expect(parseHostReply({ secret: "s", version: "0.3.0" })).toBe("s");
    expect(() => parseHostReply({ error: "monkbrowse has no pairing secret: x" })).toThrow("no pairing secret");
    expect(() => parseHostReply(null)).toThrow("gave no secret");
  });
});

function goSecret(): string {
  // protocol/frames_test.go's sampleToken.
  const src = readFileSync(join(__dirname, "..", "..", "protocol", "frames_test.go"), "utf8");
  const m = /sampleToken\s*=\s*"([^"]+)"/.exec(src);
  return m ? m[1]! : GO_SECRET;
}

describe("notPairedReason", () => {
  it("names the id and the flag when Chrome forbids the pairing helper to this id", () => {
    const r = notPairedReason("Access to the specified native messaging host is forbidden.", "abcdefghijklmnopabcdefghijklmnop");
    expect(r).toContain("abcdefghijklmnopabcdefghijklmnop");
    expect(r).toContain("--allow-extension-id");
  });
  it("says how to pair, with what the helper said, otherwise: the helper here, a code from monkbrowse pair elsewhere", () => {
    expect(notPairedReason(undefined, "x")).toBe(NOT_PAIRED_REASON);
    const r = notPairedReason("Specified native messaging host not found.", "x");
    expect(r).toContain("monkbrowse install");
    expect(r).toContain("Specified native messaging host not found.");
    expect(r).toContain("run `monkbrowse pair` there and paste its code into this extension's options (Pair with a code)");
    expect(r).not.toContain("pairing-secret");
  });
});
