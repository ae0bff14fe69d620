import { describe, expect, it } from "vitest";
import { AttachError, attachReason, CANVAS_FALLBACK_NOTE, fallbackNote } from "./debugger-fallback";

describe("why the debugger could not attach", () => {
  it("tells a policy, another debugger and a protected page apart", () => {
    expect(attachReason("Cannot attach to this target: blocked by enterprise policy")).toBe("policy");
    expect(attachReason("This page cannot be scripted due to an ExtensionsSettings policy.")).toBe("policy");
    expect(attachReason("Another debugger is already attached to the tab with id: 5.")).toBe("another");
    expect(attachReason("Cannot access a chrome:// URL")).toBe("protected");
    expect(attachReason("Something new")).toBe("other");
  });

  it("names the reason and what the person can do, on one line, and the fallback says synthetic input did it", () => {
    const e = new AttachError(7, "Another debugger is already attached\n    at foo (bar.js:1:2)");
    expect(e.message).toMatch(/^Chrome's debugger cannot be used in tab 7: another debugger .* close DevTools/);
    expect(e.message).not.toMatch(/\n/);
    expect(fallbackNote(e)).toMatch(/^Done with synthetic input instead of real input: another debugger/);
    expect(fallbackNote(new AttachError(1, "blocked by policy"))).toMatch(/organisation's policy/);
  });

  it("says a canvas's fallback content was clicked with synthetic input, and why", () => {
    expect(CANVAS_FALLBACK_NOTE).toMatch(/^Done with synthetic input instead of real input: .*fallback content inside a <canvas>/);
    expect(CANVAS_FALLBACK_NOTE).not.toMatch(/\n/);
  });
});
