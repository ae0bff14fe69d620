// Options: the profile label and the server port, saved into `settings`
// (the service worker reconnects as soon as they change), and the section
// "For this Chrome profile": the person's grants in `consent`, each saved as
// soon as its switch changes.

import { showDiagnostics } from "./diagnostics";
import { KEY_CONSENT, KEY_SETTINGS, normalizeConsent, normalizeSettings, parseLabel, parsePort, saveSwitch } from "../../lib/storage";

const form = document.querySelector("#form") as HTMLFormElement;
const labelInput = document.querySelector("#label") as HTMLInputElement;
const portInput = document.querySelector("#port") as HTMLInputElement;
const message = document.querySelector("#message") as HTMLParagraphElement;

function say(text: string, kind: "ok" | "error"): void {
  message.textContent = text;
  message.className = kind;
}

async function load(): Promise<void> {
  const got = await chrome.storage.local.get(KEY_SETTINGS);
  const s = normalizeSettings(got[KEY_SETTINGS]);
  labelInput.value = s.label;
  portInput.value = String(s.port);
}

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const port = parsePort(portInput.value);
  if ("error" in port) {
    portInput.setAttribute("aria-invalid", "true");
    say(port.error, "error");
    portInput.focus();
    return;
  }
  portInput.removeAttribute("aria-invalid");
  const label = parseLabel(labelInput.value);
  if ("error" in label) {
    say(label.error, "error");
    labelInput.focus();
    return;
  }
  chrome.storage.local.set({ [KEY_SETTINGS]: { port: port.port, label: label.label } }).then(
    () => say("Saved. Reconnecting…", "ok"),
    (e: unknown) => say(`Could not save: ${String(e)}`, "error"),
  );
});

const allowEvaluate = document.querySelector("#allow-evaluate") as HTMLInputElement;
const consentMessage = document.querySelector("#consent-message") as HTMLParagraphElement;

const useDebugger = document.querySelector("#use-debugger") as HTMLInputElement;
const secretsInShots = document.querySelector("#secrets-in-shots") as HTMLInputElement;

async function loadConsent(): Promise<void> {
  const got = await chrome.storage.local.get(KEY_CONSENT);
  const c = normalizeConsent(got[KEY_CONSENT]);
  allowEvaluate.checked = c.evaluate;
  useDebugger.checked = c.debugger;
  secretsInShots.checked = c.secretsInShots;
}

// What the page says once a switch is saved: [switched on, switched off].
const savedText = {
  debugger: [
    "monkbrowse may now attach Chrome's debugger to a shared tab while it works there.",
    "monkbrowse no longer uses Chrome's debugger (detached from every tab).",
  ],
  evaluate: ["The AI may now run JavaScript in your shared tabs.", "The AI can no longer run JavaScript in your tabs."],
  secretsInShots: [
    "Screenshots now show password, code and card fields as the page draws them.",
    "Screenshots paint over password, code and card fields again.",
  ],
} as const;

for (const [box, name] of [[useDebugger, "debugger"], [allowEvaluate, "evaluate"], [secretsInShots, "secretsInShots"]] as const) {
  box.addEventListener("change", () => {
    const on = box.checked;
    saveSwitch(name, on).then(
      () => {
        consentMessage.textContent = savedText[name][on ? 0 : 1];
      },
      (e: unknown) => {
        consentMessage.textContent = `Could not save: ${String(e)}`;
        void loadConsent();
      },
    );
  });
}

// The popup can switch it too: follow changes made there.
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes[KEY_CONSENT]) {
    const c = normalizeConsent(changes[KEY_CONSENT].newValue);
    allowEvaluate.checked = c.evaluate;
    useDebugger.checked = c.debugger;
    secretsInShots.checked = c.secretsInShots;
  }
});

void load();
void loadConsent();
showDiagnostics();
