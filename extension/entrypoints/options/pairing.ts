// Options, "Pair with a code": runs the one-time code exchange
// (lib/pairing-code.ts) with the monkbrowse on the saved port and keeps the
// secret it receives for that port (KEY_PAIRED); the service worker then
// reconnects with it.

import { pairWithCode } from "../../lib/pairing-code";
import { KEY_PAIRED, KEY_SETTINGS, normalizePaired, normalizeSettings } from "../../lib/storage";
import { openSocket } from "../../lib/websocket";

const form = document.querySelector("#pair-form") as HTMLFormElement;
const input = document.querySelector("#pair-code") as HTMLInputElement;
const button = document.querySelector("#pair-submit") as HTMLButtonElement;
const message = document.querySelector("#pair-message") as HTMLParagraphElement;

function say(text: string, kind: "ok" | "error" | ""): void {
  message.textContent = text;
  message.className = kind;
}

async function pair(): Promise<void> {
  const { port } = normalizeSettings((await chrome.storage.local.get(KEY_SETTINGS))[KEY_SETTINGS]);
  say(`Pairing with the monkbrowse on port ${port}…`, "");
  const got = await pairWithCode({ openSocket, extVersion: chrome.runtime.getManifest().version }, port, input.value);
  if ("error" in got) {
    input.setAttribute("aria-invalid", "true");
    say(got.error, "error");
    return;
  }
  const paired = normalizePaired((await chrome.storage.local.get(KEY_PAIRED))[KEY_PAIRED]);
  await chrome.storage.local.set({ [KEY_PAIRED]: { ...paired, [String(port)]: got.secret } });
  input.removeAttribute("aria-invalid");
  input.value = "";
  say(`Paired with the monkbrowse on port ${port}. Connecting…`, "ok");
}

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  button.disabled = true;
  pair()
    .catch((e: unknown) => say(`Could not pair: ${e instanceof Error ? e.message : String(e)}`, "error"))
    .finally(() => {
      button.disabled = false;
    });
});
