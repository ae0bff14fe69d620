import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MANIFEST_KEY } from "../wxt.config";

describe("manifest key", () => {
  it("EXTENSION_ID is the id Chrome derives from the key", () => {
    const der = Buffer.from(MANIFEST_KEY, "base64");
    const hex = createHash("sha256").update(der).digest("hex").slice(0, 32);
    const id = [...hex].map((c) => String.fromCharCode("a".charCodeAt(0) + parseInt(c, 16))).join("");
    const file = readFileSync(join(__dirname, "..", "EXTENSION_ID"), "utf8").trim();
    expect(file).toBe(id);
    expect(id).toMatch(/^[a-p]{32}$/);
  });
});
