// The popup: connection state, this profile's label and slug, and every tab
// of every normal window with a Share toggle and its number. It reads
// storage directly and asks the service worker to change shares (so slot
// numbers are handed out in one place). Opening popup.html in a tab works
// the same.

import { toBg } from "../../lib/messages";
import { errorText } from "../../lib/peer";
import {
  KEY_CONSENT,
  KEY_IDENTITY,
  KEY_SETTINGS,
  KEY_SHARES,
  KEY_STATUS,
  normalizeConsent,
  normalizeSettings,
  normalizeShares,
  normalizeStatus,
  saveSwitch,
  CONSENT_DEBUGGER_CANCELLED,
  type Shares,
} from "../../lib/storage";
import { describeStatus, describeIdentity } from "../../lib/popup-text";
import { installSteer } from "./steer";
import { installAsks } from "./asks";
import { installRecording, recordButton } from "./recording";
import { installSiteAsks } from "./sitetools";
import { installRules, managedOff, ruleBadge } from "./rules";
import { KEY_PAUSE, KEY_TAB_APPS, normalizePause, normalizeTabApps } from "../../lib/activity";

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;
const list = $<HTMLUListElement>("#tabs");
const statusEl = $<HTMLParagraphElement>("#status");
const identityEl = $<HTMLParagraphElement>("#identity");
const errorEl = $<HTMLParagraphElement>("#error");

function showError(e: unknown): void {
  errorEl.textContent = errorText(e);
  errorEl.hidden = false;
}

async function renderHeader(): Promise<void> {
  const got = await chrome.storage.local.get([KEY_STATUS, KEY_SETTINGS, KEY_IDENTITY]);
  const settings = normalizeSettings(got[KEY_SETTINGS]);
  const status = got[KEY_STATUS] === undefined ? undefined : normalizeStatus(got[KEY_STATUS], settings.port);
  const d = describeStatus(status, settings.port);
  statusEl.dataset.state = d.state;
  statusEl.replaceChildren(document.createTextNode(d.headline));
  if (d.reason) {
    const span = document.createElement("span");
    span.className = "reason";
    span.textContent = d.reason;
    statusEl.append(span);
  }
  identityEl.textContent = describeIdentity(got[KEY_IDENTITY], settings);
}

function faviconFor(t: chrome.tabs.Tab): HTMLElement {
  const u = t.favIconUrl ?? "";
  if (/^(https?|data):/i.test(u)) {
    const img = document.createElement("img");
    img.src = u;
    img.alt = "";
    img.width = 16;
    img.height = 16;
    img.addEventListener("error", () => img.replaceWith(placeholder()));
    return img;
  }
  return placeholder();
}

function placeholder(): HTMLElement {
  const s = document.createElement("span");
  s.className = "nofavicon";
  s.setAttribute("aria-hidden", "true");
  return s;
}

let rendering = false;
let again = false;

async function renderTabs(): Promise<void> {
  // Coalesce bursts of tab events into one render at a time.
  if (rendering) {
    again = true;
    return;
  }
  rendering = true;
  try {
    do {
      again = false;
      const [tabs, got] = await Promise.all([
        chrome.tabs.query({ windowType: "normal" }),
        chrome.storage.local.get([KEY_SHARES, KEY_TAB_APPS, KEY_PAUSE]),
      ]);
      const tabApps = normalizeTabApps(got[KEY_TAB_APPS]);
      const pausedTabs = new Set(normalizePause(got[KEY_PAUSE]).tabs ?? []);
      const shares: Shares = normalizeShares(got[KEY_SHARES]);
      tabs.sort((a, b) => a.windowId - b.windowId || a.index - b.index);
      const focused = document.activeElement instanceof HTMLInputElement ? document.activeElement.closest("li")?.dataset.tabId : undefined;
      const items: HTMLLIElement[] = [];
      let lastWindow: number | undefined;
      for (const t of tabs) {
        if (t.id === undefined) continue;
        const id = t.id;
        const li = document.createElement("li");
        li.dataset.tabId = String(id);
        if (t.active) li.classList.add("active");
        if (lastWindow !== undefined && t.windowId !== lastWindow) li.classList.add("window-break");
        lastWindow = t.windowId;
        const label = document.createElement("label");
        const box = document.createElement("input");
        box.type = "checkbox";
        box.className = "share";
        const title = t.title || t.url || t.pendingUrl || "Untitled tab";
        box.setAttribute("aria-label", `Share ${title}`);
        const slot = shares[String(id)];
        box.checked = slot !== undefined;
        box.addEventListener("change", () => {
          errorEl.hidden = true;
          toBg({ to: "bg", kind: "share", tabId: id, shared: box.checked }).catch((e: unknown) => {
            showError(e);
            void renderTabs();
          });
        });
        const titleEl = document.createElement("span");
        titleEl.className = "title";
        titleEl.textContent = title;
        titleEl.title = t.url ?? "";
        // Which AI app acted in this shared tab last (issue 28).
        const last = slot !== undefined ? tabApps[String(id)]?.lastApp : undefined;
        if (last) {
          const by = document.createElement("span");
          by.className = "by";
          by.textContent = ` · ${last}`;
          titleEl.append(by);
        }
        // The site rule in force on a shared tab (issue 44).
        const rule = slot !== undefined ? ruleBadge(t.url ?? "") : undefined;
        if (rule) titleEl.append(rule);
        const slotEl = document.createElement("span");
        slotEl.className = "slot";
        slotEl.textContent = slot === undefined ? "" : String(slot);
        label.append(box, faviconFor(t), titleEl, slotEl);
        li.append(label);
        // A shared tab's own Pause (issue 28): the AI may not act in it until Resume.
        if (slot !== undefined) {
          const paused = pausedTabs.has(id);
          if (paused) li.dataset.paused = "true";
          const pause = document.createElement("button");
          pause.type = "button";
          pause.className = "tab-pause";
          pause.textContent = paused ? "Resume" : "Pause";
          pause.setAttribute("aria-label", `${paused ? "Resume" : "Pause"} the AI in tab ${slot}`);
          pause.title = paused ? "The AI is paused in this tab: let it act here again" : "Pause the AI in this tab only";
          pause.addEventListener("click", () => {
            errorEl.hidden = true;
            pause.disabled = true;
            toBg({ to: "bg", kind: "pause", tabId: id, paused: !paused }).catch((e: unknown) => {
              showError(e);
              void renderTabs();
            });
          });
          li.append(pause, recordButton(id, slot, showError));
        }
        items.push(li);
      }
      list.replaceChildren(...items);
      if (focused) list.querySelector<HTMLInputElement>(`li[data-tab-id="${focused}"] input.share`)?.focus();
    } while (again);
  } finally {
    rendering = false;
  }
}

$<HTMLButtonElement>("#share-all").addEventListener("click", () => {
  errorEl.hidden = true;
  toBg({ to: "bg", kind: "share-all" }).catch(showError);
});
$<HTMLButtonElement>("#open-options").addEventListener("click", () => {
  void chrome.runtime.openOptionsPage();
});

// "For this Chrome profile" (options page): shown and switchable here too.
const allowEvaluate = $<HTMLInputElement>("#allow-evaluate");
const useDebugger = $<HTMLInputElement>("#use-debugger");
const debuggerCancelled = $<HTMLParagraphElement>("#debugger-cancelled");
async function renderConsent(): Promise<void> {
  const got = await chrome.storage.local.get(KEY_CONSENT);
  const c = normalizeConsent(got[KEY_CONSENT]);
  allowEvaluate.checked = c.evaluate && !managedOff("evaluate");
  useDebugger.checked = c.debugger && !managedOff("debugger");
  // The person pressed Cancel on Chrome's debugging bar (background/debugger.ts).
  const raw = got[KEY_CONSENT] as Record<string, unknown> | undefined;
  debuggerCancelled.hidden = c.debugger || typeof raw?.[CONSENT_DEBUGGER_CANCELLED] !== "number";
}
for (const [box, name] of [[useDebugger, "debugger"], [allowEvaluate, "evaluate"]] as const) {
  box.addEventListener("change", () => {
    errorEl.hidden = true;
    saveSwitch(name, box.checked).catch((e: unknown) => {
      showError(e);
      void renderConsent();
    });
  });
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local") return;
  if (changes[KEY_CONSENT]) void renderConsent();
  if (changes[KEY_SHARES] || changes[KEY_TAB_APPS] || changes[KEY_PAUSE]) void renderTabs();
  if (changes[KEY_STATUS] || changes[KEY_SETTINGS] || changes[KEY_IDENTITY]) void renderHeader();
});
const rerender = () => void renderTabs();
chrome.tabs.onCreated.addListener(rerender);
chrome.tabs.onRemoved.addListener(rerender);
chrome.tabs.onMoved.addListener(rerender);
chrome.tabs.onAttached.addListener(rerender);
chrome.tabs.onActivated.addListener(rerender);
chrome.tabs.onUpdated.addListener((_id, change) => {
  if (change.title !== undefined || change.url !== undefined || change.favIconUrl !== undefined) rerender();
});

installSteer(showError);
installAsks(showError);
installRecording(showError, rerender);
installSiteAsks(showError);
installRules(showError, () => void renderTabs().catch(showError));
void renderHeader().catch(showError);
void renderConsent().catch(showError);
void renderTabs().catch(showError);
