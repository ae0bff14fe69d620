// Options: the profile label and the server port, saved into `settings`.
// The service worker reconnects as soon as they change.

import { KEY_SETTINGS, normalizeSettings, parseLabel, parsePort } from "../../lib/storage";

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

void load();
