// docs/CONTRACTS.md's table of content-script ops ("Service worker ↔
// content script") is checked against the one table that types both ends,
// CsOps in lib/messages.ts: every op has a row, and every row names an op.
// (The Go declarations of CONTRACTS are checked by server/internal/layering.)

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The member names of interface CsOps in source. */
export function csOpsIn(source: string): string[] {
  const file = ts.createSourceFile("messages.ts", source, ts.ScriptTarget.Latest, true);
  for (const st of file.statements) {
    if (ts.isInterfaceDeclaration(st) && st.name.text === "CsOps") {
      return st.members.flatMap((m) => (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? [m.name.text] : []));
    }
  }
  return [];
}

/** The ops named in the first column of the op table under the section heading. */
export function opsInContracts(doc: string): string[] {
  const start = doc.indexOf("### Service worker ↔ content script");
  if (start < 0) return [];
  const rest = doc.slice(start);
  const end = rest.indexOf("\n### ", 1);
  const section = end < 0 ? rest : rest.slice(0, end);
  const ops: string[] = [];
  for (const line of section.split("\n")) {
    const m = /^\| ([^|]+) \|/.exec(line);
    if (!m || m[1]!.trim() === "op" || /^-+$/.test(m[1]!.trim())) continue;
    for (const name of m[1]!.matchAll(/`([a-z_]+)`/g)) ops.push(name[1]!);
  }
  return ops;
}

describe("CONTRACTS.md's content-script ops", () => {
  const doc = readFileSync(join(root, "..", "docs", "CONTRACTS.md"), "utf8");
  const ops = csOpsIn(readFileSync(join(root, "lib", "messages.ts"), "utf8"));

  it("are the ops of CsOps, each with its row", () => {
    expect(ops.length).toBeGreaterThan(20);
    const rows = opsInContracts(doc);
    expect(rows.filter((o) => !ops.includes(o)), "rows of CONTRACTS naming no op of CsOps").toEqual([]);
    expect(ops.filter((o) => !rows.includes(o)), "ops of CsOps without a row in CONTRACTS").toEqual([]);
    expect(new Set(rows).size, "an op with two rows").toBe(rows.length);
  });

  it("the check sees a missing row and a row of no op", () => {
    const table = "### Service worker ↔ content script\n| op | args | result |\n|---|---|---|\n| `click` | `{ref}` | `{}` |\n| `gone` | x | y |\n";
    expect(opsInContracts(table)).toEqual(["click", "gone"]);
    expect(csOpsIn("export interface CsOps { click: { args: {}; result: {} }; hover: { args: {}; result: {} } }")).toEqual(["click", "hover"]);
  });
});
