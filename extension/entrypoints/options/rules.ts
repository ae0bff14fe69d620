// The options page's Site rules section (issue 44): the person's rules by
// site (add, change, remove), the organisation's rules and policy shown as
// "set by your organisation" (not editable here), and the activity log's
// Export switched off when the policy says so. Reads and writes storage
// only; the service worker applies a change at once, to calls waiting too.

import { CAPABILITIES, CAPABILITY_WORDS, forbids, normalizePolicy } from "../../lib/policy";
import type { SitePolicy } from "../../lib/protocol.gen";
import { KEY_SITE_RULES, RULE_WORDS, normalizeRules, withRule, type AskScope, type PersonRule, type SiteRule } from "../../lib/siterules";

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;
const body = $<HTMLTableSectionElement>("#rules-table tbody");
const form = $<HTMLFormElement>("#rule-form");
const patternIn = $<HTMLInputElement>("#rule-pattern");
const ruleIn = $<HTMLSelectElement>("#rule-kind");
const message = $<HTMLParagraphElement>("#rule-message");
const managedBox = $<HTMLElement>("#rules-managed");

const OPTIONS: [string, string][] = [
  ["ask-each", "ask me before each action"],
  ["ask-risky", "ask me before submitting, buying or deleting"],
  ["read_only", "read only"],
  ["never", "never"],
  ["act", "act"],
];

function valueOf(r: PersonRule): string {
  return r.rule === "ask" ? `ask-${r.scope ?? "each"}` : r.rule;
}

function parse(v: string): { rule: SiteRule; scope: AskScope } {
  return { rule: (v.startsWith("ask-") ? "ask" : v) as SiteRule, scope: v === "ask-risky" ? "risky" : "each" };
}

async function save(fn: (rules: PersonRule[]) => PersonRule[]): Promise<void> {
  const got = await chrome.storage.local.get(KEY_SITE_RULES);
  await chrome.storage.local.set({ [KEY_SITE_RULES]: fn(normalizeRules(got[KEY_SITE_RULES])) });
}

function say(text: string, error = false): void {
  message.textContent = text;
  message.className = error ? "error" : "ok";
}

function select(value: string, label: string): HTMLSelectElement {
  const s = document.createElement("select");
  s.setAttribute("aria-label", label);
  for (const [v, words] of OPTIONS) {
    const o = document.createElement("option");
    o.value = v;
    o.textContent = words;
    s.append(o);
  }
  s.value = value;
  return s;
}

function managedRows(policy: SitePolicy | undefined): HTMLTableRowElement[] {
  const rows: HTMLTableRowElement[] = [];
  const lists: [SiteRule, string[] | undefined][] = [
    ["never", policy?.blockedSites],
    ["read_only", policy?.readOnlySites],
    ["ask", policy?.askSites],
  ];
  for (const [rule, list] of lists) {
    for (const p of list ?? []) {
      const tr = document.createElement("tr");
      tr.dataset.managed = "true";
      tr.dataset.pattern = p;
      const a = document.createElement("td");
      a.textContent = p;
      const b = document.createElement("td");
      b.textContent = rule === "ask" ? "ask me before each action" : RULE_WORDS[rule];
      const c = document.createElement("td");
      c.textContent = "set by your organisation";
      tr.append(a, b, c);
      rows.push(tr);
    }
  }
  return rows;
}

async function render(): Promise<void> {
  const [local, managed] = await Promise.all([chrome.storage.local.get(KEY_SITE_RULES), chrome.storage.managed.get(null).catch(() => ({}))]); // no managed storage: no policy
  const rules = normalizeRules(local[KEY_SITE_RULES]);
  const policy = normalizePolicy(managed);
  const mine = rules.map((r) => {
    const tr = document.createElement("tr");
    tr.dataset.pattern = r.pattern;
    const a = document.createElement("td");
    a.textContent = r.pattern;
    const b = document.createElement("td");
    const s = select(valueOf(r), `Rule for ${r.pattern}`);
    s.addEventListener("change", () => {
      const { rule, scope } = parse(s.value);
      save((all) => withRule(all, r.pattern, rule, scope)).then(() => say(`${r.pattern}: ${s.selectedOptions[0]?.textContent ?? ""}.`), (e: unknown) => say(String(e), true));
    });
    b.append(s);
    const c = document.createElement("td");
    const rm = document.createElement("button");
    rm.type = "button";
    rm.textContent = "Remove";
    rm.setAttribute("aria-label", `Remove the rule for ${r.pattern}`);
    rm.addEventListener("click", () => {
      save((all) => withRule(all, r.pattern, undefined)).then(() => say(`The rule for ${r.pattern} is removed: the AI may act there.`), (e: unknown) => say(String(e), true));
    });
    c.append(rm);
    tr.append(a, b, c);
    return tr;
  });
  body.replaceChildren(...managedRows(policy), ...mine);
  // The organisation's other settings, and the log's Export.
  const lines: string[] = [];
  const off = CAPABILITIES.filter((c) => forbids(policy, c)).map((c) => CAPABILITY_WORDS[c]);
  if (off.length) lines.push(`Not allowed: ${off.join("; ")}.`);
  if (policy?.allowedApps?.length) lines.push(`Only these AI apps may connect: ${policy.allowedApps.join(", ")}.`);
  if (policy?.noLogExport) lines.push("The activity log cannot be exported.");
  if (policy?.logRetentionDays) lines.push(`The activity log keeps ${policy.logRetentionDays} days.`);
  managedBox.hidden = lines.length === 0;
  managedBox.textContent = lines.length ? `Set by your organisation: ${lines.join(" ")}` : "";
  const exportButton = document.querySelector<HTMLButtonElement>("#activity-export");
  if (exportButton) {
    exportButton.disabled = policy?.noLogExport === true;
    exportButton.title = policy?.noLogExport ? "Set by your organisation: the activity log cannot be exported" : "";
  }
  for (const [id, cap] of [["#allow-evaluate", "evaluate"], ["#use-debugger", "debugger"]] as const) {
    const box = document.querySelector<HTMLInputElement>(id);
    if (!box) continue;
    box.disabled = forbids(policy, cap);
    if (box.disabled) box.checked = false;
    box.closest("label")?.setAttribute("data-managed", box.disabled ? "true" : "false");
  }
}

ruleIn.replaceChildren(...select("ask-each", "Rule").children);
form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const { rule, scope } = parse(ruleIn.value);
  const pattern = patternIn.value;
  save((all) => withRule(all, pattern, rule, scope)).then(
    () => {
      say(`Saved: ${pattern.trim()} — ${ruleIn.selectedOptions[0]?.textContent ?? ""}.`);
      patternIn.value = "";
    },
    (e: unknown) => say(e instanceof Error ? e.message : String(e), true),
  );
});

chrome.storage.onChanged.addListener((changes, area) => {
  if ((area === "local" && (changes[KEY_SITE_RULES] || changes["consent"])) || area === "managed") void render();
});
void render();
