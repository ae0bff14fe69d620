// A recording exported as a Playwright test (issue 42). The person's flow
// becomes code a developer can keep: role locators (getByRole, getByLabel) the
// way the recording names its targets, parameters as variables at the top and
// secrets read from environment variables. Everything that came from a page or
// from the person (names, values, addresses) enters the code only as a string
// literal made by JSON.stringify, or as a comment stripped of line breaks, so no
// text can break out of its place in the file. A secret's value is never here:
// recordings do not keep one.

import type { Recording, Step, StepTarget } from "./protocol.gen";

/** The ARIA roles Playwright's getByRole accepts. */
const PLAYWRIGHT_ROLES = new Set([
  "alert", "alertdialog", "application", "article", "banner", "blockquote", "button", "caption", "cell",
  "checkbox", "code", "columnheader", "combobox", "complementary", "contentinfo", "definition", "deletion",
  "dialog", "directory", "document", "emphasis", "feed", "figure", "form", "generic", "grid", "gridcell",
  "group", "heading", "img", "insertion", "link", "list", "listbox", "listitem", "log", "main", "marquee",
  "math", "meter", "menu", "menubar", "menuitem", "menuitemcheckbox", "menuitemradio", "navigation", "none",
  "note", "option", "paragraph", "presentation", "progressbar", "radio", "radiogroup", "region", "row",
  "rowgroup", "rowheader", "scrollbar", "search", "searchbox", "separator", "slider", "spinbutton", "status",
  "strong", "subscript", "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term", "textbox",
  "time", "timer", "toolbar", "tooltip", "tree", "treegrid", "treeitem",
]);

/** A TypeScript string literal for s: JSON's escaping is valid TypeScript and closes every way out. */
export function lit(s: string): string {
  return JSON.stringify(s).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** Text safe inside a // comment: one line, nothing that ends the comment. */
function comment(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").slice(0, 200);
}

const RESERVED = new Set([
  "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else",
  "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof",
  "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void",
  "while", "with", "let", "static", "yield", "await", "implements", "interface", "package", "private",
  "protected", "public", "test", "expect", "page", "process", "env", "undefined", "NaN", "Infinity",
]);

/** A camelCase identifier for a parameter name, unique among taken. */
function identifier(name: string, taken: Set<string>): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  let id = words
    .map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1)))
    .join("");
  if (id === "" || /^[0-9]/.test(id)) id = "param" + (id.charAt(0).toUpperCase() + id.slice(1));
  if (RESERVED.has(id)) id += "Value";
  let out = id;
  for (let i = 2; taken.has(out); i++) out = `${id}${i}`;
  taken.add(out);
  return out;
}

/** An environment variable name for a secret: upper snake case, unique among taken. */
function envName(name: string, taken: Set<string>): string {
  let id = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "")
    .join("_")
    .toUpperCase();
  if (id === "" || /^[0-9]/.test(id)) id = "SECRET_" + id;
  let out = id;
  for (let i = 2; taken.has(out); i++) out = `${id}_${i}`;
  taken.add(out);
  return out;
}

interface Vars {
  /** parameter name → TypeScript identifier */
  ids: Map<string, string>;
  lines: string[];
  /** secrets, declared in the test's body so listing the tests needs no environment */
  secretLines: string[];
  taken: Set<string>;
  envs: Set<string>;
}

function declare(vars: Vars, name: string, secret: boolean, example: string | undefined): string {
  const known = vars.ids.get(name);
  if (known) return known;
  const id = identifier(name, vars.taken);
  vars.ids.set(name, id);
  if (secret) {
    const env = envName(name, vars.envs);
    vars.secretLines.push(`  const ${id} = secret(${lit(env)}); // a secret: set ${env} in the environment`);
  } else {
    vars.lines.push(`const ${id} = ${lit(example ?? "")};`);
  }
  return id;
}

/** A TypeScript expression for a step's value: a parameter, or text where {{name}} stands for one. */
function valueExpr(step: Step, vars: Vars, index: number): string {
  if (step.secret) {
    const name = step.param ?? (step.target?.name ? step.target.name : `secret ${index + 1}`);
    return declare(vars, name, true, undefined);
  }
  if (step.param) return declare(vars, step.param, false, step.value);
  const value = step.value ?? "";
  const parts: string[] = [];
  let last = 0;
  for (const m of value.matchAll(/\{\{\s*([^{}]+?)\s*\}\}/g)) {
    if (m.index > last) parts.push(lit(value.slice(last, m.index)));
    const name = m[1] ?? "";
    parts.push(vars.ids.get(name) ?? declare(vars, name, false, undefined));
    last = m.index + m[0].length;
  }
  if (last < value.length || parts.length === 0) parts.push(lit(value.slice(last)));
  return parts.join(" + ");
}

/** A selector for the iframe whose document is at address (origin and path). */
function frameSelector(address: string): string {
  // origin and path: match the iframe on its last path segment (a src may
  // be relative), else on its host
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)([^?#]*)/i.exec(address);
  let key = address;
  if (m) {
    const segs = (m[2] ?? "").split("/").filter((s) => s !== "");
    key = segs[segs.length - 1] ?? m[1] ?? address;
  }
  return `iframe[src*=${JSON.stringify(key)}]`;
}

/** A Playwright locator expression for a target, or undefined when it has only a ref. */
function locator(t: StepTarget, formField: boolean): string | undefined {
  const scope = t.frame ? `page.frameLocator(${lit(frameSelector(t.frame))})` : "page";
  let loc: string;
  if (t.role && PLAYWRIGHT_ROLES.has(t.role)) {
    loc = t.name
      ? `${scope}.getByRole(${lit(t.role)}, { name: ${lit(t.name)}, exact: true })`
      : `${scope}.getByRole(${lit(t.role)})`;
  } else if (t.name) {
    loc = formField ? `${scope}.getByLabel(${lit(t.name)}, { exact: true })` : `${scope}.getByText(${lit(t.name)}, { exact: true })`;
  } else {
    return undefined;
  }
  if (t.nth !== undefined && t.nth > 0) loc += `.nth(${t.nth})`;
  return loc;
}

function describeTarget(t: StepTarget | undefined): string {
  if (!t) return "";
  const bits = [t.role, t.name !== undefined ? `"${t.name}"` : undefined].filter((b) => b !== undefined);
  if (t.nth) bits.push(`#${t.nth + 1}`);
  if (t.near) bits.push(`near "${t.near}"`);
  if (t.frame) bits.push(`in frame ${t.frame}`);
  return bits.join(" ");
}

const FORM_ACTIONS = new Set(["type", "select", "check", "uncheck"]);

function stepCode(step: Step, i: number, vars: Vars): string[] {
  const head = `  // ${i + 1}. ${comment(`${step.action} ${describeTarget(step.target)}`.trim())}`;
  const lines = [head];
  const needs = (t: StepTarget | undefined, formField: boolean): string | undefined => {
    if (!t) return undefined;
    return locator(t, formField);
  };
  const unexportable = (why: string) => [
    head,
    `  throw new Error(${lit(`step ${i + 1} (${step.action}) cannot be exported: ${why}`)});`,
  ];
  const target = needs(step.target, FORM_ACTIONS.has(step.action));
  const targeted = ["click", "type", "select", "check", "uncheck", "drag"];
  if (targeted.includes(step.action) && target === undefined) {
    return unexportable("its target has no role or name (only a snapshot ref)");
  }
  switch (step.action) {
    case "click":
      lines.push(`  await ${target}.click();`);
      break;
    case "type":
      lines.push(`  await ${target}.fill(${valueExpr(step, vars, i)});`);
      break;
    case "select":
      lines.push(`  await ${target}.selectOption(${valueExpr(step, vars, i)});`);
      break;
    case "check":
      lines.push(`  await ${target}.check();`);
      break;
    case "uncheck":
      lines.push(`  await ${target}.uncheck();`);
      break;
    case "press": {
      const key = valueExpr(step, vars, i);
      lines.push(target ? `  await ${target}.press(${key});` : `  await page.keyboard.press(${key});`);
      break;
    }
    case "navigate":
      lines.push(`  await page.goto(${valueExpr(step, vars, i)});`);
      break;
    case "scroll": {
      if (target) {
        lines.push(`  await ${target}.scrollIntoViewIfNeeded();`);
        break;
      }
      const amount = step.amount ?? 500;
      const [dx, dy] =
        step.direction === "up" ? [0, -amount] : step.direction === "left" ? [-amount, 0] : step.direction === "right" ? [amount, 0] : [0, amount];
      lines.push(`  await page.mouse.wheel(${dx}, ${dy});`);
      break;
    }
    case "drag": {
      const to = needs(step.to, false);
      if (to === undefined) return unexportable("its drop target has no role or name");
      lines.push(`  await ${target}.dragTo(${to});`);
      break;
    }
    case "wait_for":
      lines.push(
        target
          ? `  await expect(${target}).toBeVisible();`
          : `  await expect(page.getByText(${valueExpr(step, vars, i)}).first()).toBeVisible();`,
      );
      break;
    default:
      return unexportable("unknown action");
  }
  return lines;
}

/**
 * A Playwright test in TypeScript that repeats rec: parameters become
 * variables at the top (their recorded examples), secrets are read from
 * environment variables and the test fails when one is not set.
 */
export function toPlaywrightTest(rec: Recording): string {
  const vars: Vars = { ids: new Map(), lines: [], secretLines: [], taken: new Set(), envs: new Set() };
  for (const p of rec.params ?? []) declare(vars, p.name, p.secret === true, p.example);
  const body: string[] = [];
  const first = rec.steps[0];
  if (rec.site && first?.action !== "navigate") {
    body.push("  // the recording started on this site", `  await page.goto(${lit(rec.site)});`);
  }
  rec.steps.forEach((s, i) => body.push(...stepCode(s, i, vars)));

  const out = [
    `// Recorded with monkbrowse: ${comment(rec.name)}`,
    ...(rec.description ? [`// ${comment(rec.description)}`] : []),
    ...(rec.site ? [`// Site: ${comment(rec.site)}`] : []),
    `import { test, expect } from "@playwright/test";`,
    "",
  ];
  if (vars.envs.size > 0) {
    out.push(
      "function secret(name: string): string {",
      "  const value = process.env[name];",
      "  if (value === undefined || value === \"\") throw new Error(`Set the environment variable ${name}: this test enters it as a secret.`);",
      "  return value;",
      "}",
      "",
    );
  }
  if (vars.lines.length > 0) out.push(...vars.lines, "");
  out.push(`test(${lit(rec.name)}, async ({ page }) => {`, ...vars.secretLines, ...body, "});", "");
  // expect is imported for wait_for steps; keep the import used either way.
  if (!out.some((l) => l.includes("expect("))) out[out.findIndex((l) => l.startsWith("import "))] = `import { test } from "@playwright/test";`;
  return out.join("\n");
}
