// The popup's Stop/Resume and latest activity (issue 28): the pause and the
// activity log are read from storage (background/steer.ts writes them);
// Stop and Resume ask the service worker, which aborts the running calls.

import { KEY_ACTIVITY, KEY_PAUSE, describeEntry, normalizeLog, normalizePause, type ActivityEntry } from "../../lib/activity";
import { toBg } from "../../lib/messages";

/** How many entries the popup shows (the options page shows all). */
const SHOWN = 30;

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;

function clock(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** The apps of the log, most recent first, with when each acted last. */
export function recentApps(log: ActivityEntry[]): { app: string; at: number }[] {
  const seen = new Map<string, number>();
  for (const e of log) seen.set(e.app, Math.max(seen.get(e.app) ?? 0, e.at));
  return [...seen].map(([app, at]) => ({ app, at })).sort((a, b) => b.at - a.at);
}

export function installSteer(showError: (e: unknown) => void): void {
  const box = $<HTMLElement>("#steer");
  const state = $<HTMLParagraphElement>("#pause-state");
  const button = $<HTMLButtonElement>("#pause");
  const apps = $<HTMLParagraphElement>("#apps");
  const list = $<HTMLOListElement>("#activity-list");
  const empty = $<HTMLParagraphElement>("#activity-empty");
  const filter = $<HTMLSelectElement>("#activity-tab");
  let paused = false;

  async function renderPause(): Promise<void> {
    const got = await chrome.storage.local.get(KEY_PAUSE);
    paused = normalizePause(got[KEY_PAUSE]).paused;
    box.dataset.paused = String(paused);
    state.textContent = paused ? "The AI is paused in this profile." : "The AI may act in your shared tabs.";
    button.textContent = paused ? "Resume" : "Stop the AI";
  }

  async function renderActivity(): Promise<void> {
    const got = await chrome.storage.local.get(KEY_ACTIVITY);
    const log = normalizeLog(got[KEY_ACTIVITY]);
    const recent = recentApps(log).slice(0, 4);
    apps.textContent = recent.length === 0 ? "No AI app has acted in this profile yet." : `AI apps: ${recent.map((a) => `${a.app} (${clock(a.at)})`).join(", ")}`;
    // The tab filter: every tab number in the log.
    const slots = [...new Set(log.map((e) => e.slot).filter((s): s is number => s !== undefined))].sort((a, b) => a - b);
    const chosen = filter.value;
    filter.replaceChildren(new Option("all", ""), ...slots.map((s) => new Option(`tab ${s}`, String(s))));
    filter.value = slots.map(String).includes(chosen) ? chosen : "";
    const shown = log.filter((e) => filter.value === "" || String(e.slot) === filter.value).slice(-SHOWN).reverse();
    list.replaceChildren(
      ...shown.map((e) => {
        const li = document.createElement("li");
        li.dataset.outcome = e.outcome;
        const when = document.createElement("span");
        when.className = "when";
        when.textContent = clock(e.at);
        const what = document.createElement("span");
        what.className = "what";
        what.textContent = describeEntry(e);
        if (e.url) what.title = e.url;
        li.append(when, what);
        return li;
      }),
    );
    empty.hidden = shown.length > 0;
  }

  button.addEventListener("click", () => {
    button.disabled = true;
    toBg({ to: "bg", kind: "pause", paused: !paused })
      .catch(showError)
      .finally(() => {
        button.disabled = false;
      });
  });
  filter.addEventListener("change", () => void renderActivity().catch(showError));
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== "local") return;
    if (changes[KEY_PAUSE]) void renderPause().catch(showError);
    if (changes[KEY_ACTIVITY]) void renderActivity().catch(showError);
  });
  void renderPause().catch(showError);
  void renderActivity().catch(showError);
}
