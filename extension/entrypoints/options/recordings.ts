// The options page's Recordings section (issue 42): the person's recordings
// (chrome.storage.local KEY_RECORDINGS) listed with their name, description,
// site, parameters and steps in words; renamed, edited (drop a step, make a
// step's value a parameter, rename a parameter) and deleted here. Every
// change reads the stored list again, applies one edit (lib/recordings.ts,
// lib/recorder.ts) and writes it back.

import type { Recording } from "../../lib/protocol.gen";
import { deleteRecording, KEY_RECORDINGS, normalizeRecordings, renameRecording } from "../../lib/recordings";
import { dropStep, markParam, renameParam, stepInWords } from "../../lib/recorder";
import { toPlaywrightTest } from "../../lib/recording-export";

const list = document.querySelector("#recording-list") as HTMLOListElement;
const empty = document.querySelector("#recordings-empty") as HTMLParagraphElement;
const message = document.querySelector("#recordings-message") as HTMLParagraphElement;

function say(text: string, kind: "ok" | "error"): void {
  message.textContent = text;
  message.className = kind;
}

async function load(): Promise<Recording[]> {
  return normalizeRecordings((await chrome.storage.local.get(KEY_RECORDINGS))[KEY_RECORDINGS]);
}

/** Applies one edit to the stored list: a new list, or an error sentence shown to the person. */
async function edit(fn: (recs: Recording[]) => Recording[] | string, done: string): Promise<void> {
  const out = fn(await load());
  if (typeof out === "string") return say(out, "error");
  await chrome.storage.local.set({ [KEY_RECORDINGS]: out });
  say(done, "ok");
}

/** One recording of the list edited by fn (an error sentence passes through). */
function inRecording(name: string, fn: (r: Recording) => Recording | string): (recs: Recording[]) => Recording[] | string {
  return (recs) => {
    const r = recs.find((x) => x.name === name);
    if (!r) return `There is no recording named "${name}" any more.`;
    const next = fn(r);
    if (typeof next === "string") return next;
    return recs.map((x) => (x.name === name ? next : x));
  };
}

function button(text: string, cls: string, label: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = cls;
  b.textContent = text;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", () => {
    onClick();
  });
  return b;
}

const fail = (e: unknown) => say(e instanceof Error ? e.message : String(e), "error");

/** An inline "new name" field with its button (no prompt(): a page's dialogs are the AI's to answer in shared tabs). */
function renamer(current: string, label: string, cls: string, apply: (to: string) => void): HTMLElement {
  const span = document.createElement("span");
  const input = document.createElement("input");
  input.className = `${cls}-input`;
  input.value = current;
  input.setAttribute("aria-label", label);
  span.append(input, button("Rename", cls, label, () => apply(input.value)));
  return span;
}

/** A file name for the recording's test: its name's letters and digits, then .spec.ts. */
export function testFileName(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return `${base || "recording"}.spec.ts`;
}

/** Saves the recording's Playwright test as a file (the browser's own download of a blob: nothing leaves the machine). */
function downloadTest(r: Recording): void {
  const url = URL.createObjectURL(new Blob([toPlaywrightTest(r)], { type: "text/plain" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = testFileName(r.name);
  document.body.append(a);
  a.click();
  a.remove();
  // The download has read the blob by then; a minute is plenty.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  say(`Downloaded ${a.download}: run it with npx playwright test; set the secrets' environment variables first.`, "ok");
}

function render(recs: Recording[]): void {
  empty.hidden = recs.length > 0;
  list.replaceChildren(
    ...recs.map((r) => {
      const li = document.createElement("li");
      li.dataset.name = r.name;
      const head = document.createElement("div");
      head.className = "rec-head";
      const name = document.createElement("span");
      name.className = "rec-name";
      name.textContent = r.name;
      const site = document.createElement("span");
      site.className = "rec-site help";
      site.textContent = r.site;
      head.append(
        name,
        site,
        renamer(r.name, `New name for recording "${r.name}"`, "rec-rename", (to) => void edit((recs) => renameRecording(recs, r.name, to), `Renamed to "${to.trim()}".`).catch(fail)),
        button("Delete", "rec-delete", `Delete recording "${r.name}"`, () => {
          void edit((recs) => deleteRecording(recs, r.name), `Deleted "${r.name}".`).catch(fail);
        }),
      );
      // The recording as a Playwright test (lib/recording-export.ts): secrets read from the environment.
      head.append(button("Download as Playwright test", "rec-download", `Download "${r.name}" as a Playwright test`, () => downloadTest(r)));
      li.append(head);
      if (r.description) {
        const d = document.createElement("p");
        d.className = "rec-description";
        d.textContent = r.description;
        li.append(d);
      }
      const params = document.createElement("div");
      params.className = "rec-params";
      for (const p of r.params ?? []) {
        const row = document.createElement("div");
        row.dataset.param = p.name;
        const what = p.secret ? "a secret you enter when it runs" : `e.g. "${p.example ?? ""}"`;
        row.append(
          renamer(p.name, `New name for parameter "${p.name}" of "${r.name}"`, "param-rename", (to) => {
            void edit(inRecording(r.name, (x) => renameParam(x, p.name, to)), `Parameter "${p.name}" is now "${to.trim()}".`).catch(fail);
          }),
          document.createTextNode(` ${what}`),
        );
        params.append(row);
      }
      li.append(params);
      const steps = document.createElement("ol");
      steps.className = "rec-steps";
      r.steps.forEach((s, i) => {
        const step = document.createElement("li");
        step.append(document.createTextNode(stepInWords(s)));
        if (s.value !== undefined && s.param === undefined && !s.secret && (s.action === "type" || s.action === "select")) {
          step.append(
            button("Make it a parameter", "step-param", `Make the value of step ${i + 1} a parameter`, () => {
              void edit(inRecording(r.name, (x) => markParam(x, i)), `Step ${i + 1}'s value is a parameter now.`).catch(fail);
            }),
          );
        }
        step.append(
          button("Drop", "step-drop", `Drop step ${i + 1} of "${r.name}"`, () => {
            void edit(inRecording(r.name, (x) => dropStep(x, i)), `Dropped step ${i + 1}.`).catch(fail);
          }),
        );
        steps.append(step);
      });
      li.append(steps);
      return li;
    }),
  );
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes[KEY_RECORDINGS]) render(normalizeRecordings(changes[KEY_RECORDINGS].newValue));
});
load().then(render, fail);
