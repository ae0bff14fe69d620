// Site rules in the popup (issue 44): the rule in force on each shared tab,
// a control for the current tab's site, the actions waiting under "ask
// before acting" with Allow, Allow for 10 minutes and Deny (answered only
// here, like the hand-off: no page can script, frame or click the popup),
// and what the organisation's policy sets, shown "set by your organisation".

import { KEY_APPROVALS, approvalQuestion, normalizeApprovals, type ApprovalAnswer } from "../../lib/approvals";
import { toBg } from "../../lib/messages";
import { normalizePolicy, forbids, CAPABILITY_WORDS, CAPABILITIES } from "../../lib/policy";
import type { SitePolicy } from "../../lib/protocol.gen";
import { KEY_SITE_RULES, RULE_WORDS, hostOf, normalizeRules, ruleFor, withRule, type PersonRule, type RuleInForce, type SiteRule } from "../../lib/siterules";
import { KEY_SHARES, normalizeShares } from "../../lib/storage";

import { answerRow } from "./answers";

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;

let rules: PersonRule[] = [];
let policy: SitePolicy | undefined;

/** Whether the organisation's policy forbids a switch of the person's (shown off). */
export function managedOff(cap: "evaluate" | "debugger"): boolean {
  return forbids(policy, cap);
}

/** The words for a rule in force, with who set it. */
export function ruleLabel(r: RuleInForce): string {
  const words = r.rule === "ask" && r.scope === "risky" ? "ask before submitting, buying or deleting" : RULE_WORDS[r.rule];
  return r.source === "policy" ? `${words} · set by your organisation` : words;
}

/** The rule in force on a URL, for the tab list (act is shown as nothing). */
export function ruleBadge(url: string): HTMLElement | undefined {
  const r = ruleFor(url, rules, policy);
  if (r.rule === "act" && r.source !== "policy") return undefined;
  const s = document.createElement("span");
  s.className = "rule";
  s.dataset.rule = r.rule;
  if (r.source === "policy") s.dataset.managed = "true";
  s.textContent = ` · ${ruleLabel(r)}`;
  return s;
}

/** Loads the rules and policy; onChange re-renders the tab list. */
export function installRules(showError: (e: unknown) => void, onChange: () => void): void {
  const siteBox = $<HTMLElement>("#site-rule");
  const siteHost = $<HTMLElement>("#site-rule-host");
  const siteSelect = $<HTMLSelectElement>("#site-rule-select");
  const siteNote = $<HTMLElement>("#site-rule-note");
  const managedNote = $<HTMLElement>("#managed");
  const approvalsBox = $<HTMLElement>("#approvals");
  const approvalList = $<HTMLOListElement>("#approval-list");
  /** The pattern the control edits: the person's rule in force, else the site's host. */
  let currentPattern = "";

  async function load(): Promise<void> {
    const [local, managed] = await Promise.all([
      chrome.storage.local.get(KEY_SITE_RULES),
      chrome.storage.managed.get(null).catch(() => ({})), // no managed storage in this browser: no policy
    ]);
    rules = normalizeRules(local[KEY_SITE_RULES]);
    policy = normalizePolicy(managed);
  }

  async function renderSite(): Promise<void> {
    // The person's current tab; when the popup itself was opened as a tab, the web tab they used last.
    let [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
    if (!hostOf(tab?.url ?? "")) {
      const web = (await chrome.tabs.query({ windowType: "normal" })).filter((t) => hostOf(t.url ?? "") !== undefined);
      web.sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
      tab = web[0] ?? tab;
    }
    const url = tab?.url ?? "";
    const h = hostOf(url);
    siteBox.hidden = !h;
    if (!h) return;
    const r = ruleFor(url, rules, policy);
    currentPattern = r.source === "person" ? r.pattern : h.host;
    siteHost.textContent = currentPattern;
    const value = r.rule === "ask" ? `ask-${r.scope}` : r.rule;
    siteSelect.value = value;
    siteSelect.disabled = r.source === "policy";
    siteNote.textContent = r.source === "policy" ? "Set by your organisation." : "";
  }

  function renderManaged(): void {
    // The person's switches the organisation forbids: off, and not the person's to switch.
    for (const [id, cap] of [["#allow-evaluate", "evaluate"], ["#use-debugger", "debugger"]] as const) {
      const box = document.querySelector<HTMLInputElement>(id);
      if (!box) continue;
      const off = forbids(policy, cap);
      box.disabled = off;
      if (off) box.checked = false;
      const label = box.closest("label");
      if (label) label.dataset.managed = off ? "true" : "false";
      label?.querySelector(".managed-note")?.remove();
      if (off && label) {
        const n = document.createElement("span");
        n.className = "managed-note";
        n.textContent = " (off: set by your organisation)";
        label.append(n);
      }
    }
    const lines: string[] = [];
    if (policy?.blockedSites?.length) lines.push(`never: ${policy.blockedSites.join(", ")}`);
    if (policy?.readOnlySites?.length) lines.push(`read only: ${policy.readOnlySites.join(", ")}`);
    if (policy?.askSites?.length) lines.push(`ask before acting: ${policy.askSites.join(", ")}`);
    const off = CAPABILITIES.filter((c) => forbids(policy, c)).map((c) => CAPABILITY_WORDS[c]);
    if (off.length) lines.push(`not allowed: ${off.join("; ")}`);
    if (policy?.allowedApps?.length) lines.push(`AI apps allowed: ${policy.allowedApps.join(", ")}`);
    managedNote.hidden = lines.length === 0;
    managedNote.textContent = lines.length === 0 ? "" : `Set by your organisation — ${lines.join(" · ")}`;
  }

  async function renderApprovals(): Promise<void> {
    const [session, local] = await Promise.all([chrome.storage.session.get(KEY_APPROVALS), chrome.storage.local.get(KEY_SHARES)]);
    const shares = normalizeShares(local[KEY_SHARES]);
    const list = normalizeApprovals(session[KEY_APPROVALS]);
    approvalList.replaceChildren(
      ...list.map((a) => {
        const li = document.createElement("li");
        li.dataset.approvalId = a.id;
        const q = document.createElement("span");
        q.className = "msg";
        q.textContent = approvalQuestion(a, shares[String(a.tabId)]);
        const row = answerRow<ApprovalAnswer>(
          [
            ["allow", "Allow", "allow"],
            ["allow10", "Allow for 10 minutes", "allow10"],
            ["deny", "Deny", "deny"],
          ],
          (answer) => toBg({ to: "bg", kind: "approval-answer", id: a.id, answer }),
          showError,
        );
        li.append(q, row);
        return li;
      }),
    );
    approvalsBox.hidden = list.length === 0;
  }

  siteSelect.addEventListener("change", () => {
    const v = siteSelect.value;
    const rule = (v.startsWith("ask-") ? "ask" : v) as SiteRule;
    const scope = v === "ask-risky" ? "risky" : "each";
    void (async () => {
      const got = await chrome.storage.local.get(KEY_SITE_RULES);
      const next = withRule(normalizeRules(got[KEY_SITE_RULES]), currentPattern, rule === "act" ? undefined : rule, scope);
      await chrome.storage.local.set({ [KEY_SITE_RULES]: next });
    })().catch(showError);
  });

  const all = () =>
    load()
      .then(() => {
        renderManaged();
        onChange();
        return renderSite();
      })
      .catch(showError);
  chrome.storage.onChanged.addListener((changes, area) => {
    if ((area === "local" && changes[KEY_SITE_RULES]) || area === "managed") void all();
    if ((area === "session" && changes[KEY_APPROVALS]) || (area === "local" && changes[KEY_SHARES])) void renderApprovals().catch(showError);
  });
  chrome.tabs.onActivated.addListener(() => void renderSite().catch(showError));
  chrome.tabs.onUpdated.addListener((_id, change) => {
    if (change.url !== undefined) void renderSite().catch(showError);
  });
  void all();
  void renderApprovals().catch(showError);
}
