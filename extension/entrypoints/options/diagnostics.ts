// The options page's Diagnostics section: the service worker's diagnostics
// log (lib/diag.ts, chrome.storage.session), newest first, kept up to date,
// with Copy (the log as text) and Clear.

import { DIAG_KEY, formatDiag, type DiagEntry } from "../../lib/diag";

function entriesOf(v: unknown): DiagEntry[] {
  return Array.isArray(v) ? (v as DiagEntry[]) : [];
}

export function showDiagnostics(): void {
  const list = document.querySelector("#diag-list") as HTMLPreElement;
  const copy = document.querySelector("#diag-copy") as HTMLButtonElement;
  const clear = document.querySelector("#diag-clear") as HTMLButtonElement;
  const message = document.querySelector("#diag-message") as HTMLSpanElement;
  let shown: DiagEntry[] = [];

  const render = (entries: DiagEntry[]) => {
    shown = entries.slice().reverse();
    list.textContent = shown.length ? formatDiag(shown) : "Nothing has failed since the browser started.";
    copy.disabled = clear.disabled = shown.length === 0;
  };
  const say = (text: string) => {
    message.textContent = text;
  };

  chrome.storage.session.get(DIAG_KEY).then(
    (got) => render(entriesOf(got[DIAG_KEY])),
    (e: unknown) => say(`Could not read the diagnostics: ${String(e)}`),
  );
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === "session" && changes[DIAG_KEY]) render(entriesOf(changes[DIAG_KEY].newValue));
  });
  copy.addEventListener("click", () => {
    navigator.clipboard.writeText(formatDiag(shown)).then(
      () => say(`Copied ${shown.length} entries.`),
      (e: unknown) => say(`Could not copy: ${String(e)}`),
    );
  });
  clear.addEventListener("click", () => {
    chrome.storage.session.set({ [DIAG_KEY]: [] }).then(
      () => say("Cleared."),
      (e: unknown) => say(`Could not clear: ${String(e)}`),
    );
  });
}
