import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeFrame, encodeFrame } from "./frame";

const FRAMES_DIR = join(__dirname, "..", "..", "protocol", "testdata", "frames");
const NONCANONICAL_DIR = join(__dirname, "..", "..", "protocol", "testdata", "noncanonical");

describe("golden frame vectors", () => {
  it("decodes and re-encodes every vector byte for byte", () => {
    const files = readdirSync(FRAMES_DIR).filter((f) => f.endsWith(".json")).sort();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const text = readFileSync(join(FRAMES_DIR, f), "utf8");
      const frame = decodeFrame(text);
      expect(frame, f).not.toBeNull();
      expect(encodeFrame(frame!), f).toBe(text);
      // The file name says what kind of frame it holds.
      const kind = f.split(".")[1];
      const want = f === "ping.json" ? "png" : f === "pong.json" ? "pog" : kind;
      expect(frame!.k, f).toBe(want);
    }
  });

  // The same files protocol's TestNonCanonicalFrames reads: other spellings
  // (\/, \u0041, Go's HTML escaping, surrogate-pair escapes, a raw U+2028,
  // whitespace) of a golden frame decode to its value and re-encode to its bytes.
  it("decodes non-canonical spellings to the golden value and bytes", () => {
    const files = readdirSync(NONCANONICAL_DIR).filter((f) => f.endsWith(".json")).sort();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const text = readFileSync(join(NONCANONICAL_DIR, f), "utf8");
      const golden = readFileSync(join(FRAMES_DIR, f), "utf8");
      expect(text, f).not.toBe(golden);
      const frame = decodeFrame(text);
      expect(frame, f).not.toBeNull();
      expect(frame, f).toEqual(decodeFrame(golden));
      expect(encodeFrame(frame!), f).toBe(golden);
    }
  });
});

describe("decodeFrame", () => {
  it.each([
    ["bad json", "{"],
    ["not an object", "[1]"],
    ["null", "null"],
    ["unknown k", '{"k":"zzz"}'],
    ["request without id", '{"k":"req","type":"x","payload":{}}'],
    ["request with numeric id", '{"k":"req","id":7,"type":"x"}'],
    ["request without type", '{"k":"req","id":"1"}'],
    ["response without ok", '{"k":"res","id":"1"}'],
    ["response with non-string error", '{"k":"res","id":"1","ok":false,"error":3}'],
    ["notify without type", '{"k":"ntf","payload":{}}'],
  ])("rejects %s", (_name, text) => {
    expect(decodeFrame(text)).toBeNull();
  });

  it("keeps payloads and results as parsed JSON", () => {
    expect(decodeFrame('{"k":"req","id":"3","type":"t","payload":{"a":[1,"x"]}}')).toEqual({
      k: "req",
      id: "3",
      type: "t",
      payload: { a: [1, "x"] },
    });
    expect(decodeFrame('{"k":"res","id":"3","ok":true,"result":null}')).toEqual({ k: "res", id: "3", ok: true, result: null });
  });
});

describe("encodeFrame", () => {
  it("writes keys in envelope order", () => {
    expect(encodeFrame({ k: "res", id: "2", ok: false, error: "boom" })).toBe('{"k":"res","id":"2","ok":false,"error":"boom"}');
    expect(encodeFrame({ payload: { x: 1 }, type: "t", id: "9", k: "req" })).toBe('{"k":"req","id":"9","type":"t","payload":{"x":1}}');
    expect(encodeFrame({ k: "ntf", type: "tabs_changed", payload: { tabs: [] } })).toBe('{"k":"ntf","type":"tabs_changed","payload":{"tabs":[]}}');
    expect(encodeFrame({ k: "png" })).toBe('{"k":"png"}');
  });

  it("follows the one encoding rule: no HTML escaping, U+2028/U+2029 escaped", () => {
    const s = encodeFrame({ k: "ntf", type: "t", payload: { h: "<a href='x'>&</a>\u2028\u2029😀" } });
    expect(s).toBe('{"k":"ntf","type":"t","payload":{"h":"<a href=\'x\'>&</a>\\u2028\\u2029😀"}}');
    expect(JSON.parse(s).payload.h).toBe("<a href='x'>&</a>\u2028\u2029😀");
    const e = encodeFrame({ k: "res", id: "1", ok: false, error: "a\u2029<b>" });
    expect(e).toBe('{"k":"res","id":"1","ok":false,"error":"a\\u2029<b>"}');
  });
});
