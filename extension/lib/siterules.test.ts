import { describe, expect, it } from "vitest";
import { hostOf, isAction, isRisky, matchPattern, normalizePattern, normalizeRules, ruleFor, withRule, type PersonRule } from "./siterules";

describe("patterns", () => {
  it("normalises hosts, wildcards and pasted URLs", () => {
    expect(normalizePattern("Example.COM")).toBe("example.com");
    expect(normalizePattern("https://shop.example.com/cart?x=1")).toBe("shop.example.com");
    expect(normalizePattern("*.Example.com")).toBe("*.example.com");
    expect(normalizePattern("127.0.0.1:8080")).toBe("127.0.0.1:8080");
    expect(normalizePattern("example.com.")).toBe("example.com");
    expect(normalizePattern("")).toBeUndefined();
    expect(normalizePattern("exa mple.com")).toBeUndefined();
    expect(normalizePattern("*.example.com:80")).toBeUndefined();
    expect(normalizePattern("*.")).toBeUndefined();
  });

  it("matches a host on any port, host:port on that port, *.host the host and below it only", () => {
    const h = (u: string) => hostOf(u)!;
    expect(matchPattern("example.com", h("https://example.com/x"))).toBeDefined();
    expect(matchPattern("example.com", h("http://example.com:8080/"))).toBeDefined();
    expect(matchPattern("example.com", h("https://www.example.com/"))).toBeUndefined();
    expect(matchPattern("example.com", h("https://notexample.com/"))).toBeUndefined();
    expect(matchPattern("*.example.com", h("https://a.b.example.com/"))).toBeDefined();
    expect(matchPattern("*.example.com", h("https://example.com/"))).toBeDefined();
    expect(matchPattern("*.example.com", h("https://badexample.com/"))).toBeUndefined();
    expect(matchPattern("*.example.com", h("https://example.com.evil.net/"))).toBeUndefined();
    expect(matchPattern("127.0.0.1:8080", h("http://127.0.0.1:8080/"))).toBeDefined();
    expect(matchPattern("127.0.0.1:8080", h("http://127.0.0.1:8081/"))).toBeUndefined();
  });

  it("gives no host to pages without one", () => {
    expect(hostOf("about:blank")).toBeUndefined();
    expect(hostOf("data:text/html,x")).toBeUndefined();
    expect(hostOf("chrome://settings")).toBeUndefined();
    expect(hostOf("not a url")).toBeUndefined();
  });
});

describe("the rule in force", () => {
  const mine: PersonRule[] = [
    { pattern: "*.example.com", rule: "read_only" },
    { pattern: "shop.example.com", rule: "ask", scope: "risky" },
    { pattern: "bank.test", rule: "never" },
  ];

  it("is the person's most specific pattern, else act", () => {
    expect(ruleFor("https://news.example.com/", mine)).toMatchObject({ rule: "read_only", source: "person", pattern: "*.example.com" });
    expect(ruleFor("https://shop.example.com/", mine)).toMatchObject({ rule: "ask", scope: "risky", source: "person", pattern: "shop.example.com" });
    expect(ruleFor("https://bank.test/login", mine)).toMatchObject({ rule: "never" });
    expect(ruleFor("https://other.org/", mine)).toMatchObject({ rule: "act", source: "default" });
    expect(ruleFor("about:blank", mine)).toMatchObject({ rule: "act", source: "default" });
  });

  it("is the organisation's where its policy lists the site, even over a looser person's rule", () => {
    const person: PersonRule[] = [{ pattern: "shop.example.com", rule: "act" }];
    const policy = { askSites: ["*.example.com"], readOnlySites: ["docs.example.com"], blockedSites: ["hr.example.com"] };
    expect(ruleFor("https://shop.example.com/", person, policy)).toMatchObject({ rule: "ask", scope: "each", source: "policy", pattern: "*.example.com" });
    expect(ruleFor("https://docs.example.com/", person, policy)).toMatchObject({ rule: "read_only", source: "policy" });
    expect(ruleFor("https://hr.example.com/", [{ pattern: "hr.example.com", rule: "act" }], policy)).toMatchObject({ rule: "never", source: "policy" });
    // A risky-only scope of the person's does not loosen the organisation's ask.
    expect(ruleFor("https://shop.example.com/", [{ pattern: "shop.example.com", rule: "ask", scope: "risky" }], policy)).toMatchObject({ scope: "each", source: "policy" });
  });

  it("lets the person be stricter than the policy", () => {
    const policy = { askSites: ["*.example.com"] };
    expect(ruleFor("https://shop.example.com/", [{ pattern: "shop.example.com", rule: "never" }], policy)).toMatchObject({ rule: "never", source: "person" });
  });

  it("reads stored rules leniently and edits them by pattern", () => {
    const got = normalizeRules([{ pattern: "A.com", rule: "ask" }, { pattern: "a.com", rule: "never" }, { pattern: "b.com", rule: "maybe" }, "x", null, { pattern: "c.com", rule: "ask", scope: "risky" }]);
    expect(got).toEqual([
      { pattern: "a.com", rule: "ask", scope: "each" },
      { pattern: "c.com", rule: "ask", scope: "risky" },
    ]);
    expect(normalizeRules("nope")).toEqual([]);
    const next = withRule(got, "https://a.com/x", "read_only");
    expect(next).toEqual([{ pattern: "c.com", rule: "ask", scope: "risky" }, { pattern: "a.com", rule: "read_only" }]);
    expect(withRule(next, "a.com", undefined)).toEqual([{ pattern: "c.com", rule: "ask", scope: "risky" }]);
    expect(() => withRule(next, "not a site", "act")).toThrow(/not a site/);
  });
});

describe("which requests a rule touches", () => {
  it("lets reads, navigation, scrolling and the hand-off through; everything else acts", () => {
    for (const t of ["browser_snapshot", "browser_get_text", "browser_screenshot", "browser_navigate", "browser_scroll", "browser_ask_user", "ask_wait", "list_tabs", "browser_site_tools"]) expect(isAction(t), t).toBe(false);
    for (const t of ["browser_click", "browser_type", "browser_fill_form", "browser_press_key", "browser_evaluate", "browser_upload_file", "browser_click_xy", "browser_handle_dialog", "browser_close_tab", "browser_site_tool_call"]) expect(isAction(t), t).toBe(true);
  });

  it("counts submissions, purchases and deletions by the page's names, and unknown targets as risky", () => {
    expect(isRisky("browser_click", { ref: "e1" }, [{ role: "button", name: "Place order" }])).toBe(true);
    expect(isRisky("browser_click", { ref: "e1" }, [{ role: "button", name: "Delete account" }])).toBe(true);
    expect(isRisky("browser_click", { ref: "e1" }, [{ role: "link", name: "Next page" }])).toBe(false);
    expect(isRisky("browser_click", { ref: "e1" }, [null])).toBe(true);
    expect(isRisky("browser_type", { ref: "e1", text: "x" }, [{ role: "textbox", name: "q" }])).toBe(false);
    expect(isRisky("browser_type", { ref: "e1", text: "x", submit: true }, [{ role: "textbox", name: "q" }])).toBe(true);
    expect(isRisky("browser_press_key", { key: "Enter" }, [])).toBe(true);
    expect(isRisky("browser_press_key", { key: "ArrowDown" }, [])).toBe(false);
    expect(isRisky("browser_evaluate", {}, [])).toBe(true);
  });
});
