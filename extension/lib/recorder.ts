// The service worker's side of recording (issue 42): one recording at a time,
// in one shared tab. It lives here and in chrome.storage.session (key
// KEY_RECORDING), not in the page, so it goes on across the tab's navigations
// and survives the worker being stopped. The content script of every frame of
// the tab reports the person's trusted actions as steps (lib/page/recorder.ts);
// this file keeps them, coalesces typing into one step per field, drops what
// monkbrowse itself did, turns typed values into named parameters when the
// person stops, and stores the named recording through lib/recordings.ts.
//
// Chrome is behind RecorderPort (background/recording.ts), so the logic runs
// under unit tests with fakes.

import type { Recording, RecordingParam, Step, StepTarget } from "./protocol.gen";
import { normalizeRecordings, normalizeStep, putRecording } from "./recordings";
import { afterEither } from "./diag";

/** chrome.storage.session: the recording under way, or the stopped one waiting for its name. */
export const KEY_RECORDING = "recording";

/** The actions a page may report (navigations are the worker's own, from webNavigation). */
const PAGE_ACTIONS: ReadonlySet<string> = new Set(["click", "type", "select", "check", "uncheck", "press"]);
/** Navigations a person makes with the address bar (webNavigation transition types). */
const TYPED_TRANSITIONS: ReadonlySet<string> = new Set(["typed", "auto_bookmark"]);
const MAX_STEPS = 500;
const MAX_NAME = 120;
const MAX_DESCRIPTION = 2000;

/** The recording under way (stopped: false) or stopped and waiting for its name (the draft). */
export interface RecordingState {
  tabId: number;
  /** The origin where it started. */
  site: string;
  /** RFC 3339, when it started. */
  started: string;
  steps: Step[];
  stopped: boolean;
  /** Set once stopped: the parameters the typed values became. */
  params?: RecordingParam[];
}

export interface RecorderPort {
  /** The stored state (chrome.storage.session KEY_RECORDING), or undefined. */
  load(): Promise<unknown>;
  store(state: RecordingState | undefined): Promise<void>;
  /** Tells every frame's content script of the tab to listen (or stop listening) for steps; never fails (a closed tab's pages stop with it). */
  listen(tabId: number, on: boolean): Promise<void>;
  /** The tab's toolbar badge says it is recording. */
  badge(tabId: number, on: boolean): Promise<void>;
  /** Whether monkbrowse was acting in the tab at time at (its own input, trusted in the debugger mode, is not the person's). */
  acting(tabId: number, at: number): boolean;
  /** The person's recordings (chrome.storage.local KEY_RECORDINGS) and writing them back. */
  loadRecordings(): Promise<unknown>;
  storeRecordings(list: Recording[]): Promise<void>;
  now(): Date;
}

function parseState(v: unknown): RecordingState | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.tabId !== "number" || !Array.isArray(o.steps)) return undefined;
  const steps = o.steps.map(normalizeStep).filter((s): s is Step => s !== undefined);
  const st: RecordingState = {
    tabId: o.tabId,
    site: typeof o.site === "string" ? o.site : "",
    started: typeof o.started === "string" ? o.started : "",
    steps,
    stopped: o.stopped === true,
  };
  if (Array.isArray(o.params)) st.params = o.params as RecordingParam[];
  return st;
}

/** Whether two targets name the same element (the same role, name, ordinal, nearby text and frame). */
export function sameTarget(a: StepTarget | undefined, b: StepTarget | undefined): boolean {
  if (!a || !b) return false;
  return a.role === b.role && a.name === b.name && (a.nth ?? 0) === (b.nth ?? 0) && a.near === b.near && a.frame === b.frame;
}

/**
 * steps with step added: typing into the field typed into last replaces that
 * step (one type step per field, with its final value); choosing an option
 * drops the clicks and the filter typing on the same field that led to it.
 */
export function addStep(steps: Step[], step: Step): Step[] {
  const last = steps[steps.length - 1];
  if (step.action === "type" && last?.action === "type" && sameTarget(last.target, step.target)) {
    return [...steps.slice(0, -1), step];
  }
  // The same choice twice in a row (an option's pointerup, then its click) is one step.
  if (step.action === "select" && last?.action === "select" && last.value === step.value && sameTarget(last.target, step.target)) return steps;
  let out = steps;
  if (step.action === "select") {
    let i = out.length;
    while (i > 0 && (out[i - 1]?.action === "click" || out[i - 1]?.action === "type") && sameTarget(out[i - 1]?.target, step.target)) i--;
    out = out.slice(0, i);
  }
  if (out.length >= MAX_STEPS) return out;
  return [...out, step];
}

/** A parameter's name from a field's label: lower-case words joined by "_", unique among taken. */
export function paramName(label: string | undefined, taken: ReadonlySet<string>, fallback = "text"): string {
  const words = (label ?? "")
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .split(" ")
    .filter((w) => w !== "")
    .slice(0, 4);
  const base = (words.join("_") || fallback).slice(0, 40);
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}_${i}`)) return `${base}_${i}`;
}

/**
 * The steps with each typed value made a named parameter (its example the
 * value typed) and each secret step a secret parameter with no example.
 */
export function withParams(steps: Step[]): { steps: Step[]; params: RecordingParam[] } {
  const taken = new Set<string>();
  const params: RecordingParam[] = [];
  const out = steps.map((s): Step => {
    if (s.action !== "type" || s.param !== undefined) return s;
    if (s.secret) {
      const name = paramName(s.target?.name, taken, "secret");
      taken.add(name);
      params.push({ name, secret: true });
      const rest: Step = { action: s.action, param: name, secret: true };
      if (s.target) rest.target = s.target;
      return rest;
    }
    if (s.value === undefined) return s;
    const name = paramName(s.target?.name, taken);
    taken.add(name);
    params.push({ name, example: s.value });
    const { value: _value, ...rest } = s;
    return { ...rest, param: name };
  });
  return { steps: out, params };
}

/** The origin of url, or "" when it has none. */
function originOf(url: string): string {
  try {
    const o = new URL(url).origin;
    return o === "null" ? "" : o;
  } catch {
    return "";
  }
}

/** url without its fragment (a navigate step's address). */
function withoutHash(url: string): string {
  const i = url.indexOf("#");
  return i < 0 ? url : url.slice(0, i);
}

/** A frame's address as a step's target names it: its origin and path. */
export function frameAddress(url: string | undefined): string {
  if (!url) return "";
  try {
    const u = new URL(url);
    return u.origin === "null" ? u.protocol : u.origin + u.pathname;
  } catch {
    return "";
  }
}

/**
 * One recording at a time. Every change goes through one chain, so steps
 * reported in a burst are kept in the order they came.
 */
export class Recorder {
  private chain: Promise<unknown> = Promise.resolve();
  private cache: RecordingState | undefined | null = null; // null: not loaded yet

  constructor(private readonly port: RecorderPort) {}

  private run<T>(fn: () => Promise<T>): Promise<T> {
    const r = this.chain.then(fn);
    this.chain = afterEither(r);
    return r;
  }

  private async state(): Promise<RecordingState | undefined> {
    if (this.cache === null) this.cache = parseState(await this.port.load());
    return this.cache;
  }

  private async save(st: RecordingState | undefined): Promise<void> {
    this.cache = st;
    await this.port.store(st);
  }

  /** The recording under way or waiting for its name. */
  current(): Promise<RecordingState | undefined> {
    return this.run(() => this.state());
  }

  /** The tab being recorded now (undefined when none is). */
  async recordingTab(): Promise<number | undefined> {
    const st = await this.current();
    return st && !st.stopped ? st.tabId : undefined;
  }

  /** Starts recording tabId, which shows url. Refused while another recording is under way or unnamed. */
  start(tabId: number, url: string): Promise<RecordingState> {
    return this.run(async () => {
      const st = await this.state();
      if (st && !st.stopped) throw new Error(st.tabId === tabId ? "This tab is being recorded already." : "Another tab is being recorded: stop that recording first.");
      if (st && st.stopped) throw new Error("The last recording has no name yet: save it or discard it first.");
      const next: RecordingState = { tabId, site: originOf(url), started: this.port.now().toISOString(), steps: [], stopped: false };
      // Where it began is its first step: a run starts from the same page.
      const start = withoutHash(url);
      if (/^https?:/i.test(start)) next.steps.push({ action: "navigate", value: start });
      await this.save(next);
      // The pages listen before the badge says so: once it shows, every action counts.
      await this.port.listen(tabId, true);
      await this.port.badge(tabId, true);
      return next;
    });
  }

  /**
   * A step a content script of tabId reported (frame: its document's
   * address, "" for the top frame; at: the event's time). Kept only while
   * that tab records and monkbrowse was not acting in it then.
   */
  step(tabId: number, frame: string, raw: unknown, at: number): Promise<boolean> {
    return this.run(async () => {
      const st = await this.state();
      if (!st || st.stopped || st.tabId !== tabId) return false;
      if (typeof at !== "number" || !Number.isFinite(at) || this.port.acting(tabId, at)) return false;
      const step = normalizeStep(raw);
      if (!step || !PAGE_ACTIONS.has(step.action)) return false;
      // Never a reference from the page: refs are the AI's.
      delete step.param;
      if (step.target) {
        delete step.target.ref;
        // The frame is the sender's, whatever the page said.
        if (frame) step.target.frame = frame;
        else delete step.target.frame;
      }
      if (step.action === "type" && step.secret) delete step.value;
      await this.save({ ...st, steps: addStep(st.steps, step) });
      return true;
    });
  }

  /** A top-frame navigation of tabId committed: the badge again, and an address the person typed is a navigate step. */
  committed(d: { tabId: number; frameId: number; url: string; timeStamp: number; transitionType?: string }): Promise<boolean> {
    return this.run(async () => {
      const st = await this.state();
      if (!st || st.stopped || st.tabId !== d.tabId || d.frameId !== 0) return false;
      // Chrome resets a tab's own badge when its top frame navigates: it says "REC" again.
      await this.port.badge(d.tabId, true);
      if (!TYPED_TRANSITIONS.has(d.transitionType ?? "") || this.port.acting(d.tabId, d.timeStamp)) return false;
      if (!/^https?:/i.test(d.url)) return false;
      await this.save({ ...st, steps: addStep(st.steps, { action: "navigate", value: withoutHash(d.url) }) });
      return true;
    });
  }

  /** A new document of the recording tab (or a frame of it) listens too. */
  async documentCommitted(tabId: number): Promise<boolean> {
    return (await this.recordingTab()) === tabId;
  }

  /** Stops the recording: its typed values become parameters; it waits for its name. */
  stop(): Promise<RecordingState | undefined> {
    return this.run(async () => {
      const st = await this.state();
      if (!st || st.stopped) return st;
      const { steps, params } = withParams(st.steps);
      const next: RecordingState = { ...st, steps, params, stopped: true };
      await this.save(next);
      await this.port.badge(st.tabId, false);
      await this.port.listen(st.tabId, false);
      return next;
    });
  }

  /**
   * Names the stopped recording and keeps it among the person's recordings.
   * renames: new names for its parameters. An error sentence when it cannot.
   */
  saveAs(name: string, description: string, renames: Record<string, string> = {}): Promise<Recording | string> {
    return this.run(async () => {
      const st = await this.state();
      if (!st || !st.stopped) return "There is no stopped recording to save: record one first.";
      const n = name.trim().slice(0, MAX_NAME);
      if (n === "") return "A recording needs a name.";
      const list = normalizeRecordings(await this.port.loadRecordings());
      if (list.some((r) => r.name === n)) return `A recording named "${n}" already exists: choose another name.`;
      let rec: Recording = { name: n, site: st.site, created: st.started, steps: st.steps };
      const d = description.trim().slice(0, MAX_DESCRIPTION);
      if (d !== "") rec.description = d;
      if (st.params && st.params.length > 0) rec.params = st.params;
      for (const [from, to] of Object.entries(renames)) {
        if (from === to || to.trim() === "") continue;
        const r = renameParam(rec, from, to);
        if (typeof r === "string") return r;
        rec = r;
      }
      if (rec.steps.length === 0) return "The recording has no steps: nothing to save.";
      await this.port.storeRecordings(putRecording(list, rec));
      await this.save(undefined);
      return rec;
    });
  }

  /** Forgets the recording (under way or stopped) without saving it. */
  discard(): Promise<void> {
    return this.run(async () => {
      const st = await this.state();
      if (!st) return;
      await this.save(undefined);
      if (!st.stopped) {
        await this.port.badge(st.tabId, false);
        await this.port.listen(st.tabId, false);
      }
    });
  }

  /** The recording tab closed or was unshared: the recording stops there, kept for its name. */
  async tabGone(tabId: number): Promise<void> {
    if ((await this.recordingTab()) === tabId) await this.stop();
  }
}

const PARAM_NAME = /^[\p{L}\p{N}_]{1,40}$/u;

/** The recording with parameter from renamed to to (in its steps and "{{from}}" in values), or an error sentence. */
export function renameParam(rec: Recording, from: string, to: string): Recording | string {
  const name = to.trim();
  if (!PARAM_NAME.test(name)) return `"${to}" cannot name a parameter: use letters, digits and "_" (at most 40).`;
  const params = rec.params ?? [];
  if (!params.some((p) => p.name === from)) return `The recording has no parameter "${from}".`;
  if (name === from) return rec;
  if (params.some((p) => p.name === name)) return `The recording has a parameter "${name}" already.`;
  return {
    ...rec,
    params: params.map((p) => (p.name === from ? { ...p, name } : p)),
    steps: rec.steps.map((s) => {
      let out = s;
      if (s.param === from) out = { ...out, param: name };
      if (s.value?.includes(`{{${from}}}`)) out = { ...out, value: s.value.split(`{{${from}}}`).join(`{{${name}}}`) };
      return out;
    }),
  };
}

/** The recording without step index, and without the parameters no step uses any more. */
export function dropStep(rec: Recording, index: number): Recording | string {
  if (!Number.isInteger(index) || index < 0 || index >= rec.steps.length) return "There is no such step.";
  if (rec.steps.length === 1) return "A recording keeps at least one step: delete the recording instead.";
  const steps = rec.steps.filter((_, i) => i !== index);
  const used = new Set<string>();
  for (const s of steps) {
    if (s.param) used.add(s.param);
    for (const m of (s.value ?? "").matchAll(/\{\{([^}]+)\}\}/g)) if (m[1]) used.add(m[1]);
  }
  const params = (rec.params ?? []).filter((p) => used.has(p.name));
  const out: Recording = { ...rec, steps };
  if (params.length > 0) out.params = params;
  else delete out.params;
  return out;
}

/** The recording with step index's value made a parameter (named from its target), or an error sentence. */
export function markParam(rec: Recording, index: number, name?: string): Recording | string {
  const s = rec.steps[index];
  if (!s) return "There is no such step.";
  if (s.param !== undefined) return "This step's value is a parameter already.";
  if (s.secret || s.value === undefined || s.value === "") return "This step has no value to make a parameter.";
  if (s.action === "navigate" || s.action === "press") return "Only a typed or chosen value can be a parameter.";
  const params = rec.params ?? [];
  const taken = new Set(params.map((p) => p.name));
  const n = name?.trim() ? name.trim() : paramName(s.target?.name, taken);
  if (!PARAM_NAME.test(n)) return `"${n}" cannot name a parameter: use letters, digits and "_" (at most 40).`;
  if (taken.has(n)) return `The recording has a parameter "${n}" already.`;
  const { value, ...rest } = s;
  const steps = rec.steps.map((x, i) => (i === index ? { ...rest, param: n } : x));
  return { ...rec, steps, params: [...params, { name: n, example: value }] };
}

/** A step in words, for the popup and the options page: `Type {{email}} into textbox "Email"`. */
export function stepInWords(s: Step): string {
  const t = s.target;
  let what = "";
  if (t) {
    what = [t.role, t.name !== undefined ? `"${t.name}"` : ""].filter((x) => x).join(" ");
    if (t.nth) what += ` (#${t.nth + 1})`;
    if (t.near) what += ` near "${t.near}"`;
    if (t.frame) what += ` in frame ${t.frame}`;
  }
  const val = s.param !== undefined ? `{{${s.param}}}` : s.value !== undefined ? `"${s.value}"` : "";
  switch (s.action) {
    case "navigate":
      return `Go to ${s.value ?? ""}`;
    case "type":
      return s.secret ? `You enter a secret${s.param ? ` (${s.param})` : ""} into ${what}` : `Type ${val} into ${what}`;
    case "select":
      return `Choose ${val} in ${what}`;
    case "check":
      return `Check ${what}`;
    case "uncheck":
      return `Uncheck ${what}`;
    case "press":
      return what ? `Press ${s.value ?? ""} in ${what}` : `Press ${s.value ?? ""}`;
    case "click":
      return `Click ${what}`;
    default:
      return `${s.action} ${what} ${val}`.trim();
  }
}
