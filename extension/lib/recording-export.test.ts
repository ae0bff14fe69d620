import { describe, expect, it } from "vitest";
import ts from "typescript";
import type { Recording } from "./protocol.gen";
import { lit, toPlaywrightTest } from "./recording-export";

const signup: Recording = {
  name: "Sign up",
  description: "Creates an account",
  site: "https://shop.test",
  created: "2026-12-04T22:00:00Z",
  params: [
    { name: "email", example: "ada@example.com" },
    { name: "password", secret: true },
  ],
  steps: [
    { action: "navigate", value: "https://shop.test/signup" },
    { action: "type", target: { role: "textbox", name: "Email" }, param: "email", value: "ada@example.com" },
    { action: "type", target: { role: "textbox", name: "Password" }, param: "password", secret: true },
    { action: "select", target: { role: "combobox", name: "Plan" }, value: "Pro" },
    { action: "check", target: { role: "checkbox", name: "I agree" } },
    { action: "click", target: { role: "button", name: "Save", nth: 1 } },
    { action: "wait_for", value: "Welcome, {{email}}!" },
  ],
};

/** Syntax errors of a TypeScript source (no type checking: @playwright/test is not installed here). */
function syntaxErrors(src: string): string[] {
  const out = ts.transpileModule(src, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext } });
  return (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/** The string literals of a TypeScript source, as their values. */
function literals(src: string): string[] {
  const file = ts.createSourceFile("t.ts", src, ts.ScriptTarget.ES2022);
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) out.push(n.text);
    ts.forEachChild(n, visit);
  };
  visit(file);
  return out;
}

describe("toPlaywrightTest", () => {
  it("writes role locators, parameters at the top and secrets from the environment", () => {
    const src = toPlaywrightTest(signup);
    expect(syntaxErrors(src)).toEqual([]);
    expect(src).toContain(`import { test, expect } from "@playwright/test";`);
    expect(src).toContain(`const email = "ada@example.com";`);
    expect(src).toContain(`const password = secret("PASSWORD");`);
    expect(src).toContain(`await page.goto("https://shop.test/signup");`);
    expect(src).toContain(`await page.getByRole("textbox", { name: "Email", exact: true }).fill(email);`);
    expect(src).toContain(`await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);`);
    expect(src).toContain(`await page.getByRole("combobox", { name: "Plan", exact: true }).selectOption("Pro");`);
    expect(src).toContain(`await page.getByRole("checkbox", { name: "I agree", exact: true }).check();`);
    expect(src).toContain(`await page.getByRole("button", { name: "Save", exact: true }).nth(1).click();`);
    expect(src).toContain(`await expect(page.getByText("Welcome, " + email + "!").first()).toBeVisible();`);
    // the parameter is declared before the test, the secret inside it (listing tests needs no environment)
    expect(src.indexOf("const email")).toBeLessThan(src.indexOf("test(\"Sign up\""));
    expect(src.indexOf("const password")).toBeGreaterThan(src.indexOf("test(\"Sign up\""));
  });

  it("never writes a secret's value, even when a step still carries one", () => {
    const leaky: Recording = {
      ...signup,
      params: [{ name: "pin", secret: true, example: "4242" }],
      steps: [{ action: "type", target: { role: "textbox", name: "PIN" }, param: "pin", secret: true, value: "4242" }],
    };
    const src = toPlaywrightTest(leaky);
    expect(src).not.toContain("4242");
    expect(src).toContain(`const pin = secret("PIN");`);
    expect(syntaxErrors(src)).toEqual([]);
  });

  it("names a secret without a parameter after its field", () => {
    const src = toPlaywrightTest({
      ...signup,
      params: [],
      steps: [{ action: "type", target: { role: "textbox", name: "Card number" }, secret: true }],
    });
    expect(src).toContain(`const cardNumber = secret("CARD_NUMBER");`);
    expect(src).toContain(`await page.goto("https://shop.test");`);
  });

  it("keeps hostile names and values inside their string literals", () => {
    const evil = `"); require("child_process").exec("rm -rf /"); //\n*/ \` \${process.exit(1)} \u2028 </script>`;
    const rec: Recording = {
      name: evil,
      description: evil,
      site: "https://x.test",
      created: "",
      params: [{ name: evil, example: evil }],
      steps: [
        { action: "navigate", value: "https://x.test/" },
        { action: "type", target: { role: "textbox", name: evil, frame: `https://x.test/${encodeURIComponent(evil)}` }, param: evil },
        { action: "click", target: { role: evil, name: evil } },
        { action: "press", value: `${evil}{{${evil}}}` },
      ],
    };
    const src = toPlaywrightTest(rec);
    expect(syntaxErrors(src)).toEqual([]);
    const file = ts.createSourceFile("t.ts", src, ts.ScriptTarget.ES2022);
    // one import, variables and one test call; every call is one the export writes
    const kinds = file.statements.map((st) =>
      ts.isImportDeclaration(st) ? "import" : ts.isVariableStatement(st) ? "var" : ts.isExpressionStatement(st) ? "expr" : "other",
    );
    expect(kinds).toEqual(["import", "var", "expr"]);
    const calls = new Set<string>();
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n)) {
        const callee = n.expression;
        calls.add(ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText(file));
      }
      ts.forEachChild(n, visit);
    };
    visit(file);
    expect([...calls].sort()).toEqual(["click", "fill", "frameLocator", "getByRole", "getByText", "goto", "press", "test"]);
    expect(literals(src)).toContain(evil);
  });

  it("turns {{name}} into the parameter and quotes the rest", () => {
    const src = toPlaywrightTest({
      name: "search",
      site: "",
      created: "",
      params: [{ name: "query", example: "socks" }],
      steps: [{ action: "navigate", value: "https://x.test/search?q={{query}}&x=\"1\"" }],
    });
    expect(src).toContain(`await page.goto("https://x.test/search?q=" + query + "&x=\\"1\\"");`);
  });

  it("uses frames, labels for unnamed roles, keys and drags", () => {
    const src = toPlaywrightTest({
      name: "misc",
      site: "",
      created: "",
      steps: [
        { action: "type", target: { name: "Card", frame: "https://pay.test/card-frame.html" }, value: "4111" },
        { action: "press", value: "Enter" },
        { action: "press", target: { role: "textbox", name: "Search" }, value: "Control+A" },
        { action: "drag", target: { role: "listitem", name: "A" }, to: { role: "list", name: "Done" } },
        { action: "scroll", direction: "up", amount: 300 },
        { action: "click", target: { ref: "e12" } },
      ],
    });
    expect(syntaxErrors(src)).toEqual([]);
    expect(src).toContain(`await page.frameLocator("iframe[src*=\\"card-frame.html\\"]").getByLabel("Card", { exact: true }).fill("4111");`);
    expect(src).toContain(`await page.keyboard.press("Enter");`);
    expect(src).toContain(`.getByRole("textbox", { name: "Search", exact: true }).press("Control+A");`);
    expect(src).toContain(`.dragTo(page.getByRole("list", { name: "Done", exact: true }));`);
    expect(src).toContain(`await page.mouse.wheel(0, -300);`);
    expect(src).toContain(`throw new Error("step 6 (click) cannot be exported`);
    expect(src).toContain(`import { test } from "@playwright/test";`);
  });

  it("makes parameter names valid, distinct identifiers", () => {
    const src = toPlaywrightTest({
      name: "ids",
      site: "",
      created: "",
      params: [{ name: "first name" }, { name: "first-name" }, { name: "2fa" }, { name: "class" }],
      steps: [{ action: "navigate", value: "https://x.test/" }],
    });
    expect(syntaxErrors(src)).toEqual([]);
    expect(src).toContain("const firstName = ");
    expect(src).toContain("const firstName2 = ");
    expect(src).toContain("const param2fa = ");
    expect(src).toContain("const classValue = ");
  });

  it("lit escapes line separators", () => {
    expect(lit("a\u2028b")).toBe(`"a\\u2028b"`);
  });
});
