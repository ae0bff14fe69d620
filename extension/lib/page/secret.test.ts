import { describe, expect, it } from "vitest";
import { getText } from "./text";
import { RefRegistry } from "./refs";
import { isSecretField } from "./secret";
import { buildSnapshot } from "./snapshot";

describe("secret fields", () => {
  it("masks password and one-time-code values in snapshots and get_text", () => {
    document.body.innerHTML = `
      <label>Password <input id="pw" type="password"></label>
      <label>Code <input id="otp" autocomplete="one-time-code"></label>
      <label>Name <input id="name"></label>`;
    (document.getElementById("pw") as HTMLInputElement).value = "hunter2";
    (document.getElementById("otp") as HTMLInputElement).value = "493021";
    (document.getElementById("name") as HTMLInputElement).value = "Ada";
    const refs = new RefRegistry();
    const snap = buildSnapshot(document, refs);
    expect(snap).not.toContain("hunter2");
    expect(snap).not.toContain("493021");
    expect(snap).toContain("•••••••");
    expect(snap).toContain("••••••");
    expect(snap).toContain("Ada");
    const line = (name: string) => snap.split("\n").find((l) => l.includes(`"${name}"`)) ?? "";
    const refOf = (name: string) => /\[ref=(e\d+)\]/.exec(line(name))?.[1] ?? "";
    expect(getText(refs, document, { ref: refOf("Code") }).text).toBe("••••••");
    expect(getText(refs, document, { ref: refOf("Password") }).text).toBe("•••••••");
    expect(getText(refs, document, { ref: refOf("Name") }).text).toBe("Ada");
    expect(isSecretField(document.getElementById("name")!)).toBe(false);
  });
});
