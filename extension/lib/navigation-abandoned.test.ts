import { describe, expect, it } from "vitest";
import { abandonedNavigationError } from "./navigation";

describe("abandonedNavigationError", () => {
  it("tells the AI to open a data: URL in a new tab", () => {
    const m = abandonedNavigationError("data:text/html,<h1>x</h1>", "https://a.example/");
    expect(m).toContain("blocks data: URLs");
    expect(m).toContain("browser_new_tab");
    expect(m).toContain("stays on https://a.example/");
  });
  it("explains other abandoned navigations", () => {
    const m = abandonedNavigationError("https://a.example/report.zip");
    expect(m).toContain("abandoned without loading a new page");
    expect(m).toContain("download");
  });
  it("clips long URLs", () => {
    expect(abandonedNavigationError("data:text/plain," + "x".repeat(5000)).length).toBeLessThan(600);
  });
});
