// The welcome page: opened once when the extension is installed (see the
// service worker) and linked from the popup. It explains sharing and the
// choices, and shows the live connection state.

import { KEY_SETTINGS, KEY_STATUS, normalizeSettings, normalizeStatus } from "../../lib/storage";
import { describeStatus } from "../../lib/popup-text";

const statusEl = document.querySelector("#status") as HTMLSpanElement;

async function showStatus(): Promise<void> {
  const got = await chrome.storage.local.get([KEY_STATUS, KEY_SETTINGS]);
  const settings = normalizeSettings(got[KEY_SETTINGS]);
  const status = got[KEY_STATUS] === undefined ? undefined : normalizeStatus(got[KEY_STATUS], settings.port);
  const d = describeStatus(status, settings.port);
  statusEl.textContent = d.reason ? `${d.headline} (${d.reason})` : d.headline;
  statusEl.dataset.state = d.state;
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && (KEY_STATUS in changes || KEY_SETTINGS in changes)) void showStatus();
});
void showStatus();

document.querySelector("#open-options")?.addEventListener("click", (e) => {
  e.preventDefault();
  void chrome.runtime.openOptionsPage();
});
