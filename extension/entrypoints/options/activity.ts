// The options page's Activity section (issue 28): every entry of this
// profile's activity log, newest first, with Export (a JSON file saved by
// the browser) and Clear. Self-contained: it reads and writes storage only.

import { KEY_ACTIVITY, describeEntry, normalizeLog, type ActivityEntry } from "../../lib/activity";

const body = document.querySelector("#activity-table tbody") as HTMLTableSectionElement;
const count = document.querySelector("#activity-count") as HTMLSpanElement;

let entries: ActivityEntry[] = [];

function cell(text: string, title?: string): HTMLTableCellElement {
  const td = document.createElement("td");
  td.textContent = text;
  if (title) td.title = title;
  return td;
}

async function render(): Promise<void> {
  const got = await chrome.storage.local.get(KEY_ACTIVITY);
  entries = normalizeLog(got[KEY_ACTIVITY]);
  count.textContent = entries.length === 1 ? "1 entry" : `${entries.length} entries`;
  body.replaceChildren(
    ...entries
      .slice()
      .reverse()
      .map((e) => {
        const tr = document.createElement("tr");
        tr.dataset.outcome = e.outcome;
        // describeEntry starts with the app; the table has its own column.
        const what = describeEntry({ ...e, slot: undefined }).slice(e.app.length + 1).replace(/ — \w+$/, "");
        tr.append(
          cell(new Date(e.at).toLocaleString()),
          cell(e.app),
          cell(what, e.detail),
          cell(e.slot !== undefined ? `${e.slot}` : "", e.url),
          cell(e.outcome),
        );
        return tr;
      }),
  );
}

(document.querySelector("#activity-export") as HTMLButtonElement).addEventListener("click", () => {
  // The organisation's policy may forbid the export (issue 44; rules.ts disables the button too).
  if ((document.querySelector("#activity-export") as HTMLButtonElement).disabled) return;
  const blob = new Blob([JSON.stringify(entries, null, 2)], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `monkbrowse-activity-${new Date().toISOString().slice(0, 19).replace(/:/g, "-")}.json`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
});

(document.querySelector("#activity-clear") as HTMLButtonElement).addEventListener("click", () => {
  void chrome.storage.local.set({ [KEY_ACTIVITY]: [] });
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes[KEY_ACTIVITY]) void render();
});
void render();
