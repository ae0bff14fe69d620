import { describe, expect, it } from "vitest";
import { appAllowed, capabilityOf, forbids, normalizePolicy, retentionCutoff, withPolicy } from "./policy";
import { DEFAULT_CONSENT } from "./storage";

describe("the organisation's policy", () => {
  it("reads managed storage leniently", () => {
    expect(normalizePolicy({})).toBeUndefined();
    expect(normalizePolicy(null)).toBeUndefined();
    expect(normalizePolicy({ blockedSites: "x.com" })).toBeUndefined();
    expect(
      normalizePolicy({
        blockedSites: ["https://Bank.test/", "bad host!", 3],
        readOnlySites: [],
        askSites: ["*.shop.test"],
        capabilities: { evaluate: false, debugger: true, uploads: false, bogus: false },
        allowedApps: [" Claude Code ", "", 5],
        logExport: false,
        logRetentionDays: 7,
        unknown: 1,
      }),
    ).toEqual({
      blockedSites: ["bank.test"],
      askSites: ["*.shop.test"],
      forbidden: ["evaluate", "uploads"],
      allowedApps: ["Claude Code"],
      noLogExport: true,
      logRetentionDays: 7,
    });
    expect(normalizePolicy({ logRetentionDays: 0 })).toBeUndefined();
    expect(normalizePolicy({ logRetentionDays: 1.5 })).toBeUndefined();
  });

  it("forces the person's switches off where it forbids them, never on", () => {
    const on = { ...DEFAULT_CONSENT, evaluate: true, debugger: true };
    expect(withPolicy(on, { forbidden: ["debugger"] })).toMatchObject({ evaluate: true, debugger: false });
    expect(withPolicy(on, { forbidden: ["evaluate"] })).toMatchObject({ evaluate: false, debugger: true });
    expect(withPolicy(DEFAULT_CONSENT, {})).toMatchObject({ evaluate: false, debugger: false });
    expect(withPolicy(on, undefined)).toBe(on);
  });

  it("names the AI apps allowed, without case; no list allows every app", () => {
    expect(appAllowed(undefined, "Cursor")).toBe(true);
    expect(appAllowed({ allowedApps: ["Claude Code"] }, "claude code")).toBe(true);
    expect(appAllowed({ allowedApps: ["Claude Code"] }, "Cursor")).toBe(false);
    expect(appAllowed({ allowedApps: ["Claude Code"] }, "")).toBe(false);
  });

  it("maps requests to the capability they need", () => {
    expect(capabilityOf("browser_evaluate", {})).toBe("evaluate");
    expect(capabilityOf("browser_network_requests", {})).toBeUndefined();
    expect(capabilityOf("browser_network_requests", { includeBodies: true })).toBe("responseBodies");
    expect(capabilityOf("browser_click_xy", {})).toBe("coordinates");
    expect(capabilityOf("browser_upload_file", {})).toBe("uploads");
    expect(capabilityOf("browser_downloads", {})).toBe("downloads");
    expect(capabilityOf("browser_pdf", {})).toBe("debugger");
    expect(capabilityOf("browser_click", {})).toBeUndefined();
    expect(capabilityOf("browser_site_tools", {})).toBe("siteTools");
    expect(capabilityOf("browser_site_tool_call", {})).toBe("siteTools");
    expect(forbids({ forbidden: ["coordinates"] }, "coordinates")).toBe(true);
  });

  it("keeps the log for the days it says", () => {
    expect(retentionCutoff(undefined, 1e12)).toBeUndefined();
    expect(retentionCutoff({ logRetentionDays: 2 }, 1e12)).toBe(1e12 - 2 * 86_400_000);
  });
});
