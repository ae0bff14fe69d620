// The popup's part of recording (issue 42): Record on a shared tab's row,
// Stop, then the stopped recording's name, description and parameter names
// before it is saved. The recording itself lives in the service worker
// (lib/recorder.ts); this page reads it from chrome.storage.session and asks
// the worker to change it.

import { toBg } from "../../lib/messages";
import { KEY_RECORDING, stepInWords, type RecordingState } from "../../lib/recorder";

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;

let state: RecordingState | undefined;

function parse(v: unknown): RecordingState | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as RecordingState;
  return typeof o.tabId === "number" && Array.isArray(o.steps) ? o : undefined;
}

/** The Record (or Stop recording) button of a shared tab's row. */
export function recordButton(tabId: number, slot: number, showError: (e: unknown) => void): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "tab-record";
  const here = state !== undefined && !state.stopped && state.tabId === tabId;
  b.textContent = here ? "Stop recording" : "Record";
  b.dataset.recording = here ? "true" : "false";
  b.setAttribute("aria-label", here ? `Stop recording tab ${slot}` : `Record what you do in tab ${slot}`);
  b.title = here ? "Stop, then name the recording" : "Record what you do in this tab, so the AI can do it again";
  // One recording at a time: the others wait until it is saved or discarded.
  b.disabled = state !== undefined && !here;
  b.addEventListener("click", () => {
    b.disabled = true;
    const msg = here ? toBg({ to: "bg", kind: "record-stop" }) : toBg({ to: "bg", kind: "record-start", tabId });
    msg.catch(showError);
  });
  return b;
}

function render(): void {
  const section = $<HTMLElement>("#recording");
  const live = $<HTMLElement>("#recording-live");
  const form = $<HTMLFormElement>("#recording-form");
  section.hidden = state === undefined;
  if (!state) return;
  live.hidden = state.stopped;
  form.hidden = !state.stopped;
  const steps = state.steps.filter((s) => s.action !== "navigate" || state?.steps[0] !== s);
  // What is recorded, in words, as it comes: the person sees what the AI will repeat.
  const list = $<HTMLOListElement>(state.stopped ? "#recording-steps" : "#recording-live-steps");
  if (!state.stopped) {
    $<HTMLElement>("#recording-count").textContent = `Recording: ${steps.length} step${steps.length === 1 ? "" : "s"} so far. Do the task in the tab as usual.`;
  }
  list.replaceChildren(
    ...state.steps.map((s) => {
      const li = document.createElement("li");
      li.textContent = stepInWords(s);
      return li;
    }),
  );
  if (!state.stopped) return;
  const params = $<HTMLElement>("#recording-params");
  const shown = [...params.querySelectorAll<HTMLInputElement>("input.param-name")].map((i) => i.dataset.param).join("\u0000");
  const want = (state.params ?? []).filter((p) => !p.secret);
  if (shown !== want.map((p) => p.name).join("\u0000")) {
    params.replaceChildren(
      ...want.map((p) => {
        const label = document.createElement("label");
        const input = document.createElement("input");
        input.className = "param-name";
        input.dataset.param = p.name;
        input.value = p.name;
        input.setAttribute("aria-label", `Name of the value "${p.example ?? ""}"`);
        label.append(input, document.createTextNode(` (you typed "${p.example ?? ""}")`));
        return label;
      }),
    );
  }
}

/** The #recording section: live count and Stop, then the save form. */
export function installRecording(showError: (e: unknown) => void, rerenderTabs: () => void): void {
  const message = $<HTMLElement>("#recording-message");
  const load = async () => {
    state = parse((await chrome.storage.session.get(KEY_RECORDING))[KEY_RECORDING]);
    render();
    rerenderTabs();
  };
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === "session" && changes[KEY_RECORDING]) void load().catch(showError);
  });
  $<HTMLButtonElement>("#recording-stop").addEventListener("click", () => {
    toBg({ to: "bg", kind: "record-stop" }).catch(showError);
  });
  $<HTMLButtonElement>("#recording-discard").addEventListener("click", () => {
    toBg({ to: "bg", kind: "record-discard" }).catch(showError);
  });
  $<HTMLFormElement>("#recording-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    message.hidden = true;
    const renames: Record<string, string> = {};
    for (const i of document.querySelectorAll<HTMLInputElement>("#recording-params input.param-name")) {
      if (i.dataset.param && i.value.trim() !== i.dataset.param) renames[i.dataset.param] = i.value.trim();
    }
    const name = $<HTMLInputElement>("#recording-name").value;
    const description = $<HTMLTextAreaElement>("#recording-description").value;
    toBg({ to: "bg", kind: "record-save", name, description, renames }).then(
      (r) => {
        message.textContent = `Saved "${r.name}". The AI apps you share a tab with can run it; see it in Options.`;
        message.className = "ok";
        message.hidden = false;
        $<HTMLInputElement>("#recording-name").value = "";
        $<HTMLTextAreaElement>("#recording-description").value = "";
      },
      (e: unknown) => {
        message.textContent = e instanceof Error ? e.message : String(e);
        message.className = "error";
        message.hidden = false;
      },
    );
  });
  void load().catch(showError);
}
